/*
 * mw_quad_tasks: master/worker adaptive quadrature.  Rank 0 writes a task
 * list file, reads it back into a queue and deals the tasks out with
 * MPI_Send; workers integrate damped oscillatory functions with recursive
 * adaptive Simpson quadrature and send results back.  Rank 0 appends each
 * result to a text table as it arrives, writes a progress line every
 * PROGRESS_EVERY results, and at the end re-reads the table and checks every
 * value against the closed-form integral.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NTASKS          600
#define TOL             1e-8
#define MAX_DEPTH       48
#define PROGRESS_EVERY  40
#define TAG_TASK        1
#define TAG_RESULT      2
#define TAG_STOP        3

struct task {
    int id;
    double a, b, lo, hi;   /* integrand exp(-a x) cos(b x) on [lo, hi] */
};

struct result {
    double id, value, evals, depth;
};

static long g_evals;
static int g_maxdepth;

static double integrand(const struct task *t, double x)
{
    g_evals++;
    return exp(-t->a * x) * cos(t->b * x);
}

static double simpson_rec(const struct task *t, double l, double r, double fl, double fm, double fr,
                          double whole, double tol, int depth)
{
    double m = 0.5 * (l + r);
    double lm = 0.5 * (l + m), rm = 0.5 * (m + r);
    double flm = integrand(t, lm), frm = integrand(t, rm);
    double left = (m - l) / 6.0 * (fl + 4.0 * flm + fm);
    double right = (r - m) / 6.0 * (fm + 4.0 * frm + fr);
    double delta = left + right - whole;
    if (depth > g_maxdepth) g_maxdepth = depth;
    if (depth >= MAX_DEPTH || fabs(delta) <= 15.0 * tol)
        return left + right + delta / 15.0;
    return simpson_rec(t, l, m, fl, flm, fm, left, 0.5 * tol, depth + 1) +
           simpson_rec(t, m, r, fm, frm, fr, right, 0.5 * tol, depth + 1);
}

static void integrate_task(const struct task *t, struct result *res)
{
    g_evals = 0;
    g_maxdepth = 0;
    /* split the interval into panels of about one period to start */
    int npanel = 1 + (int)((t->hi - t->lo) * t->b / (2.0 * M_PI));
    double h = (t->hi - t->lo) / npanel, sum = 0.0;
    for (int p = 0; p < npanel; p++) {
        double l = t->lo + p * h, r = l + h, m = 0.5 * (l + r);
        double fl = integrand(t, l), fm = integrand(t, m), fr = integrand(t, r);
        double whole = h / 6.0 * (fl + 4.0 * fm + fr);
        sum += simpson_rec(t, l, r, fl, fm, fr, whole, TOL / npanel, 0);
    }
    res->id = t->id;
    res->value = sum;
    res->evals = (double)g_evals;
    res->depth = g_maxdepth;
}

static double exact_integral(const struct task *t)
{
    double a = t->a, b = t->b, d = a * a + b * b;
    double F_hi = exp(-a * t->hi) * (b * sin(b * t->hi) - a * cos(b * t->hi)) / d;
    double F_lo = exp(-a * t->lo) * (b * sin(b * t->lo) - a * cos(b * t->lo)) / d;
    return F_hi - F_lo;
}

static void write_task_file(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    unsigned s = 2463534242u;
    fprintf(f, "# id a b lo hi\n");
    for (int i = 0; i < NTASKS; i++) {
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        double a = 0.05 + (s % 1000) / 2000.0;
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        double b = 5.0 + (s % 4000) / 40.0;
        double lo = (i % 7) * 0.25;
        double hi = lo + 4.0 + (i % 11) * 0.5;
        fprintf(f, "%d %.17g %.17g %.17g %.17g\n", i, a, b, lo, hi);
    }
    fclose(f);
}

static int read_task_file(const char *path, struct task *tasks, int max)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        struct task *t = &tasks[n];
        if (sscanf(line, "%d %lf %lf %lf %lf", &t->id, &t->a, &t->b, &t->lo, &t->hi) == 5) n++;
    }
    fclose(f);
    return n;
}

static void send_task(const struct task *t, int dest)
{
    double msg[5] = {t->id, t->a, t->b, t->lo, t->hi};
    MPI_Send(msg, 5, MPI_DOUBLE, dest, TAG_TASK, MPI_COMM_WORLD);
}

static void run_master(const char *dir, int nranks)
{
    char tpath[1024], rpath[1024], ppath[1024];
    snprintf(tpath, sizeof tpath, "%s/tasks.txt", dir);
    snprintf(rpath, sizeof rpath, "%s/results.txt", dir);
    snprintf(ppath, sizeof ppath, "%s/progress.log", dir);
    write_task_file(tpath);
    struct task *tasks = malloc(NTASKS * sizeof *tasks);
    int ntasks = read_task_file(tpath, tasks, NTASKS);
    if (ntasks != NTASKS) { fprintf(stderr, "mw_quad_tasks: task file has %d tasks\n", ntasks); MPI_Abort(MPI_COMM_WORLD, 2); }

    FILE *res = fopen(rpath, "w");
    FILE *prog = fopen(ppath, "w");
    if (!res || !prog) { perror("open results"); MPI_Abort(MPI_COMM_WORLD, 1); }
    fprintf(res, "# id value evals depth worker\n");

    int next = 0, done = 0;
    for (int w = 1; w < nranks && next < ntasks; w++) send_task(&tasks[next++], w);
    double total_evals = 0.0;
    while (done < ntasks) {
        struct result r;
        MPI_Status st;
        MPI_Recv(&r, 4, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
        if (next < ntasks) send_task(&tasks[next++], st.MPI_SOURCE);
        fprintf(res, "%d %.17g %.0f %.0f %d\n", (int)r.id, r.value, r.evals, r.depth, st.MPI_SOURCE);
        total_evals += r.evals;
        done++;
        if (done % PROGRESS_EVERY == 0) {
            fprintf(prog, "%d/%d tasks done, %.0f evaluations so far\n", done, ntasks, total_evals);
            fflush(prog);
            fflush(res);
        }
    }
    for (int w = 1; w < nranks; w++) MPI_Send(NULL, 0, MPI_DOUBLE, w, TAG_STOP, MPI_COMM_WORLD);
    fclose(res);
    fclose(prog);

    /* verification pass over the written table */
    FILE *in = fopen(rpath, "r");
    char line[256];
    int seen = 0, bad = 0;
    while (fgets(line, sizeof line, in)) {
        int id, worker;
        double v, ev, dp;
        if (line[0] == '#') continue;
        if (sscanf(line, "%d %lf %lf %lf %d", &id, &v, &ev, &dp, &worker) != 5 || id < 0 || id >= ntasks) { bad++; continue; }
        double ex = exact_integral(&tasks[id]);
        if (fabs(v - ex) > 1e-8 * (1.0 + fabs(ex))) bad++;
        seen++;
    }
    fclose(in);
    free(tasks);
    if (bad || seen != ntasks) {
        fprintf(stderr, "mw_quad_tasks: %d bad results, %d of %d seen\n", bad, seen, ntasks);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    printf("mw_quad_tasks: %d tasks integrated by %d worker(s), %.3g evaluations, all match\n",
           ntasks, nranks - 1, total_evals);
}

static void run_worker(void)
{
    for (;;) {
        double msg[5];
        MPI_Status st;
        MPI_Recv(msg, 5, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP) break;
        struct task t = {(int)msg[0], msg[1], msg[2], msg[3], msg[4]};
        struct result r;
        integrate_task(&t, &r);
        MPI_Send(&r, 4, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 2 || nranks < 2) {
        if (rank == 0) fprintf(stderr, "usage: mpiexec -n >=2 mw_quad_tasks DIR\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        mkdir(argv[1], 0755);
        run_master(argv[1], nranks);
    } else {
        run_worker();
    }
    MPI_Finalize();
    return 0;
}
