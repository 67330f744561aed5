/*
 * walksat_cnf_runs: a batch SAT campaign.  Random 3-SAT instances are written
 * in DIMACS CNF format into an instances/ directory, each is parsed back with
 * fscanf, solved with WalkSAT (noise 0.5, several restarts), progress lines
 * are appended to an unbuffered journal with write(2), the model is written in
 * SAT-competition "v" line format and then re-read and verified against the
 * CNF file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#define N_INSTANCES 6
#define N_VARS 3000
#define RATIO 4.12
#define MAX_FLIPS 400000
#define MAX_TRIES 3
#define NOISE 0.567

typedef struct {
    int nvars, nclauses;
    int *lits;        /* 3 * nclauses */
    int *occ_start;   /* CSR: literal -> clause list, index lit+nvars */
    int *occ;
} Formula;

static unsigned long long seed_state;
static unsigned rnd(void)
{
    seed_state = seed_state * 2862933555777941757ULL + 3037000493ULL;
    return (unsigned)(seed_state >> 33);
}

static void generate_instance(const char *path, int nvars, int ncl, unsigned seed)
{
    FILE *f = fopen(path, "w");
    int c;
    if (!f) { perror(path); exit(1); }
    seed_state = seed;
    fprintf(f, "c random 3-SAT, seed %u, ratio %.2f\n", seed, (double)ncl / nvars);
    fprintf(f, "p cnf %d %d\n", nvars, ncl);
    for (c = 0; c < ncl; c++) {
        int v[3], k;
        do {
            for (k = 0; k < 3; k++) v[k] = 1 + (int)(rnd() % nvars);
        } while (v[0] == v[1] || v[0] == v[2] || v[1] == v[2]);
        for (k = 0; k < 3; k++) fprintf(f, "%d ", (rnd() & 1) ? v[k] : -v[k]);
        fprintf(f, "0\n");
    }
    fclose(f);
}

static void parse_dimacs(const char *path, Formula *F)
{
    FILE *f = fopen(path, "r");
    char line[256];
    int c = 0, i, lit, k = 0;
    int *count;
    if (!f) { perror(path); exit(1); }
    while (fgets(line, sizeof line, f)) {
        if (line[0] == 'c') continue;
        if (line[0] == 'p') { sscanf(line, "p cnf %d %d", &F->nvars, &F->nclauses); break; }
    }
    F->lits = malloc(sizeof(int) * 3 * F->nclauses);
    while (c < F->nclauses && fscanf(f, "%d", &lit) == 1) {
        if (lit == 0) { c++; k = 0; continue; }
        if (k < 3) F->lits[3 * c + k++] = lit;
    }
    fclose(f);
    count = calloc(2 * F->nvars + 2, sizeof(int));
    for (i = 0; i < 3 * F->nclauses; i++) count[F->lits[i] + F->nvars + 1]++;
    F->occ_start = calloc(2 * F->nvars + 2, sizeof(int));
    for (i = 1; i < 2 * F->nvars + 2; i++) F->occ_start[i] = F->occ_start[i - 1] + count[i];
    F->occ = malloc(sizeof(int) * 3 * F->nclauses);
    memset(count, 0, sizeof(int) * (2 * F->nvars + 2));
    for (i = 0; i < 3 * F->nclauses; i++) {
        int idx = F->lits[i] + F->nvars;
        F->occ[F->occ_start[idx] + count[idx]++] = i / 3;
    }
    free(count);
}

static void journal(int fd, const char *fmt_line)
{
    size_t n = strlen(fmt_line);
    if (write(fd, fmt_line, n) != (ssize_t)n) perror("journal");
}

/* WalkSAT with break-count heuristic; returns number of unsatisfied clauses. */
static int walksat(const Formula *F, char *assign, char *best_assign, int jfd, int inst)
{
    int nv = F->nvars, nc = F->nclauses;
    int *ntrue = malloc(sizeof(int) * nc);
    int *unsat = malloc(sizeof(int) * nc), *where = malloc(sizeof(int) * nc);
    int nunsat = 0, best = nc, try_, flip, i;
    char msg[160];

    for (try_ = 0; try_ < MAX_TRIES; try_++) {
        for (i = 1; i <= nv; i++) assign[i] = rnd() & 1;
        nunsat = 0;
        for (i = 0; i < nc; i++) {
            int k;
            ntrue[i] = 0;
            for (k = 0; k < 3; k++) {
                int l = F->lits[3 * i + k];
                if ((l > 0) == assign[abs(l)]) ntrue[i]++;
            }
            where[i] = -1;
            if (!ntrue[i]) { where[i] = nunsat; unsat[nunsat++] = i; }
        }
        for (flip = 0; flip < MAX_FLIPS && nunsat > 0; flip++) {
            int cl = unsat[rnd() % nunsat], bestv = 0, bestb = 1 << 30, k, v, l;
            for (k = 0; k < 3; k++) {
                int brk = 0, vv = abs(F->lits[3 * cl + k]);
                int fl = assign[vv] ? vv : -vv; /* currently true literal of vv */
                int idx = fl + nv, j;
                for (j = F->occ_start[idx]; j < F->occ_start[idx + 1]; j++)
                    if (ntrue[F->occ[j]] == 1) brk++;
                if (brk < bestb) { bestb = brk; bestv = vv; }
            }
            /* freebie move if a zero-break variable exists, else noisy walk */
            if (bestb > 0 && (rnd() % 1000) < NOISE * 1000)
                bestv = abs(F->lits[3 * cl + rnd() % 3]);
            v = bestv;
            l = assign[v] ? v : -v; /* literal becoming false */
            assign[v] ^= 1;
            {
                int idx = l + nv, j;
                for (j = F->occ_start[idx]; j < F->occ_start[idx + 1]; j++) {
                    int c2 = F->occ[j];
                    if (--ntrue[c2] == 0) { where[c2] = nunsat; unsat[nunsat++] = c2; }
                }
                idx = -l + nv;
                for (j = F->occ_start[idx]; j < F->occ_start[idx + 1]; j++) {
                    int c2 = F->occ[j];
                    if (ntrue[c2]++ == 0) {
                        int last = unsat[--nunsat];
                        unsat[where[c2]] = last; where[last] = where[c2]; where[c2] = -1;
                    }
                }
            }
            if (flip % 2000 == 0) {
                snprintf(msg, sizeof msg, "inst %d try %d flip %7d unsat %5d\n", inst, try_, flip, nunsat);
                journal(jfd, msg);
            }
        }
        snprintf(msg, sizeof msg, "inst %d try %d end flips %d unsat %d\n", inst, try_, flip, nunsat);
        journal(jfd, msg);
        if (nunsat < best) { best = nunsat; memcpy(best_assign, assign, nv + 1); }
        if (nunsat == 0) break;
    }
    free(ntrue); free(unsat); free(where);
    return best;
}

static void write_model(const char *path, const char *a, int nv, int unsat)
{
    FILE *f = fopen(path, "w");
    int i, col = 0;
    fprintf(f, "s %s\n", unsat == 0 ? "SATISFIABLE" : "UNKNOWN");
    for (i = 1; i <= nv; i++) {
        if (col == 0) fputs("v", f);
        fprintf(f, " %d", a[i] ? i : -i);
        if (++col == 12) { fputs("\n", f); col = 0; }
    }
    fprintf(f, "%sv 0\n", col ? "\n" : "");
    fclose(f);
}

static int verify_model(const char *model_path, const char *cnf_path)
{
    Formula G;
    FILE *f = fopen(model_path, "r");
    char *a, tok[32];
    int i, bad = 0;
    memset(&G, 0, sizeof G);
    parse_dimacs(cnf_path, &G);
    a = calloc(G.nvars + 1, 1);
    while (fscanf(f, "%31s", tok) == 1) {
        int l;
        if (tok[0] == 's' || tok[0] == 'v' || tok[0] == 'S' || tok[0] == 'U') continue;
        l = atoi(tok);
        if (l > 0 && l <= G.nvars) a[l] = 1;
    }
    fclose(f);
    for (i = 0; i < G.nclauses; i++) {
        int k, sat = 0;
        for (k = 0; k < 3; k++) { int l = G.lits[3 * i + k]; sat |= (l > 0) == a[abs(l)]; }
        bad += !sat;
    }
    free(a); free(G.lits); free(G.occ); free(G.occ_start);
    return bad;
}

int main(int argc, char **argv)
{
    char path[512], model[512], line[256];
    int jfd, i;
    FILE *summary;
    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 2; }
    snprintf(path, sizeof path, "%s/instances", argv[1]); mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/models", argv[1]); mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/journal.log", argv[1]);
    jfd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (jfd < 0) { perror(path); return 1; }
    snprintf(path, sizeof path, "%s/summary.csv", argv[1]);
    summary = fopen(path, "w");
    fprintf(summary, "instance,vars,clauses,best_unsat,verified_unsat\n");

    for (i = 0; i < N_INSTANCES; i++) {
        Formula F;
        char *assign, *best_assign;
        int best, bad;
        int ncl = (int)(N_VARS * (RATIO - 0.1 * (i % 3)));
        snprintf(path, sizeof path, "%s/instances/r3sat_%02d.cnf", argv[1], i);
        generate_instance(path, N_VARS, ncl, 1000u + 17u * i);
        memset(&F, 0, sizeof F);
        parse_dimacs(path, &F);
        assign = calloc(F.nvars + 1, 1);
        best_assign = calloc(F.nvars + 1, 1);
        seed_state = 77 + i;
        best = walksat(&F, assign, best_assign, jfd, i);
        snprintf(model, sizeof model, "%s/models/r3sat_%02d.model", argv[1], i);
        write_model(model, best_assign, F.nvars, best);
        bad = verify_model(model, path);
        fprintf(summary, "%d,%d,%d,%d,%d\n", i, F.nvars, F.nclauses, best, bad);
        snprintf(line, sizeof line, "inst %d verified: %d clauses unsatisfied\n", i, bad);
        journal(jfd, line);
        fsync(jfd);
        free(assign); free(best_assign); free(F.lits); free(F.occ); free(F.occ_start);
    }
    fclose(summary);
    close(jfd);
    return 0;
}
