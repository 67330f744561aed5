/*
 * seir_contact_linelist.c -- stochastic SEIR epidemic on a synthetic
 * household / workplace / community contact network.
 *
 * For NREP replicates a daily-step agent-based SEIR model is run on a
 * population of NPOP people.  Every infection event is appended to a CSV
 * line list (fprintf, flushed once per simulated day), a daily compartment
 * summary is written, and the agent compartments are dumped weekly as a
 * binary snapshot (fwrite) next to a population file with the ages.  Afterwards the snapshots are read back with
 * fread to compute weekly attack rates by age band, and the line list is
 * re-read with fgets to reconstruct transmission pairs, the serial-interval
 * distribution and a daily effective reproduction number.
 *
 * Usage: seir_contact_linelist OUTDIR
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NPOP       150000
#define NREP       4
#define NDAYS      160
#define WORK_SIZE  25
#define WORK_DEG   8
#define COMM_DEG   4
#define NAGE       8
#define SEEDS      20
#define BETA_HOME  0.09
#define BETA_WORK  0.025
#define BETA_COMM  0.012
#define P_E_TO_I   0.30
#define P_I_TO_R   0.17
#define MAXSI      40

enum { S = 0, E = 1, I = 2, R = 3 };

typedef struct {
    int *ptr, *adj;
    unsigned char *setting;
    unsigned char *age;
} network_t;

typedef struct {
    unsigned char state;
    unsigned char age;
    int16_t day_inf;
    int32_t infector;
} agent_t;

static uint64_t rng;

static double u01(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static FILE *xopen(const char *dir, const char *name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

/* Households of 1-6, workplaces/schools by age, random community links. */
static void build_network(network_t *net)
{
    int *deg = calloc(NPOP, sizeof(int));
    int *hh = malloc(sizeof(int) * NPOP), *wk = malloc(sizeof(int) * NPOP);
    net->age = malloc(NPOP);
    int h = 0, left = 0;
    for (int p = 0; p < NPOP; p++) {
        if (left == 0) {
            h++;
            left = 1 + (int)(u01() * 5.0);
        }
        hh[p] = h;
        left--;
        net->age[p] = (unsigned char)(u01() * NAGE);
    }
    /* edges stored as (a,b,setting) in a temporary list */
    long cap = (long)NPOP * (6 + WORK_DEG + COMM_DEG), ne = 0;
    int *ea = malloc(sizeof(int) * cap), *eb = malloc(sizeof(int) * cap);
    unsigned char *es = malloc(cap);
    for (int p = 0; p < NPOP; p++)
        for (int q = p + 1; q < NPOP && hh[q] == hh[p]; q++) {
            ea[ne] = p; eb[ne] = q; es[ne++] = 0;
        }
    for (int p = 0; p < NPOP; p++)
        wk[p] = (int)(net->age[p] * (NPOP / NAGE / WORK_SIZE) + u01() * (NPOP / NAGE / WORK_SIZE));
    int ngroups = NAGE * (NPOP / NAGE / WORK_SIZE) + 1;
    int *gstart = calloc(ngroups + 1, sizeof(int)), *members = malloc(sizeof(int) * NPOP);
    for (int p = 0; p < NPOP; p++)
        gstart[wk[p] + 1]++;
    for (int g = 0; g < ngroups; g++)
        gstart[g + 1] += gstart[g];
    int *fill = malloc(sizeof(int) * ngroups);
    memcpy(fill, gstart, sizeof(int) * ngroups);
    for (int p = 0; p < NPOP; p++)
        members[fill[wk[p]]++] = p;
    for (int p = 0; p < NPOP; p++) {
        int g = wk[p], gs = gstart[g], gn = gstart[g + 1] - gs;
        for (int k = 0; k < WORK_DEG / 2 && gn > 1; k++) {
            int q = members[gs + (int)(u01() * gn)];
            if (q != p && ne < cap) { ea[ne] = p; eb[ne] = q; es[ne++] = 1; }
        }
        for (int k = 0; k < COMM_DEG / 2; k++) {
            int q = (int)(u01() * NPOP);
            if (q != p && ne < cap) { ea[ne] = p; eb[ne] = q; es[ne++] = 2; }
        }
    }
    for (long e = 0; e < ne; e++) {
        deg[ea[e]]++;
        deg[eb[e]]++;
    }
    net->ptr = malloc(sizeof(int) * (NPOP + 1));
    net->ptr[0] = 0;
    for (int p = 0; p < NPOP; p++)
        net->ptr[p + 1] = net->ptr[p] + deg[p];
    net->adj = malloc(sizeof(int) * net->ptr[NPOP]);
    net->setting = malloc(net->ptr[NPOP]);
    memcpy(deg, net->ptr, sizeof(int) * NPOP);
    for (long e = 0; e < ne; e++) {
        int a = ea[e], b = eb[e];
        net->adj[deg[a]] = b; net->setting[deg[a]++] = es[e];
        net->adj[deg[b]] = a; net->setting[deg[b]++] = es[e];
    }
    free(deg); free(hh); free(wk); free(ea); free(eb); free(es);
    free(gstart); free(members); free(fill);
}

static void write_population(const char *dir, const network_t *net)
{
    FILE *f = xopen(dir, "population.bin", "wb");
    int32_t n = NPOP;
    fwrite(&n, sizeof n, 1, f);
    fwrite(net->age, 1, NPOP, f);
    fwrite(net->ptr, sizeof(int), NPOP + 1, f);
    fclose(f);
}

/* Weekly snapshot: compartment byte and infection day per person. */
static void write_snapshot(const char *dir, int rep, int week, const agent_t *ag,
                           unsigned char *st, int16_t *dy)
{
    char name[64];
    snprintf(name, sizeof name, "snap_r%d_w%02d.bin", rep, week);
    FILE *f = xopen(dir, name, "wb");
    int32_t hdr[3] = { NPOP, rep, week };
    for (int p = 0; p < NPOP; p++) {
        st[p] = ag[p].state;
        dy[p] = ag[p].day_inf;
    }
    fwrite(hdr, sizeof hdr, 1, f);
    fwrite(st, 1, NPOP, f);
    fwrite(dy, sizeof(int16_t), NPOP, f);
    fclose(f);
}

/* One replicate: returns total infections; writes line list + daily CSV. */
static long run_epidemic(const char *dir, int rep, const network_t *net, agent_t *ag,
                         int *nweeks)
{
    char name[64];
    snprintf(name, sizeof name, "linelist_r%d.csv", rep);
    FILE *ll = xopen(dir, name, "w");
    snprintf(name, sizeof name, "daily_r%d.csv", rep);
    FILE *dl = xopen(dir, name, "w");
    fprintf(ll, "person,day,infector,setting,age\n");
    fprintf(dl, "day,S,E,I,R,new_infections\n");
    const double beta[3] = { BETA_HOME, BETA_WORK, BETA_COMM };
    rng = 0x9E3779B97F4A7C15ull * (uint64_t)(rep + 1);
    for (int p = 0; p < NPOP; p++) {
        ag[p].state = S;
        ag[p].age = net->age[p];
        ag[p].day_inf = -1;
        ag[p].infector = -1;
    }
    for (int k = 0; k < SEEDS; k++) {
        int p = (int)(u01() * NPOP);
        ag[p].state = I;
        ag[p].day_inf = 0;
        fprintf(ll, "%d,0,-1,seed,%d\n", p, ag[p].age);
    }
    long total = SEEDS;
    int *infectious = malloc(sizeof(int) * NPOP);
    unsigned char *st = malloc(NPOP);
    int16_t *dy = malloc(sizeof(int16_t) * NPOP);
    *nweeks = 0;
    for (int day = 1; day <= NDAYS; day++) {
        int ni = 0;
        for (int p = 0; p < NPOP; p++)
            if (ag[p].state == I)
                infectious[ni++] = p;
        long newinf = 0;
        for (int k = 0; k < ni; k++) {
            int p = infectious[k];
            for (int e = net->ptr[p]; e < net->ptr[p + 1]; e++) {
                int q = net->adj[e];
                if (ag[q].state != S || u01() >= beta[net->setting[e]])
                    continue;
                ag[q].state = E;
                ag[q].day_inf = (int16_t)day;
                ag[q].infector = p;
                newinf++;
                static const char *sname[3] = { "home", "work", "community" };
                fprintf(ll, "%d,%d,%d,%s,%d\n", q, day, p, sname[net->setting[e]], ag[q].age);
            }
        }
        long cnt[4] = { 0, 0, 0, 0 };
        for (int p = 0; p < NPOP; p++) {
            if (ag[p].day_inf == day) {        /* infected today: stay E */
            } else if (ag[p].state == E && u01() < P_E_TO_I) {
                ag[p].state = I;
            } else if (ag[p].state == I && u01() < P_I_TO_R) {
                ag[p].state = R;
            }
            cnt[ag[p].state]++;
        }
        total += newinf;
        fprintf(dl, "%d,%ld,%ld,%ld,%ld,%ld\n", day, cnt[S], cnt[E], cnt[I], cnt[R], newinf);
        fflush(ll);
        fflush(dl);
        if (day % 7 == 0)
            write_snapshot(dir, rep, (*nweeks)++, ag, st, dy);
        if (cnt[E] + cnt[I] == 0)
            break;
    }
    free(infectious);
    free(st);
    free(dy);
    fclose(ll);
    fclose(dl);
    return total;
}

static void weekly_attack_rates(const char *dir, int rep, int nweeks, FILE *rep_out)
{
    unsigned char *age = malloc(NPOP), *st = malloc(NPOP);
    int16_t *dy = malloc(sizeof(int16_t) * NPOP);
    FILE *f = xopen(dir, "population.bin", "rb");
    int32_t n;
    if (fread(&n, sizeof n, 1, f) != 1 || n != NPOP || fread(age, 1, NPOP, f) != NPOP) {
        fprintf(stderr, "bad population file\n");
        exit(1);
    }
    fclose(f);
    for (int w = 0; w < nweeks; w++) {
        char name[64];
        snprintf(name, sizeof name, "snap_r%d_w%02d.bin", rep, w);
        f = xopen(dir, name, "rb");
        int32_t hdr[3];
        if (fread(hdr, sizeof hdr, 1, f) != 1 || hdr[0] != NPOP ||
            fread(st, 1, NPOP, f) != NPOP || fread(dy, sizeof(int16_t), NPOP, f) != NPOP) {
            fprintf(stderr, "bad snapshot %s\n", name);
            exit(1);
        }
        fclose(f);
        long cnt[NAGE] = { 0 }, hit[NAGE] = { 0 }, recent[NAGE] = { 0 };
        for (int p = 0; p < NPOP; p++) {
            cnt[age[p]]++;
            hit[age[p]] += st[p] != S;
            recent[age[p]] += dy[p] > 7 * w;
        }
        fprintf(rep_out, "rep %d week %2d attack%%:", rep, w + 1);
        for (int a = 0; a < NAGE; a++)
            fprintf(rep_out, " %6.2f", 100.0 * hit[a] / (cnt[a] ? cnt[a] : 1));
        fprintf(rep_out, " | incidence/1e5:");
        for (int a = 0; a < NAGE; a++)
            fprintf(rep_out, " %7.1f", 1e5 * recent[a] / (cnt[a] ? cnt[a] : 1));
        fprintf(rep_out, "\n");
    }
    free(age);
    free(st);
    free(dy);
}

static void serial_interval_rt(const char *dir, int rep, FILE *rep_out)
{
    char name[64], line[256];
    snprintf(name, sizeof name, "linelist_r%d.csv", rep);
    FILE *f = xopen(dir, name, "r");
    int16_t *dinf = malloc(sizeof(int16_t) * NPOP);
    int32_t *infr = malloc(sizeof(int32_t) * NPOP);
    for (int p = 0; p < NPOP; p++) {
        dinf[p] = -1;
        infr[p] = -1;
    }
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return;
    }
    long rows = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        int person = (int)strtol(p, &p, 10);
        int day = (int)strtol(p + 1, &p, 10);
        int infector = (int)strtol(p + 1, &p, 10);
        if (person >= 0 && person < NPOP) {
            dinf[person] = (int16_t)day;
            infr[person] = infector;
            rows++;
        }
    }
    fclose(f);
    long si[MAXSI] = { 0 }, offspring[NDAYS + 1] = { 0 }, cases[NDAYS + 1] = { 0 };
    for (int p = 0; p < NPOP; p++) {
        if (dinf[p] < 0)
            continue;
        cases[dinf[p]]++;
        int q = infr[p];
        if (q >= 0) {
            int d = dinf[p] - dinf[q];
            si[d < MAXSI ? d : MAXSI - 1]++;
            offspring[dinf[q]]++;
        }
    }
    double mean = 0, tot = 0;
    for (int d = 0; d < MAXSI; d++) {
        mean += d * (double)si[d];
        tot += (double)si[d];
    }
    fprintf(rep_out, "rep %d linelist_rows %ld mean_serial_interval %.3f days\n", rep, rows,
            tot > 0 ? mean / tot : 0.0);
    for (int d = 0; d <= NDAYS; d += 5)
        if (cases[d] > 0)
            fprintf(rep_out, "rep %d day %3d cases %6ld Rt %.3f\n", rep, d, cases[d],
                    (double)offspring[d] / cases[d]);
    free(dinf);
    free(infr);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    mkdir(dir, 0755);
    rng = 20240229ull;
    network_t net;
    build_network(&net);
    write_population(dir, &net);
    agent_t *ag = malloc(sizeof(agent_t) * NPOP);
    FILE *rep_out = xopen(dir, "epi_report.txt", "w");
    for (int r = 0; r < NREP; r++) {
        int nweeks;
        long tot = run_epidemic(dir, r, &net, ag, &nweeks);
        fprintf(rep_out, "rep %d total_infections %ld (%.2f%%)\n", r, tot, 100.0 * tot / NPOP);
        printf("replicate %d: infections=%ld weeks=%d\n", r, tot, nweeks);
        weekly_attack_rates(dir, r, nweeks, rep_out);
        serial_interval_rt(dir, r, rep_out);
    }
    fclose(rep_out);
    free(ag);
    return 0;
}
