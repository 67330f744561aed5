/*
 * anneal_tsp_log: simulated annealing with 2-opt moves for a random Euclidean
 * travelling-salesman instance.  Progress lines go to a log with fprintf every
 * LOG_EVERY sweeps-worth of moves and the log is fflush()ed every FLUSH_EVERY
 * lines and whenever a new best tour is found; the cooling trace is written as
 * CSV and the final tour as a text file that is re-read and re-scored.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define N_CITIES 600
#define N_MOVES 8000000L
#define LOG_EVERY 2500L
#define FLUSH_EVERY 40
#define T_START 0.08
#define T_END 0.0005

static double cx[N_CITIES], cy[N_CITIES];
static int tour[N_CITIES], best_tour[N_CITIES];
static uint64_t rng_s = 0x7a5b1c3d9e8f0011ULL;

static uint64_t rng_u64(void)
{
    rng_s ^= rng_s >> 12;
    rng_s ^= rng_s << 25;
    rng_s ^= rng_s >> 27;
    return rng_s * 2685821657736338717ULL;
}

static double rng_unit(void)
{
    return (double)(rng_u64() >> 11) / 9007199254740992.0;
}

static double dist(int a, int b)
{
    double dx = cx[a] - cx[b], dy = cy[a] - cy[b];
    return sqrt(dx * dx + dy * dy);
}

static double tour_length(const int *t)
{
    double L = 0.0;
    for (int i = 0; i < N_CITIES; i++) L += dist(t[i], t[(i + 1) % N_CITIES]);
    return L;
}

static void make_instance(void)
{
    /* clustered cities: a handful of centres with gaussian-ish spread */
    double ccx[8], ccy[8];
    for (int k = 0; k < 8; k++) {
        ccx[k] = rng_unit();
        ccy[k] = rng_unit();
    }
    for (int i = 0; i < N_CITIES; i++) {
        int k = (int)(rng_u64() % 8);
        double r = 0.12 * (rng_unit() + rng_unit() + rng_unit() - 1.5);
        double a = 2.0 * M_PI * rng_unit();
        cx[i] = ccx[k] + r * cos(a);
        cy[i] = ccy[k] + r * sin(a);
    }
    for (int i = 0; i < N_CITIES; i++) tour[i] = i;
}

static void reverse_segment(int *t, int i, int j)
{
    while (i < j) {
        int tmp = t[i];
        t[i] = t[j];
        t[j] = tmp;
        i++;
        j--;
    }
}

static void log_progress(FILE *log, long move, double temp, double cur, double best, long accepted,
                         int *lines)
{
    fprintf(log, "move %9ld T %.6e len %.6f best %.6f acc %6.3f%%\n", move, temp, cur, best,
            100.0 * (double)accepted / (double)(move + 1));
    if (++(*lines) % FLUSH_EVERY == 0) fflush(log);
}

static double anneal(FILE *log, FILE *trace)
{
    double cur = tour_length(tour), best = cur;
    memcpy(best_tour, tour, sizeof tour);
    double cool = pow(T_END / T_START, 1.0 / (double)N_MOVES);
    double temp = T_START;
    long accepted = 0;
    int lines = 0;
    for (long m = 0; m < N_MOVES; m++) {
        int i = 1 + (int)(rng_u64() % (N_CITIES - 1));
        int j = 1 + (int)(rng_u64() % (N_CITIES - 1));
        if (i > j) { int t = i; i = j; j = t; }
        if (j - i < 2) { temp *= cool; continue; }
        int a = tour[i - 1], b = tour[i], c = tour[j], d = tour[(j + 1) % N_CITIES];
        double delta = dist(a, c) + dist(b, d) - dist(a, b) - dist(c, d);
        if (delta < 0.0 || rng_unit() < exp(-delta / temp)) {
            reverse_segment(tour, i, j);
            cur += delta;
            accepted++;
            if (cur < best - 1e-12) {
                best = cur;
                memcpy(best_tour, tour, sizeof tour);
            }
        }
        if (m % LOG_EVERY == 0) {
            log_progress(log, m, temp, cur, best, accepted, &lines);
            fprintf(trace, "%ld,%.8e,%.8f\n", m, temp, cur);
        }
        if (m % (LOG_EVERY * 50) == 0) {
            cur = tour_length(tour); /* remove accumulated rounding drift */
            fprintf(log, "# checkpoint move %ld best %.6f\n", m, best);
            fflush(log);
        }
        temp *= cool;
    }
    return best;
}

static void write_tour(const char *path, const int *t, double len)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "anneal_tsp_log: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fprintf(f, "TOUR %d %.9f\n", N_CITIES, len);
    for (int i = 0; i < N_CITIES; i++) fprintf(f, "%d %.9f %.9f\n", t[i], cx[t[i]], cy[t[i]]);
    fclose(f);
}

static int check_tour_file(const char *path, double *len_out)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int n;
    double claimed;
    if (fscanf(f, "TOUR %d %lf", &n, &claimed) != 2 || n != N_CITIES) {
        fclose(f);
        return 0;
    }
    static int t[N_CITIES];
    static char seen[N_CITIES];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < n; i++) {
        double x, y;
        if (fscanf(f, "%d %lf %lf", &t[i], &x, &y) != 3 || t[i] < 0 || t[i] >= N_CITIES || seen[t[i]]) {
            fclose(f);
            return 0;
        }
        seen[t[i]] = 1;
    }
    fclose(f);
    *len_out = tour_length(t);
    return fabs(*len_out - claimed) < 1e-6;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
        perror("mkdir");
        return 1;
    }
    char p_log[4096], p_trace[4096], p_tour[4096];
    snprintf(p_log, sizeof p_log, "%s/anneal.log", argv[1]);
    snprintf(p_trace, sizeof p_trace, "%s/cooling.csv", argv[1]);
    snprintf(p_tour, sizeof p_tour, "%s/best_tour.txt", argv[1]);
    FILE *log = fopen(p_log, "w");
    FILE *trace = fopen(p_trace, "w");
    if (!log || !trace) {
        perror("fopen");
        return 1;
    }
    make_instance();
    double start_len = tour_length(tour);
    fprintf(log, "# cities %d moves %ld start length %.6f\n", N_CITIES, N_MOVES, start_len);
    fprintf(trace, "move,temperature,length\n");
    double best = anneal(log, trace);
    fprintf(log, "# done best %.6f\n", best);
    fclose(log);
    fclose(trace);

    double exact = tour_length(best_tour);
    write_tour(p_tour, best_tour, exact);
    double reread;
    if (!check_tour_file(p_tour, &reread) || fabs(exact - best) > 1e-6 * exact || best >= start_len) {
        fprintf(stderr, "anneal_tsp_log: check FAILED (best %.6f exact %.6f start %.6f)\n", best, exact,
                start_len);
        return 1;
    }
    printf("anneal_tsp_log: ok (length %.4f -> %.4f)\n", start_len, exact);
    return 0;
}
