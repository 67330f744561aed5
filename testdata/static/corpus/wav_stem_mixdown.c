/*
 * wav_stem_mixdown: a small offline audio mixing engine.  Six synthetic
 * stereo stems (16-bit PCM, 44.1 kHz) are rendered into a stems/ directory as
 * RIFF/WAVE files whose headers are patched with fseek after streaming; a text
 * mix sheet with per-stem gain/pan is written and parsed; each stem is read
 * back chunk by chunk (skipping an extra LIST chunk), resampled to 48 kHz with
 * a windowed-sinc polyphase filter, panned and summed, soft-limited and written
 * as a 32-bit float WAV together with a CSV level meter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <sys/stat.h>

#define N_STEMS 6
#define SR_IN 44100
#define SR_OUT 48000
#define SECONDS 28
#define TAPS 128
#define PHASES 160 /* 48000/gcd = 160 ; 44100/gcd = 147 */
#define DECIM 147
#define CHUNK_FRAMES 4096

typedef struct { double gain_db, pan; char name[32]; } MixEntry;

static void put_u32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void put_u16(FILE *f, uint16_t v) { fwrite(&v, 2, 1, f); }

static void write_wav_header(FILE *f, int channels, int rate, int bits, int fmt_tag)
{
    fwrite("RIFF", 1, 4, f); put_u32(f, 0); fwrite("WAVE", 1, 4, f);
    fwrite("fmt ", 1, 4, f); put_u32(f, 16);
    put_u16(f, (uint16_t)fmt_tag); put_u16(f, (uint16_t)channels);
    put_u32(f, (uint32_t)rate); put_u32(f, (uint32_t)(rate * channels * bits / 8));
    put_u16(f, (uint16_t)(channels * bits / 8)); put_u16(f, (uint16_t)bits);
}

static void patch_wav_sizes(FILE *f, long data_size_pos, uint32_t data_bytes)
{
    long end = ftell(f);
    fseek(f, 4, SEEK_SET);
    put_u32(f, (uint32_t)(end - 8));
    fseek(f, data_size_pos, SEEK_SET);
    put_u32(f, data_bytes);
    fseek(f, end, SEEK_SET);
}

/* Render one stem: a small additive/FM instrument playing a fixed pattern. */
static void render_stem(const char *path, int stem)
{
    FILE *f = fopen(path, "wb");
    static const double scale[8] = {0, 2, 3, 5, 7, 8, 10, 12};
    int16_t buf[CHUNK_FRAMES * 2];
    long total = (long)SR_IN * SECONDS, n = 0, data_pos;
    double phase = 0.0, mphase = 0.0, base = 55.0 * pow(2.0, stem * 0.5);
    const char info[] = "INFOISFT\x0e\x00\x00\x00stem-renderer\0";
    if (!f) { perror(path); exit(1); }
    write_wav_header(f, 2, SR_IN, 16, 1);
    fwrite("LIST", 1, 4, f); put_u32(f, sizeof(info) - 1); fwrite(info, 1, sizeof(info) - 1, f);
    fwrite("data", 1, 4, f); data_pos = ftell(f); put_u32(f, 0);
    while (n < total) {
        int i, m = total - n < CHUNK_FRAMES ? (int)(total - n) : CHUNK_FRAMES;
        for (i = 0; i < m; i++) {
            long t = n + i;
            int note = (int)(t / (SR_IN / 4)) % 16;
            double tn = (double)(t % (SR_IN / 4)) / SR_IN;
            double freq = base * pow(2.0, scale[(note * (stem + 3)) % 8] / 12.0);
            double env = exp(-tn * (3.0 + stem)) * (1.0 - exp(-tn * 400.0));
            double s, l, r;
            mphase += 2.0 * M_PI * freq * (1.0 + stem % 3) / SR_IN;
            phase += 2.0 * M_PI * freq / SR_IN;
            s = env * sin(phase + (0.5 + 0.3 * stem) * env * sin(mphase));
            l = s * (0.8 + 0.2 * sin(2 * M_PI * 0.25 * t / SR_IN));
            r = s * (0.8 - 0.2 * sin(2 * M_PI * 0.25 * t / SR_IN));
            buf[2 * i] = (int16_t)lrint(l * 20000.0);
            buf[2 * i + 1] = (int16_t)lrint(r * 20000.0);
        }
        fwrite(buf, sizeof(int16_t), 2 * m, f);
        n += m;
    }
    patch_wav_sizes(f, data_pos, (uint32_t)(total * 4));
    fclose(f);
}

static void write_mix_sheet(const char *path)
{
    FILE *f = fopen(path, "w");
    int i;
    fprintf(f, "# stem  gain_dB  pan(-1..1)\n");
    for (i = 0; i < N_STEMS; i++) fprintf(f, "stem_%d.wav %6.2f %5.2f\n", i, -3.0 - 1.5 * i, -0.8 + 0.32 * i);
    fclose(f);
}

static int read_mix_sheet(const char *path, MixEntry *m)
{
    FILE *f = fopen(path, "r");
    char line[200];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < N_STEMS) {
        if (line[0] == '#') continue;
        if (sscanf(line, "%31s %lf %lf", m[n].name, &m[n].gain_db, &m[n].pan) == 3) n++;
    }
    fclose(f);
    return n;
}

/* Parse RIFF chunks and return the interleaved 16-bit samples as floats. */
static float *load_wav_pcm16(const char *path, long *frames)
{
    FILE *f = fopen(path, "rb");
    char id[4];
    uint32_t sz, riff;
    float *out = NULL;
    int16_t buf[CHUNK_FRAMES * 2];
    if (!f) { perror(path); exit(1); }
    if (fread(id, 1, 4, f) != 4 || fread(&riff, 4, 1, f) != 1 || fread(id, 1, 4, f) != 4) exit(1);
    while (fread(id, 1, 4, f) == 4 && fread(&sz, 4, 1, f) == 1) {
        if (!memcmp(id, "data", 4)) {
            long total = sz / 4, got = 0;
            out = malloc(sizeof(float) * 2 * total);
            while (got < total) {
                long want = total - got < CHUNK_FRAMES ? total - got : CHUNK_FRAMES, i;
                size_t r = fread(buf, 4, want, f);
                for (i = 0; i < (long)r * 2; i++) out[2 * got + i] = buf[i] / 32768.0f;
                got += r;
                if (r == 0) break;
            }
            *frames = got;
            break;
        }
        fseek(f, sz + (sz & 1), SEEK_CUR);
    }
    fclose(f);
    return out;
}

static void design_filter(double h[PHASES][TAPS])
{
    int p, k;
    double fc = 0.45 * SR_IN / (double)SR_IN; /* relative to input Nyquist */
    for (p = 0; p < PHASES; p++) {
        double sum = 0;
        for (k = 0; k < TAPS; k++) {
            double x = (k - TAPS / 2 + 1) - (double)p / PHASES;
            double sinc = fabs(x) < 1e-12 ? 1.0 : sin(M_PI * fc * 2 * x) / (M_PI * fc * 2 * x);
            double w = 0.42 + 0.5 * cos(M_PI * x / (TAPS / 2)) + 0.08 * cos(2 * M_PI * x / (TAPS / 2));
            h[p][k] = sinc * (fabs(x) < TAPS / 2 ? w : 0.0);
            sum += h[p][k];
        }
        for (k = 0; k < TAPS; k++) h[p][k] /= sum;
    }
}

/* Resample one stem and accumulate it into the stereo mix bus. */
static void resample_and_mix(const float *in, long nin, double h[PHASES][TAPS], const MixEntry *m,
                             float *bus, long nout)
{
    double g = pow(10.0, m->gain_db / 20.0);
    double gl = g * cos((m->pan + 1) * M_PI / 4), gr = g * sin((m->pan + 1) * M_PI / 4);
    long o;
    for (o = 0; o < nout; o++) {
        long pos = o * DECIM;
        long i0 = pos / PHASES;
        int ph = (int)(pos % PHASES), k;
        double l = 0, r = 0;
        for (k = 0; k < TAPS; k++) {
            long idx = i0 + k - TAPS / 2 + 1;
            if (idx < 0 || idx >= nin) continue;
            l += h[ph][k] * in[2 * idx];
            r += h[ph][k] * in[2 * idx + 1];
        }
        bus[2 * o] += (float)(l * gl);
        bus[2 * o + 1] += (float)(r * gr);
    }
}

static void limit_and_write(const char *wav_path, const char *meter_path, float *bus, long nout)
{
    FILE *f = fopen(wav_path, "wb"), *m = fopen(meter_path, "w");
    long data_pos, i, blk = SR_OUT / 10;
    double env = 0.0;
    write_wav_header(f, 2, SR_OUT, 32, 3);
    fwrite("data", 1, 4, f); data_pos = ftell(f); put_u32(f, 0);
    fprintf(m, "t_s,peak_l,peak_r,rms_db\n");
    for (i = 0; i < nout; i += blk) {
        long j, e = i + blk < nout ? i + blk : nout;
        double pl = 0, pr = 0, ss = 0;
        for (j = i; j < e; j++) {
            double a = fmax(fabs(bus[2 * j]), fabs(bus[2 * j + 1]));
            double gain;
            env = a > env ? a : env * 0.9995 + a * 0.0005;
            gain = env > 0.9 ? 0.9 / env : 1.0;
            bus[2 * j] = (float)tanh(bus[2 * j] * gain);
            bus[2 * j + 1] = (float)tanh(bus[2 * j + 1] * gain);
            pl = fmax(pl, fabs(bus[2 * j])); pr = fmax(pr, fabs(bus[2 * j + 1]));
            ss += bus[2 * j] * bus[2 * j] + bus[2 * j + 1] * bus[2 * j + 1];
        }
        fwrite(bus + 2 * i, sizeof(float), 2 * (e - i), f);
        fprintf(m, "%.2f,%.4f,%.4f,%.2f\n", (double)i / SR_OUT, pl, pr, 10 * log10(ss / (2.0 * (e - i)) + 1e-12));
    }
    patch_wav_sizes(f, data_pos, (uint32_t)(nout * 8));
    fclose(f);
    fclose(m);
}

static uint32_t checksum_output(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char buf[8192];
    uint32_t a = 1, b = 0;
    size_t n, i;
    fseek(f, 44, SEEK_SET);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (i = 0; i < n; i++) { a = (a + buf[i]) % 65521; b = (b + a) % 65521; }
    fclose(f);
    return (b << 16) | a;
}

int main(int argc, char **argv)
{
    char path[512], p2[512];
    MixEntry mix[N_STEMS];
    static double h[PHASES][TAPS];
    long nin_max = (long)SR_IN * SECONDS, nout = nin_max * SR_OUT / SR_IN;
    float *bus;
    int i, n;
    FILE *log;
    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 2; }
    snprintf(path, sizeof path, "%s/stems", argv[1]); mkdir(path, 0755);
    for (i = 0; i < N_STEMS; i++) {
        snprintf(path, sizeof path, "%s/stems/stem_%d.wav", argv[1], i);
        render_stem(path, i);
    }
    snprintf(path, sizeof path, "%s/mix_sheet.txt", argv[1]);
    write_mix_sheet(path);
    n = read_mix_sheet(path, mix);
    design_filter(h);
    bus = calloc(2 * nout, sizeof(float));
    for (i = 0; i < n; i++) {
        long frames = 0;
        float *pcm;
        snprintf(path, sizeof path, "%s/stems/%s", argv[1], mix[i].name);
        pcm = load_wav_pcm16(path, &frames);
        resample_and_mix(pcm, frames, h, &mix[i], bus, nout);
        free(pcm);
    }
    snprintf(path, sizeof path, "%s/mixdown.wav", argv[1]);
    snprintf(p2, sizeof p2, "%s/meter.csv", argv[1]);
    limit_and_write(path, p2, bus, nout);
    snprintf(p2, sizeof p2, "%s/render.log", argv[1]);
    log = fopen(p2, "w");
    fprintf(log, "stems %d frames_out %ld adler32 %08x\n", n, nout, checksum_output(path));
    fclose(log);
    free(bus);
    return 0;
}
