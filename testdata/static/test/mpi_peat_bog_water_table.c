/*
 * Raised-bog hydrology with ditch blocking: 2-D Boussinesq groundwater flow
 * in a domed peat body with an exponential acrotelm transmissivity profile,
 * depth-dependent specific yield, stochastic daily rain, seasonal
 * evapotranspiration, a fixed-head lagg at the margin and a drained cut-over
 * sector whose ditches are blocked after the second year.  Rows are split
 * between MPI ranks with halo exchange; the stable sub-step count is agreed
 * with MPI_Allreduce each day.  Water-table depth snapshots are written
 * collectively through a subarray file view, dipwell hydrographs with
 * independent MPI_File_write_at, and after the run every rank re-reads its
 * rows of all snapshots with MPI_File_read_at to map the rewetting effect,
 * which is written collectively again.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NXG 160
#define NYG 160
#define DX 24.0
#define NDAYS (3 * 365)
#define BLOCK_DAY 730
#define SNAP_EVERY 10
#define NSNAP (NDAYS / SNAP_EVERY)
#define NWELL 24
#define WELL_FLUSH 30
#define K_ACRO 30.0
#define A_ACRO 0.12
#define K_CAT 0.002
#define SY_MIN 0.08
#define NSTAT 4
#define HDR_BYTES 4096

typedef struct { int gx, gy; } well_t;

static int rank, nprocs, ny, y0g;           /* local rows and first global row */
static double *h, *hn, *surf, *tr;          /* (ny+2) x NXG with halos */
static unsigned char *ditch;
static well_t wells[NWELL];

#define IDX(j, i) ((j) * NXG + (i))

static double surface_elev(int gx, int gy)
{
    double x = (gx - NXG / 2 + 0.5) / (NXG / 2.0), y = (gy - NYG / 2 + 0.5) / (NYG / 2.2);
    double r2 = x * x + y * y;
    double micro = 0.08 * sin(gx * 1.7 + gy * 0.3) * cos(gy * 1.3 - gx * 0.2);
    return 0.5 + 4.0 * sqrt(fmax(0.0, 1.0 - r2)) + micro;
}

/* acrotelm + catotelm transmissivity (m2/d) for head hh under surface s */
#define TRANSMISSIVITY(hh, s) \
    (fmin(K_ACRO * A_ACRO * exp(-fmax((s) - (hh), -0.05) / A_ACRO), 8.0) + K_CAT * fmax((hh), 0.0))
/* specific yield for water-table depth d (ponded water above the surface) */
#define SPECIFIC_YIELD(d) ((d) < 0.0 ? 1.0 : SY_MIN + 0.45 * exp(-(d) / 0.1))

static void init_domain(void)
{
    size_t n = (size_t)(ny + 2) * NXG;
    h = malloc(n * sizeof(double)); hn = malloc(n * sizeof(double));
    surf = malloc(n * sizeof(double)); tr = malloc(n * sizeof(double));
    ditch = calloc(n, 1);
    for (int j = 0; j < ny + 2; j++)
        for (int i = 0; i < NXG; i++) {
            int gy = y0g + j - 1;
            if (gy < 0) gy = 0;
            if (gy >= NYG) gy = NYG - 1;
            surf[IDX(j, i)] = surface_elev(i, gy);
            h[IDX(j, i)] = surf[IDX(j, i)] - 0.15;
            if (gy > NYG / 2 + 10 && gy % 16 == 4 && i > NXG / 5 && i < 4 * NXG / 5) ditch[IDX(j, i)] = 1;
        }
    for (int w = 0; w < NWELL; w++) {
        wells[w].gx = NXG / 8 + (w % 6) * NXG / 8;
        wells[w].gy = NYG / 8 + (w / 6) * NYG / 4 + 3;
    }
}

static void exchange_halos(double *f)
{
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, dn = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(f + IDX(1, 0), NXG, MPI_DOUBLE, up, 1, f + IDX(ny + 1, 0), NXG, MPI_DOUBLE, dn, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(f + IDX(ny, 0), NXG, MPI_DOUBLE, dn, 2, f + IDX(0, 0), NXG, MPI_DOUBLE, up, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Daily weather shared by all ranks (same seeded stream). */
static void weather(int day, uint64_t *rs, double *rain, double *et0)
{
    *rs ^= *rs << 13; *rs ^= *rs >> 7; *rs ^= *rs << 17;
    double u = ((*rs >> 11) + 0.5) / 9007199254740992.0;
    *rs ^= *rs << 13; *rs ^= *rs >> 7; *rs ^= *rs << 17;
    double v = ((*rs >> 11) + 0.5) / 9007199254740992.0;
    double season = sin(2 * M_PI * (day % 365 - 80) / 365.0);
    double pwet = 0.52 - 0.12 * season;
    *rain = u < pwet ? -0.0045 * log(v) * (1.0 + 0.3 * season) : 0.0;
    *et0 = fmax(0.0002, 0.0018 + 0.0016 * season);
}

/* One explicit sub-step; returns local drainage and lagg outflow volume. */
static double substep(double dt, double rain, double et0, int blocked, double *lagg)
{
    double drained = 0.0;
    for (int j = 0; j < ny + 2; j++)
        for (int i = 0; i < NXG; i++) tr[IDX(j, i)] = TRANSMISSIVITY(h[IDX(j, i)], surf[IDX(j, i)]);
    for (int j = 1; j <= ny; j++) {
        int gy = y0g + j - 1;
        for (int i = 0; i < NXG; i++) {
            int c = IDX(j, i);
            if (i == 0 || i == NXG - 1 || gy == 0 || gy == NYG - 1) { hn[c] = 0.3; continue; }
            const int nb[4] = {c - 1, c + 1, c - NXG, c + NXG};
            const int edge[4] = {i == 1, i == NXG - 2, gy == 1, gy == NYG - 2};
            double q = 0.0;
            for (int k = 0; k < 4; k++) {
                double f = 0.5 * (tr[c] + tr[nb[k]]) * (h[nb[k]] - h[c]);
                q += f;
                if (edge[k]) *lagg -= dt * f;           /* outflow to the lagg */
            }
            double d = surf[c] - h[c];
            double et = et0 * (d < 0.3 ? 1.0 : d > 0.6 ? 0.3 : 1.0 - 0.7 * (d - 0.3) / 0.3);
            double src = q / (DX * DX) + rain - et;
            if (ditch[c]) {
                double bottom = surf[c] - (blocked ? 0.05 : 0.6);
                if (h[c] > bottom) { double out = 0.8 * (h[c] - bottom); src -= out; drained += out * dt * DX * DX; }
            }
            if (d < -0.02) { double run = 2.0 * (-0.02 - d); src -= run; drained += run * dt * DX * DX; }
            hn[c] = h[c] + dt * src / SPECIFIC_YIELD(d);
        }
    }
    for (int j = 1; j <= ny; j++) memcpy(h + IDX(j, 0), hn + IDX(j, 0), NXG * sizeof(double));
    return drained;
}

/* Collective snapshot of water-table depth (m below surface, float). */
static void write_snapshot(MPI_File fh, MPI_Datatype filetype, int snap, float *buf)
{
    for (int j = 1; j <= ny; j++)
        for (int i = 0; i < NXG; i++) buf[(j - 1) * NXG + i] = (float)(surf[IDX(j, i)] - h[IDX(j, i)]);
    MPI_Offset disp = HDR_BYTES + (MPI_Offset)snap * NXG * NYG * sizeof(float);
    MPI_File_set_view(fh, disp, MPI_FLOAT, filetype, "native", MPI_INFO_NULL);
    MPI_File_write_at_all(fh, 0, buf, ny * NXG, MPI_FLOAT, MPI_STATUS_IGNORE);
}

/* Independent writes of this rank's dipwell series for a block of days. */
static void flush_wells(MPI_File fw, const double *series, int day0, int ndays)
{
    for (int w = 0; w < NWELL; w++) {
        int lj = wells[w].gy - y0g;
        if (lj < 0 || lj >= ny) continue;
        MPI_Offset off = ((MPI_Offset)w * NDAYS + day0) * sizeof(double);
        MPI_File_write_at(fw, off, (void *)(series + (size_t)w * WELL_FLUSH), ndays, MPI_DOUBLE, MPI_STATUS_IGNORE);
    }
}

/* Re-reads this rank's rows of every snapshot and maps the rewetting. */
static void analyse_snapshots(MPI_File fh, float *stats)
{
    float *buf = malloc((size_t)ny * NXG * sizeof(float));
    int npre = 0, npost = 0;
    memset(stats, 0, (size_t)NSTAT * ny * NXG * sizeof(float));
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    for (int s = 0; s < NSNAP; s++) {
        MPI_Offset off = HDR_BYTES + ((MPI_Offset)s * NYG + y0g) * NXG * sizeof(float);
        MPI_File_read_at(fh, off, buf, ny * NXG, MPI_FLOAT, MPI_STATUS_IGNORE);
        int post = (s + 1) * SNAP_EVERY > BLOCK_DAY + 90;
        int pre = (s + 1) * SNAP_EVERY <= BLOCK_DAY && (s + 1) * SNAP_EVERY > 365;
        npre += pre; npost += post;
        for (int c = 0; c < ny * NXG; c++) {
            float d = buf[c];
            if (pre) stats[c] += d;
            if (post) stats[ny * NXG + c] += d;
            if (post && d < 0.10f) stats[2 * ny * NXG + c] += 1.0f;
            if (d > stats[3 * ny * NXG + c]) stats[3 * ny * NXG + c] = d;
        }
    }
    for (int c = 0; c < ny * NXG; c++) {
        stats[c] /= npre > 0 ? npre : 1;
        stats[ny * NXG + c] /= npost > 0 ? npost : 1;
        stats[2 * ny * NXG + c] /= npost > 0 ? npost : 1;
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) { if (!rank) fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 2); }
    ny = NYG / nprocs + (rank < NYG % nprocs);
    y0g = rank * (NYG / nprocs) + (rank < NYG % nprocs ? rank : NYG % nprocs);
    init_domain();

    char path[600];
    MPI_File fh, fw;
    snprintf(path, sizeof path, "%s/wtd_snapshots.bin", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    snprintf(path, sizeof path, "%s/dipwells.bin", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fw);
    int gsizes[2] = {NYG, NXG}, lsizes[2] = {ny, NXG}, starts[2] = {y0g, 0};
    MPI_Datatype filetype;
    MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_FLOAT, &filetype);
    MPI_Type_commit(&filetype);
    if (rank == 0) {
        char hdr[HDR_BYTES];
        memset(hdr, 0, sizeof hdr);
        snprintf(hdr, sizeof hdr, "PEATWTD nx=%d ny=%d dx=%.1f snap_every=%d nsnap=%d block_day=%d units=m_below_surface\n",
                 NXG, NYG, DX, SNAP_EVERY, NSNAP, BLOCK_DAY);
        MPI_File_write_at(fh, 0, hdr, HDR_BYTES, MPI_BYTE, MPI_STATUS_IGNORE);
    }

    FILE *bal = NULL;
    if (rank == 0) {
        snprintf(path, sizeof path, "%s/water_balance.csv", argv[1]);
        bal = fopen(path, "w");
        if (!bal) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
        fprintf(bal, "month,rain_mm,et0_mm,ditch_runoff_m3,lagg_m3,mean_wtd_m,substeps\n");
    }
    float *snapbuf = malloc((size_t)ny * NXG * sizeof(float));
    double *series = calloc((size_t)NWELL * WELL_FLUSH, sizeof(double));
    uint64_t rs = 0x5851F42D4C957F2Dull;
    double mrain = 0, met = 0, mdrain = 0, mlagg = 0;
    int msub = 0, wday0 = 0;
    for (int day = 0; day < NDAYS; day++) {
        double rain, et0, tmax = 0.0, gtmax;
        weather(day, &rs, &rain, &et0);
        for (int j = 1; j <= ny; j++)
            for (int i = 0; i < NXG; i++) tmax = fmax(tmax, TRANSMISSIVITY(h[IDX(j, i)], surf[IDX(j, i)]));
        MPI_Allreduce(&tmax, &gtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int nsub = (int)ceil(1.0 / (0.22 * DX * DX * SY_MIN / (4.0 * gtmax)));
        if (nsub < 1) nsub = 1;
        double drained = 0.0, lagg = 0.0;
        for (int k = 0; k < nsub; k++) {
            exchange_halos(h);
            drained += substep(1.0 / nsub, rain, et0, day >= BLOCK_DAY, &lagg);
        }
        for (int w = 0; w < NWELL; w++) {
            int lj = wells[w].gy - y0g + 1;
            if (lj >= 1 && lj <= ny)
                series[(size_t)w * WELL_FLUSH + (day - wday0)] = surf[IDX(lj, wells[w].gx)] - h[IDX(lj, wells[w].gx)];
        }
        if (day - wday0 + 1 == WELL_FLUSH || day == NDAYS - 1) {
            flush_wells(fw, series, wday0, day - wday0 + 1);
            wday0 = day + 1;
        }
        if ((day + 1) % SNAP_EVERY == 0) write_snapshot(fh, filetype, day / SNAP_EVERY, snapbuf);
        mrain += rain; met += et0; mdrain += drained; mlagg += lagg; msub += nsub;
        if ((day + 1) % 30 == 0) {
            double loc[3] = {mdrain, mlagg, 0.0}, glob[3];
            for (int j = 1; j <= ny; j++)
                for (int i = 0; i < NXG; i++) loc[2] += surf[IDX(j, i)] - h[IDX(j, i)];
            MPI_Reduce(loc, glob, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0)
                fprintf(bal, "%d,%.1f,%.1f,%.1f,%.1f,%.4f,%d\n", (day + 1) / 30, mrain * 1000, met * 1000, glob[0],
                        glob[1], glob[2] / ((double)NXG * NYG), msub);
            mrain = met = mdrain = mlagg = 0; msub = 0;
        }
    }
    if (rank == 0) fclose(bal);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);

    float *stats = malloc((size_t)NSTAT * ny * NXG * sizeof(float));
    analyse_snapshots(fh, stats);
    MPI_File_close(&fh);
    MPI_File fs;
    snprintf(path, sizeof path, "%s/wtd_statistics.bin", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fs);
    for (int k = 0; k < NSTAT; k++) {
        MPI_File_set_view(fs, (MPI_Offset)k * NXG * NYG * sizeof(float), MPI_FLOAT, filetype, "native", MPI_INFO_NULL);
        MPI_File_write_at_all(fs, 0, stats + (size_t)k * ny * NXG, ny * NXG, MPI_FLOAT, MPI_STATUS_IGNORE);
    }
    MPI_File_close(&fs);

    MPI_File_sync(fw);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double *ts = malloc(NDAYS * sizeof(double));
        snprintf(path, sizeof path, "%s/dipwell_report.txt", argv[1]);
        FILE *rep = fopen(path, "w");
        if (!rep) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
        fprintf(rep, "# well gx gy mean_wtd_yr2 mean_wtd_yr3 change_m days_within_10cm_yr3\n");
        for (int w = 0; w < NWELL; w++) {
            MPI_File_read_at(fw, (MPI_Offset)w * NDAYS * sizeof(double), ts, NDAYS, MPI_DOUBLE, MPI_STATUS_IGNORE);
            double a = 0, b = 0; int wet = 0;
            for (int d = 365; d < 730; d++) a += ts[d];
            for (int d = 730; d < NDAYS; d++) { b += ts[d]; wet += ts[d] < 0.10; }
            a /= 365; b /= (NDAYS - 730);
            fprintf(rep, "%d %d %d %.4f %.4f %.4f %d\n", w, wells[w].gx, wells[w].gy, a, b, b - a, wet);
        }
        fclose(rep);
        free(ts);
        printf("peat bog run finished: %d days, %d snapshots\n", NDAYS, NSNAP);
    }
    MPI_File_close(&fw);
    MPI_Type_free(&filetype);
    free(snapbuf); free(series); free(stats);
    free(h); free(hn); free(surf); free(tr); free(ditch);
    MPI_Finalize();
    return 0;
}
