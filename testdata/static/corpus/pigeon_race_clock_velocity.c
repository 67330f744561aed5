/*
 * pigeon_race_clock_velocity.c
 *
 * Results engine for a racing-pigeon federation season.  The program first
 * writes the federation's text inputs: a loft register with coordinates in
 * degrees-minutes-seconds, a ring register, a race programme with
 * liberation sites and times, and for every race the concatenated
 * electronic-clock dumps uploaded by the lofts (clock set/open records
 * against the master clock, one line per arriving bird, a few corrupted
 * lines as in real uploads).
 *
 * Processing is plain stdio text handling: fgets/sscanf for the registers,
 * getline + sscanf for the clock dumps, ring-number check-letter
 * validation, linear clock-drift correction, Vincenty distances on the
 * WGS-84 ellipsoid, velocity ranking, prize points, fixed-column fprintf
 * result sheets per race, then a second pass that re-reads all result
 * sheets with fscanf to compile the season's ace-pigeon and loft averages.
 *
 * usage: pigeon_race_clock_velocity OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLOFT 560
#define BIRDS_PER_LOFT 40
#define NRACE 12
#define MAXARR (NLOFT * BIRDS_PER_LOFT)
#define PI 3.14159265358979323846
#define HASH_SIZE 65536

typedef struct { char id[8]; char name[40]; double lat, lon; } loft_t;
typedef struct { char ring[16]; int loft; double quality; } bird_t;
typedef struct { char site[32]; double lat, lon; long long lib_s; double wind; } race_t;
typedef struct { int bird, loft; double vel, dist_km; long long arr_s; } arrival_t;

static loft_t lofts[NLOFT];
static bird_t birds[NLOFT * BIRDS_PER_LOFT];
static race_t races[NRACE];
static arrival_t arr[MAXARR];
static const char *outdir;
static uint64_t rng = 0x91ce0e5a3d1f7b2bull;

static void die(const char *what)
{
    fprintf(stderr, "pigeon_race_clock_velocity: %s: %s\n", what, errno ? strerror(errno) : "bad data");
    exit(1);
}

static double urand(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return ((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static FILE *open_file(const char *name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

/* days since 1970-01-01 of a proleptic Gregorian date */
static long long days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    int yoe = (int)(y - era * 400);
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_secs(long long s, int *y, int *mo, int *d, int *h, int *mi, int *se)
{
    long long z = s / 86400 + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *mo = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*mo <= 2));
    long long r = s % 86400;
    *h = (int)(r / 3600); *mi = (int)(r / 60 % 60); *se = (int)(r % 60);
}

static char ring_check(const char *digits)
{
    unsigned v = 0;
    for (const char *p = digits; *p; p++) v = v * 10 + (unsigned)(*p - '0');
    return (char)('A' + v % 23);
}

static void fmt_dms(char *buf, size_t n, double deg, char pos, char neg)
{
    char h = deg >= 0 ? pos : neg;
    deg = fabs(deg);
    int d = (int)deg, m = (int)((deg - d) * 60.0);
    double s = (deg - d - m / 60.0) * 3600.0;
    snprintf(buf, n, "%d-%02d-%05.2f%c", d, m, s, h);
}

static void write_registers(void)
{
    static const char *first[] = {"J.", "M.", "A.", "R.", "P.", "K.", "D.", "S."};
    static const char *last[] = {"Vermeulen", "Hughes", "Kowalski", "Marchetti", "Dubois", "Pryce", "Janssens",
                                 "O'Neill", "Schmidt", "Lindqvist", "Moreau", "Baker"};
    FILE *f = open_file("loft_register.txt", "w");
    fprintf(f, "# loft  lat(DMS)  lon(DMS)  member\n");
    for (int l = 0; l < NLOFT; l++) {
        loft_t *L = &lofts[l];
        snprintf(L->id, sizeof L->id, "L%04d", l + 1);
        snprintf(L->name, sizeof L->name, "%s %s", first[l % 8], last[(l * 7 + 3) % 12]);
        L->lat = 51.0 + 2.5 * urand();
        L->lon = -2.5 + 4.0 * urand();
        char la[24], lo[24];
        fmt_dms(la, sizeof la, L->lat, 'N', 'S');
        fmt_dms(lo, sizeof lo, L->lon, 'E', 'W');
        if (fprintf(f, "%s %s %s %s\n", L->id, la, lo, L->name) < 0) die("loft register");
    }
    if (fclose(f) != 0) die("close loft register");

    f = open_file("ring_register.txt", "w");
    fprintf(f, "# ring loft\n");
    for (int l = 0; l < NLOFT; l++)
        for (int b = 0; b < BIRDS_PER_LOFT; b++) {
            char digits[8];
            snprintf(digits, sizeof digits, "%05d", (l * BIRDS_PER_LOFT + b) * 7 % 99991);
            if (fprintf(f, "GB-24-%c%s %s\n", ring_check(digits), digits, lofts[l].id) < 0) die("ring register");
        }
    if (fclose(f) != 0) die("close ring register");

    static const char *sites[] = {"Fougeres", "Vire", "Alencon", "Tours", "Chateauroux", "Nevers",
                                  "Vichy", "Bourges", "Saintes", "Limoges", "Cahors", "Tarbes"};
    f = open_file("race_programme.txt", "w");
    fprintf(f, "# race site lat lon liberation(YYYY-MM-DD hh:mm:ss) wind_m_s\n");
    for (int r = 0; r < NRACE; r++) {
        race_t *R = &races[r];
        snprintf(R->site, sizeof R->site, "%s", sites[r]);
        R->lat = 48.4 - 0.35 * r + 0.2 * urand();
        R->lon = -1.2 + 0.25 * r * urand();
        R->lib_s = days_from_civil(2024, 4, 20) * 86400 + (long long)r * 7 * 86400 + 6 * 3600 + 15 * 60 +
                   (long long)(90 * 60 * urand());
        R->wind = -4.0 + 9.0 * urand();
        int y, mo, d, h, mi, se;
        civil_from_secs(R->lib_s, &y, &mo, &d, &h, &mi, &se);
        if (fprintf(f, "R%02d %s %.5f %.5f %04d-%02d-%02d %02d:%02d:%02d %.1f\n", r + 1, R->site, R->lat, R->lon, y,
                    mo, d, h, mi, se, R->wind) < 0)
            die("race programme");
    }
    if (fclose(f) != 0) die("close race programme");
}

static double parse_dms(const char *s)
{
    int d, m;
    char secs[16], h;
    /* seconds are read as text: "%lf" would swallow the E of an east longitude as an exponent */
    if (sscanf(s, "%d-%d-%15[0-9.]%c", &d, &m, secs, &h) != 4) die("bad DMS coordinate");
    double v = d + m / 60.0 + strtod(secs, NULL) / 3600.0;
    return (h == 'S' || h == 'W') ? -v : v;
}

static int loft_index(const char *id)
{
    int n = atoi(id + 1);
    return (n >= 1 && n <= NLOFT) ? n - 1 : -1;
}

static unsigned hash_ring(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h & (HASH_SIZE - 1);
}

static int ring_tab[HASH_SIZE];

static int find_ring(const char *ring)
{
    unsigned h = hash_ring(ring);
    while (ring_tab[h] >= 0) {
        if (strcmp(birds[ring_tab[h]].ring, ring) == 0) return ring_tab[h];
        h = (h + 1) & (HASH_SIZE - 1);
    }
    return -1;
}

static int read_registers(void)
{
    char line[256], id[16], la[32], lo[32], ring[16];
    FILE *f = open_file("loft_register.txt", "r");
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        int off;
        if (sscanf(line, "%15s %31s %31s %n", id, la, lo, &off) != 3) die("loft register line");
        int l = loft_index(id);
        if (l < 0) die("loft id");
        lofts[l].lat = parse_dms(la);
        lofts[l].lon = parse_dms(lo);
        line[strcspn(line, "\n")] = 0;
        snprintf(lofts[l].name, sizeof lofts[l].name, "%s", line + off);
        n++;
    }
    if (ferror(f)) die("read loft register");
    fclose(f);

    for (int h = 0; h < HASH_SIZE; h++) ring_tab[h] = -1;
    f = open_file("ring_register.txt", "r");
    int nb = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (sscanf(line, "%15s %15s", ring, id) != 2) die("ring register line");
        bird_t *b = &birds[nb];
        snprintf(b->ring, sizeof b->ring, "%s", ring);
        b->loft = loft_index(id);
        b->quality = 0.0;
        unsigned h = hash_ring(ring);
        while (ring_tab[h] >= 0) h = (h + 1) & (HASH_SIZE - 1);
        ring_tab[h] = nb++;
    }
    if (ferror(f)) die("read ring register");
    fclose(f);

    f = open_file("race_programme.txt", "r");
    int r = 0;
    while (fgets(line, sizeof line, f) && r < NRACE) {
        if (line[0] == '#') continue;
        int y, mo, d, hh, mi, se;
        char rid[8];
        race_t *R = &races[r];
        if (sscanf(line, "%7s %31s %lf %lf %d-%d-%d %d:%d:%d %lf", rid, R->site, &R->lat, &R->lon, &y, &mo, &d, &hh,
                   &mi, &se, &R->wind) != 11)
            die("race programme line");
        R->lib_s = days_from_civil(y, mo, d) * 86400 + hh * 3600 + mi * 60 + se;
        r++;
    }
    fclose(f);
    return n + nb;
}

/* Vincenty inverse on WGS-84, metres */
static double vincenty(double lat1, double lon1, double lat2, double lon2)
{
    const double a = 6378137.0, f = 1.0 / 298.257223563, b = a * (1 - f);
    double L = (lon2 - lon1) * PI / 180.0;
    double U1 = atan((1 - f) * tan(lat1 * PI / 180.0)), U2 = atan((1 - f) * tan(lat2 * PI / 180.0));
    double sU1 = sin(U1), cU1 = cos(U1), sU2 = sin(U2), cU2 = cos(U2);
    double lam = L, lamp, sS, cS, sig, sA, c2A, c2m;
    int it = 0;
    do {
        double sl = sin(lam), cl = cos(lam);
        sS = sqrt((cU2 * sl) * (cU2 * sl) + (cU1 * sU2 - sU1 * cU2 * cl) * (cU1 * sU2 - sU1 * cU2 * cl));
        if (sS == 0) return 0.0;
        cS = sU1 * sU2 + cU1 * cU2 * cl;
        sig = atan2(sS, cS);
        sA = cU1 * cU2 * sl / sS;
        c2A = 1 - sA * sA;
        c2m = c2A != 0 ? cS - 2 * sU1 * sU2 / c2A : 0;
        double C = f / 16 * c2A * (4 + f * (4 - 3 * c2A));
        lamp = lam;
        lam = L + (1 - C) * f * sA * (sig + C * sS * (c2m + C * cS * (-1 + 2 * c2m * c2m)));
    } while (fabs(lam - lamp) > 1e-12 && ++it < 100);
    double u2 = c2A * (a * a - b * b) / (b * b);
    double A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)));
    double B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)));
    double dS = B * sS * (c2m + B / 4 * (cS * (-1 + 2 * c2m * c2m) - B / 6 * c2m * (-3 + 4 * sS * sS) * (-3 + 4 * c2m * c2m)));
    return b * A * (sig - dS);
}

static void fmt_time(char *buf, size_t n, double t)
{
    long long s = (long long)floor(t);
    int cs = (int)((t - s) * 100.0);
    int y, mo, d, h, mi, se;
    civil_from_secs(s, &y, &mo, &d, &h, &mi, &se);
    snprintf(buf, n, "%04d-%02d-%02d %02d:%02d:%02d.%02d", y, mo, d, h, mi, se, cs);
}

/* the lofts' clock uploads for one race */
static void write_clock_dump(int r)
{
    const race_t *R = &races[r];
    char name[64], t1[40], t2[40];
    snprintf(name, sizeof name, "clocks_R%02d.txt", r + 1);
    FILE *f = open_file(name, "w");
    for (int l = 0; l < NLOFT; l++) {
        const loft_t *L = &lofts[l];
        double dist = vincenty(R->lat, R->lon, L->lat, L->lon);
        double drift = (urand() - 0.5) * 4e-5;                 /* s per s */
        double set_err = (urand() - 0.5) * 3.0;
        double set_t = (double)R->lib_s - 86400.0 * 1.5 + 600.0 * urand();
        fprintf(f, "#CLOCK loft=%s serial=TX%04d race=R%02d\n", L->id, 1000 + (l * 37) % 9000, r + 1);
        fmt_time(t1, sizeof t1, set_t + set_err);
        fmt_time(t2, sizeof t2, set_t);
        fprintf(f, "SET %s MASTER %s\n", t1, t2);
        double last = 0.0;
        for (int b = 0; b < BIRDS_PER_LOFT; b++) {
            if (urand() < 0.25) continue;                         /* not basketed */
            bird_t *B = &birds[l * BIRDS_PER_LOFT + b];
            if (B->quality == 0.0) B->quality = 0.85 + 0.3 * urand();
            double v = (1150.0 + 45.0 * R->wind) * B->quality * (0.93 + 0.14 * urand());  /* m/min */
            if (urand() < 0.06) continue;                         /* lost or day-two bird */
            double t = (double)R->lib_s + dist / v * 60.0;
            double clk = t + set_err + drift * (t - set_t);
            fmt_time(t1, sizeof t1, clk);
            if (urand() < 0.002)
                fprintf(f, "ARR %s %s chip=%08X\n", "GB-24-??????", t1, (unsigned)(urand() * 4e9));
            else
                fprintf(f, "ARR %s %s chip=%08X\n", B->ring, t1, (unsigned)(urand() * 4e9));
            if (t > last) last = t;
        }
        double open_t = last + 3600.0 + 7200.0 * urand();
        fmt_time(t1, sizeof t1, open_t + set_err + drift * (open_t - set_t));
        fmt_time(t2, sizeof t2, open_t);
        fprintf(f, "OPEN %s MASTER %s\n#END\n", t1, t2);
    }
    if (ferror(f) || fclose(f) != 0) die("write clock dump");
}

static int parse_stamp(const char *s, double *t)
{
    int y, mo, d, h, mi, se, cs;
    if (sscanf(s, "%d-%d-%d %d:%d:%d.%d", &y, &mo, &d, &h, &mi, &se, &cs) != 7) return -1;
    *t = (double)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) + cs / 100.0;
    return 0;
}

static int cmp_vel(const void *a, const void *b)
{
    const arrival_t *x = a, *y = b;
    if (x->vel != y->vel) return x->vel < y->vel ? 1 : -1;
    return x->bird - y->bird;
}

/* parse one race's clock dump, correct drift, compute velocities; returns arrivals */
static int process_race(int r, int *rejected)
{
    char name[64];
    snprintf(name, sizeof name, "clocks_R%02d.txt", r + 1);
    FILE *f = open_file(name, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int n = 0, loft = -1, pending0 = 0;
    double set_clk = 0, set_mst = 0, dist_km = 0;
    *rejected = 0;
    const race_t *R = &races[r];
    while ((len = getline(&line, &cap, f)) != -1) {
        char tag[8], ring[32], lid[16], d1[16], t1[20], d2[16], t2[20];
        if (strncmp(line, "#CLOCK", 6) == 0) {
            if (sscanf(line, "#CLOCK loft=%15s", lid) != 1) die("clock header");
            loft = loft_index(lid);
            if (loft < 0) die("unknown loft");
            dist_km = vincenty(R->lat, R->lon, lofts[loft].lat, lofts[loft].lon) / 1000.0;
            pending0 = n;
        } else if (sscanf(line, "%7s", tag) == 1 && strcmp(tag, "SET") == 0) {
            char a[40], b[40];
            if (sscanf(line, "SET %15s %19s MASTER %15s %19s", d1, t1, d2, t2) != 4) die("SET line");
            snprintf(a, sizeof a, "%s %s", d1, t1);
            snprintf(b, sizeof b, "%s %s", d2, t2);
            if (parse_stamp(a, &set_clk) || parse_stamp(b, &set_mst)) die("SET stamp");
        } else if (strcmp(tag, "ARR") == 0) {
            char a[40];
            if (sscanf(line, "ARR %31s %15s %19s", ring, d1, t1) != 3) { (*rejected)++; continue; }
            int bi = find_ring(ring);
            size_t rl = strlen(ring);
            if (bi < 0 || rl != 12 || ring_check(ring + 7) != ring[6] || birds[bi].loft != loft) {
                (*rejected)++;
                continue;
            }
            snprintf(a, sizeof a, "%s %s", d1, t1);
            double clk;
            if (parse_stamp(a, &clk)) { (*rejected)++; continue; }
            arr[n].bird = bi;
            arr[n].loft = loft;
            arr[n].dist_km = dist_km;
            arr[n].arr_s = 0;
            arr[n].vel = clk;                       /* raw clock time until OPEN is seen */
            n++;
        } else if (strcmp(tag, "OPEN") == 0) {
            char a[40], b[40];
            double open_clk, open_mst;
            if (sscanf(line, "OPEN %15s %19s MASTER %15s %19s", d1, t1, d2, t2) != 4) die("OPEN line");
            snprintf(a, sizeof a, "%s %s", d1, t1);
            snprintf(b, sizeof b, "%s %s", d2, t2);
            if (parse_stamp(a, &open_clk) || parse_stamp(b, &open_mst)) die("OPEN stamp");
            /* linear drift correction between the two synchronisations */
            double e0 = set_clk - set_mst, e1 = open_clk - open_mst;
            for (int k = pending0; k < n; k++) {
                double c = arr[k].vel;
                double fr = (c - set_clk) / (open_clk - set_clk);
                double t = c - (e0 + fr * (e1 - e0));
                arr[k].arr_s = (long long)floor(t);
                arr[k].vel = arr[k].dist_km * 1000.0 / ((t - (double)R->lib_s) / 60.0);
            }
        }
    }
    if (ferror(f)) die("read clock dump");
    free(line);
    fclose(f);
    qsort(arr, (size_t)n, sizeof(arrival_t), cmp_vel);
    return n;
}

static void write_result_sheet(int r, int n, int rejected)
{
    char name[64], tbuf[40];
    snprintf(name, sizeof name, "result_R%02d.txt", r + 1);
    FILE *f = open_file(name, "w");
    const race_t *R = &races[r];
    fmt_time(tbuf, sizeof tbuf, (double)R->lib_s);
    fprintf(f, "RACE R%02d %s liberated %s  wind %+.1f m/s  birds %d  rejected %d\n", r + 1, R->site, tbuf,
            R->wind, n, rejected);
    fprintf(f, "%5s %-6s %-22s %-13s %9s %10s %6s\n", "pos", "loft", "member", "ring", "km", "m/min", "pts");
    int prizes = n / 5;
    for (int k = 0; k < n; k++) {
        const arrival_t *a = &arr[k];
        int pts = k < prizes ? (int)lround(1000.0 * (1.0 - (double)k / prizes)) : 0;
        if (fprintf(f, "%5d %-6s %-22s %-13s %9.3f %10.3f %6d\n", k + 1, lofts[a->loft].id, lofts[a->loft].name,
                    birds[a->bird].ring, a->dist_km, a->vel, pts) < 0)
            die("result sheet");
    }
    if (fclose(f) != 0) die("close result sheet");
}

typedef struct { int races, prizes; double pts, vel; } ace_t;

static ace_t aces[NLOFT * BIRDS_PER_LOFT];
static int cmp_ace_idx(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (aces[x].pts != aces[y].pts) return aces[x].pts < aces[y].pts ? 1 : -1;
    return x - y;
}

/* second pass: re-read all result sheets with fscanf */
static void season_aces(void)
{
    double loft_pts[NLOFT] = {0};
    int loft_birds[NLOFT] = {0};
    for (int r = 0; r < NRACE; r++) {
        char name[64], hdr[512];
        snprintf(name, sizeof name, "result_R%02d.txt", r + 1);
        FILE *f = open_file(name, "r");
        if (!fgets(hdr, sizeof hdr, f) || !fgets(hdr, sizeof hdr, f)) die("result header");
        int pos, pts;
        char lid[16], ini[8], sur[32], ring[32];
        double km, vel;
        int got;
        while ((got = fscanf(f, "%d %15s %7s %31s %31s %lf %lf %d", &pos, lid, ini, sur, ring, &km, &vel, &pts)) == 8) {
            int bi = find_ring(ring);
            if (bi < 0) die("ring in result sheet");
            aces[bi].races++;
            aces[bi].pts += pts;
            aces[bi].vel += vel;
            if (pts > 0) aces[bi].prizes++;
            loft_pts[birds[bi].loft] += pts;
            loft_birds[birds[bi].loft]++;
        }
        if (got != EOF) die("result sheet parse");
        fclose(f);
    }
    int nb = NLOFT * BIRDS_PER_LOFT;
    int *idx = malloc(sizeof(int) * (size_t)nb);
    if (!idx) die("malloc");
    for (int i = 0; i < nb; i++) idx[i] = i;
    qsort(idx, (size_t)nb, sizeof(int), cmp_ace_idx);
    FILE *f = open_file("season_aces.txt", "w");
    fprintf(f, "# rank ring loft member races prizes points mean_velocity\n");
    for (int k = 0; k < 100; k++) {
        int i = idx[k];
        fprintf(f, "%4d %-13s %-6s %-22s %3d %3d %8.0f %9.3f\n", k + 1, birds[i].ring, lofts[birds[i].loft].id,
                lofts[birds[i].loft].name, aces[i].races, aces[i].prizes, aces[i].pts,
                aces[i].races ? aces[i].vel / aces[i].races : 0.0);
    }
    int best = 0;
    for (int l = 1; l < NLOFT; l++)
        if (loft_pts[l] > loft_pts[best]) best = l;
    fprintf(f, "# best loft %s (%s): %.0f points from %d timed birds\n", lofts[best].id, lofts[best].name,
            loft_pts[best], loft_birds[best]);
    if (ferror(f) || fclose(f) != 0) die("season aces");
    printf("  ace pigeon %s (%s), %.0f pts; best loft %s\n", birds[idx[0]].ring, lofts[birds[idx[0]].loft].name,
           aces[idx[0]].pts, lofts[best].id);
    free(idx);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    outdir = argv[1];
    write_registers();
    int nreg = read_registers();
    for (int r = 0; r < NRACE; r++) write_clock_dump(r);
    long total = 0, rej = 0;
    for (int r = 0; r < NRACE; r++) {
        int rejected;
        int n = process_race(r, &rejected);
        write_result_sheet(r, n, rejected);
        total += n;
        rej += rejected;
        if (r == 0)
            printf("pigeon federation: %d register lines; race R01 winner %s at %.3f m/min\n", nreg,
                   birds[arr[0].bird].ring, arr[0].vel);
    }
    printf("  %d races, %ld timed arrivals, %ld rejected clock lines\n", NRACE, total, rej);
    season_aces();
    return 0;
}
