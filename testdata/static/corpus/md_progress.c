/*
 * Lennard-Jones fluid, NVE molecular dynamics with velocity Verlet
 * (reduced units, truncated and shifted potential, minimum-image periodic
 * box).  A short progress line is appended to a log file and flushed every
 * LOG_EVERY steps; the time-averaged observables go to a small result file.
 * The run checks energy conservation and momentum.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCELL      5                 /* fcc cells per side */
#define NATOMS     (4 * NCELL * NCELL * NCELL)
#define DENSITY    0.8442
#define T_INIT     1.44
#define RCUT       2.5
#define DT         0.004
#define NSTEPS     1800
#define NEQUIL     300
#define LOG_EVERY  200

typedef struct {
    double x[NATOMS][3], v[NATOMS][3], f[NATOMS][3];
    double box, ecut;
    double pot, virial;
} md_system;

static uint64_t seed = 0xda3e39cb94b95bdbULL;

static double uniform(void)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((seed >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void init_lattice(md_system *s)
{
    s->box = cbrt(NATOMS / DENSITY);
    double a = s->box / NCELL;
    const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int n = 0;
    for (int i = 0; i < NCELL; i++)
        for (int j = 0; j < NCELL; j++)
            for (int k = 0; k < NCELL; k++)
                for (int b = 0; b < 4; b++) {
                    s->x[n][0] = a * (i + basis[b][0] + 0.25);
                    s->x[n][1] = a * (j + basis[b][1] + 0.25);
                    s->x[n][2] = a * (k + basis[b][2] + 0.25);
                    n++;
                }
    double vsum[3] = {0, 0, 0}, v2 = 0.0;
    for (int i = 0; i < NATOMS; i++)
        for (int d = 0; d < 3; d++) {
            s->v[i][d] = uniform() - 0.5;
            vsum[d] += s->v[i][d];
        }
    for (int i = 0; i < NATOMS; i++)
        for (int d = 0; d < 3; d++) {
            s->v[i][d] -= vsum[d] / NATOMS;
            v2 += s->v[i][d] * s->v[i][d];
        }
    double scale = sqrt(3.0 * (NATOMS - 1) * T_INIT / v2);
    for (int i = 0; i < NATOMS; i++)
        for (int d = 0; d < 3; d++) s->v[i][d] *= scale;
    double ir6 = pow(RCUT, -6.0);
    s->ecut = 4.0 * (ir6 * ir6 - ir6);
}

static void compute_forces(md_system *s)
{
    const double rc2 = RCUT * RCUT, L = s->box, hL = 0.5 * L;
    memset(s->f, 0, sizeof s->f);
    double pot = 0.0, vir = 0.0;
    for (int i = 0; i < NATOMS - 1; i++) {
        double xi = s->x[i][0], yi = s->x[i][1], zi = s->x[i][2];
        double fxi = 0, fyi = 0, fzi = 0;
        for (int j = i + 1; j < NATOMS; j++) {
            double dx = xi - s->x[j][0], dy = yi - s->x[j][1], dz = zi - s->x[j][2];
            if (dx > hL) dx -= L; else if (dx < -hL) dx += L;
            if (dy > hL) dy -= L; else if (dy < -hL) dy += L;
            if (dz > hL) dz -= L; else if (dz < -hL) dz += L;
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= rc2) continue;
            double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;
            double ff = 48.0 * ir2 * ir6 * (ir6 - 0.5);
            pot += 4.0 * ir6 * (ir6 - 1.0) - s->ecut;
            vir += ff * r2;
            fxi += ff * dx; fyi += ff * dy; fzi += ff * dz;
            s->f[j][0] -= ff * dx; s->f[j][1] -= ff * dy; s->f[j][2] -= ff * dz;
        }
        s->f[i][0] += fxi; s->f[i][1] += fyi; s->f[i][2] += fzi;
    }
    s->pot = pot;
    s->virial = vir;
}

static double kinetic_energy(const md_system *s)
{
    double k = 0.0;
    for (int i = 0; i < NATOMS; i++)
        k += s->v[i][0] * s->v[i][0] + s->v[i][1] * s->v[i][1] + s->v[i][2] * s->v[i][2];
    return 0.5 * k;
}

static void verlet_step(md_system *s)
{
    const double L = s->box;
    for (int i = 0; i < NATOMS; i++)
        for (int d = 0; d < 3; d++) {
            s->v[i][d] += 0.5 * DT * s->f[i][d];
            double x = s->x[i][d] + DT * s->v[i][d];
            if (x < 0.0) x += L; else if (x >= L) x -= L;
            s->x[i][d] = x;
        }
    compute_forces(s);
    for (int i = 0; i < NATOMS; i++)
        for (int d = 0; d < 3; d++) s->v[i][d] += 0.5 * DT * s->f[i][d];
}

static void log_progress(FILE *log, int step, double ke, double pot, double e0)
{
    double etot = ke + pot;
    fprintf(log, "step %6d  t %8.3f  T %.5f  Epot/N %.6f  Etot/N %.8f  drift %+.3e\n", step,
            step * DT, 2.0 * ke / (3.0 * (NATOMS - 1)), pot / NATOMS, etot / NATOMS,
            (etot - e0) / fabs(e0));
    fflush(log);
}

static void write_results(const char *path, double tavg, double pavg, double epot_avg, double drift)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "atoms %d\ndensity %.4f\nsteps %d\n", NATOMS, DENSITY, NSTEPS);
    fprintf(f, "temperature %.6f\npressure %.6f\nepot_per_atom %.6f\nmax_rel_drift %.3e\n", tavg,
            pavg, epot_avg, drift);
    if (fclose(f) != 0) { perror(path); exit(1); }
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char logpath[4096], respath[4096];
    snprintf(logpath, sizeof logpath, "%s/md_progress.log", argv[1]);
    snprintf(respath, sizeof respath, "%s/md_result.txt", argv[1]);

    static md_system sys;
    init_lattice(&sys);
    compute_forces(&sys);

    FILE *log = fopen(logpath, "w");
    if (!log) { perror(logpath); return 1; }
    fprintf(log, "# LJ NVE, %d atoms, rho %.4f, dt %.4f, rc %.2f\n", NATOMS, DENSITY, DT, RCUT);
    fflush(log);

    double e0 = kinetic_energy(&sys) + sys.pot, max_drift = 0.0;
    double tsum = 0.0, psum = 0.0, usum = 0.0;
    int nsamp = 0;
    double vol = sys.box * sys.box * sys.box;
    for (int step = 1; step <= NSTEPS; step++) {
        verlet_step(&sys);
        double ke = kinetic_energy(&sys);
        if (step == NEQUIL) e0 = ke + sys.pot;
        if (step > NEQUIL) {
            double t = 2.0 * ke / (3.0 * (NATOMS - 1));
            tsum += t;
            psum += DENSITY * t + sys.virial / (3.0 * vol);
            usum += sys.pot / NATOMS;
            nsamp++;
            double drift = fabs(ke + sys.pot - e0) / fabs(e0);
            if (drift > max_drift) max_drift = drift;
        }
        if (step % LOG_EVERY == 0) log_progress(log, step, ke, sys.pot, e0);
    }
    if (fclose(log) != 0) { perror(logpath); return 1; }

    double p[3] = {0, 0, 0};
    for (int i = 0; i < NATOMS; i++)
        for (int d = 0; d < 3; d++) p[d] += sys.v[i][d];
    double pnorm = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);

    write_results(respath, tsum / nsamp, psum / nsamp, usum / nsamp, max_drift);
    printf("T %.4f  P %.4f  Epot/N %.4f  max drift %.2e  |p| %.1e\n", tsum / nsamp, psum / nsamp,
           usum / nsamp, max_drift, pnorm);
    if (max_drift > 5e-3 || pnorm > 1e-9 || !(usum / nsamp < -4.0 && usum / nsamp > -7.0)) {
        fprintf(stderr, "MD run failed its checks\n");
        return 1;
    }
    return 0;
}
