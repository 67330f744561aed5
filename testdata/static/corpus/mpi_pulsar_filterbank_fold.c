/*
 * mpi_pulsar_filterbank_fold.c
 *
 * Radio-telescope pulsar search and timing pipeline on an 8-bit filterbank,
 * parallel with MPI (written for 2 ranks, works for any count dividing the
 * sizes).
 *
 *  1. Each rank synthesises its share of the observation in time (system
 *     noise, a dispersed periodic pulsar, narrow-band and broadband RFI) and
 *     writes it into a SIGPROC-like time-major filterbank file with
 *     collective MPI_File_write_at_all, block by block.
 *  2. The file is re-read channel-decomposed: a subarray file view
 *     (all samples x this rank's channels) and MPI_File_read_all.
 *  3. RFI excision per channel (robust statistics, zapping, normalisation).
 *  4. Incoherent dedispersion over a set of trial DMs; partial sums are
 *     reduced to the rank owning the trial, which writes its dedispersed
 *     series into a shared file with MPI_File_write_at_all.
 *  5. Boxcar single-pulse / periodicity S/N search of owned trials;
 *     candidates go to a text log with MPI_File_write_ordered.
 *  6. Folding at the best DM and the known period into sub-integrations x
 *     sub-bands x phase bins, written collectively as a fold archive.
 *
 * usage: mpiexec -n 2 mpi_pulsar_filterbank_fold OUTDIR
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCHAN 256
#define NSAMP 65536
#define BLOCK 4096          /* spectra per write block */
#define HDR 1024            /* filterbank text header bytes */
#define TSAMP 64e-6
#define FTOP 1600.0
#define FBOT 1200.0
#define PERIOD 0.0893412
#define DM_TRUE 67.97
#define NDM 32
#define DM_STEP 4.25
#define NBIN 128
#define NSUBINT 8
#define NSUB 32

static int rank, nranks;
static const char *g_dir;

static void check_mpi(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void fail(const char *what)
{
    fprintf(stderr, "rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void mkpath(char *buf, size_t n, const char *name)
{
    if ((size_t)snprintf(buf, n, "%s/%s", g_dir, name) >= n)
        fail("path too long");
}

static double chan_freq(int c) { return FTOP - (c + 0.5) * (FTOP - FBOT) / NCHAN; }

static int delay_samples(double dm, int c)
{
    double f = chan_freq(c), ftop = chan_freq(0);
    return (int)lround(4.148808e3 * dm * (1.0 / (f * f) - 1.0 / (ftop * ftop)) / TSAMP);
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Synthesise spectra [t0, t0+n): noise is counter-based so the data do not
 * depend on the decomposition. */
static void generate_block(uint8_t *blk, long t0, int n)
{
    const double width = 0.0021; /* s, pulse FWHM */
    double bandpass[NCHAN], gain[NCHAN], dly[NCHAN];
    for (int c = 0; c < NCHAN; c++) {
        bandpass[c] = 96.0 * (1.0 - 0.3 * pow((c - NCHAN / 2.0) / (NCHAN / 2.0), 2));
        gain[c] = 3.2 * (1.0 + 0.4 * sin(0.011 * c));
        dly[c] = delay_samples(DM_TRUE, c) * TSAMP;
    }
    for (int i = 0; i < n; i++) {
        long t = t0 + i;
        uint64_t z = mix64((uint64_t)t * 0x9E3779B97F4A7C15ull + 12345);
        /* broadband impulsive RFI (undispersed) */
        int burst = (z % 20011) == 0;
        for (int c = 0; c < NCHAN; c++) {
            uint64_t r = mix64(z + (uint64_t)c * 0xD1B54A32D192ED03ull);
            /* Irwin-Hall(4) approximation to a Gaussian */
            double g = ((double)(r & 0xFFFF) + (double)((r >> 16) & 0xFFFF) + (double)((r >> 32) & 0xFFFF) +
                        (double)(r >> 48)) / 65535.0 - 2.0;
            double v = bandpass[c] + 12.0 * 1.7320508 * g;
            double ts = t * TSAMP - dly[c];
            double ph = ts / PERIOD - floor(ts / PERIOD) - 0.35;
            if (fabs(ph) < 0.1) {
                double x = ph * PERIOD / width;
                v += gain[c] * exp(-2.77 * x * x);
            }
            if (c == 37 || c == 38 || c == 201)
                v += 30.0 * sin(t * 0.37 + c);
            if (burst)
                v += 60.0;
            if (v < 0.0)
                v = 0.0;
            if (v > 255.0)
                v = 255.0;
            blk[(size_t)i * NCHAN + c] = (uint8_t)lround(v);
        }
    }
}

static void write_filterbank(const char *path)
{
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open fil");
    check_mpi(MPI_File_set_size(fh, 0), "set_size");
    char hdr[HDR];
    memset(hdr, ' ', sizeof hdr);
    int hl = snprintf(hdr, sizeof hdr,
                      "HEADER_START source_name=PSR_J0835-4510_SIM nchans=%d nbits=8 tsamp=%.9f fch1=%.6f foff=%.6f "
                      "nsamples=%d HEADER_END",
                      NCHAN, TSAMP, chan_freq(0), -(FTOP - FBOT) / NCHAN, NSAMP);
    hdr[hl] = ' ';
    hdr[HDR - 1] = '\n';
    MPI_Status st;
    check_mpi(MPI_File_write_at_all(fh, 0, hdr, rank == 0 ? HDR : 0, MPI_CHAR, &st), "write header");

    long per = NSAMP / nranks, t0 = rank * per;
    uint8_t *blk = malloc((size_t)BLOCK * NCHAN);
    if (!blk)
        fail("malloc");
    for (long t = 0; t < per; t += BLOCK) {
        int n = (int)((per - t) < BLOCK ? (per - t) : BLOCK);
        generate_block(blk, t0 + t, n);
        MPI_Offset off = HDR + (MPI_Offset)(t0 + t) * NCHAN;
        check_mpi(MPI_File_write_at_all(fh, off, blk, n * NCHAN, MPI_BYTE, &st), "write block");
    }
    free(blk);
    check_mpi(MPI_File_close(&fh), "close fil");
}

/* Channel-decomposed re-read with a subarray view; result is channel-major
 * (this rank's channels x all samples) after a local transpose. */
static float *read_channel_slab(const char *path, int c0, int nc)
{
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open fil read");
    char hdr[HDR + 1];
    MPI_Status st;
    check_mpi(MPI_File_read_at_all(fh, 0, hdr, HDR, MPI_CHAR, &st), "read header");
    hdr[HDR] = '\0';
    int nch = 0, ns = 0;
    const char *p = strstr(hdr, "nchans="), *q = strstr(hdr, "nsamples=");
    if (!p || !q || sscanf(p, "nchans=%d", &nch) != 1 || sscanf(q, "nsamples=%d", &ns) != 1 || nch != NCHAN ||
        ns != NSAMP)
        fail("bad filterbank header");

    int sizes[2] = {NSAMP, NCHAN}, sub[2] = {NSAMP, nc}, starts[2] = {0, c0};
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    check_mpi(MPI_File_set_view(fh, HDR, MPI_BYTE, ft, "native", MPI_INFO_NULL), "set_view");
    uint8_t *raw = malloc((size_t)NSAMP * nc);
    float *slab = malloc(sizeof(float) * (size_t)NSAMP * nc);
    if (!raw || !slab)
        fail("malloc");
    /* read in time chunks to bound the collective buffer */
    for (long t = 0; t < NSAMP; t += 16384) {
        int n = (int)(NSAMP - t < 16384 ? NSAMP - t : 16384);
        check_mpi(MPI_File_read_all(fh, raw + t * nc, n * nc, MPI_BYTE, &st), "read_all");
    }
    MPI_Type_free(&ft);
    check_mpi(MPI_File_close(&fh), "close fil read");
    for (long t = 0; t < NSAMP; t++)
        for (int c = 0; c < nc; c++)
            slab[(size_t)c * NSAMP + t] = raw[t * nc + c];
    free(raw);
    return slab;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Robust per-channel normalisation; channels whose variance or kurtosis
 * departs from Gaussian noise (narrow-band carriers are platykurtic) are
 * zapped (set to zero). */
static int excise_rfi(float *slab, int nc, unsigned char *zapped)
{
    float *tmp = malloc(sizeof(float) * 8192);
    if (!tmp)
        fail("malloc");
    double *var = malloc(sizeof(double) * nc), *kurt = malloc(sizeof(double) * nc);
    if (!var || !kurt)
        fail("malloc");
    for (int c = 0; c < nc; c++) {
        float *x = slab + (size_t)c * NSAMP;
        for (int i = 0; i < 8192; i++)
            tmp[i] = x[i * (NSAMP / 8192)];
        qsort(tmp, 8192, sizeof(float), cmp_float);
        double med = tmp[4096], iqr = tmp[6144] - tmp[2048];
        double sig = iqr / 1.349;
        double s2 = 0.0, s4 = 0.0;
        for (long t = 0; t < NSAMP; t++) {
            double v = (x[t] - med) / (sig > 0 ? sig : 1.0);
            if (v > 5.0)
                v = 0.0; /* clip impulsive samples */
            x[t] = (float)v;
            s2 += v * v;
            s4 += v * v * v * v;
        }
        var[c] = s2 / NSAMP;
        kurt[c] = (s4 / NSAMP) / (var[c] * var[c] + 1e-30);
    }
    int nz = 0;
    for (int c = 0; c < nc; c++) {
        zapped[c] = var[c] > 1.6 || var[c] < 0.5 || kurt[c] < 2.4 || kurt[c] > 4.5;
        if (zapped[c]) {
            memset(slab + (size_t)c * NSAMP, 0, sizeof(float) * NSAMP);
            nz++;
        }
    }
    free(tmp);
    free(var);
    free(kurt);
    return nz;
}

/* Shift-and-add over this rank's channels for every trial DM. */
static void dedisperse_trials(const float *slab, int c0, int nc, int nout, float *part)
{
    for (int d = 0; d < NDM; d++) {
        float *o = part + (size_t)d * nout;
        memset(o, 0, sizeof(float) * nout);
        for (int c = 0; c < nc; c++) {
            int sh = delay_samples(d * DM_STEP, c0 + c);
            const float *x = slab + (size_t)c * NSAMP + sh;
            for (int t = 0; t < nout; t++)
                o[t] += x[t];
        }
    }
}

/* Reduce each trial to its owner and write owned trials collectively. */
static int reduce_and_write_trials(float *part, int nout, float *owned, const char *path)
{
    int nown = 0;
    for (int d = 0; d < NDM; d++) {
        int owner = d % nranks;
        float *dst = owner == rank ? owned + (size_t)nown * nout : NULL;
        check_mpi(MPI_Reduce(part + (size_t)d * nout, dst, nout, MPI_FLOAT, MPI_SUM, owner, MPI_COMM_WORLD),
                  "reduce trial");
        if (owner == rank)
            nown++;
    }
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open dd");
    check_mpi(MPI_File_set_size(fh, 0), "set_size dd");
    MPI_Status st;
    int maxown = (NDM + nranks - 1) / nranks;
    for (int k = 0; k < maxown; k++) {
        int d = k * nranks + rank;
        int have = k < nown;
        MPI_Offset off = (MPI_Offset)d * nout * (MPI_Offset)sizeof(float);
        check_mpi(MPI_File_write_at_all(fh, have ? off : 0, owned + (size_t)k * nout, have ? nout : 0, MPI_FLOAT, &st),
                  "write trial");
    }
    check_mpi(MPI_File_close(&fh), "close dd");
    return nown;
}

typedef struct {
    int dm_index, width, sample;
    double snr;
} candidate;

/* Boxcar matched filtering over owned trials; returns the number of
 * candidates above threshold (the strongest per trial and width kept). */
static int search_candidates(const float *owned, int nown, int nout, candidate *cand, int maxc, double *best_snr,
                             int *best_dm)
{
    static const int widths[] = {1, 2, 4, 8, 16, 32, 64};
    int nc = 0;
    double *cs = malloc(sizeof(double) * (nout + 1));
    if (!cs)
        fail("malloc");
    *best_snr = 0.0;
    *best_dm = -1;
    for (int k = 0; k < nown; k++) {
        int d = k * nranks + rank;
        const float *x = owned + (size_t)k * nout;
        double m = 0.0, s2 = 0.0;
        for (int t = 0; t < nout; t++)
            m += x[t];
        m /= nout;
        for (int t = 0; t < nout; t++)
            s2 += (x[t] - m) * (x[t] - m);
        double sd = sqrt(s2 / nout);
        cs[0] = 0.0;
        for (int t = 0; t < nout; t++)
            cs[t + 1] = cs[t] + (x[t] - m) / (sd > 0 ? sd : 1.0);
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
            int wd = widths[w];
            double best = 0.0, tot = 0.0;
            int bt = 0, npulse = 0;
            for (int t = 0; t + wd <= nout; t++) {
                double snr = (cs[t + wd] - cs[t]) / sqrt((double)wd);
                if (snr > best) {
                    best = snr;
                    bt = t;
                }
                if (snr > 6.0) {
                    tot += snr;
                    npulse++;
                    t += wd;
                }
            }
            if (best > 6.0 && nc < maxc) {
                cand[nc].dm_index = d;
                cand[nc].width = wd;
                cand[nc].sample = bt;
                cand[nc].snr = best;
                nc++;
            }
            double agg = npulse > 0 ? tot / sqrt((double)npulse) : 0.0;
            if (agg > *best_snr) {
                *best_snr = agg;
                *best_dm = d;
            }
        }
    }
    free(cs);
    return nc;
}

static void write_candidates(const candidate *cand, int nc, const char *path)
{
    size_t cap = (size_t)nc * 96 + 96;
    char *txt = malloc(cap);
    if (!txt)
        fail("malloc");
    size_t len = 0;
    for (int i = 0; i < nc; i++)
        len += (size_t)snprintf(txt + len, cap - len, "rank %d dm %7.2f width %3d ms %7.3f sample %6d snr %8.2f\n",
                                rank, cand[i].dm_index * DM_STEP, cand[i].width, cand[i].width * TSAMP * 1e3,
                                cand[i].sample, cand[i].snr);
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open cands");
    check_mpi(MPI_File_set_size(fh, 0), "set_size cands");
    MPI_Status st;
    check_mpi(MPI_File_write_ordered(fh, txt, (int)len, MPI_CHAR, &st), "write_ordered");
    check_mpi(MPI_File_close(&fh), "close cands");
    free(txt);
}

/* Fold at the best DM into [subint][subband][bin]; this rank's channels
 * map to a contiguous range of subbands. */
static void fold_subbands(const float *slab, int c0, int nc, double dm, float *fold, int *counts)
{
    int nsub_local = nc / (NCHAN / NSUB);
    memset(fold, 0, sizeof(float) * NSUBINT * nsub_local * NBIN);
    memset(counts, 0, sizeof(int) * NSUBINT * nsub_local * NBIN);
    for (int c = 0; c < nc; c++) {
        int sb = c / (NCHAN / NSUB);
        int sh = delay_samples(dm, c0 + c);
        const float *x = slab + (size_t)c * NSAMP;
        for (int t = 0; t + sh < NSAMP; t++) {
            double tt = t * TSAMP;
            double ph = tt / PERIOD - floor(tt / PERIOD);
            int bin = (int)(ph * NBIN);
            if (bin >= NBIN)
                bin = NBIN - 1;
            int si = (int)((long)t * NSUBINT / NSAMP);
            size_t k = ((size_t)si * nsub_local + sb) * NBIN + bin;
            fold[k] += x[t + sh];
            counts[k]++;
        }
    }
    for (int k = 0; k < NSUBINT * nsub_local * NBIN; k++)
        if (counts[k] > 0)
            fold[k] /= counts[k];
}

/* Archive layout: [subint][subband][bin] floats; each rank writes its
 * subband range of every subint with one strided collective (vector view). */
static void write_archive(const float *fold, int sb0, int nsub_local, const char *path)
{
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open ar");
    check_mpi(MPI_File_set_size(fh, 0), "set_size ar");
    MPI_Datatype vt;
    MPI_Type_vector(NSUBINT, nsub_local * NBIN, NSUB * NBIN, MPI_FLOAT, &vt);
    MPI_Type_commit(&vt);
    check_mpi(MPI_File_set_view(fh, (MPI_Offset)sb0 * NBIN * (MPI_Offset)sizeof(float), MPI_FLOAT, vt, "native",
                                MPI_INFO_NULL),
              "set_view ar");
    MPI_Status st;
    check_mpi(MPI_File_write_all(fh, fold, NSUBINT * nsub_local * NBIN, MPI_FLOAT, &st), "write ar");
    MPI_Type_free(&vt);
    check_mpi(MPI_File_close(&fh), "close ar");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (NCHAN % nranks || NSUB % nranks || NSAMP % nranks)
        fail("rank count must divide channels, subbands and samples");
    g_dir = argv[1];
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    char fil[4096], dd[4096], cands[4096], ar[4096];
    mkpath(fil, sizeof fil, "obs.fil");
    mkpath(dd, sizeof dd, "dedisp_trials.f32");
    mkpath(cands, sizeof cands, "candidates.txt");
    mkpath(ar, sizeof ar, "fold_archive.f32");

    write_filterbank(fil);

    int nc = NCHAN / nranks, c0 = rank * nc;
    float *slab = read_channel_slab(fil, c0, nc);
    unsigned char zapped[NCHAN];
    int nz_local = excise_rfi(slab, nc, zapped), nz = 0;
    MPI_Allreduce(&nz_local, &nz, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    int maxdelay = delay_samples((NDM - 1) * DM_STEP, NCHAN - 1);
    int nout = NSAMP - maxdelay;
    float *part = malloc(sizeof(float) * (size_t)NDM * nout);
    float *owned = malloc(sizeof(float) * (size_t)((NDM + nranks - 1) / nranks) * nout);
    if (!part || !owned)
        fail("malloc");
    dedisperse_trials(slab, c0, nc, nout, part);
    int nown = reduce_and_write_trials(part, nout, owned, dd);
    free(part);

    candidate cand[512];
    double best_snr;
    int best_dm;
    int ncand = search_candidates(owned, nown, nout, cand, 512, &best_snr, &best_dm);
    write_candidates(cand, ncand, cands);
    free(owned);

    struct {
        double snr;
        int dm;
    } loc = {best_snr, best_dm}, glob;
    MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    double dm_best = glob.dm * DM_STEP;

    int nsub_local = NSUB / nranks;
    float *fold = malloc(sizeof(float) * NSUBINT * nsub_local * NBIN);
    int *counts = malloc(sizeof(int) * NSUBINT * nsub_local * NBIN);
    if (!fold || !counts)
        fail("malloc");
    fold_subbands(slab, c0, nc, dm_best, fold, counts);
    write_archive(fold, rank * nsub_local, nsub_local, ar);

    /* integrated profile S/N (gathered on rank 0) */
    float prof_local[NBIN] = {0}, prof[NBIN];
    for (int k = 0; k < NSUBINT * nsub_local; k++)
        for (int b = 0; b < NBIN; b++)
            prof_local[b] += fold[k * NBIN + b];
    MPI_Reduce(prof_local, prof, NBIN, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    int ncand_tot = 0;
    MPI_Reduce(&ncand, &ncand_tot, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double m = 0.0, s2 = 0.0, pk = -1e30;
        int pb = 0;
        for (int b = 0; b < NBIN; b++)
            m += prof[b];
        m /= NBIN;
        for (int b = 0; b < NBIN; b++) {
            s2 += (prof[b] - m) * (prof[b] - m);
            if (prof[b] > pk) {
                pk = prof[b];
                pb = b;
            }
        }
        printf("mpi_pulsar_filterbank_fold: %d ranks, %d chans x %d samples, %d chans zapped, %d candidates, "
               "best DM %.2f (true %.2f), profile peak bin %d, peak/rms %.1f\n",
               nranks, NCHAN, NSAMP, nz, ncand_tot, dm_best, DM_TRUE, pb, (pk - m) / sqrt(s2 / NBIN));
    }
    free(fold);
    free(counts);
    free(slab);
    MPI_Finalize();
    return 0;
}
