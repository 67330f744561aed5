/* Monte Carlo pricing of European calls and puts under geometric Brownian
 * motion over a grid of strikes, maturities and volatilities; a wide
 * convergence table is written with fprintf, a per-contract CSV summary is
 * written and then re-read with fgets + sscanf and checked. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSTRIKE 8
#define NMAT 6
#define NVOL 4
#define NCONTRACT (NSTRIKE * NMAT * NVOL)
#define NBATCH 40
#define PATHS_PER_BATCH 2500

typedef struct {
    double strike, maturity, vol;
    double call, call_se, put, put_se, bs_call, bs_put, delta;
} contract_t;

static const double spot = 100.0, rate = 0.03;

static uint64_t rng = 88172645463325252ULL;
static double uniform01(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gaussian(void)
{
    static int have = 0;
    static double spare;
    if (have) { have = 0; return spare; }
    double u = uniform01(), v = uniform01();
    double r = sqrt(-2.0 * log(u));
    spare = r * sin(2.0 * M_PI * v);
    have = 1;
    return r * cos(2.0 * M_PI * v);
}

static double norm_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static void black_scholes(contract_t *c)
{
    double sq = c->vol * sqrt(c->maturity);
    double d1 = (log(spot / c->strike) + (rate + 0.5 * c->vol * c->vol) * c->maturity) / sq;
    double d2 = d1 - sq;
    double disc = exp(-rate * c->maturity);
    c->bs_call = spot * norm_cdf(d1) - c->strike * disc * norm_cdf(d2);
    c->bs_put = c->strike * disc * norm_cdf(-d2) - spot * norm_cdf(-d1);
    c->delta = norm_cdf(d1);
}

/* price one contract in batches, writing one table row per batch */
static void price_contract(FILE *table, int id, contract_t *c)
{
    double drift = (rate - 0.5 * c->vol * c->vol) * c->maturity;
    double diff = c->vol * sqrt(c->maturity);
    double disc = exp(-rate * c->maturity);
    double sc = 0.0, sc2 = 0.0, sp = 0.0, sp2 = 0.0;
    long n = 0;
    for (int b = 0; b < NBATCH; b++) {
        for (int p = 0; p < PATHS_PER_BATCH; p++) {
            double z = gaussian();
            double s1 = spot * exp(drift + diff * z), s2 = spot * exp(drift - diff * z);
            double pc = 0.5 * (fmax(s1 - c->strike, 0.0) + fmax(s2 - c->strike, 0.0));
            double pp = 0.5 * (fmax(c->strike - s1, 0.0) + fmax(c->strike - s2, 0.0));
            sc += pc; sc2 += pc * pc; sp += pp; sp2 += pp * pp;
            n++;
        }
        double mc = sc / n, mp = sp / n;
        double sec = sqrt(fmax(sc2 / n - mc * mc, 0.0) / n), sep = sqrt(fmax(sp2 / n - mp * mp, 0.0) / n);
        fprintf(table, "%5d %4d %8ld %8.2f %6.3f %6.3f %12.6f %10.6f %12.6f %10.6f %12.6f %12.6f %+10.6f %+10.6f %9.5f\n",
                id, b + 1, n, c->strike, c->maturity, c->vol,
                disc * mc, disc * sec, disc * mp, disc * sep, c->bs_call, c->bs_put,
                disc * mc - c->bs_call, disc * mp - c->bs_put,
                fabs(disc * mc - c->bs_call) / fmax(disc * sec, 1e-12));
    }
    double mc = sc / n, mp = sp / n;
    c->call = disc * mc; c->put = disc * mp;
    c->call_se = disc * sqrt(fmax(sc2 / n - mc * mc, 0.0) / n);
    c->put_se = disc * sqrt(fmax(sp2 / n - mp * mp, 0.0) / n);
}

static void write_csv(const char *path, const contract_t *cs)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "id,strike,maturity,vol,call,call_se,put,put_se,bs_call,bs_put,delta\n");
    for (int i = 0; i < NCONTRACT; i++) {
        const contract_t *c = &cs[i];
        fprintf(f, "%d,%.4f,%.4f,%.4f,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e\n", i,
                c->strike, c->maturity, c->vol, c->call, c->call_se, c->put, c->put_se,
                c->bs_call, c->bs_put, c->delta);
    }
    fclose(f);
}

static int verify_csv(const char *path, const contract_t *cs)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return 1; }
    char line[512];
    int row = 0, bad = 0;
    if (!fgets(line, sizeof line, f)) { fclose(f); return 1; }
    while (fgets(line, sizeof line, f)) {
        int id;
        double k, t, v, call, cse, put, pse, bc, bp, dl;
        if (sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &id, &k, &t, &v, &call, &cse,
                   &put, &pse, &bc, &bp, &dl) != 11 || id != row) { bad++; row++; continue; }
        const contract_t *c = &cs[id];
        if (fabs(call - c->call) > 1e-9 * (1 + c->call) || fabs(put - c->put) > 1e-9 * (1 + c->put)
            || fabs(k - c->strike) > 1e-4) bad++;
        /* statistical check: antithetic MC within 6 standard errors of Black-Scholes
         * and put-call parity of the analytic prices */
        if (fabs(call - bc) > 6 * cse + 1e-4 || fabs(put - bp) > 6 * pse + 1e-4) bad++;
        if (fabs((bc - bp) - (spot - k * exp(-rate * t))) > 1e-8) bad++;
        row++;
    }
    fclose(f);
    if (row != NCONTRACT) bad++;
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    char tpath[512], cpath[512];
    snprintf(tpath, sizeof tpath, "%s/convergence_table.txt", argv[1]);
    snprintf(cpath, sizeof cpath, "%s/summary.csv", argv[1]);
    static contract_t cs[NCONTRACT];
    FILE *table = fopen(tpath, "w");
    if (!table) { perror(tpath); return 1; }
    fprintf(table, "# European option Monte Carlo convergence, S0=%.2f r=%.4f, antithetic pairs\n", spot, rate);
    fprintf(table, "%5s %4s %8s %8s %6s %6s %12s %10s %12s %10s %12s %12s %10s %10s %9s\n",
            "id", "bat", "paths", "strike", "T", "sigma", "mc_call", "se_call", "mc_put", "se_put",
            "bs_call", "bs_put", "err_call", "err_put", "z_call");
    int id = 0;
    for (int iv = 0; iv < NVOL; iv++)
        for (int it = 0; it < NMAT; it++)
            for (int ik = 0; ik < NSTRIKE; ik++) {
                contract_t *c = &cs[id];
                c->strike = 70.0 + 8.0 * ik;
                c->maturity = 0.25 * (1 << it) / 2.0;
                c->vol = 0.1 + 0.1 * iv;
                black_scholes(c);
                price_contract(table, id, c);
                id++;
            }
    fclose(table);
    write_csv(cpath, cs);
    int bad = verify_csv(cpath, cs);
    printf("contracts %d, check failures %d\n", NCONTRACT, bad);
    return bad ? 1 : 0;
}
