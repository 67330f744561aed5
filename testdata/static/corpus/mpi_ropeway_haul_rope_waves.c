/*
 * mpi_ropeway_haul_rope_waves.c
 *
 * Transverse vibration of the haul rope of a detachable gondola ropeway.
 * The rope loop (uphill and downhill strands laid end to end) is a damped
 * tensioned string pinned at the tower saddles; 64 cabins clamp onto it and
 * travel at line speed, loading it with their weight and with the reaction of
 * their pendulum swing driven by wind gusts.  The loop is split between MPI
 * ranks (halo exchange with MPI_Sendrecv).
 *
 * I/O (MPI-IO):
 *  - rope_field.bin:  header + every NOUT steps displacement and velocity of
 *    the whole loop, each rank writing its contiguous part with
 *    MPI_File_write_at_all at explicit offsets;
 *  - cabins.bin:      fixed slots per cabin and output step; the owner set
 *    changes as cabins move, so each rank builds an indexed-block file view
 *    per step (MPI_File_set_view) and writes with MPI_File_write_all;
 *  - events.log:      text lines (large swings, saddle passages) appended in
 *    rank order with MPI_File_write_ordered;
 *  - post-processing: snapshots are re-read round-robin by rank with
 *    MPI_File_read_at, projected on the span modes, and rank 0 writes a
 *    formatted span report with stdio.
 *
 * Usage: mpiexec -n 2 mpi_ropeway_haul_rope_waves OUTDIR
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define LOOP_M 3200.0      /* rope loop length */
#define NX 6400            /* grid points on the loop */
#define DX (LOOP_M / NX)
#define SPAN_PTS 400       /* tower every 200 m */
#define NSPAN (NX / SPAN_PTS)
#define NCAB 64
#define NSTEP 20000
#define DT 2.0e-3
#define NOUT 80
#define NSNAP (NSTEP / NOUT)
#define NMODE 24
#define TENSION 2.2e5      /* N */
#define MU 7.4             /* kg/m */
#define DAMP 2.0           /* N s/m^2 */
#define RAMP_S 4.0         /* cabin loads ramped in at start-up */
#define LINE_SPEED 6.0     /* m/s */
#define GRAV 9.81

typedef struct {
    double s;        /* position along the loop, m */
    double mass;     /* kg incl. passengers */
    double theta, omega; /* swing angle and rate */
    double hang;     /* pendulum length, m */
} cabin_t;

typedef struct {
    int32_t id, span;
    float s, w, theta, omega, load_kN, pad;
} cabin_rec;

typedef struct {
    char magic[8];
    int32_t nx, nsnap, nout, nranks;
    double dx, dt;
} field_header;

static int rank, nranks;
static MPI_Datatype cabin_type;

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "rank %d: %s: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void init_cabins(cabin_t *cab)
{
    uint64_t x = 0x0BADC0DEull;
    for (int c = 0; c < NCAB; c++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double r = (double)(x >> 11) / 9007199254740992.0;
        cab[c].s = c * (LOOP_M / NCAB) + 7.3;
        cab[c].mass = 780.0 + 8 * 80.0 * r; /* up to 8 passengers */
        cab[c].theta = 0;
        cab[c].omega = 0;
        cab[c].hang = 4.2;
    }
}

/* Gusty cross wind: travelling gust fronts, deterministic in (s, t). */
static double wind_force(double s, double t)
{
    double g = 0.0;
    for (int k = 1; k <= 4; k++)
        g += sin(2 * PI * (s / (380.0 * k) - t / (9.0 + 3.0 * k)) + k) / k;
    return 180.0 * (1.0 + 0.8 * g);
}

/* Cabin pendulum swing (semi-implicit Euler); returns vertical load on the rope. */
static void step_cabins(cabin_t *cab, double t, const double *acc_at_grip)
{
    for (int c = 0; c < NCAB; c++) {
        cabin_t *q = &cab[c];
        double w0 = sqrt(GRAV / q->hang);
        double f = wind_force(q->s, t) / (q->mass * q->hang);
        double alpha = -(GRAV + acc_at_grip[c]) / q->hang * sin(q->theta) - 2 * 0.04 * w0 * q->omega + f * cos(q->theta);
        q->omega += DT * alpha;
        q->theta += DT * q->omega;
        q->s = fmod(q->s + LINE_SPEED * DT, LOOP_M);
    }
}

/* Explicit update of the damped string on the local part, towers pinned. */
static void step_rope(double *w, double *wold, double *wnew, double *accel, int nloc, int i0, const cabin_t *cab,
                      double t)
{
    const double c2 = TENSION / MU * DT * DT / (DX * DX);
    const double dampf = DAMP * DT / (2 * MU);
    static double load[NX];
    memset(load, 0, sizeof(double) * (size_t)nloc);
    for (int c = 0; c < NCAB; c++) {
        double xs = cab[c].s / DX;
        int gi = (int)xs;
        double frac = xs - gi;
        int li = gi - i0;
        if (li < 0 || li >= nloc) continue;
        /* grip load shared linearly between the two neighbouring nodes */
        double fc = cab[c].mass * (GRAV * cos(cab[c].theta) + cab[c].hang * cab[c].omega * cab[c].omega);
        if (t < RAMP_S) fc *= 0.5 - 0.5 * cos(PI * t / RAMP_S);
        load[li] += (1 - frac) * fc / DX;
        if (li + 1 < nloc) load[li + 1] += frac * fc / DX;
    }
    /* w has one halo point at each end: w[0] and w[nloc+1] */
    for (int i = 1; i <= nloc; i++) {
        int gi = i0 + i - 1;
        if (gi % SPAN_PTS == 0) {
            wnew[i] = 0.0;
            continue;
        }
        double lap = w[i - 1] - 2 * w[i] + w[i + 1];
        wnew[i] = (2 * w[i] - (1 - dampf) * wold[i] + c2 * lap - DT * DT * load[i - 1] / MU) / (1 + dampf);
        accel[i - 1] = (wnew[i] - 2 * w[i] + wold[i]) / (DT * DT);
    }
}

static void exchange_halo(double *w, int nloc)
{
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
    check(MPI_Sendrecv(&w[1], 1, MPI_DOUBLE, left, 1, &w[nloc + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE), "halo");
    check(MPI_Sendrecv(&w[nloc], 1, MPI_DOUBLE, right, 2, &w[0], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE), "halo");
}

static void write_field_snapshot(MPI_File fh, int snap, const double *w, const double *wold, int nloc, int i0)
{
    static double buf[2 * NX];
    for (int i = 0; i < nloc; i++) {
        buf[i] = w[i + 1];
        buf[nloc + i] = (w[i + 1] - wold[i + 1]) / DT;
    }
    MPI_Offset base = (MPI_Offset)sizeof(field_header) + (MPI_Offset)snap * 2 * NX * sizeof(double);
    MPI_Offset off_w = base + (MPI_Offset)i0 * sizeof(double);
    MPI_Offset off_v = base + (MPI_Offset)(NX + i0) * sizeof(double);
    check(MPI_File_write_at_all(fh, off_w, buf, nloc, MPI_DOUBLE, MPI_STATUS_IGNORE), "write_at_all w");
    check(MPI_File_write_at_all(fh, off_v, buf + nloc, nloc, MPI_DOUBLE, MPI_STATUS_IGNORE), "write_at_all v");
}

/* Cabins owned by this rank go to their fixed slots through an indexed view. */
static void write_cabin_records(MPI_File fh, int snap, const cabin_t *cab, const double *w, int nloc, int i0,
                                double t, char *evbuf, int *evlen, int evcap)
{
    static cabin_rec rec[NCAB];
    int slots[NCAB], n = 0;
    for (int c = 0; c < NCAB; c++) {
        int gi = (int)(cab[c].s / DX);
        if (gi < i0 || gi >= i0 + nloc) continue;
        cabin_rec *r = &rec[n];
        r->id = c;
        r->span = gi / SPAN_PTS;
        r->s = (float)cab[c].s;
        r->w = (float)w[gi - i0 + 1];
        r->theta = (float)cab[c].theta;
        r->omega = (float)cab[c].omega;
        r->load_kN = (float)(cab[c].mass * GRAV / 1000.0);
        r->pad = 0;
        slots[n++] = c;
        double deg = cab[c].theta * 180.0 / PI;
        if (fabs(deg) > 6.0 && *evlen < evcap - 128)
            *evlen += snprintf(evbuf + *evlen, (size_t)(evcap - *evlen),
                               "t=%8.3f rank=%d cabin=%02d span=%02d swing=%+6.2f deg\n", t, rank, c, r->span, deg);
        if (gi % SPAN_PTS < (int)(LINE_SPEED * DT * NOUT / DX) && *evlen < evcap - 128)
            *evlen += snprintf(evbuf + *evlen, (size_t)(evcap - *evlen),
                               "t=%8.3f rank=%d cabin=%02d saddle=%02d sag=%+7.4f m\n", t, rank, c, gi / SPAN_PTS,
                               w[gi - i0 + 1]);
    }
    MPI_Datatype ftype;
    check(MPI_Type_create_indexed_block(n, 1, slots, cabin_type, &ftype), "indexed type");
    check(MPI_Type_commit(&ftype), "commit");
    MPI_Offset disp = (MPI_Offset)snap * NCAB * sizeof(cabin_rec);
    check(MPI_File_set_view(fh, disp, cabin_type, ftype, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_write_all(fh, rec, n, cabin_type, MPI_STATUS_IGNORE), "write_all cabins");
    MPI_Type_free(&ftype);
}

static void flush_events(MPI_File fh, char *evbuf, int *evlen)
{
    check(MPI_File_write_ordered(fh, evbuf, *evlen, MPI_CHAR, MPI_STATUS_IGNORE), "write_ordered");
    *evlen = 0;
}

/* Re-read snapshots round-robin, project each span on its sine modes. */
static void analyse_snapshots(const char *dir, double *modal, double *env)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/rope_field.bin", dir);
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open field for read");
    field_header h;
    check(MPI_File_read_at(fh, 0, &h, sizeof h, MPI_BYTE, MPI_STATUS_IGNORE), "read header");
    if (memcmp(h.magic, "ROPEWAV1", 8) != 0 || h.nx != NX || h.nsnap != NSNAP) {
        fprintf(stderr, "bad field header\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    static double w[NX];
    static double basis[NMODE][SPAN_PTS];
    for (int m = 0; m < NMODE; m++)
        for (int j = 0; j < SPAN_PTS; j++) basis[m][j] = sin(PI * (m + 1) * j / SPAN_PTS) * 2.0 / SPAN_PTS;
    memset(modal, 0, sizeof(double) * NSPAN * NMODE);
    for (int i = 0; i < NX; i++) env[i] = 0;
    for (int snap = rank; snap < NSNAP; snap += nranks) {
        MPI_Offset off = (MPI_Offset)sizeof h + (MPI_Offset)snap * 2 * NX * sizeof(double);
        MPI_Status st;
        check(MPI_File_read_at(fh, off, w, NX, MPI_DOUBLE, &st), "read_at snapshot");
        int cnt;
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        if (cnt != NX) {
            fprintf(stderr, "short read of snapshot %d\n", snap);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        for (int i = 0; i < NX; i++)
            if (fabs(w[i]) > env[i]) env[i] = fabs(w[i]);
        for (int sp = 0; sp < NSPAN; sp++) {
            const double *ws = w + sp * SPAN_PTS;
            double mean = 0;
            for (int j = 0; j < SPAN_PTS; j++) mean += ws[j];
            mean /= SPAN_PTS;
            for (int m = 0; m < NMODE; m++) {
                double a = 0;
                for (int j = 0; j < SPAN_PTS; j++) a += (ws[j] - mean) * basis[m][j];
                modal[sp * NMODE + m] += a * a / NSNAP;
            }
        }
    }
    check(MPI_File_close(&fh), "close field");
}

static void write_span_report(const char *dir, const double *modal, const double *env)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/span_report.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double f1 = sqrt(TENSION / MU) / (2 * SPAN_PTS * DX);
    fprintf(f, "haul rope: %d spans of %.0f m, fundamental %.3f Hz\n", NSPAN, SPAN_PTS * DX, f1);
    fprintf(f, "span  max_defl_m  dominant_mode  freq_Hz   rms_modes(1..6)\n");
    for (int sp = 0; sp < NSPAN; sp++) {
        double mx = 0;
        for (int j = 0; j < SPAN_PTS; j++) mx = fmax(mx, env[sp * SPAN_PTS + j]);
        int best = 0;
        for (int m = 1; m < NMODE; m++)
            if (modal[sp * NMODE + m] > modal[sp * NMODE + best]) best = m;
        fprintf(f, "%4d %11.4f %14d %8.3f  ", sp, mx, best + 1, f1 * (best + 1));
        for (int m = 0; m < 6; m++) fprintf(f, " %9.3e", sqrt(modal[sp * NMODE + m]));
        fprintf(f, "\n");
    }
    if (ferror(f) || fclose(f) != 0) {
        perror("span report");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    const char *dir = argv[1];
    int nloc = NX / nranks, i0 = rank * nloc;
    if (rank == nranks - 1) nloc = NX - i0;

    check(MPI_Type_contiguous(sizeof(cabin_rec), MPI_BYTE, &cabin_type), "cabin type");
    check(MPI_Type_commit(&cabin_type), "commit cabin type");

    double *w = calloc((size_t)nloc + 2, sizeof(double));
    double *wold = calloc((size_t)nloc + 2, sizeof(double));
    double *wnew = calloc((size_t)nloc + 2, sizeof(double));
    double *accel = calloc((size_t)nloc, sizeof(double));
    cabin_t cab[NCAB];
    double acc[NCAB];
    if (!w || !wold || !wnew || !accel) MPI_Abort(MPI_COMM_WORLD, 2);
    init_cabins(cab);

    char path[1024];
    MPI_File ffield, fcab, fev;
    snprintf(path, sizeof path, "%s/rope_field.bin", dir);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &ffield), "open field");
    snprintf(path, sizeof path, "%s/cabins.bin", dir);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fcab), "open cabins");
    snprintf(path, sizeof path, "%s/events.log", dir);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fev), "open events");
    if (rank == 0) {
        field_header h;
        memcpy(h.magic, "ROPEWAV1", 8);
        h.nx = NX;
        h.nsnap = NSNAP;
        h.nout = NOUT;
        h.nranks = nranks;
        h.dx = DX;
        h.dt = DT;
        check(MPI_File_write_at(ffield, 0, &h, sizeof h, MPI_BYTE, MPI_STATUS_IGNORE), "write header");
    }

    enum { EVCAP = 65536 };
    char *evbuf = malloc(EVCAP);
    int evlen = 0;
    double wall0 = MPI_Wtime();
    for (int step = 1; step <= NSTEP; step++) {
        double t = step * DT;
        /* vertical rope acceleration at each grip, known only on the owner: reduce */
        double acc_loc[NCAB];
        for (int c = 0; c < NCAB; c++) {
            int li = (int)(cab[c].s / DX) - i0;
            acc_loc[c] = 0.0;
            if (li < 0 || li >= nloc) continue;
            /* the cabin hanger filters the rope motion: average over +-10 m */
            int a = li - 20 < 0 ? 0 : li - 20, b = li + 20 >= nloc ? nloc - 1 : li + 20;
            for (int k = a; k <= b; k++) acc_loc[c] += accel[k];
            acc_loc[c] /= (b - a + 1);
            if (acc_loc[c] > 0.4 * GRAV) acc_loc[c] = 0.4 * GRAV; /* hanger spring limits the jerk */
            if (acc_loc[c] < -0.4 * GRAV) acc_loc[c] = -0.4 * GRAV;
        }
        check(MPI_Allreduce(acc_loc, acc, NCAB, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "allreduce acc");
        step_cabins(cab, t, acc);
        exchange_halo(w, nloc);
        step_rope(w, wold, wnew, accel, nloc, i0, cab, t);
        double *tmp = wold;
        wold = w;
        w = wnew;
        wnew = tmp;
        if (step % NOUT == 0) {
            int snap = step / NOUT - 1;
            write_field_snapshot(ffield, snap, w, wold, nloc, i0);
            write_cabin_records(fcab, snap, cab, w, nloc, i0, t, evbuf, &evlen, EVCAP);
            if (snap % 25 == 24) flush_events(fev, evbuf, &evlen);
        }
    }
    flush_events(fev, evbuf, &evlen);
    check(MPI_File_close(&ffield), "close field");
    check(MPI_File_close(&fcab), "close cabins");
    check(MPI_File_close(&fev), "close events");
    double tsim = MPI_Wtime() - wall0;

    static double modal[NSPAN * NMODE], env[NX], gmodal[NSPAN * NMODE], genv[NX];
    analyse_snapshots(dir, modal, env);
    check(MPI_Reduce(modal, gmodal, NSPAN * NMODE, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "reduce modal");
    check(MPI_Reduce(env, genv, NX, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "reduce env");
    if (rank == 0) {
        write_span_report(dir, gmodal, genv);
        double mx = 0;
        for (int i = 0; i < NX; i++) mx = fmax(mx, genv[i]);
        printf("ropeway: %d ranks, %d steps, %d snapshots, max deflection %.3f m, sim %.2f s\n", nranks, NSTEP,
               NSNAP, mx, tsim);
    }
    free(w);
    free(wold);
    free(wnew);
    free(accel);
    free(evbuf);
    MPI_Type_free(&cabin_type);
    MPI_Finalize();
    return 0;
}
