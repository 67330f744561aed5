/*
 * mpi_pipeline_leak_transient.c
 *
 * Hydraulic transient in a 40 km water transmission main, solved with the
 * method of characteristics on an x-decomposed grid.  Halos are HALO
 * nodes wide and exchanged (MPI_Sendrecv) only every HALO steps; in between
 * each rank advances a shrinking overlap region redundantly.  A burst opens part-way along the line, the
 * operator then closes the downstream valve and the pipe surges.
 *
 * I/O (MPI-IO):
 *   - head/flow snapshots every SNAP_EVERY steps into one shared file
 *     through a tiled subarray file view (MPI_File_set_view + write_all),
 *     SNAP_BATCH snapshots aggregated per collective call;
 *   - a text pressure log from the sensors each rank owns, appended
 *     with MPI_File_write_ordered every LOG_EVERY steps;
 *   - full-rate sensor series at the end with MPI_File_write_at_all.
 * Post-processing re-reads the snapshot file through the same view for the
 * surge envelope (pressure rating / vapour checks), and rank 0 reads the
 * sensor series with MPI_File_read_at to localise the burst from the
 * arrival times of the negative pressure wave.
 *
 * usage: mpiexec -n 2 mpi_pipeline_leak_transient OUTDIR
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NNODE       10001          /* nodes, dx = L/(NNODE-1) */
#define LENGTH      40000.0        /* m */
#define DIAM        0.5            /* m */
#define WAVE_SPEED  1100.0         /* m/s */
#define FRICTION    0.018
#define GRAV        9.81
#define H_RES       300.0          /* upstream reservoir head, m */
#define Q0          0.35           /* initial flow, m^3/s */
#define T_END       30.0
#define T_LEAK      2.0
#define X_LEAK      23700.0
#define LEAK_AREA   0.0015         /* m^2 orifice */
#define T_CLOSE     12.0
#define CLOSE_TIME  3.0
#define NSENS       17
#define SNAP_EVERY  50
#define SNAP_BATCH  8              /* snapshots aggregated per collective write */
#define LOG_EVERY   10
#define RATING      420.0          /* allowable pressure head, m */
#define HALO        50             /* ghost width = steps between exchanges */

static int rank, nproc, nloc, off;
static double dx, dt, Bc, Rc, area;
static double *h, *q, *hn, *qn, *zl;   /* local arrays with HALO ghosts each side */
static int nall;                        /* nloc + 2*HALO */
static int gleak;
static double qleak_up, qleak_out, cv0, hvalve0;
static const char *g_dir;

static void check_mpi(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static double elevation(double x)
{
    return 35.0 * sin(x / 5200.0) + 18.0 * sin(x / 1300.0 + 1.0) + 0.0012 * x;
}

/* Local arrays, elevation and the steady friction head line. */
static void setup_pipe(void)
{
    dx = LENGTH / (NNODE - 1);
    dt = dx / WAVE_SPEED;
    area = M_PI * DIAM * DIAM / 4.0;
    Bc = WAVE_SPEED / (GRAV * area);
    Rc = FRICTION * dx / (2.0 * GRAV * DIAM * area * area);
    off = (int)((long)NNODE * rank / nproc);
    nloc = (int)((long)NNODE * (rank + 1) / nproc) - off;
    nall = nloc + 2 * HALO;
    h = calloc((size_t)nall, sizeof(double));
    q = calloc((size_t)nall, sizeof(double));
    hn = calloc((size_t)nall, sizeof(double));
    qn = calloc((size_t)nall, sizeof(double));
    zl = calloc((size_t)nall, sizeof(double));
    if (!h || !q || !hn || !qn || !zl) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < nall; i++) {
        int g = off + i - HALO;
        zl[i] = elevation(g * dx);
        h[i] = H_RES - Rc * Q0 * Q0 * g;
        q[i] = Q0;
    }
    hvalve0 = H_RES - Rc * Q0 * Q0 * (NNODE - 1);
    cv0 = Q0 * Q0 / (2.0 * hvalve0);
    gleak = (int)lround(X_LEAK / dx);
    if ((rank > 0 && abs(gleak - off) <= HALO) ||
        (rank < nproc - 1 && abs(gleak - (off + nloc)) <= HALO)) {
        fprintf(stderr, "burst node within a halo width of a rank boundary is not supported\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    qleak_up = Q0;
    qleak_out = 0.0;
}

static void exchange_halo(void)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < nproc - 1 ? rank + 1 : MPI_PROC_NULL;
    double sb[2 * HALO], rb[2 * HALO];
    /* owned [HALO, HALO+nloc); send the first HALO owned nodes left */
    memcpy(sb, h + HALO, sizeof(double) * HALO);
    memcpy(sb + HALO, q + HALO, sizeof(double) * HALO);
    check_mpi(MPI_Sendrecv(sb, 2 * HALO, MPI_DOUBLE, left, 1, rb, 2 * HALO, MPI_DOUBLE, right, 1,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Sendrecv left");
    if (right != MPI_PROC_NULL) {
        memcpy(h + HALO + nloc, rb, sizeof(double) * HALO);
        memcpy(q + HALO + nloc, rb + HALO, sizeof(double) * HALO);
    }
    memcpy(sb, h + nloc, sizeof(double) * HALO);
    memcpy(sb + HALO, q + nloc, sizeof(double) * HALO);
    check_mpi(MPI_Sendrecv(sb, 2 * HALO, MPI_DOUBLE, right, 2, rb, 2 * HALO, MPI_DOUBLE, left, 2,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Sendrecv right");
    if (left != MPI_PROC_NULL) {
        memcpy(h, rb, sizeof(double) * HALO);
        memcpy(q, rb + HALO, sizeof(double) * HALO);
    }
}

static double valve_opening(double t)
{
    if (t < T_CLOSE) return 1.0;
    if (t >= T_CLOSE + CLOSE_TIME) return 0.0;
    return pow(1.0 - (t - T_CLOSE) / CLOSE_TIME, 1.5);
}

/* One MOC step, boundaries and burst included, over the nodes still valid
 * `sub` steps after the last halo exchange (sub = 1..HALO). */
static void moc_step(double t, int sub)
{
    int leak_on = t >= T_LEAK;
    double kl = 0.61 * LEAK_AREA * sqrt(2.0 * GRAV);
    int lo = rank > 0 ? sub : HALO;
    int hi = rank < nproc - 1 ? nall - 1 - sub : HALO + nloc - 1;
    for (int i = lo; i <= hi; i++) {
        int g = off + i - HALO;
        double cp = 0, cm = 0;
        if (g > 0) cp = h[i - 1] + Bc * q[i - 1] - Rc * q[i - 1] * fabs(q[i - 1]);
        if (g < NNODE - 1) {
            double qr = (leak_on && g + 1 == gleak) ? qleak_up : q[i + 1];
            cm = h[i + 1] - Bc * qr + Rc * qr * fabs(qr);
        }
        if (g == 0) {
            hn[i] = H_RES;
            qn[i] = (H_RES - cm) / Bc;
        } else if (g == NNODE - 1) {
            double tau = valve_opening(t);
            double cv = tau * tau * cv0;
            double qv = -Bc * cv + sqrt(Bc * Bc * cv * cv + 2.0 * cv * cp);
            qn[i] = qv;
            hn[i] = cp - Bc * qv;
        } else if (leak_on && g == gleak) {
            double hm = 0.5 * (cp + cm), bk = 0.5 * Bc * kl, s = 0.0;
            if (hm > zl[i]) s = 0.5 * (-bk + sqrt(bk * bk + 4.0 * (hm - zl[i])));
            double hp = hm - bk * s;
            hn[i] = hp;
            if (i >= HALO && i < HALO + nloc) qleak_out = kl * s;
            qleak_up = (cp - hp) / Bc;
            qn[i] = (hp - cm) / Bc;
        } else {
            double hp = 0.5 * (cp + cm);
            if (hp < zl[i] - 10.0) hp = zl[i] - 10.0;   /* crude vapour limit */
            hn[i] = hp;
            qn[i] = (cp - cm) / (2.0 * Bc);
        }
    }
    double *tmp = h; h = hn; hn = tmp;
    tmp = q; q = qn; qn = tmp;
}

static int sensor_node(int k) { return (int)((long)k * (NNODE - 1) / (NSENS - 1)); }

/* Snapshot: [H(0..N-1), Q(0..N-1)] per record; tiled subarray view per rank. */
static void open_snapshot_file(MPI_File *fh, MPI_Datatype *ftype, int amode)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/transient_HQ.dat", g_dir);
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, fh), "File_open snapshots");
    int sizes[2] = {2, NNODE}, subs[2] = {2, nloc}, starts[2] = {0, off};
    check_mpi(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, ftype),
              "Type_create_subarray");
    check_mpi(MPI_Type_commit(ftype), "Type_commit");
    check_mpi(MPI_File_set_view(*fh, 0, MPI_DOUBLE, *ftype, "native", MPI_INFO_NULL), "set_view");
}

static void stage_snapshot(double *buf, int slot)
{
    double *b = buf + (size_t)slot * 2 * nloc;
    memcpy(b, h + HALO, sizeof(double) * (size_t)nloc);
    memcpy(b + nloc, q + HALO, sizeof(double) * (size_t)nloc);
}

static void write_snapshots(MPI_File fh, const double *buf, int count)
{
    MPI_Status st;
    check_mpi(MPI_File_write_all(fh, buf, 2 * nloc * count, MPI_DOUBLE, &st), "write_all snapshots");
}

/* Sensors owned by this rank: pressure head p = H - z. */
static void record_sensors(int step, float *series, int nsteps)
{
    for (int k = 0; k < NSENS; k++) {
        int g = sensor_node(k);
        if (g < off || g >= off + nloc) continue;
        int i = g - off + HALO;
        series[(size_t)k * nsteps + step] = (float)(h[i] - zl[i]);
    }
}

static void flush_sensor_log(MPI_File fh, const float *series, int nsteps, int s0, int s1)
{
    size_t cap = 64 + (size_t)(s1 - s0) * NSENS * 40;
    char *txt = malloc(cap);
    if (!txt) MPI_Abort(MPI_COMM_WORLD, 1);
    size_t len = 0;
    for (int s = s0; s < s1; s += LOG_EVERY)
        for (int k = 0; k < NSENS; k++) {
            int g = sensor_node(k);
            if (g < off || g >= off + nloc) continue;
            len += (size_t)snprintf(txt + len, cap - len, "%9.4f S%02d %8.0f %10.3f\n", s * dt, k,
                                    g * dx, series[(size_t)k * nsteps + s]);
        }
    MPI_Status st;
    check_mpi(MPI_File_write_ordered(fh, txt, (int)len, MPI_CHAR, &st), "write_ordered");
    free(txt);
}

static void write_sensor_series(const float *series, int nsteps)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sensors_f32.dat", g_dir);
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
              "File_open sensors");
    /* every rank takes part; ranks write only the sensors they own */
    int mine[NSENS], nm = 0;
    for (int k = 0; k < NSENS; k++) {
        int g = sensor_node(k);
        if (g >= off && g < off + nloc) mine[nm++] = k;
    }
    int rounds = 0;
    check_mpi(MPI_Allreduce(&nm, &rounds, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "Allreduce");
    for (int r = 0; r < rounds; r++) {
        MPI_Status st;
        if (r < nm) {
            MPI_Offset o = (MPI_Offset)mine[r] * nsteps * (MPI_Offset)sizeof(float);
            check_mpi(MPI_File_write_at_all(fh, o, series + (size_t)mine[r] * nsteps, nsteps, MPI_FLOAT, &st),
                      "write_at_all sensors");
        } else {
            check_mpi(MPI_File_write_at_all(fh, 0, NULL, 0, MPI_FLOAT, &st), "write_at_all (empty)");
        }
    }
    check_mpi(MPI_File_close(&fh), "File_close sensors");
}

/* Re-read snapshots through the view: max/min pressure head per node. */
static void surge_envelope(int nsnap, double *pmax_g, double *pmin_g, int *over_g, double *xmax_g)
{
    MPI_File fh;
    MPI_Datatype ftype;
    open_snapshot_file(&fh, &ftype, MPI_MODE_RDONLY);
    enum { BATCH = 8 };
    double *buf = malloc(sizeof(double) * 2 * (size_t)nloc * BATCH);
    double *pmax = malloc(sizeof(double) * (size_t)nloc), *pmin = malloc(sizeof(double) * (size_t)nloc);
    if (!buf || !pmax || !pmin) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < nloc; i++) { pmax[i] = -1e30; pmin[i] = 1e30; }
    for (int s0 = 0; s0 < nsnap; s0 += BATCH) {
        int nb = nsnap - s0 < BATCH ? nsnap - s0 : BATCH;
        MPI_Status st;
        check_mpi(MPI_File_read_all(fh, buf, 2 * nloc * nb, MPI_DOUBLE, &st), "read_all snapshots");
        for (int b = 0; b < nb; b++) {
            const double *hh = buf + (size_t)b * 2 * nloc;
            for (int i = 0; i < nloc; i++) {
                double p = hh[i] - zl[i + HALO];
                if (p > pmax[i]) pmax[i] = p;
                if (p < pmin[i]) pmin[i] = p;
            }
        }
    }
    check_mpi(MPI_File_close(&fh), "File_close snapshots");
    MPI_Type_free(&ftype);
    struct { double v; int loc; } lmax = {-1e30, 0}, gmax;
    double lmin = 1e30;
    int over = 0;
    for (int i = 0; i < nloc; i++) {
        if (pmax[i] > lmax.v) { lmax.v = pmax[i]; lmax.loc = off + i; }
        if (pmin[i] < lmin) lmin = pmin[i];
        if (pmax[i] > RATING) over++;
    }
    check_mpi(MPI_Allreduce(&lmax, &gmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD), "MAXLOC");
    check_mpi(MPI_Allreduce(&lmin, pmin_g, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MIN");
    check_mpi(MPI_Allreduce(&over, over_g, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "SUM");
    *pmax_g = gmax.v;
    *xmax_g = gmax.loc * dx;
    free(buf); free(pmax); free(pmin);
}

/* Rank 0: CUSUM arrival of the burst wave at each sensor, then bracket. */
static double locate_leak(int nsteps, double *t_arr_out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sensors_f32.dat", g_dir);
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open sensors");
    float *s = malloc(sizeof(float) * (size_t)nsteps);
    if (!s) MPI_Abort(MPI_COMM_WORLD, 1);
    int nbase = (int)(1.0 / dt);
    int limit = (int)(T_CLOSE / dt);
    for (int k = 0; k < NSENS; k++) {
        MPI_Status st;
        check_mpi(MPI_File_read_at(fh, (MPI_Offset)k * nsteps * (MPI_Offset)sizeof(float), s, nsteps,
                                   MPI_FLOAT, &st), "read_at sensors");
        double mean = 0, var = 0;
        for (int i = 0; i < nbase; i++) mean += s[i];
        mean /= nbase;
        for (int i = 0; i < nbase; i++) var += (s[i] - mean) * (s[i] - mean);
        double sd = sqrt(var / nbase) + 0.01;
        double cus = 0;
        t_arr_out[k] = -1;
        for (int i = nbase; i < limit && i < nsteps; i++) {
            cus = fmax(0.0, cus + (mean - s[i]) / sd - 0.5);
            if (cus > 25.0) {
                /* back off to where the drop started */
                int j = i;
                while (j > nbase && s[j - 1] < s[j] + 1e-4 && mean - s[j - 1] > 0.05) j--;
                t_arr_out[k] = j * dt;
                break;
            }
        }
    }
    check_mpi(MPI_File_close(&fh), "close sensors");
    free(s);
    int first = -1;
    for (int k = 0; k < NSENS; k++)
        if (t_arr_out[k] >= 0 && (first < 0 || t_arr_out[k] < t_arr_out[first])) first = k;
    if (first < 0) return -1;
    int nb = first == 0 ? 1 : first == NSENS - 1 ? NSENS - 2 :
             (t_arr_out[first - 1] < t_arr_out[first + 1] ? first - 1 : first + 1);
    int a = first < nb ? first : nb, b = first < nb ? nb : first;
    double xa = sensor_node(a) * dx, xb = sensor_node(b) * dx;
    return 0.5 * (xa + xb) + 0.5 * WAVE_SPEED * (t_arr_out[a] - t_arr_out[b]);
}

static void write_report(int nsteps, int nsnap, double pmax, double xmax, double pmin, int over,
                         double xleak, const double *tarr)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/report.txt", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    int ok = fprintf(f, "pipeline transient report\nnodes %d dx %.3f m dt %.5f s steps %d snapshots %d\n",
                     NNODE, dx, dt, nsteps, nsnap) > 0;
    ok &= fprintf(f, "max pressure head %.2f m at x=%.0f m; min %.2f m; nodes above rating %d\n",
                  pmax, xmax, pmin, over) > 0;
    ok &= fprintf(f, "burst located at %.0f m (true %.0f m), error %.0f m\n", xleak, gleak * dx,
                  xleak - gleak * dx) > 0;
    for (int k = 0; k < NSENS; k++)
        ok &= fprintf(f, "sensor %2d x=%8.0f arrival %8.4f s\n", k, sensor_node(k) * dx, tarr[k]) > 0;
    if (!ok || fclose(f) != 0) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    g_dir = argv[1];
    setup_pipe();
    int nsteps = (int)(T_END / dt);
    float *series = calloc((size_t)NSENS * nsteps, sizeof(float));
    double *sbuf = malloc(sizeof(double) * 2 * (size_t)nloc * SNAP_BATCH);
    if (!series || !sbuf) MPI_Abort(MPI_COMM_WORLD, 1);

    MPI_File fsnap, flog;
    MPI_Datatype ftype;
    open_snapshot_file(&fsnap, &ftype, MPI_MODE_CREATE | MPI_MODE_WRONLY);
    char path[1024];
    snprintf(path, sizeof path, "%s/sensor_log.txt", g_dir);
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &flog),
              "File_open log");

    int nsnap = 0, staged = 0, logged = 0;
    double maxleak = 0;
    for (int s = 0; s < nsteps; s++) {
        double t = s * dt;
        record_sensors(s, series, nsteps);
        if (s % SNAP_EVERY == 0) {
            stage_snapshot(sbuf, staged++);
            nsnap++;
            if (staged == SNAP_BATCH) { write_snapshots(fsnap, sbuf, staged); staged = 0; }
        }
        if ((s + 1) % (LOG_EVERY * 100) == 0) {
            flush_sensor_log(flog, series, nsteps, logged, s + 1);
            logged = s + 1;
        }
        if (s % HALO == 0) exchange_halo();
        moc_step(t + dt, s % HALO + 1);
        if (qleak_out > maxleak) maxleak = qleak_out;
    }
    if (staged > 0) write_snapshots(fsnap, sbuf, staged);
    flush_sensor_log(flog, series, nsteps, logged, nsteps);
    check_mpi(MPI_File_close(&fsnap), "File_close snapshots");
    MPI_Type_free(&ftype);
    check_mpi(MPI_File_close(&flog), "File_close log");
    write_sensor_series(series, nsteps);

    double pmax, pmin, xmax;
    int over;
    surge_envelope(nsnap, &pmax, &pmin, &over, &xmax);
    double gleakq;
    check_mpi(MPI_Allreduce(&maxleak, &gleakq, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MAX leak");

    if (rank == 0) {
        double tarr[NSENS];
        double xl = locate_leak(nsteps, tarr);
        write_report(nsteps, nsnap, pmax, xmax, pmin, over, xl, tarr);
        printf("mpi_pipeline_leak_transient: %d ranks, %d nodes, %d steps, %d snapshots\n", nproc, NNODE,
               nsteps, nsnap);
        printf("  burst flow %.4f m3/s, surge max %.1f m head at %.0f m, min %.1f m, %d nodes over rating\n",
               gleakq, pmax, xmax, pmin, over);
        printf("  burst located at %.0f m (true %.0f m)\n", xl, gleak * dx);
    }
    free(series); free(sbuf);
    free(h); free(q); free(hn); free(qn); free(zl);
    MPI_Finalize();
    return 0;
}
