/*
 * mpi_acoustic_shot_gathers.c
 *
 * Parallel 2-D acoustic finite-difference survey simulator with MPI-IO.
 * Shots are dealt round-robin to ranks; each rank propagates a Ricker source
 * through a layered velocity model with a second-order scheme and sponge
 * boundaries, recording a surface receiver line.  Shot gathers are written
 * collectively into one shared survey file through a strided vector file
 * view (one MPI_File_write_all per round), trace headers go in with
 * MPI_File_write_at_all at explicit offsets and rank 0 writes the global
 * header.  The survey is then re-read collectively as common-receiver
 * gathers through a 3-D subarray view, first-arrival times are picked per
 * trace and a picks table is written with MPI_File_write_ordered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <mpi.h>

#define NX 280
#define NZ 150
#define NT 1400
#define DX 10.0f
#define DT 0.0009f
#define NSHOT 20
#define NREC 200
#define SPONGE 20
#define HEADER_BYTES 512

typedef struct {
    int32_t shot, receiver, src_x, rec_x;
} trace_hdr_t;

typedef struct {
    float *vel2dt2; /* (v*dt/dx)^2 */
    float *damp;
    float *p0, *p1, *p2;
} model_t;

static void build_model(model_t *m)
{
    size_t n = (size_t)NX * NZ;
    m->vel2dt2 = malloc(n * sizeof(float));
    m->damp = malloc(n * sizeof(float));
    m->p0 = calloc(n, sizeof(float));
    m->p1 = calloc(n, sizeof(float));
    m->p2 = calloc(n, sizeof(float));
    for (int z = 0; z < NZ; z++) {
        for (int x = 0; x < NX; x++) {
            /* three layers with a dipping interface and a high-velocity lens */
            float v = 1500.0f;
            if (z > 30 + x / 12) v = 2200.0f;
            if (z > 80 - x / 20) v = 3000.0f;
            if ((x - 120) * (x - 120) + 4 * (z - 60) * (z - 60) < 300) v = 3600.0f;
            float c = v * DT / DX;
            m->vel2dt2[(size_t)z * NX + x] = c * c;
            int d = x < SPONGE ? SPONGE - x : (x >= NX - SPONGE ? x - (NX - SPONGE - 1) : 0);
            int dz = z >= NZ - SPONGE ? z - (NZ - SPONGE - 1) : 0;
            if (dz > d) d = dz;
            m->damp[(size_t)z * NX + x] = expf(-0.0035f * d * d);
        }
    }
}

static float ricker(int it, float f0)
{
    float t = it * DT - 1.2f / f0;
    float a = (float)(M_PI * M_PI) * f0 * f0 * t * t;
    return (1.0f - 2.0f * a) * expf(-a);
}

static int receiver_x(int r) { return SPONGE + (r * (NX - 2 * SPONGE - 1)) / (NREC - 1); }
static int source_x(int s) { return SPONGE + 5 + (s * (NX - 2 * SPONGE - 10)) / (NSHOT - 1); }

/* Propagate one shot; traces[r*NT + it] receives the pressure at receiver r. */
static void run_shot(model_t *m, int shot, float *traces)
{
    size_t n = (size_t)NX * NZ;
    memset(m->p0, 0, n * sizeof(float));
    memset(m->p1, 0, n * sizeof(float));
    int sx = source_x(shot), sz = 2;
    for (int it = 0; it < NT; it++) {
        for (int z = 1; z < NZ - 1; z++) {
            for (int x = 1; x < NX - 1; x++) {
                size_t k = (size_t)z * NX + x;
                float lap = m->p1[k - 1] + m->p1[k + 1] + m->p1[k - NX] + m->p1[k + NX] - 4.0f * m->p1[k];
                m->p2[k] = (2.0f * m->p1[k] - m->p0[k] + m->vel2dt2[k] * lap) * m->damp[k];
            }
        }
        m->p2[(size_t)sz * NX + sx] += ricker(it, 18.0f);
        for (int r = 0; r < NREC; r++) traces[(size_t)r * NT + it] = m->p2[(size_t)1 * NX + receiver_x(r)];
        float *t = m->p0; m->p0 = m->p1; m->p1 = m->p2; m->p2 = t;
    }
}

static MPI_Offset data_offset(void)
{
    return HEADER_BYTES + (MPI_Offset)NSHOT * NREC * sizeof(trace_hdr_t);
}

static void write_global_header(MPI_File fh, int rank)
{
    if (rank != 0) return;
    char hdr[HEADER_BYTES];
    memset(hdr, ' ', sizeof hdr);
    int len = snprintf(hdr, sizeof hdr,
                       "SURVEY acoustic2d nx=%d nz=%d dx=%.1f nt=%d dt=%.5f nshot=%d nrec=%d float32 shot-major\n",
                       NX, NZ, DX, NT, DT, NSHOT, NREC);
    hdr[len] = ' ';
    MPI_File_write_at(fh, 0, hdr, HEADER_BYTES, MPI_CHAR, MPI_STATUS_IGNORE);
}

static void write_trace_headers(MPI_File fh, int shot)
{
    trace_hdr_t th[NREC];
    int nrec = shot >= 0 ? NREC : 0;
    for (int r = 0; r < nrec; r++) {
        th[r].shot = shot; th[r].receiver = r;
        th[r].src_x = source_x(shot); th[r].rec_x = receiver_x(r);
    }
    MPI_Offset off = HEADER_BYTES + (MPI_Offset)(shot >= 0 ? shot : 0) * NREC * sizeof(trace_hdr_t);
    MPI_File_write_at_all(fh, off, th, nrec * (int)sizeof(trace_hdr_t), MPI_BYTE, MPI_STATUS_IGNORE);
}

/* Simulate this rank's shots and store them via a strided file view. */
static void simulate_survey(MPI_File fh, int rank, int nprocs, model_t *m, double *t_compute)
{
    const int gather = NREC * NT;
    int rounds = (NSHOT + nprocs - 1) / nprocs;
    int mine = 0;
    for (int s = rank; s < NSHOT; s += nprocs) mine++;
    MPI_Datatype ftype;
    MPI_Type_vector(mine > 0 ? mine : 1, gather, gather * nprocs, MPI_FLOAT, &ftype);
    MPI_Type_commit(&ftype);
    MPI_File_set_view(fh, data_offset() + (MPI_Offset)rank * gather * sizeof(float), MPI_FLOAT, ftype,
                      "native", MPI_INFO_NULL);
    float *traces = malloc((size_t)gather * sizeof(float));
    for (int round = 0; round < rounds; round++) {
        int shot = rank + round * nprocs;
        int have = shot < NSHOT;
        double t0 = MPI_Wtime();
        if (have) run_shot(m, shot, traces);
        *t_compute += MPI_Wtime() - t0;
        MPI_File_write_all(fh, traces, have ? gather : 0, MPI_FLOAT, MPI_STATUS_IGNORE);
        write_trace_headers(fh, have ? shot : -1);
    }
    free(traces);
    MPI_Type_free(&ftype);
}

/* First arrival: first sample whose |amplitude| exceeds a fraction of the trace max. */
static int pick_first_arrival(const float *tr, int n, float frac)
{
    float mx = 0;
    for (int i = 0; i < n; i++) if (fabsf(tr[i]) > mx) mx = fabsf(tr[i]);
    if (mx == 0) return -1;
    for (int i = 0; i < n; i++) if (fabsf(tr[i]) > frac * mx) return i;
    return -1;
}

/* Collective read of this rank's receiver range for all shots, then pick. */
static void receiver_gather_picks(MPI_File fh, MPI_File ph, int rank, int nprocs)
{
    int r0 = rank * NREC / nprocs, r1 = (rank + 1) * NREC / nprocs, nr = r1 - r0;
    int sizes[3] = { NSHOT, NREC, NT }, sub[3] = { NSHOT, nr, NT }, start[3] = { 0, r0, 0 };
    MPI_Datatype ftype;
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_FLOAT, &ftype);
    MPI_Type_commit(&ftype);
    MPI_File_set_view(fh, data_offset(), MPI_FLOAT, ftype, "native", MPI_INFO_NULL);
    size_t cnt = (size_t)NSHOT * nr * NT;
    float *buf = malloc(cnt * sizeof(float));
    MPI_File_read_all(fh, buf, (int)cnt, MPI_FLOAT, MPI_STATUS_IGNORE);
    MPI_Type_free(&ftype);

    size_t cap = (size_t)nr * NSHOT * 64 + 64, len = 0;
    char *text = malloc(cap);
    double misfit = 0;
    int npick = 0;
    for (int r = 0; r < nr; r++) {
        for (int s = 0; s < NSHOT; s++) {
            const float *tr = buf + ((size_t)s * nr + r) * NT;
            int ip = pick_first_arrival(tr, NT, 0.08f);
            double offset = fabs((double)(receiver_x(r0 + r) - source_x(s))) * DX;
            double t_direct = offset / 1500.0;
            double t_pick = ip >= 0 ? ip * DT : -1.0;
            if (ip >= 0) { misfit += fabs(t_pick - t_direct); npick++; }
            len += (size_t)snprintf(text + len, cap - len, "%4d %3d %8.1f %9.5f %9.5f\n",
                                    r0 + r, s, offset, t_pick, t_direct);
        }
    }
    MPI_File_write_ordered(ph, text, (int)len, MPI_CHAR, MPI_STATUS_IGNORE);
    double tot[2] = { misfit, npick }, g[2];
    MPI_Reduce(tot, g, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("picks %d mean |t_pick - t_direct| = %.5f s\n", (int)g[1], g[0] / g[1]);
    free(text);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char spath[1024], ppath[1024];
    snprintf(spath, sizeof spath, "%s/survey_gathers.bin", argv[1]);
    snprintf(ppath, sizeof ppath, "%s/first_arrival_picks.txt", argv[1]);

    model_t m;
    build_model(&m);
    MPI_File fh, ph;
    MPI_File_open(MPI_COMM_WORLD, spath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, 0);
    write_global_header(fh, rank);
    double tc = 0;
    simulate_survey(fh, rank, nprocs, &m, &tc);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File_open(MPI_COMM_WORLD, ppath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &ph);
    MPI_File_set_size(ph, 0);
    receiver_gather_picks(fh, ph, rank, nprocs);
    MPI_File_close(&ph);
    MPI_Offset fsize;
    MPI_File_get_size(fh, &fsize);
    MPI_File_close(&fh);
    double tmax;
    MPI_Reduce(&tc, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("survey file %lld bytes, max compute %.3f s\n", (long long)fsize, tmax);
    free(m.vel2dt2); free(m.damp); free(m.p0); free(m.p1); free(m.p2);
    MPI_Finalize();
    return 0;
}
