/*
 * Barn-owl nest-box camera season.  Ten boxes are followed for 50
 * nights: brood hatching, chick growth driven by delivered prey energy, vole
 * abundance and rain nights set the parents' delivery rate.  Every motion
 * trigger of a box camera stores a small IR thumbnail clip in
 * boxes/box_NN/night_NNN/ and appends a line to the box's event log.  After
 * the season a curation pass walks the tree (readdir/stat), reads and
 * classifies each clip by frame differencing and blob tracking, renames true
 * prey deliveries into confirmed/, unlinks false triggers and removes empty
 * night directories.  A census pass lists the confirmed clips, fits a
 * Poisson provisioning model by IRLS and writes per-box reports.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NBOX 10
#define NNIGHT 50
#define FW 24
#define FH 18
#define NFRAME 6
#define CLIP_BYTES (NFRAME * FW * FH)
#define MAXCHICK 7
#define BLOB_MIN 22
#define NPAR 3

enum { EV_DELIVERY = 0, EV_CHICK = 1, EV_MOTH = 2, EV_FLICKER = 3, NEV = 4 };

typedef struct {
    char magic[4];
    uint16_t box, night;
    uint32_t t_after_sunset;
    uint16_t nframe, w, h;
    uint8_t truth, prey_g;
    uint8_t pad[13];
} clip_hdr_t;

typedef struct {
    int hatch_night, clutch, alive;
    double chick_mass[MAXCHICK];
    double vole_index;
    int deliveries[NNIGHT];
    int confirmed[NNIGHT];
    int chicks_on_night[NNIGHT];
    double age_on_night[NNIGHT];
} box_t;

static box_t boxes[NBOX];
static char root[512];
static uint64_t rs = 0x853C49E6748FEA9Bull;
static long confusion[NEV][2];

static double urand(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static int poisson(double lam)
{
    double L = exp(-lam), p = 1.0;
    int k = 0;
    do { k++; p *= urand(); } while (p > L && k < 200);
    return k - 1;
}

static void mkdir_or_die(const char *p)
{
    if (mkdir(p, 0755) != 0 && errno != EEXIST) { perror(p); exit(1); }
}

/* Thumbnail frames: IR noise floor, chicks as dim blobs, and the event. */
static void render_clip(int kind, int chicks, int prey_g, unsigned char *fr)
{
    double ox = -6.0, oy = 8.0 + 3.0 * urand(), mx = 12.0 * urand(), my = 9.0 * urand();
    double flick = 0.0;
    int perch = kind == EV_DELIVERY && urand() < 0.25;   /* hands prey over at the entrance */
    for (int f = 0; f < NFRAME; f++) {
        unsigned char *im = fr + f * FW * FH;
        if (kind == EV_FLICKER) flick = 35.0 * sin(f * 1.9 + urand());
        if (kind == EV_DELIVERY && !(perch && ox > 2.0)) { ox += 5.0 + urand(); oy += urand() - 0.5; }
        if (kind == EV_MOTH) { mx += 4.0 * (urand() - 0.5); my += 4.0 * (urand() - 0.5); }
        for (int y = 0; y < FH; y++)
            for (int x = 0; x < FW; x++) {
                double v = 40.0 + 8.0 * (urand() - 0.5) + flick + (x < 3 ? 25.0 : 0.0);
                for (int c = 0; c < chicks; c++) {
                    double cx = 14.0 + 2.5 * (c % 3) + (kind == EV_CHICK ? 2.0 * sin(f + c) : 0.3 * sin(f * 0.5 + c));
                    double cy = 11.0 + 2.5 * (c / 3);
                    if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < 2.5) v += 22.0;
                }
                if (kind == EV_DELIVERY) {
                    double ex = (x - ox) / 4.0, ey = (y - oy) / 5.0;
                    if (ex * ex + ey * ey < 1.0) v += 110.0;
                    if (prey_g > 0 && fabs(x - ox - 4.0) < prey_g / 20.0 && fabs(y - oy - 3.0) < 1.0) v += 60.0;
                }
                if (kind == EV_MOTH && fabs(x - mx) < 1.0 && fabs(y - my) < 1.0) v += 140.0;
                im[y * FW + x] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    }
}

static void append_event(const char *logpath, const char *line)
{
    int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) { perror(logpath); exit(1); }
    size_t n = strlen(line);
    if (write(fd, line, n) != (ssize_t)n) { perror("append"); exit(1); }
    close(fd);
}

static void write_clip(const char *path, const clip_hdr_t *h, const unsigned char *frames)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    if (write(fd, h, sizeof *h) != (ssize_t)sizeof *h || write(fd, frames, CLIP_BYTES) != CLIP_BYTES) {
        perror(path); exit(1);
    }
    close(fd);
}

/* One box over the season: brood energetics and camera triggers. */
static void simulate_box_season(int b)
{
    box_t *bx = &boxes[b];
    char dir[700], ndir[760], path[820], logp[760], line[160];
    static unsigned char frames[CLIP_BYTES];
    snprintf(dir, sizeof dir, "%s/box_%02d", root, b);
    mkdir_or_die(dir);
    snprintf(logp, sizeof logp, "%s/events.log", dir);
    bx->hatch_night = 5 + (int)(15 * urand());
    bx->clutch = 3 + (int)(4 * urand());
    bx->alive = 0;
    bx->vole_index = 0.5 + 1.0 * urand();
    for (int n = 0; n < NNIGHT; n++) {
        int rain = urand() < 0.18;
        int hatched = n - bx->hatch_night;
        if (hatched >= 0 && hatched < bx->clutch * 2 && hatched % 2 == 0 && bx->alive < bx->clutch)
            bx->chick_mass[bx->alive++] = 17.0;           /* asynchronous hatching */
        double demand = 0.0;
        for (int c = 0; c < bx->alive; c++) demand += 0.35 * bx->chick_mass[c] + 10.0;
        double lam = 2.0 + bx->vole_index * demand / 28.0;
        if (rain) lam *= 0.35;
        int nd = poisson(lam), nfalse = poisson(1.5 + 0.4 * bx->alive);
        double food = 0.0;
        bx->deliveries[n] = nd;
        bx->chicks_on_night[n] = bx->alive;
        bx->age_on_night[n] = hatched > 0 ? hatched : 0;
        snprintf(ndir, sizeof ndir, "%s/night_%03d", dir, n);
        mkdir_or_die(ndir);
        int nev = nd + nfalse;
        for (int e = 0; e < nev; e++) {
            int kind = e < nd ? EV_DELIVERY : EV_CHICK + (int)(3 * urand());
            if (kind == EV_CHICK && bx->alive == 0) kind = EV_MOTH;
            int prey = kind == EV_DELIVERY ? (urand() < 0.7 ? 20 + (int)(15 * urand()) : 60 + (int)(40 * urand())) : 0;
            food += prey;
            uint32_t t = (uint32_t)(600 + urand() * 8.5 * 3600);
            clip_hdr_t h;
            memset(&h, 0, sizeof h);
            memcpy(h.magic, "OWLC", 4);
            h.box = (uint16_t)b; h.night = (uint16_t)n; h.t_after_sunset = t;
            h.nframe = NFRAME; h.w = FW; h.h = FH; h.truth = (uint8_t)kind; h.prey_g = (uint8_t)prey;
            render_clip(kind, bx->alive, prey, frames);
            snprintf(path, sizeof path, "%s/clip_%05u_%02d.raw", ndir, t, e);
            write_clip(path, &h, frames);
            snprintf(line, sizeof line, "%03d %05u trigger %s\n", n, t, path + strlen(dir) + 1);
            append_event(logp, line);
        }
        double share = bx->alive ? food / bx->alive : 0.0;
        for (int c = 0; c < bx->alive; c++) {
            double need = 0.3 * bx->chick_mass[c] + 8.0;
            double growth = 0.18 * bx->chick_mass[c] * (1.0 - bx->chick_mass[c] / 330.0) * fmin(1.0, share / need);
            bx->chick_mass[c] += growth - (share < 0.5 * need ? 0.04 * bx->chick_mass[c] : 0.0);
            share *= 0.92;                                     /* older chicks take more */
        }
        snprintf(line, sizeof line, "%03d summary deliveries=%d false=%d rain=%d chicks=%d\n", n, nd, nfalse, rain, bx->alive);
        append_event(logp, line);
    }
}

/* Background subtraction against the per-pixel median frame and
 * 4-connected blob labelling; a delivery is a large blob that crosses the
 * box in at least two frames. */
static int classify_clip(const unsigned char *fr, int *area_out)
{
    static int lab[FW * FH], stack[FW * FH];
    static unsigned char bg[FW * FH];
    int big_frames = 0, maxarea = 0;
    double cx_first = -1, cx_last = -1;
    for (int p = 0; p < FW * FH; p++) {
        unsigned char v[NFRAME];
        for (int f = 0; f < NFRAME; f++) {
            unsigned char x = fr[f * FW * FH + p];
            int i = f - 1;
            while (i >= 0 && v[i] > x) { v[i + 1] = v[i]; i--; }
            v[i + 1] = x;
        }
        bg[p] = (unsigned char)((v[NFRAME / 2 - 1] + v[NFRAME / 2]) / 2);
    }
    for (int f = 0; f < NFRAME; f++) {
        const unsigned char *b = fr + f * FW * FH;
        memset(lab, 0, sizeof lab);
        int best = 0, next = 0;
        double bestcx = 0;
        for (int p = 0; p < FW * FH; p++) {
            if (lab[p] || abs((int)b[p] - (int)bg[p]) < 45) continue;
            int sp = 0, area = 0;
            double sx = 0;
            lab[p] = ++next; stack[sp++] = p;
            while (sp) {
                int q = stack[--sp], x = q % FW, y = q / FW;
                area++; sx += x;
                int nb[4] = {x > 0 ? q - 1 : -1, x < FW - 1 ? q + 1 : -1, y > 0 ? q - FW : -1, y < FH - 1 ? q + FW : -1};
                for (int k = 0; k < 4; k++) {
                    int r = nb[k];
                    if (r >= 0 && !lab[r] && abs((int)b[r] - (int)bg[r]) >= 45) { lab[r] = next; stack[sp++] = r; }
                }
            }
            if (area > best) { best = area; bestcx = sx / area; }
        }
        if (best >= BLOB_MIN) {
            big_frames++;
            if (cx_first < 0) cx_first = bestcx;
            cx_last = bestcx;
        }
        if (best > maxarea) maxarea = best;
    }
    *area_out = maxarea;
    return big_frames >= 2 && fabs(cx_last - cx_first) > 3.0;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Walks one box's night directories, classifies clips, renames deliveries
 * into confirmed/ and unlinks the rest; returns bytes scanned. */
static long curate_box(int b)
{
    char dir[700], ndir[1000], path[1300], dest[1300], cdir[760];
    static unsigned char buf[sizeof(clip_hdr_t) + CLIP_BYTES];
    long bytes = 0;
    snprintf(dir, sizeof dir, "%s/box_%02d", root, b);
    snprintf(cdir, sizeof cdir, "%s/confirmed", dir);
    mkdir_or_die(cdir);
    DIR *d = opendir(dir);
    if (!d) { perror(dir); exit(1); }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "night_", 6) != 0) continue;
        snprintf(ndir, sizeof ndir, "%s/%s", dir, e->d_name);
        if (!is_dir(ndir)) continue;
        DIR *nd = opendir(ndir);
        if (!nd) { perror(ndir); exit(1); }
        struct dirent *c;
        int left = 0;
        while ((c = readdir(nd)) != NULL) {
            if (c->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", ndir, c->d_name);
            struct stat st;
            if (stat(path, &st) != 0 || st.st_size != (off_t)sizeof buf) { left++; continue; }
            bytes += st.st_size;
            int fd = open(path, O_RDONLY);
            if (fd < 0 || read(fd, buf, sizeof buf) != (ssize_t)sizeof buf) { perror(path); exit(1); }
            close(fd);
            clip_hdr_t h;
            memcpy(&h, buf, sizeof h);
            int area, keep = classify_clip(buf + sizeof h, &area);
            confusion[h.truth][keep]++;
            if (keep) {
                snprintf(dest, sizeof dest, "%s/n%03u_t%05u_a%03d.clip", cdir, h.night, h.t_after_sunset, area);
                if (rename(path, dest) != 0) { perror("rename"); exit(1); }
            } else if (unlink(path) != 0) { perror("unlink"); exit(1); }
        }
        closedir(nd);
        if (!left && rmdir(ndir) != 0) { perror("rmdir"); exit(1); }
    }
    closedir(d);
    return bytes;
}

/* Lists confirmed clips and tallies deliveries per night. */
static long census_box(int b)
{
    char cdir[760], path[1100];
    long bytes = 0;
    snprintf(cdir, sizeof cdir, "%s/box_%02d/confirmed", root, b);
    memset(boxes[b].confirmed, 0, sizeof boxes[b].confirmed);
    DIR *d = opendir(cdir);
    if (!d) { perror(cdir); exit(1); }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        unsigned n, t; int a;
        if (sscanf(e->d_name, "n%3u_t%5u_a%3d.clip", &n, &t, &a) != 3 || n >= NNIGHT) continue;
        snprintf(path, sizeof path, "%s/%s", cdir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0) bytes += st.st_size;
        boxes[b].confirmed[n]++;
    }
    closedir(d);
    return bytes;
}

/* Poisson regression log(mu) = b0 + b1*chicks + b2*age/10 by IRLS. */
static void fit_provisioning(double beta[NPAR])
{
    double A[NPAR][NPAR + 1];
    beta[0] = log(3.0); beta[1] = 0.0; beta[2] = 0.0;
    for (int it = 0; it < 25; it++) {
        memset(A, 0, sizeof A);
        for (int b = 0; b < NBOX; b++)
            for (int n = 0; n < NNIGHT; n++) {
                double x[NPAR] = {1.0, boxes[b].chicks_on_night[n], boxes[b].age_on_night[n] / 10.0};
                double eta = beta[0] * x[0] + beta[1] * x[1] + beta[2] * x[2], mu = exp(eta);
                double z = eta + (boxes[b].confirmed[n] - mu) / mu;
                for (int i = 0; i < NPAR; i++) {
                    for (int j = 0; j < NPAR; j++) A[i][j] += mu * x[i] * x[j];
                    A[i][NPAR] += mu * x[i] * z;
                }
            }
        for (int k = 0; k < NPAR; k++)
            for (int i = k + 1; i < NPAR; i++) {
                double f = A[i][k] / A[k][k];
                for (int j = k; j <= NPAR; j++) A[i][j] -= f * A[k][j];
            }
        for (int i = NPAR - 1; i >= 0; i--) {
            double s = A[i][NPAR];
            for (int j = i + 1; j < NPAR; j++) s -= A[i][j] * beta[j];
            beta[i] = s / A[i][i];
        }
    }
}

static void write_reports(const char *out, const double beta[NPAR], long scanned, long kept)
{
    char path[600];
    snprintf(path, sizeof path, "%s/provisioning_report.csv", out);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "box,hatch_night,clutch,fledglings,true_deliveries,confirmed,zero_nights_after_hatch,mean_chick_mass_g\n");
    for (int b = 0; b < NBOX; b++) {
        long td = 0, cf = 0; int zero = 0, fl = 0; double mm = 0;
        for (int n = 0; n < NNIGHT; n++) {
            td += boxes[b].deliveries[n]; cf += boxes[b].confirmed[n];
            if (n > boxes[b].hatch_night && boxes[b].confirmed[n] == 0) zero++;
        }
        for (int c = 0; c < boxes[b].alive; c++) { mm += boxes[b].chick_mass[c]; fl += boxes[b].chick_mass[c] > 200.0; }
        fprintf(f, "%d,%d,%d,%d,%ld,%ld,%d,%.1f\n", b, boxes[b].hatch_night, boxes[b].clutch, fl, td, cf, zero,
                boxes[b].alive ? mm / boxes[b].alive : 0.0);
    }
    fprintf(f, "# poisson model: log(rate) = %.4f + %.4f*chicks + %.4f*age/10\n", beta[0], beta[1], beta[2]);
    fprintf(f, "# bytes scanned %ld, bytes kept %ld\n", scanned, kept);
    fclose(f);
    snprintf(path, sizeof path, "%s/classifier_confusion.txt", out);
    f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    static const char *names[NEV] = {"delivery", "chick_move", "moth", "ir_flicker"};
    fprintf(f, "# truth rejected accepted\n");
    for (int k = 0; k < NEV; k++) fprintf(f, "%-10s %ld %ld\n", names[k], confusion[k][0], confusion[k][1]);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    snprintf(root, sizeof root, "%s/boxes", argv[1]);
    mkdir_or_die(root);
    for (int b = 0; b < NBOX; b++) simulate_box_season(b);
    long scanned = 0, kept = 0;
    for (int b = 0; b < NBOX; b++) scanned += curate_box(b);
    for (int b = 0; b < NBOX; b++) kept += census_box(b);
    double beta[NPAR];
    fit_provisioning(beta);
    write_reports(argv[1], beta, scanned, kept);
    printf("scanned %ld bytes of clips, kept %ld; delivery recall %.3f\n", scanned, kept,
           (double)confusion[EV_DELIVERY][1] / (confusion[EV_DELIVERY][0] + confusion[EV_DELIVERY][1] + 1e-9));
    return 0;
}
