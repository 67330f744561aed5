/*
 * mpi_kuramoto_chimera: nonlocally coupled phase oscillators on a ring
 * (Abrams-Strogatz chimera setup) split over MPI ranks.  The dense coupling
 * kernel is computed once, stored with a collective subarray write and read
 * back for the run.  Phases are saved every step (collective write_at_all),
 * local order parameters through a strided file view with independent
 * writes.  Afterwards the phase history is re-read (independent read_at) to
 * compute the global order parameter and mean phase velocities, and a text
 * profile is written with MPI_File_write_ordered.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define N_OSC      2048
#define N_STEPS    150
#define DT         0.025
#define KAPPA      4.0
#define ALPHA      (M_PI / 2.0 - 0.1)
#define ORDER_HALF 16
#define TEXT_LINE  64

static int rank, nranks, nloc, off0;

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void build_kernel_block(double *G)
{
    double norm = 0.0;
    for (int j = 0; j < N_OSC; j++) {
        double x = 2.0 * M_PI * (j <= N_OSC / 2 ? j : N_OSC - j) / N_OSC;
        norm += exp(-KAPPA * x);
    }
    for (int i = 0; i < nloc; i++) {
        int gi = off0 + i;
        for (int j = 0; j < N_OSC; j++) {
            int d = abs(gi - j);
            if (d > N_OSC / 2) d = N_OSC - d;
            G[(size_t)i * N_OSC + j] = exp(-KAPPA * 2.0 * M_PI * d / N_OSC) / norm;
        }
    }
}

static void store_kernel(const char *path, const double *G)
{
    MPI_File fh;
    MPI_Datatype ft;
    int gsize[2] = {N_OSC, N_OSC}, lsize[2] = {nloc, N_OSC}, start[2] = {off0, 0};
    MPI_Type_create_subarray(2, gsize, lsize, start, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
          "open kernel");
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    check(MPI_File_write_all(fh, G, nloc * N_OSC, MPI_DOUBLE, MPI_STATUS_IGNORE), "write kernel");
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
}

static void load_kernel(const char *path, double *G)
{
    MPI_File fh;
    MPI_Datatype ft;
    int gsize[2] = {N_OSC, N_OSC}, lsize[2] = {nloc, N_OSC}, start[2] = {off0, 0};
    MPI_Type_create_subarray(2, gsize, lsize, start, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open kernel");
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    check(MPI_File_read_all(fh, G, nloc * N_OSC, MPI_DOUBLE, MPI_STATUS_IGNORE), "read kernel");
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
}

static void init_phases(double *theta)
{
    unsigned long long s = 0x2545F4914F6CDD1DULL;
    for (int j = 0; j < N_OSC; j++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        double r = (double)(s >> 11) * 0x1.0p-53 - 0.5;
        double x = -M_PI + 2.0 * M_PI * j / N_OSC;
        theta[j] = 6.0 * r * exp(-0.76 * x * x);
    }
}

/* dtheta_i = omega - sum_j G_ij sin(theta_i - theta_j + alpha) for the local rows */
static void phase_rates(const double *G, const double *theta, double *rate, double *sn, double *cs)
{
    for (int j = 0; j < N_OSC; j++) {
        sn[j] = sin(theta[j]);
        cs[j] = cos(theta[j]);
    }
    for (int i = 0; i < nloc; i++) {
        const double *g = G + (size_t)i * N_OSC;
        double gs = 0.0, gc = 0.0;
        for (int j = 0; j < N_OSC; j++) {
            gs += g[j] * sn[j];
            gc += g[j] * cs[j];
        }
        double ti = theta[off0 + i] + ALPHA;
        rate[i] = -(sin(ti) * gc - cos(ti) * gs);
    }
}

static void heun_step(const double *G, double *theta, double *work)
{
    double *k1 = work, *k2 = work + nloc, *sn = work + 2 * nloc, *cs = sn + N_OSC;
    double *pred = cs + N_OSC, *loc = pred + N_OSC;
    phase_rates(G, theta, k1, sn, cs);
    for (int i = 0; i < nloc; i++) loc[i] = theta[off0 + i] + DT * k1[i];
    MPI_Allgather(loc, nloc, MPI_DOUBLE, pred, nloc, MPI_DOUBLE, MPI_COMM_WORLD);
    phase_rates(G, pred, k2, sn, cs);
    for (int i = 0; i < nloc; i++) loc[i] = theta[off0 + i] + 0.5 * DT * (k1[i] + k2[i]);
    MPI_Allgather(loc, nloc, MPI_DOUBLE, theta, nloc, MPI_DOUBLE, MPI_COMM_WORLD);
}

static void local_order(const double *theta, double *z)
{
    for (int i = 0; i < nloc; i++) {
        double re = 0.0, im = 0.0;
        for (int d = -ORDER_HALF; d <= ORDER_HALF; d++) {
            int j = (off0 + i + d + N_OSC) % N_OSC;
            re += cos(theta[j]);
            im += sin(theta[j]);
        }
        z[i] = sqrt(re * re + im * im) / (2 * ORDER_HALF + 1);
    }
}

static void save_step(MPI_File fph, MPI_File ford, int step, const double *theta, const double *z)
{
    MPI_Offset off = ((MPI_Offset)step * N_OSC + off0) * (MPI_Offset)sizeof(double);
    check(MPI_File_write_at_all(fph, off, theta + off0, nloc, MPI_DOUBLE, MPI_STATUS_IGNORE),
          "write phases");
    check(MPI_File_write(ford, z, nloc, MPI_DOUBLE, MPI_STATUS_IGNORE), "write order");
}

/* Re-read the phase history: rank r analyses steps r, r+nranks, ... for R(t),
 * and every rank accumulates unwrapped phase advance for its own oscillators. */
static void analyze_history(const char *path, double *Rt, double *omega_loc)
{
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open phases");
    double *row = malloc(N_OSC * sizeof *row), *prev = malloc(nloc * sizeof *prev);
    for (int s = 0; s <= N_STEPS; s++) Rt[s] = 0.0;
    for (int i = 0; i < nloc; i++) omega_loc[i] = 0.0;
    for (int s = rank; s <= N_STEPS; s += nranks) {
        MPI_File_read_at(fh, (MPI_Offset)s * N_OSC * sizeof(double), row, N_OSC, MPI_DOUBLE,
                         MPI_STATUS_IGNORE);
        double re = 0.0, im = 0.0;
        for (int j = 0; j < N_OSC; j++) { re += cos(row[j]); im += sin(row[j]); }
        Rt[s] = sqrt(re * re + im * im) / N_OSC;
    }
    for (int s = 0; s <= N_STEPS; s++) {
        MPI_File_read_at(fh, ((MPI_Offset)s * N_OSC + off0) * sizeof(double), row, nloc,
                         MPI_DOUBLE, MPI_STATUS_IGNORE);
        if (s > 0)
            for (int i = 0; i < nloc; i++) omega_loc[i] += row[i] - prev[i];
        memcpy(prev, row, nloc * sizeof *prev);
    }
    for (int i = 0; i < nloc; i++) omega_loc[i] /= N_STEPS * DT;
    MPI_Allreduce(MPI_IN_PLACE, Rt, N_STEPS + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_File_close(&fh);
    free(row); free(prev);
}

static void write_profile(const char *path, const double *omega_loc, const double *Rt)
{
    char *txt = malloc((size_t)(nloc + 8) * TEXT_LINE);
    size_t len = 0;
    if (rank == 0) {
        double mean = 0.0;
        for (int s = N_STEPS / 2; s <= N_STEPS; s++) mean += Rt[s];
        mean /= N_STEPS - N_STEPS / 2 + 1;
        len += (size_t)snprintf(txt + len, TEXT_LINE, "# N=%d steps=%d <R>=%.6f\n", N_OSC, N_STEPS, mean);
        len += (size_t)snprintf(txt + len, TEXT_LINE, "# index x mean_phase_velocity\n");
    }
    for (int i = 0; i < nloc; i++) {
        double x = -M_PI + 2.0 * M_PI * (off0 + i) / N_OSC;
        len += (size_t)snprintf(txt + len, TEXT_LINE, "%6d %10.6f %14.8f\n", off0 + i, x, omega_loc[i]);
    }
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
          "open profile");
    MPI_File_set_size(fh, 0);
    check(MPI_File_write_ordered(fh, txt, (int)len, MPI_CHAR, MPI_STATUS_IGNORE), "write_ordered");
    MPI_File_close(&fh);
    free(txt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2 || N_OSC % nranks != 0) {
        if (rank == 0) fprintf(stderr, "usage: %s scratch_dir\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    nloc = N_OSC / nranks;
    off0 = rank * nloc;
    char kpath[4096], ppath[4096], opath[4096], tpath[4096];
    snprintf(kpath, sizeof kpath, "%s/kernel.bin", argv[1]);
    snprintf(ppath, sizeof ppath, "%s/phases.bin", argv[1]);
    snprintf(opath, sizeof opath, "%s/local_order.bin", argv[1]);
    snprintf(tpath, sizeof tpath, "%s/velocity_profile.txt", argv[1]);

    double *G = malloc((size_t)nloc * N_OSC * sizeof *G);
    build_kernel_block(G);
    store_kernel(kpath, G);
    memset(G, 0, (size_t)nloc * N_OSC * sizeof *G);
    load_kernel(kpath, G);

    double *theta = malloc(N_OSC * sizeof *theta);
    double *work = malloc((size_t)(4 * nloc + 3 * N_OSC) * sizeof *work);
    double *z = malloc(nloc * sizeof *z);
    init_phases(theta);

    MPI_File fph, ford;
    MPI_Datatype ordtype;
    MPI_Type_vector(N_STEPS + 1, nloc, N_OSC, MPI_DOUBLE, &ordtype);
    MPI_Type_commit(&ordtype);
    check(MPI_File_open(MPI_COMM_WORLD, ppath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fph),
          "open phases");
    check(MPI_File_open(MPI_COMM_WORLD, opath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &ford),
          "open order");
    MPI_File_set_view(ford, (MPI_Offset)off0 * sizeof(double), MPI_DOUBLE, ordtype, "native",
                      MPI_INFO_NULL);
    local_order(theta, z);
    save_step(fph, ford, 0, theta, z);
    for (int step = 1; step <= N_STEPS; step++) {
        heun_step(G, theta, work);
        local_order(theta, z);
        save_step(fph, ford, step, theta, z);
    }
    MPI_File_close(&fph);
    MPI_File_close(&ford);
    MPI_Type_free(&ordtype);

    double *Rt = malloc((N_STEPS + 1) * sizeof *Rt), *omega = malloc(nloc * sizeof *omega);
    analyze_history(ppath, Rt, omega);
    write_profile(tpath, omega, Rt);
    if (rank == 0)
        printf("oscillators %d ranks %d R(0)=%.4f R(end)=%.4f\n", N_OSC, nranks, Rt[0], Rt[N_STEPS]);
    free(G); free(theta); free(work); free(z); free(Rt); free(omega);
    MPI_Finalize();
    return 0;
}
