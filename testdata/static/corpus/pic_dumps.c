/*
 * 1-D electrostatic particle-in-cell (two-stream instability), particles split
 * over the MPI ranks, charge density combined with MPI_Allreduce.
 * Every DUMP_EVERY steps each rank stores its particles as one fixed-size
 * record in its own file (file-per-process), using pwrite at offset
 * record_index * record_size.  At the end rank 0 reads every record of every
 * rank's file back with pread and checks it against checksums gathered
 * during the run.
 */
#include <mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NGRID       512
#define NPART       150000      /* particles per rank */
#define NSTEPS      240
#define DUMP_EVERY  12
#define NDUMPS      (NSTEPS / DUMP_EVERY)
#define BOX_LEN     (2.0 * M_PI / 0.5)
#define DT          0.1
#define DUMP_MAGIC  0x50494344554d5031ULL

typedef struct {
    uint64_t magic;
    int32_t  rank;
    int32_t  step;
    int64_t  npart;
    double   time;
    double   field_energy;
    double   kinetic_energy;
} dump_header;

typedef struct {
    int      rank, nranks;
    int64_t  np;
    double  *x, *v;
    double   rho[NGRID], efield[NGRID];
    double   dx, qm, weight;
} pic_state;

static uint64_t rng_state;

static double rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t fnv1a(uint64_t h, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t record_checksum(const dump_header *hdr, const double *x, const double *v, int64_t np)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv1a(h, hdr, sizeof *hdr);
    h = fnv1a(h, x, (size_t)np * sizeof(double));
    h = fnv1a(h, v, (size_t)np * sizeof(double));
    return h;
}

static void init_two_stream(pic_state *s)
{
    const double v0 = 1.0, vth = 0.05, amp = 0.01;
    rng_state = 0x9e3779b97f4a7c15ULL + 7919ULL * (uint64_t)(s->rank + 1);
    for (int64_t i = 0; i < s->np; i++) {
        double x0 = BOX_LEN * ((double)(i + s->rank * s->np) + 0.5) / (double)(s->np * s->nranks);
        x0 += amp * sin(2.0 * M_PI * x0 / BOX_LEN);
        x0 = fmod(x0 + BOX_LEN, BOX_LEN);
        double g = sqrt(-2.0 * log(rng_uniform() + 1e-300)) * cos(2.0 * M_PI * rng_uniform());
        s->x[i] = x0;
        s->v[i] = ((i & 1) ? v0 : -v0) + vth * g;
    }
}

static void deposit_charge(pic_state *s)
{
    double local[NGRID];
    memset(local, 0, sizeof local);
    for (int64_t i = 0; i < s->np; i++) {
        double xi = s->x[i] / s->dx;
        int j = (int)xi;
        double f = xi - j;
        if (j >= NGRID) { j -= NGRID; }
        int jp = (j + 1) % NGRID;
        local[j]  += (1.0 - f);
        local[jp] += f;
    }
    MPI_Allreduce(local, s->rho, NGRID, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int j = 0; j < NGRID; j++)
        s->rho[j] = 1.0 - s->rho[j] * s->weight / s->dx;   /* ion background minus electrons */
}

static double solve_field(pic_state *s)
{
    /* dE/dx = rho, E periodic with zero mean */
    double e = 0.0, mean = 0.0;
    s->efield[0] = 0.0;
    for (int j = 1; j < NGRID; j++) {
        e += 0.5 * (s->rho[j - 1] + s->rho[j]) * s->dx;
        s->efield[j] = e;
    }
    for (int j = 0; j < NGRID; j++) mean += s->efield[j];
    mean /= NGRID;
    double energy = 0.0;
    for (int j = 0; j < NGRID; j++) {
        s->efield[j] -= mean;
        energy += 0.5 * s->efield[j] * s->efield[j] * s->dx;
    }
    return energy;
}

static double push_particles(pic_state *s)
{
    double ke = 0.0;
    for (int64_t i = 0; i < s->np; i++) {
        double xi = s->x[i] / s->dx;
        int j = (int)xi;
        double f = xi - j;
        if (j >= NGRID) { j -= NGRID; }
        int jp = (j + 1) % NGRID;
        double ef = (1.0 - f) * s->efield[j] + f * s->efield[jp];
        double vold = s->v[i];
        s->v[i] += s->qm * ef * DT;
        ke += 0.5 * s->weight * vold * s->v[i];
        double xn = s->x[i] + s->v[i] * DT;
        if (xn < 0.0) xn += BOX_LEN;
        else if (xn >= BOX_LEN) xn -= BOX_LEN;
        s->x[i] = xn;
    }
    double tot;
    MPI_Allreduce(&ke, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return tot;
}

static size_t record_size(int64_t np)
{
    return sizeof(dump_header) + 2 * (size_t)np * sizeof(double);
}

static int pwrite_full(int fd, const void *buf, size_t n, off_t off)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w; n -= (size_t)w; off += w;
    }
    return 0;
}

static int pread_full(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) return -1;
        p += r; n -= (size_t)r; off += r;
    }
    return 0;
}

static uint64_t write_dump(int fd, const pic_state *s, int index, int step, double t,
                           double fe, double ke)
{
    dump_header hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.magic = DUMP_MAGIC;
    hdr.rank = s->rank;
    hdr.step = step;
    hdr.npart = s->np;
    hdr.time = t;
    hdr.field_energy = fe;
    hdr.kinetic_energy = ke;
    off_t base = (off_t)index * (off_t)record_size(s->np);
    size_t nb = (size_t)s->np * sizeof(double);
    if (pwrite_full(fd, &hdr, sizeof hdr, base) != 0 ||
        pwrite_full(fd, s->x, nb, base + (off_t)sizeof hdr) != 0 ||
        pwrite_full(fd, s->v, nb, base + (off_t)(sizeof hdr + nb)) != 0) {
        perror("pwrite dump");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return record_checksum(&hdr, s->x, s->v, s->np);
}

static int verify_dumps(const char *dir, int nranks, int64_t np, const uint64_t *sums)
{
    size_t nb = (size_t)np * sizeof(double);
    double *x = malloc(nb), *v = malloc(nb);
    int bad = 0;
    char path[4096];
    for (int r = 0; r < nranks; r++) {
        snprintf(path, sizeof path, "%s/pic_rank%03d.dump", dir, r);
        int fd = open(path, O_RDONLY);
        if (fd < 0) { perror(path); free(x); free(v); return 1; }
        for (int k = 0; k < NDUMPS; k++) {
            dump_header hdr;
            off_t base = (off_t)k * (off_t)record_size(np);
            if (pread_full(fd, &hdr, sizeof hdr, base) != 0 ||
                pread_full(fd, x, nb, base + (off_t)sizeof hdr) != 0 ||
                pread_full(fd, v, nb, base + (off_t)(sizeof hdr + nb)) != 0) {
                fprintf(stderr, "short read in %s record %d\n", path, k);
                bad++;
                continue;
            }
            if (hdr.magic != DUMP_MAGIC || hdr.rank != r || hdr.npart != np ||
                hdr.step != (k + 1) * DUMP_EVERY) {
                fprintf(stderr, "bad header in %s record %d\n", path, k);
                bad++;
                continue;
            }
            if (record_checksum(&hdr, x, v, np) != sums[(size_t)k * nranks + r]) {
                fprintf(stderr, "checksum mismatch in %s record %d\n", path, k);
                bad++;
            }
            for (int64_t i = 0; i < np; i++)
                if (!(x[i] >= 0.0 && x[i] < BOX_LEN)) { bad++; break; }
        }
        close(fd);
    }
    free(x);
    free(v);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pic_state s;
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.nranks);
    s.np = NPART;
    s.dx = BOX_LEN / NGRID;
    s.qm = -1.0;
    s.weight = BOX_LEN / (double)(s.np * s.nranks);
    s.x = malloc((size_t)s.np * sizeof(double));
    s.v = malloc((size_t)s.np * sizeof(double));
    if (!s.x || !s.v) MPI_Abort(MPI_COMM_WORLD, 1);

    init_two_stream(&s);

    char path[4096];
    snprintf(path, sizeof path, "%s/pic_rank%03d.dump", argv[1], s.rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }

    uint64_t my_sums[NDUMPS];
    uint64_t *all_sums = NULL;
    if (s.rank == 0) all_sums = malloc(sizeof(uint64_t) * NDUMPS * (size_t)s.nranks);

    double t = 0.0, fe0 = 0.0, fe_max = 0.0, ke = 0.0, fe = 0.0;
    for (int step = 1; step <= NSTEPS; step++) {
        deposit_charge(&s);
        fe = solve_field(&s);
        if (step == 1) fe0 = fe;
        if (fe > fe_max) fe_max = fe;
        ke = push_particles(&s);
        t += DT;
        if (step % DUMP_EVERY == 0) {
            int k = step / DUMP_EVERY - 1;
            my_sums[k] = write_dump(fd, &s, k, step, t, fe, ke);
            MPI_Gather(&my_sums[k], 1, MPI_UINT64_T,
                       s.rank == 0 ? all_sums + (size_t)k * s.nranks : NULL, 1,
                       MPI_UINT64_T, 0, MPI_COMM_WORLD);
        }
    }
    if (fsync(fd) != 0) perror("fsync");
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);

    int status = 0;
    if (s.rank == 0) {
        int bad = verify_dumps(argv[1], s.nranks, s.np, all_sums);
        printf("two-stream PIC: %d ranks x %lld particles, field energy %.3e -> max %.3e, KE %.4f\n",
               s.nranks, (long long)s.np, fe0, fe_max, ke);
        if (bad) {
            fprintf(stderr, "%d dump records failed verification\n", bad);
            status = 1;
        } else if (!(fe_max > 10.0 * fe0)) {
            fprintf(stderr, "instability did not grow\n");
            status = 1;
        } else {
            printf("all %d dump records verified\n", NDUMPS * s.nranks);
        }
        free(all_sums);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(s.x);
    free(s.v);
    MPI_Finalize();
    return status;
}
