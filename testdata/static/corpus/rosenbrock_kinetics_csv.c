/*
 * rosenbrock_kinetics_csv.c -- stiff gas-phase kinetics temperature sweep.
 *
 * A synthetic reaction mechanism (NSPEC species, NREAC mass-action
 * reactions with modified-Arrhenius rate constants) is written as a text
 * mechanism file and parsed back with fgets/sscanf.  For NCASE isothermal
 * reactor temperatures the species equations are integrated with an
 * adaptive two-stage Rosenbrock method (analytic Jacobian, dense LU);
 * every accepted step is appended to a per-case CSV file with fprintf.
 * The CSV files are then re-read to extract the fuel half-life
 * ("ignition delay") by interpolation, and an apparent activation energy
 * is fitted to ln(tau) vs 1/T and written to a summary file.
 *
 * Usage: rosenbrock_kinetics_csv OUTDIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NSPEC   24
#define NREAC   72
#define NCASE   36
#define TLOW    900.0
#define THIGH   1500.0
#define TEND    0.05
#define RTOL    1e-4
#define ATOL    1e-10
#define RGAS    8.314462618

typedef struct {
    int nr, np;
    int r[2], p[2];
    double A, b, Ea;
} reaction_t;

typedef struct {
    char name[NSPEC][16];
    int nspec, nreac;
    reaction_t rx[NREAC];
} mech_t;

static unsigned long long seed = 0x1234abcdull;

static double uni(void)
{
    seed = seed * 2862933555777941757ull + 3037000493ull;
    return (double)(seed >> 11) / 9007199254740992.0;
}

static void die(const char *s)
{
    perror(s);
    exit(1);
}

static void write_mechanism(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die(path);
    fprintf(f, "! synthetic oxidation mechanism\nELEMENTS C H O END\nSPECIES\n");
    for (int s = 0; s < NSPEC; s++)
        fprintf(f, "  S%02d%s\n", s, s == 0 ? "_FUEL" : s == NSPEC - 1 ? "_PROD" : "");
    fprintf(f, "END\nREACTIONS  A[cgs]  b  Ea[J/mol]\n");
    for (int j = 0; j < NREAC; j++) {
        int a = (int)(uni() * (NSPEC - 2)), b;
        int two = uni() < 0.6;
        b = a + 1 + (int)(uni() * 3);
        if (b > NSPEC - 2)
            b = NSPEC - 2;
        int c = a + 1 + (int)(uni() * 4), d = (j % 5 == 0) ? NSPEC - 1 : c + 1;
        if (c > NSPEC - 1) c = NSPEC - 1;
        if (d > NSPEC - 1) d = NSPEC - 1;
        double A = pow(10.0, 3.0 + 9.0 * uni()), be = -1.0 + 2.0 * uni();
        double Ea = 2.0e4 + 1.8e5 * uni();
        if (two)
            fprintf(f, "S%02d + S%02d => S%02d + S%02d   %.6e %.3f %.2f\n", a, b, c, d, A, be, Ea);
        else
            fprintf(f, "S%02d => S%02d + S%02d   %.6e %.3f %.2f\n", a, c, d, A, be, Ea);
    }
    fprintf(f, "END\n");
    fclose(f);
}

static void parse_mechanism(const char *path, mech_t *m)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die(path);
    char line[256];
    int section = 0;
    m->nspec = m->nreac = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '!')
            continue;
        if (strncmp(line, "SPECIES", 7) == 0) { section = 1; continue; }
        if (strncmp(line, "REACTIONS", 9) == 0) { section = 2; continue; }
        if (strncmp(line, "END", 3) == 0) { section = 0; continue; }
        if (section == 1 && m->nspec < NSPEC) {
            sscanf(line, "%15s", m->name[m->nspec]);
            m->nspec++;
        } else if (section == 2 && m->nreac < NREAC) {
            reaction_t *r = &m->rx[m->nreac];
            int a, b, c, d;
            if (sscanf(line, "S%d + S%d => S%d + S%d %lf %lf %lf", &a, &b, &c, &d, &r->A, &r->b, &r->Ea) == 7) {
                r->nr = 2; r->r[0] = a; r->r[1] = b;
            } else if (sscanf(line, "S%d => S%d + S%d %lf %lf %lf", &a, &c, &d, &r->A, &r->b, &r->Ea) == 6) {
                r->nr = 1; r->r[0] = a; r->r[1] = -1;
            } else {
                continue;
            }
            r->np = 2; r->p[0] = c; r->p[1] = d;
            m->nreac++;
        }
    }
    fclose(f);
}

static void rate_constants(const mech_t *m, double T, double *k)
{
    for (int j = 0; j < m->nreac; j++) {
        const reaction_t *r = &m->rx[j];
        double A = r->nr == 2 ? r->A * 1e-6 : r->A;     /* cm^3 -> m^3 */
        k[j] = A * pow(T / 1000.0, r->b) * exp(-r->Ea / (RGAS * T));
    }
}

static void rhs_jac(const mech_t *m, const double *k, const double *y, double *f, double *J)
{
    memset(f, 0, sizeof(double) * NSPEC);
    if (J)
        memset(J, 0, sizeof(double) * NSPEC * NSPEC);
    for (int j = 0; j < m->nreac; j++) {
        const reaction_t *r = &m->rx[j];
        double w, dw[2];
        if (r->nr == 2) {
            w = k[j] * y[r->r[0]] * y[r->r[1]];
            dw[0] = k[j] * y[r->r[1]];
            dw[1] = k[j] * y[r->r[0]];
        } else {
            w = k[j] * y[r->r[0]];
            dw[0] = k[j];
            dw[1] = 0.0;
        }
        for (int i = 0; i < r->nr; i++)
            f[r->r[i]] -= w;
        for (int i = 0; i < r->np; i++)
            f[r->p[i]] += w;
        if (!J)
            continue;
        for (int q = 0; q < r->nr; q++) {
            int col = r->r[q];
            for (int i = 0; i < r->nr; i++)
                J[r->r[i] * NSPEC + col] -= dw[q];
            for (int i = 0; i < r->np; i++)
                J[r->p[i] * NSPEC + col] += dw[q];
        }
    }
}

/* LU with partial pivoting, in place. */
static void lu_factor(double *a, int *piv)
{
    for (int c = 0; c < NSPEC; c++) {
        int p = c;
        for (int r = c + 1; r < NSPEC; r++)
            if (fabs(a[r * NSPEC + c]) > fabs(a[p * NSPEC + c]))
                p = r;
        piv[c] = p;
        if (p != c)
            for (int k = 0; k < NSPEC; k++) {
                double t = a[c * NSPEC + k];
                a[c * NSPEC + k] = a[p * NSPEC + k];
                a[p * NSPEC + k] = t;
            }
        double d = a[c * NSPEC + c];
        for (int r = c + 1; r < NSPEC; r++) {
            double l = a[r * NSPEC + c] /= d;
            for (int k = c + 1; k < NSPEC; k++)
                a[r * NSPEC + k] -= l * a[c * NSPEC + k];
        }
    }
}

static void lu_solve(const double *a, const int *piv, double *b)
{
    for (int c = 0; c < NSPEC; c++) {
        double t = b[piv[c]]; b[piv[c]] = b[c]; b[c] = t;
        for (int r = c + 1; r < NSPEC; r++)
            b[r] -= a[r * NSPEC + c] * b[c];
    }
    for (int c = NSPEC - 1; c >= 0; c--) {
        for (int k = c + 1; k < NSPEC; k++)
            b[c] -= a[c * NSPEC + k] * b[k];
        b[c] /= a[c * NSPEC + c];
    }
}

/* Integrate one isothermal case; every accepted step goes to the CSV. */
static long integrate_case(const mech_t *m, double T, const char *csv)
{
    const double gam = 1.0 + 1.0 / sqrt(2.0);
    double k[NREAC], y[NSPEC], f[NSPEC], J[NSPEC * NSPEC], W[NSPEC * NSPEC];
    double k1[NSPEC], k2[NSPEC], yt[NSPEC], ynew[NSPEC];
    int piv[NSPEC];
    rate_constants(m, T, k);
    memset(y, 0, sizeof y);
    y[0] = 1.0;                    /* fuel */
    y[1] = 3.0;                    /* oxidiser-like partner */
    FILE *out = fopen(csv, "w");
    if (!out)
        die(csv);
    fprintf(out, "t,T");
    for (int s = 0; s < NSPEC; s++)
        fprintf(out, ",%s", m->name[s]);
    fprintf(out, "\n");
    double t = 0.0, h = 1e-9;
    long acc = 0;
    while (t < TEND) {
        if (t + h > TEND)
            h = TEND - t;
        rhs_jac(m, k, y, f, J);
        for (int i = 0; i < NSPEC * NSPEC; i++)
            W[i] = -gam * h * J[i];
        for (int i = 0; i < NSPEC; i++)
            W[i * NSPEC + i] += 1.0;
        lu_factor(W, piv);
        memcpy(k1, f, sizeof k1);
        lu_solve(W, piv, k1);
        for (int i = 0; i < NSPEC; i++)
            yt[i] = y[i] + h * k1[i];
        rhs_jac(m, k, yt, k2, NULL);
        for (int i = 0; i < NSPEC; i++)
            k2[i] -= 2.0 * k1[i];
        lu_solve(W, piv, k2);
        double err = 0.0;
        for (int i = 0; i < NSPEC; i++) {
            ynew[i] = y[i] + 1.5 * h * k1[i] + 0.5 * h * k2[i];
            double e = 0.5 * h * (k1[i] + k2[i]);
            double sc = ATOL + RTOL * fmax(fabs(y[i]), fabs(ynew[i]));
            err += (e / sc) * (e / sc);
        }
        err = sqrt(err / NSPEC);
        if (err <= 1.0) {
            t += h;
            for (int i = 0; i < NSPEC; i++)
                y[i] = ynew[i] > 0.0 ? ynew[i] : 0.0;
            acc++;
            fprintf(out, "%.9e,%.1f", t, T);
            for (int i = 0; i < NSPEC; i++)
                fprintf(out, ",%.6e", y[i]);
            fputc('\n', out);
        }
        double fac = 0.9 / sqrt(fmax(err, 1e-10));
        h *= fmin(4.0, fmax(0.2, fac));
    }
    fclose(out);
    return acc;
}

/* Re-read one CSV and find the time at which the fuel drops to half. */
static double half_life_from_csv(const char *csv, long *rows)
{
    FILE *f = fopen(csv, "r");
    if (!f)
        die(csv);
    char line[1024];
    double tprev = 0.0, yprev = 1.0, tau = -1.0;
    *rows = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return tau;
    }
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        double t = strtod(p, &p);
        strtod(p + 1, &p);          /* temperature column */
        double yf = strtod(p + 1, &p);
        (*rows)++;
        if (tau < 0.0 && yf <= 0.5) {
            tau = tprev + (t - tprev) * (yprev - 0.5) / (yprev - yf);
        }
        tprev = t;
        yprev = yf;
    }
    fclose(f);
    return tau;
}

static void write_summary(const char *path, const double *T, const double *tau,
                          const long *steps)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int c = 0; c < NCASE; c++)
        if (tau[c] > 0) {
            double x = 1.0 / T[c], yv = log(tau[c]);
            sx += x; sy += yv; sxx += x * x; sxy += x * yv; n++;
        }
    double slope = n > 1 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0.0;
    FILE *f = fopen(path, "w");
    if (!f)
        die(path);
    fprintf(f, "# T[K]  steps  tau_half[s]  1000/T  ln(tau)\n");
    for (int c = 0; c < NCASE; c++)
        fprintf(f, "%8.2f %7ld %14.6e %8.5f %10.4f\n", T[c], steps[c], tau[c],
                1000.0 / T[c], tau[c] > 0 ? log(tau[c]) : 0.0);
    fprintf(f, "# apparent activation energy %.2f kJ/mol from %d cases\n",
            slope * RGAS / 1000.0, n);
    fclose(f);
    printf("cases=%d apparent Ea=%.2f kJ/mol\n", NCASE, slope * RGAS / 1000.0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    mkdir(dir, 0755);
    char path[4096];
    snprintf(path, sizeof path, "%s/mechanism.inp", dir);
    write_mechanism(path);
    static mech_t mech;
    parse_mechanism(path, &mech);

    double T[NCASE], tau[NCASE];
    long steps[NCASE], rows = 0, total = 0;
    for (int c = 0; c < NCASE; c++) {
        T[c] = TLOW + (THIGH - TLOW) * c / (NCASE - 1);
        snprintf(path, sizeof path, "%s/case_%03d.csv", dir, c);
        steps[c] = integrate_case(&mech, T[c], path);
    }
    for (int c = 0; c < NCASE; c++) {
        snprintf(path, sizeof path, "%s/case_%03d.csv", dir, c);
        tau[c] = half_life_from_csv(path, &rows);
        total += rows;
    }
    snprintf(path, sizeof path, "%s/ignition_summary.txt", dir);
    write_summary(path, T, tau, steps);
    printf("species=%d reactions=%d csv_rows=%ld\n", mech.nspec, mech.nreac, total);
    return 0;
}
