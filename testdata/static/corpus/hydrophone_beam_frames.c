/* Passive sonar pipeline: synthesizes a multichannel hydrophone line-array
 * recording (int16, interleaved) with moving tonal/broadband sources,
 * calibrates per-channel gain from a strided pread() scan, then streams the
 * recording frame by frame through a biquad band-pass and a delay-and-sum
 * beamformer.  Outputs a bearing-time record as a PGM image, periodic beam
 * power snapshots (one small file each) and a contact detection list. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>

#define N_CH        32
#define FS          24000.0
#define DURATION_S  12
#define FRAME       1024
#define N_BEAMS     73
#define SPACING_M   0.75
#define SOUND_MPS   1500.0
#define CAL_STRIDE  48
#define SNAP_EVERY  12
#define MAX_DELAY   768

typedef struct {
    double f0, bearing0, rate, amp;   /* tone frequency, deg, deg/s, amplitude */
} source_t;

typedef struct { double b0, b1, b2, a1, a2, z1, z2; } biquad_t;

typedef struct {
    int frame;
    int beam;
    double power_db;
} contact_t;

static uint64_t rs = 88172645463325252ull;
static double gauss(void)
{
    double u, v;
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    u = ((rs >> 11) + 0.5) / 9007199254740992.0;
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    v = ((rs >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static double beam_angle(int b) { return -90.0 + 180.0 * b / (N_BEAMS - 1); }

/* write the recording in blocks of FRAME samples x N_CH channels */
static long synthesize_recording(const char *path, const source_t *src, int nsrc)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    long nsamp = (long)(FS * DURATION_S);
    int16_t *blk = malloc(sizeof(int16_t) * FRAME * N_CH);
    double gain[N_CH];
    for (int c = 0; c < N_CH; c++) gain[c] = 0.8 + 0.4 * ((c * 37) % 11) / 10.0;
    for (long s0 = 0; s0 < nsamp; s0 += FRAME) {
        int len = (int)(nsamp - s0 < FRAME ? nsamp - s0 : FRAME);
        for (int k = 0; k < len; k++) {
            double t = (s0 + k) / FS;
            for (int c = 0; c < N_CH; c++) {
                double x = 0.3 * gauss();
                for (int q = 0; q < nsrc; q++) {
                    double th = (src[q].bearing0 + src[q].rate * t) * M_PI / 180.0;
                    double tau = c * SPACING_M * sin(th) / SOUND_MPS;
                    x += src[q].amp * sin(2 * M_PI * src[q].f0 * (t - tau));
                }
                double v = 6000.0 * gain[c] * x;
                if (v > 32767) v = 32767;
                if (v < -32768) v = -32768;
                blk[k * N_CH + c] = (int16_t)lrint(v);
            }
        }
        fwrite(blk, sizeof(int16_t), (size_t)len * N_CH, f);
    }
    free(blk);
    fclose(f);
    return nsamp;
}

/* per-channel RMS from a sparse strided scan: one 2-byte pread per sample */
static void calibrate_channels(const char *path, long nsamp, double *inv_gain)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    for (int c = 0; c < N_CH; c++) {
        double acc = 0;
        long n = 0;
        for (long s = c; s < nsamp; s += CAL_STRIDE) {
            int16_t v;
            if (pread(fd, &v, sizeof v, (off_t)(s * N_CH + c) * 2) != sizeof v) break;
            acc += (double)v * v;
            n++;
        }
        double rms = n ? sqrt(acc / n) : 1.0;
        inv_gain[c] = rms > 0 ? 1.0 / rms : 1.0;
    }
    close(fd);
}

static void design_bandpass(biquad_t *bq, double f0, double q)
{
    double w = 2 * M_PI * f0 / FS, al = sin(w) / (2 * q), a0 = 1 + al;
    bq->b0 = al / a0; bq->b1 = 0; bq->b2 = -al / a0;
    bq->a1 = -2 * cos(w) / a0; bq->a2 = (1 - al) / a0;
    bq->z1 = bq->z2 = 0;
}

/* each channel buffer holds MAX_DELAY samples of history followed by the
 * current frame, so delays reach back into the previous frame */
static void filter_frame(const int16_t *raw, int len, biquad_t *bq, const double *inv_gain, float *out)
{
    for (int c = 0; c < N_CH; c++) {
        biquad_t *b = &bq[c];
        float *h = out + (size_t)c * (FRAME + MAX_DELAY);
        memmove(h, h + FRAME, sizeof(float) * MAX_DELAY);
        float *o = h + MAX_DELAY;
        for (int k = 0; k < len; k++) {
            double x = raw[k * N_CH + c] * inv_gain[c];
            double y = b->b0 * x + b->z1;
            b->z1 = b->b1 * x - b->a1 * y + b->z2;
            b->z2 = b->b2 * x - b->a2 * y;
            o[k] = (float)y;
        }
        for (int k = len; k < FRAME; k++) o[k] = 0;
    }
}

static void beamform_frame(const float *chan, int len, const int (*delay)[N_CH], double *power)
{
    float *sum = malloc(sizeof(float) * FRAME);
    for (int b = 0; b < N_BEAMS; b++) {
        memset(sum, 0, sizeof(float) * FRAME);
        for (int c = 0; c < N_CH; c++) {
            const float *x = chan + (size_t)c * (FRAME + MAX_DELAY) + MAX_DELAY - delay[b][c];
            for (int k = 0; k < len; k++) sum[k] += x[k];
        }
        double p = 0;
        for (int k = 0; k < len; k++) p += (double)sum[k] * sum[k];
        power[b] = p / (len > 0 ? len : 1);
    }
    free(sum);
}

static int detect_contacts(const double *pdb, int frame, contact_t *out, int max)
{
    double med = 0;
    for (int b = 0; b < N_BEAMS; b++) med += pdb[b];
    med /= N_BEAMS;
    int n = 0;
    for (int b = 1; b < N_BEAMS - 1 && n < max; b++)
        if (pdb[b] > med + 6.0 && pdb[b] >= pdb[b - 1] && pdb[b] >= pdb[b + 1]) {
            out[n].frame = frame; out[n].beam = b; out[n].power_db = pdb[b]; n++;
        }
    return n;
}

static void write_snapshot(const char *dir, int frame, const double *pdb)
{
    char path[600];
    snprintf(path, sizeof path, "%s/beam_snap_%05d.txt", dir, frame);
    FILE *f = fopen(path, "w");
    for (int b = 0; b < N_BEAMS; b++) fprintf(f, "%7.2f %9.3f\n", beam_angle(b), pdb[b]);
    fclose(f);
}

static void write_btr_pgm(const char *path, const double *btr, int nframes)
{
    double lo = 1e300, hi = -1e300;
    for (long i = 0; i < (long)nframes * N_BEAMS; i++) {
        if (btr[i] < lo) lo = btr[i];
        if (btr[i] > hi) hi = btr[i];
    }
    FILE *f = fopen(path, "wb");
    fprintf(f, "P5\n%d %d\n255\n", N_BEAMS, nframes);
    unsigned char row[N_BEAMS];
    for (int r = 0; r < nframes; r++) {
        for (int b = 0; b < N_BEAMS; b++)
            row[b] = (unsigned char)(255.0 * (btr[(long)r * N_BEAMS + b] - lo) / (hi - lo + 1e-12));
        fwrite(row, 1, N_BEAMS, f);
    }
    fclose(f);
}

static void process_recording(const char *dir, const char *raw_path, long nsamp, const double *inv_gain)
{
    int delay[N_BEAMS][N_CH];
    for (int b = 0; b < N_BEAMS; b++)
        for (int c = 0; c < N_CH; c++) {
            double tau = (N_CH - 1 - c) * SPACING_M * sin(beam_angle(b) * M_PI / 180.0) / SOUND_MPS;
            int d = (int)lrint(tau * FS) + MAX_DELAY / 2;
            delay[b][c] = d < 0 ? 0 : (d > MAX_DELAY ? MAX_DELAY : d);
        }
    biquad_t bq[N_CH];
    for (int c = 0; c < N_CH; c++) design_bandpass(&bq[c], 420.0, 4.0);

    int nframes = (int)((nsamp + FRAME - 1) / FRAME);
    double *btr = malloc(sizeof(double) * nframes * N_BEAMS);
    int16_t *raw = malloc(sizeof(int16_t) * FRAME * N_CH);
    float *chan = calloc((size_t)N_CH * (FRAME + MAX_DELAY), sizeof(float));
    contact_t cbuf[N_BEAMS];
    char path[600];
    snprintf(path, sizeof path, "%s/contacts.csv", dir);
    FILE *cf = fopen(path, "w");
    fprintf(cf, "frame,time_s,bearing_deg,power_db\n");
    FILE *in = fopen(raw_path, "rb");
    long ncontacts = 0;
    for (int fr = 0; fr < nframes; fr++) {
        size_t got = fread(raw, sizeof(int16_t) * N_CH, FRAME, in);
        filter_frame(raw, (int)got, bq, inv_gain, chan);
        double *pw = btr + (long)fr * N_BEAMS;
        beamform_frame(chan, (int)got, (const int (*)[N_CH])delay, pw);
        for (int b = 0; b < N_BEAMS; b++) pw[b] = 10 * log10(pw[b] + 1e-12);
        int nc = detect_contacts(pw, fr, cbuf, N_BEAMS);
        for (int i = 0; i < nc; i++)
            fprintf(cf, "%d,%.4f,%.2f,%.3f\n", fr, fr * FRAME / FS, beam_angle(cbuf[i].beam), cbuf[i].power_db);
        ncontacts += nc;
        if (fr % SNAP_EVERY == 0) write_snapshot(dir, fr, pw);
    }
    fclose(in);
    fclose(cf);
    snprintf(path, sizeof path, "%s/bearing_time.pgm", dir);
    write_btr_pgm(path, btr, nframes);
    printf("frames=%d contacts=%ld\n", nframes, ncontacts);
    free(btr); free(raw); free(chan);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    source_t src[3] = {
        { 400.0, -35.0, 2.5, 0.6 },
        { 430.0, 20.0, -1.0, 0.4 },
        { 415.0, 60.0, -4.0, 0.25 },
    };
    char raw_path[600];
    snprintf(raw_path, sizeof raw_path, "%s/array_recording.s16", argv[1]);
    long nsamp = synthesize_recording(raw_path, src, 3);
    double inv_gain[N_CH];
    calibrate_channels(raw_path, nsamp, inv_gain);
    process_recording(argv[1], raw_path, nsamp, inv_gain);
    return 0;
}
