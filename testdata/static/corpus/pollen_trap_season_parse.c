/*
 * pollen_trap_season_parse.c
 *
 * Aerobiology network data processing with plain stdio.
 *
 * A national network of volumetric (Hirst-type) pollen traps reports daily
 * mean concentrations (grains/m3) for sixteen taxa.  The program first
 * writes what the network archive looks like: a station register (text,
 * key=value blocks) and one semicolon-separated file per station with a
 * comment header, one line per day, "NA" for trap failures and occasional
 * free-text remarks.  Concentrations follow taxon-specific seasons whose
 * timing drifts with a warming trend and year-to-year anomalies, with
 * mast years, rain washout and lognormal day-to-day variability.
 *
 * Processing: the register is read with getline, the station files with
 * fgets and strtok_r/strtod; all non-missing values are exported to a
 * long-format file; per station, taxon and year the main pollen season is
 * determined with the 2.5%/97.5% cumulative-sum method (start, end,
 * length, peak day and value, seasonal pollen integral); Sen's slope of
 * season start per decade is computed per taxon and station; and a
 * regional pollen calendar (decadal mean concentration per week) and a
 * trend table are written.
 *
 * usage: pollen_trap_season_parse OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSTATION 36
#define NYEAR 14
#define FIRST_YEAR 2010
#define NTAXA 16
#define NDAY 365
#define MISSING (-1.0f)

static const char *taxa[NTAXA] = {"Alnus",    "Corylus", "Betula",   "Fraxinus", "Carpinus",  "Quercus",
                                  "Fagus",    "Pinus",   "Platanus", "Poaceae",  "Plantago",  "Rumex",
                                  "Urtica",   "Artemisia", "Ambrosia", "Cupressaceae"};
/* season centre (day of year), width (days), peak level (grains/m3) */
static const double t_centre[NTAXA] = {45, 50, 105, 100, 110, 125, 125, 135, 105, 165, 170, 160, 195, 215, 240, 80};
static const double t_width[NTAXA] = {14, 16, 9, 10, 9, 11, 8, 12, 7, 25, 22, 20, 30, 10, 10, 18};
static const double t_peak[NTAXA] = {180, 90, 900, 250, 150, 160, 80, 300, 120, 220, 25, 20, 160, 35, 40, 110};

typedef struct {
    char code[8];
    char name[48];
    double lat, lon, alt;
    int first_year;
} station;

typedef struct {
    int start, end, peak_day, length;
    double peak, spin;
} season;

static const char *g_dir;
static uint64_t g_rng = 0x9011E9C0A7ull;
static station stations[NSTATION];
/* conc[station][year][day][taxon] */
static float conc[NSTATION][NYEAR][NDAY][NTAXA];
static season seasons[NSTATION][NTAXA][NYEAR];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "pollen_trap_season_parse: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static void mkpath(char *buf, size_t n, const char *name)
{
    if ((size_t)snprintf(buf, n, "%s/%s", g_dir, name) >= n) {
        fprintf(stderr, "path too long\n");
        exit(1);
    }
}

static double urand(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static double nrand(void)
{
    double u1 = urand() + 1e-300, u2 = urand();
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static void write_register(void)
{
    static const char *towns[] = {"Aberlin", "Brakenfeld", "Carrow", "Dunmere", "Elstow", "Fernhill"};
    char path[4096];
    mkpath(path, sizeof path, "station_register.txt");
    FILE *f = fopen(path, "w");
    if (!f)
        die("open", path);
    if (fprintf(f, "# pollen monitoring network - station register\n# one block per station, blank line separated\n\n") < 0)
        die("write", path);
    for (int s = 0; s < NSTATION; s++) {
        station *st = &stations[s];
        snprintf(st->code, sizeof st->code, "PL%03d", 101 + s);
        snprintf(st->name, sizeof st->name, "%s %s", towns[s % 6], (s / 6) % 2 ? "University" : "Hospital roof");
        st->lat = 46.0 + 9.0 * urand();
        st->lon = 4.0 + 14.0 * urand();
        st->alt = 20.0 + 900.0 * urand() * urand();
        st->first_year = FIRST_YEAR;
        if (fprintf(f, "code=%s\nname=%s\nlatitude=%.4f\nlongitude=%.4f\naltitude_m=%.0f\ntrap=Hirst 7-day\n"
                       "first_year=%d\n\n",
                    st->code, st->name, st->lat, st->lon, st->alt, st->first_year) < 0)
            die("write", path);
    }
    if (fclose(f) != 0)
        die("close", path);
}

/* Simulate one station's archive and write it as a semicolon file. */
static void generate_station_file(int s)
{
    char path[4096], name[64];
    snprintf(name, sizeof name, "daily_%s.csv", stations[s].code);
    mkpath(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    if (!f)
        die("open", path);
    if (fprintf(f, "# station=%s\n# units=grains/m3 (daily mean)\n# missing=NA\ndate", stations[s].code) < 0)
        die("write", path);
    for (int k = 0; k < NTAXA; k++)
        if (fprintf(f, ";%s", taxa[k]) < 0)
            die("write", path);
    if (fprintf(f, ";remark\n") < 0)
        die("write", path);

    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    double lat_shift = (stations[s].lat - 50.0) * 2.5 + stations[s].alt / 100.0 * 1.5;
    for (int y = 0; y < NYEAR; y++) {
        double warm = -0.35 * y + 4.0 * nrand(); /* earlier seasons over time */
        double mast[NTAXA], dt[NTAXA];
        for (int k = 0; k < NTAXA; k++) {
            mast[k] = exp(0.5 * nrand()) * ((k == 2 && (y % 2) == 0) ? 2.2 : 1.0);
            dt[k] = warm * (t_centre[k] < 150 ? 1.0 : 0.4) + lat_shift + 2.0 * nrand();
        }
        int fail_from = urand() < 0.3 ? (int)(urand() * 300) : -1, fail_len = 3 + (int)(urand() * 12);
        int doy = 0;
        for (int m = 0; m < 12; m++)
            for (int d = 1; d <= mdays[m]; d++, doy++) {
                int rain = urand() < 0.28;
                if (fprintf(f, "%04d-%02d-%02d", FIRST_YEAR + y, m + 1, d) < 0)
                    die("write", path);
                int missing = fail_from >= 0 && doy >= fail_from && doy < fail_from + fail_len;
                for (int k = 0; k < NTAXA; k++) {
                    double x = (doy - t_centre[k] - dt[k]) / t_width[k];
                    /* skewed season: faster rise than decay */
                    double shape = x < 0 ? exp(-0.5 * x * x * 1.6) : exp(-0.5 * x * x * 0.7);
                    double c = t_peak[k] * mast[k] * shape * exp(0.6 * nrand()) * (rain ? 0.25 : 1.0);
                    c += 0.3 * urand();
                    int ic = (int)floor(c);
                    if (missing) {
                        if (fputs(";NA", f) == EOF)
                            die("write", path);
                    } else if (fprintf(f, ";%d", ic) < 0)
                        die("write", path);
                }
                const char *remark = "";
                if (missing && doy == fail_from)
                    remark = "drum motor failure, trap stopped";
                else if (rain && urand() < 0.05)
                    remark = "heavy rain; slide partly washed";
                if (fprintf(f, ";%s\n", remark) < 0)
                    die("write", path);
            }
    }
    if (fclose(f) != 0)
        die("close", path);
}

/* Parse the register with getline: key=value lines, blank-line separated. */
static int read_register(station *out, int max)
{
    char path[4096];
    mkpath(path, sizeof path, "station_register.txt");
    FILE *f = fopen(path, "r");
    if (!f)
        die("open", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int n = -1;
    errno = 0;
    while ((len = getline(&line, &cap, f)) != -1) {
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        char *eq = strchr(line, '=');
        if (!eq) {
            fprintf(stderr, "register: malformed line '%s'\n", line);
            exit(1);
        }
        *eq = '\0';
        const char *key = line, *val = eq + 1;
        if (strcmp(key, "code") == 0) {
            if (++n >= max) {
                fprintf(stderr, "register: too many stations\n");
                exit(1);
            }
            memset(&out[n], 0, sizeof out[n]);
            snprintf(out[n].code, sizeof out[n].code, "%s", val);
        } else if (n < 0) {
            fprintf(stderr, "register: key before code\n");
            exit(1);
        } else if (strcmp(key, "name") == 0)
            snprintf(out[n].name, sizeof out[n].name, "%s", val);
        else if (strcmp(key, "latitude") == 0)
            out[n].lat = strtod(val, NULL);
        else if (strcmp(key, "longitude") == 0)
            out[n].lon = strtod(val, NULL);
        else if (strcmp(key, "altitude_m") == 0)
            out[n].alt = strtod(val, NULL);
        else if (strcmp(key, "first_year") == 0)
            out[n].first_year = (int)strtol(val, NULL, 10);
    }
    if (ferror(f))
        die("getline", path);
    free(line);
    if (fclose(f) != 0)
        die("close", path);
    return n + 1;
}

/* fgets/strtok_r parser of one station file into conc[s]; returns number of
 * missing values and counts remarks. */
static long parse_station_file(int s, const char *code, int *nremark)
{
    char path[4096], name[64];
    snprintf(name, sizeof name, "daily_%s.csv", code);
    mkpath(path, sizeof path, name);
    FILE *f = fopen(path, "r");
    if (!f)
        die("open", path);
    char line[1024];
    int col_of[NTAXA + 1];
    int ncols = 0, lineno = 0;
    long nmiss = 0;
    *nremark = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (line[0] == '#')
            continue;
        if (strncmp(line, "date;", 5) == 0) {
            /* header: map columns to taxa */
            char *save = NULL, *tok = strtok_r(line, ";", &save);
            ncols = 0;
            while ((tok = strtok_r(NULL, ";", &save)) != NULL) {
                int k;
                for (k = 0; k < NTAXA; k++)
                    if (strcmp(tok, taxa[k]) == 0)
                        break;
                if (ncols <= NTAXA)
                    col_of[ncols++] = k < NTAXA ? k : -1;
            }
            continue;
        }
        int yy, mm, dd;
        if (sscanf(line, "%4d-%2d-%2d", &yy, &mm, &dd) != 3) {
            fprintf(stderr, "%s:%d: bad date\n", path, lineno);
            exit(1);
        }
        static const int cum[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
        int y = yy - FIRST_YEAR, doy = cum[mm - 1] + dd - 1;
        if (y < 0 || y >= NYEAR || doy < 0 || doy >= NDAY) {
            fprintf(stderr, "%s:%d: date out of range\n", path, lineno);
            exit(1);
        }
        /* fields: empty remark must be kept, so split by hand */
        char *p = strchr(line, ';');
        int col = 0;
        while (p && col < ncols) {
            p++;
            char *next = strchr(p, ';');
            if (next)
                *next = '\0';
            int k = col_of[col];
            if (k >= 0) {
                if (strcmp(p, "NA") == 0) {
                    conc[s][y][doy][k] = MISSING;
                    nmiss++;
                } else {
                    char *end;
                    double v = strtod(p, &end);
                    if (end == p) {
                        fprintf(stderr, "%s:%d: bad value '%s'\n", path, lineno, p);
                        exit(1);
                    }
                    conc[s][y][doy][k] = (float)v;
                }
            } else if (*p != '\0') {
                (*nremark)++;
            }
            col++;
            p = next;
        }
    }
    if (ferror(f))
        die("fgets", path);
    if (fclose(f) != 0)
        die("close", path);
    return nmiss;
}

/* Long format: one line per station/date/taxon with a non-zero count. */
static long export_long_format(int nst)
{
    char path[4096];
    mkpath(path, sizeof path, "pollen_long.tsv");
    FILE *f = fopen(path, "w");
    if (!f)
        die("open", path);
    if (fprintf(f, "station\tyear\tdoy\ttaxon\tgrains_m3\n") < 0)
        die("write", path);
    long n = 0;
    for (int s = 0; s < nst; s++)
        for (int y = 0; y < NYEAR; y++)
            for (int d = 0; d < NDAY; d++)
                for (int k = 0; k < NTAXA; k++) {
                    float v = conc[s][y][d][k];
                    if (v <= 0.0f)
                        continue;
                    if (fprintf(f, "%s\t%d\t%d\t%s\t%.0f\n", stations[s].code, FIRST_YEAR + y, d + 1, taxa[k], v) < 0)
                        die("write", path);
                    n++;
                }
    if (fclose(f) != 0)
        die("close", path);
    return n;
}

/* 2.5% / 97.5% cumulative method; missing days are linearly interpolated. */
static void season_metrics(int nst)
{
    double x[NDAY];
    for (int s = 0; s < nst; s++)
        for (int k = 0; k < NTAXA; k++)
            for (int y = 0; y < NYEAR; y++) {
                for (int d = 0; d < NDAY; d++)
                    x[d] = conc[s][y][d][k];
                for (int d = 0; d < NDAY; d++)
                    if (x[d] < 0.0) {
                        int a = d - 1, b = d;
                        while (b < NDAY && x[b] < 0.0)
                            b++;
                        double va = a >= 0 ? x[a] : 0.0, vb = b < NDAY ? x[b] : va;
                        for (int i = d; i < b; i++)
                            x[i] = va + (vb - va) * (i - a) / (double)(b - a);
                        d = b - 1;
                    }
                /* 3-day running mean for the peak, total for SPIn */
                double tot = 0.0, peak = -1.0;
                int pday = 0;
                for (int d = 0; d < NDAY; d++) {
                    tot += x[d];
                    double m = (x[d > 0 ? d - 1 : d] + x[d] + x[d < NDAY - 1 ? d + 1 : d]) / 3.0;
                    if (m > peak) {
                        peak = m;
                        pday = d;
                    }
                }
                season *se = &seasons[s][k][y];
                double cum = 0.0;
                se->start = se->end = -1;
                for (int d = 0; d < NDAY; d++) {
                    cum += x[d];
                    if (se->start < 0 && cum >= 0.025 * tot)
                        se->start = d + 1;
                    if (se->end < 0 && cum >= 0.975 * tot)
                        se->end = d + 1;
                }
                se->length = se->end - se->start + 1;
                se->peak = peak;
                se->peak_day = pday + 1;
                se->spin = tot;
            }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sen's slope (median of pairwise slopes) of season start, days/decade,
 * and Mann-Kendall S statistic. */
static void sen_trend(int s, int k, double *slope, int *mk)
{
    double sl[NYEAR * (NYEAR - 1) / 2];
    int n = 0, S = 0;
    for (int i = 0; i < NYEAR; i++)
        for (int j = i + 1; j < NYEAR; j++) {
            double d = seasons[s][k][j].start - seasons[s][k][i].start;
            sl[n++] = d / (j - i);
            S += (d > 0) - (d < 0);
        }
    qsort(sl, (size_t)n, sizeof(double), cmp_double);
    *slope = 10.0 * (n % 2 ? sl[n / 2] : 0.5 * (sl[n / 2 - 1] + sl[n / 2]));
    *mk = S;
}

static void write_season_tables(int nst)
{
    char path[4096];
    mkpath(path, sizeof path, "main_pollen_seasons.csv");
    FILE *f = fopen(path, "w");
    if (!f)
        die("open", path);
    if (fprintf(f, "station,taxon,year,start_doy,end_doy,length_d,peak_doy,peak_grains_m3,spin\n") < 0)
        die("write", path);
    for (int s = 0; s < nst; s++)
        for (int k = 0; k < NTAXA; k++)
            for (int y = 0; y < NYEAR; y++) {
                const season *se = &seasons[s][k][y];
                if (fprintf(f, "%s,%s,%d,%d,%d,%d,%d,%.1f,%.0f\n", stations[s].code, taxa[k], FIRST_YEAR + y,
                            se->start, se->end, se->length, se->peak_day, se->peak, se->spin) < 0)
                    die("write", path);
            }
    if (fclose(f) != 0)
        die("close", path);

    mkpath(path, sizeof path, "season_start_trends.txt");
    f = fopen(path, "w");
    if (!f)
        die("open", path);
    if (fprintf(f, "%-14s %8s %8s %8s %6s  (Sen slope of season start, days/decade; network summary)\n", "taxon",
                "median", "min", "max", "n_sig") < 0)
        die("write", path);
    for (int k = 0; k < NTAXA; k++) {
        double sl[NSTATION];
        int nsig = 0;
        for (int s = 0; s < nst; s++) {
            int mk;
            sen_trend(s, k, &sl[s], &mk);
            /* |S| > 1.96 sqrt(var) with var = n(n-1)(2n+5)/18 */
            if (fabs((double)mk) > 1.96 * sqrt(NYEAR * (NYEAR - 1) * (2.0 * NYEAR + 5) / 18.0))
                nsig++;
        }
        qsort(sl, (size_t)nst, sizeof(double), cmp_double);
        if (fprintf(f, "%-14s %8.2f %8.2f %8.2f %6d\n", taxa[k], sl[nst / 2], sl[0], sl[nst - 1], nsig) < 0)
            die("write", path);
    }
    if (fclose(f) != 0)
        die("close", path);
}

/* Regional calendar: mean concentration per taxon and ISO-like week,
 * drawn as a text chart with concentration classes. */
static void write_calendar(int nst)
{
    char path[4096];
    mkpath(path, sizeof path, "pollen_calendar.txt");
    FILE *f = fopen(path, "w");
    if (!f)
        die("open", path);
    static const char cls[] = " .:-=+*#";
    if (fprintf(f, "Regional pollen calendar %d-%d, %d stations (weekly mean, log classes)\n%-14s", FIRST_YEAR,
                FIRST_YEAR + NYEAR - 1, nst, "week") < 0)
        die("write", path);
    for (int w = 0; w < 52; w++)
        if (fputc(w % 10 == 0 ? '0' + (w / 10) : ' ', f) == EOF)
            die("write", path);
    if (fputc('\n', f) == EOF)
        die("write", path);
    for (int k = 0; k < NTAXA; k++) {
        if (fprintf(f, "%-14s", taxa[k]) < 0)
            die("write", path);
        for (int w = 0; w < 52; w++) {
            double sum = 0.0;
            long n = 0;
            for (int s = 0; s < nst; s++)
                for (int y = 0; y < NYEAR; y++)
                    for (int d = 7 * w; d < 7 * w + 7; d++)
                        if (conc[s][y][d][k] >= 0.0f) {
                            sum += conc[s][y][d][k];
                            n++;
                        }
            double m = n ? sum / n : 0.0;
            int c = m < 1.0 ? 0 : (int)fmin(7.0, 1.0 + log2(m) / 1.5);
            if (fputc(cls[c], f) == EOF)
                die("write", path);
        }
        if (fputc('\n', f) == EOF)
            die("write", path);
    }
    if (fclose(f) != 0)
        die("close", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    write_register();
    for (int s = 0; s < NSTATION; s++)
        generate_station_file(s);

    memset(stations, 0, sizeof stations);
    int nst = read_register(stations, NSTATION);
    long nmiss = 0;
    int nrem_total = 0;
    for (int s = 0; s < nst; s++) {
        int nrem;
        nmiss += parse_station_file(s, stations[s].code, &nrem);
        nrem_total += nrem;
    }
    long nlong = export_long_format(nst);
    season_metrics(nst);
    write_season_tables(nst);
    write_calendar(nst);

    double bstart = 0.0;
    for (int s = 0; s < nst; s++)
        bstart += seasons[s][2][NYEAR - 1].start;
    printf("pollen_trap_season_parse: %d stations x %d years, %ld missing values, %d remarks, %ld long rows, "
           "mean Betula start %d: doy %.1f\n",
           nst, NYEAR, nmiss, nrem_total, nlong, FIRST_YEAR + NYEAR - 1, bstart / nst);
    return 0;
}
