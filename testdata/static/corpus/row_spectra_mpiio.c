/*
 * row_spectra_mpiio: each MPI rank owns a band of rows of a 2-D signal that
 * evolves over a few frames.  For every frame it computes the power spectrum
 * of each row with a direct DFT, writes its band into a shared file with a
 * subarray file view and MPI_File_write_all, and writes per-row energies with
 * small independent MPI_File_write_at calls.  At the end every rank reads the
 * partner band and energies back and checks Parseval's identity.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NROWS    384
#define NCOLS    512
#define NFRAMES  3
#define NMODES   5

struct band {
    int rank, nranks;
    int row0, nrows;
    double *signal;    /* nrows * NCOLS */
    double *power;     /* nrows * NCOLS */
    double *energy;    /* nrows */
};

static double *cos_tab, *sin_tab;

static void die(const char *msg, int code)
{
    fprintf(stderr, "row_spectra_mpiio: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, code);
}

static void build_twiddles(void)
{
    cos_tab = malloc(NCOLS * sizeof(double));
    sin_tab = malloc(NCOLS * sizeof(double));
    for (int n = 0; n < NCOLS; n++) {
        cos_tab[n] = cos(2.0 * M_PI * n / NCOLS);
        sin_tab[n] = sin(2.0 * M_PI * n / NCOLS);
    }
}

/* deterministic sum of drifting modes plus hashed noise */
static void synthesize(struct band *b, int frame)
{
    for (int r = 0; r < b->nrows; r++) {
        int g = b->row0 + r;
        double *row = &b->signal[(size_t)r * NCOLS];
        for (int c = 0; c < NCOLS; c++) {
            double v = 0.0;
            for (int m = 1; m <= NMODES; m++) {
                double f = (double)((g * 7 + m * 13) % (NCOLS / 4) + 1);
                v += cos(2.0 * M_PI * f * c / NCOLS + 0.3 * frame * m) / m;
            }
            unsigned h = (unsigned)(g * 73856093u) ^ (unsigned)(c * 19349663u) ^ (unsigned)(frame * 83492791u);
            h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
            row[c] = v + 0.1 * ((h & 0xffff) / 65536.0 - 0.5);
        }
    }
}

static void row_dft_power(const double *x, double *p)
{
    for (int k = 0; k < NCOLS; k++) {
        double re = 0.0, im = 0.0;
        int idx = 0;
        for (int n = 0; n < NCOLS; n++) {
            re += x[n] * cos_tab[idx];
            im -= x[n] * sin_tab[idx];
            idx += k;
            if (idx >= NCOLS) idx -= NCOLS;
        }
        p[k] = re * re + im * im;
    }
}

static void compute_band(struct band *b)
{
    for (int r = 0; r < b->nrows; r++) {
        const double *x = &b->signal[(size_t)r * NCOLS];
        double e = 0.0;
        for (int n = 0; n < NCOLS; n++) e += x[n] * x[n];
        b->energy[r] = e;
        row_dft_power(x, &b->power[(size_t)r * NCOLS]);
    }
}

static void write_frame(MPI_File fh, MPI_File eh, const struct band *b, int frame)
{
    int gsizes[3] = {NFRAMES, NROWS, NCOLS};
    int lsizes[3] = {1, b->nrows, NCOLS};
    int starts[3] = {frame, b->row0, 0};
    MPI_Datatype sub;
    MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
    MPI_Type_commit(&sub);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, sub, "native", MPI_INFO_NULL);
    MPI_Status st;
    if (MPI_File_write_all(fh, b->power, b->nrows * NCOLS, MPI_DOUBLE, &st) != MPI_SUCCESS)
        die("write_all failed", 3);
    MPI_Type_free(&sub);

    /* energies: one tiny independent write per row */
    for (int r = 0; r < b->nrows; r++) {
        MPI_Offset off = ((MPI_Offset)frame * NROWS + b->row0 + r) * (MPI_Offset)sizeof(double);
        MPI_File_write_at(eh, off, &b->energy[r], 1, MPI_DOUBLE, &st);
    }
}

/* read the partner's band of the last frame and check Parseval */
static int check_partner(MPI_File fh, MPI_File eh, const struct band *b)
{
    int partner = (b->rank + 1) % b->nranks;
    int base = NROWS / b->nranks, rem = NROWS % b->nranks;
    int prow0 = partner * base + (partner < rem ? partner : rem);
    int pnrows = base + (partner < rem ? 1 : 0);
    int frame = NFRAMES - 1;
    double *pw = malloc((size_t)pnrows * NCOLS * sizeof(double));
    double *en = malloc((size_t)pnrows * sizeof(double));
    MPI_Status st;
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_Offset off = (((MPI_Offset)frame * NROWS + prow0) * NCOLS) * (MPI_Offset)sizeof(double);
    MPI_File_read_at(fh, off, pw, pnrows * NCOLS, MPI_DOUBLE, &st);
    off = ((MPI_Offset)frame * NROWS + prow0) * (MPI_Offset)sizeof(double);
    MPI_File_read_at(eh, off, en, pnrows, MPI_DOUBLE, &st);
    int bad = 0;
    for (int r = 0; r < pnrows; r++) {
        double s = 0.0;
        for (int k = 0; k < NCOLS; k++) s += pw[(size_t)r * NCOLS + k];
        if (fabs(s / NCOLS - en[r]) > 1e-8 * (1.0 + en[r])) bad++;
    }
    free(pw);
    free(en);
    return bad;
}

static void write_summary(const char *dir, const double *totals)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/summary.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write summary", 4);
    fprintf(f, "# frame total_energy  (rows %d cols %d)\n", NROWS, NCOLS);
    for (int fr = 0; fr < NFRAMES; fr++) fprintf(f, "%d %.10e\n", fr, totals[fr]);
    fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct band b;
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.nranks);
    if (argc < 2) die("usage: row_spectra_mpiio DIR", 1);
    if (b.rank == 0) mkdir(argv[1], 0755);
    MPI_Barrier(MPI_COMM_WORLD);

    int base = NROWS / b.nranks, rem = NROWS % b.nranks;
    b.row0 = b.rank * base + (b.rank < rem ? b.rank : rem);
    b.nrows = base + (b.rank < rem ? 1 : 0);
    b.signal = malloc((size_t)b.nrows * NCOLS * sizeof(double));
    b.power = malloc((size_t)b.nrows * NCOLS * sizeof(double));
    b.energy = malloc((size_t)b.nrows * sizeof(double));
    build_twiddles();

    char spath[1024], epath[1024];
    snprintf(spath, sizeof spath, "%s/spectra.f64", argv[1]);
    snprintf(epath, sizeof epath, "%s/energy.f64", argv[1]);
    MPI_File fh, eh;
    if (MPI_File_open(MPI_COMM_WORLD, spath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        die("cannot open spectra file", 2);
    if (MPI_File_open(MPI_COMM_WORLD, epath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &eh) != MPI_SUCCESS)
        die("cannot open energy file", 2);

    double totals[NFRAMES];
    for (int fr = 0; fr < NFRAMES; fr++) {
        synthesize(&b, fr);
        compute_band(&b);
        write_frame(fh, eh, &b, fr);
        double local = 0.0, global = 0.0;
        for (int r = 0; r < b.nrows; r++) local += b.energy[r];
        MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        totals[fr] = global;
    }
    MPI_File_sync(fh);
    MPI_File_sync(eh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_sync(eh);

    int bad = check_partner(fh, eh, &b), allbad = 0;
    MPI_File_close(&fh);
    MPI_File_close(&eh);
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (b.rank == 0) {
        write_summary(argv[1], totals);
        if (allbad) fprintf(stderr, "row_spectra_mpiio: %d rows fail Parseval check\n", allbad);
        else printf("row_spectra_mpiio: %d frames x %d rows on %d ranks verified\n", NFRAMES, NROWS, b.nranks);
    }
    free(b.signal); free(b.power); free(b.energy);
    MPI_Finalize();
    return allbad ? 5 : 0;
}
