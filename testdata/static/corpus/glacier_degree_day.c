/*
 * glacier_degree_day: distributed degree-day mass-balance model for a set of
 * glacier weather stations.  A configuration file is written and parsed,
 * synthetic daily station records are stored as one binary file per station,
 * each station is run through an elevation-band melt/accumulation model and
 * the annual balances are written as a text table, re-read and summarised.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>

#define MAX_BANDS 512

typedef struct {
    int n_stations;
    int n_years;
    int n_bands;
    double ddf_snow;     /* mm w.e. / (K day) */
    double ddf_ice;
    double lapse_rate;   /* K / m */
    double precip_grad;  /* fraction / 100 m */
    double t_snow;       /* rain/snow threshold, C */
    double z_min, z_max; /* elevation range of glacier bands */
    unsigned seed;
} Config;

typedef struct {
    char magic[8];
    int station_id;
    int n_days;
    double elevation;
    double lat, lon;
} StationHeader;

typedef struct {
    float temp;   /* daily mean air temperature, C */
    float precip; /* daily precipitation, mm */
} DayRecord;

static unsigned long long rng_state;
static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double nrand(void)
{
    double u1 = urand(), u2 = urand();
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void write_config(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "# degree-day model configuration\n");
    fprintf(f, "n_stations = 60\n");
    fprintf(f, "n_years    = 60\n");
    fprintf(f, "n_bands    = 480\n");
    fprintf(f, "\n[melt]\n");
    fprintf(f, "ddf_snow   = 3.2\n");
    fprintf(f, "ddf_ice    = 7.4\n");
    fprintf(f, "t_snow     = 1.5\n");
    fprintf(f, "\n[terrain]\n");
    fprintf(f, "lapse_rate = -0.0065\n");
    fprintf(f, "precip_grad = 0.08\n");
    fprintf(f, "z_min      = 2100\n");
    fprintf(f, "z_max      = 3900\n");
    fprintf(f, "seed       = 20240611\n");
    fclose(f);
}

static void parse_config(const char *path, Config *c)
{
    FILE *f = fopen(path, "r");
    char line[256], key[64];
    double val;
    if (!f) { perror(path); exit(1); }
    memset(c, 0, sizeof(*c));
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '[' || *p == '\n' || *p == 0) continue;
        if (sscanf(p, "%63[a-z_] = %lf", key, &val) != 2) continue;
        if (!strcmp(key, "n_stations")) c->n_stations = (int)val;
        else if (!strcmp(key, "n_years")) c->n_years = (int)val;
        else if (!strcmp(key, "n_bands")) c->n_bands = (int)val;
        else if (!strcmp(key, "ddf_snow")) c->ddf_snow = val;
        else if (!strcmp(key, "ddf_ice")) c->ddf_ice = val;
        else if (!strcmp(key, "t_snow")) c->t_snow = val;
        else if (!strcmp(key, "lapse_rate")) c->lapse_rate = val;
        else if (!strcmp(key, "precip_grad")) c->precip_grad = val;
        else if (!strcmp(key, "z_min")) c->z_min = val;
        else if (!strcmp(key, "z_max")) c->z_max = val;
        else if (!strcmp(key, "seed")) c->seed = (unsigned)val;
    }
    fclose(f);
    if (c->n_bands > MAX_BANDS) c->n_bands = MAX_BANDS;
}

/* Synthesise a daily weather series and store it record by record. */
static void generate_station(const char *dir, const Config *c, int id)
{
    char path[512];
    StationHeader h;
    FILE *f;
    int d, n_days = c->n_years * 365;
    double anomaly = 0.0;

    snprintf(path, sizeof path, "%s/stations/st_%03d.bin", dir, id);
    f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "DDSTN01", 8);
    h.station_id = id;
    h.n_days = n_days;
    h.elevation = 1800.0 + 1500.0 * urand();
    h.lat = 46.0 + 2.0 * urand();
    h.lon = 7.0 + 4.0 * urand();
    fwrite(&h, sizeof h, 1, f);
    for (d = 0; d < n_days; d++) {
        DayRecord r;
        double doy = (double)(d % 365);
        double trend = 0.03 * d / 365.0;
        anomaly = 0.7 * anomaly + 2.2 * nrand();
        r.temp = (float)(4.0 - (h.elevation - 1800.0) * 0.006
                         - 9.0 * cos(2.0 * M_PI * (doy - 15.0) / 365.0) + trend + anomaly);
        r.precip = urand() < 0.42 ? (float)(-6.0 * log(1.0 - urand() + 1e-12)) : 0.0f;
        fwrite(&r, sizeof r, 1, f);
    }
    fclose(f);
}

static DayRecord *load_station(const char *dir, int id, StationHeader *h)
{
    char path[512];
    FILE *f;
    DayRecord *rec;
    snprintf(path, sizeof path, "%s/stations/st_%03d.bin", dir, id);
    f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    if (fread(h, sizeof *h, 1, f) != 1 || memcmp(h->magic, "DDSTN01", 7) != 0) {
        fprintf(stderr, "bad station file %s\n", path);
        exit(1);
    }
    rec = malloc(sizeof(DayRecord) * h->n_days);
    if (fread(rec, sizeof(DayRecord), h->n_days, f) != (size_t)h->n_days) {
        fprintf(stderr, "short read %s\n", path);
        exit(1);
    }
    fclose(f);
    return rec;
}

/* Elevation-band melt model; returns annual specific balance per year (mm w.e.). */
static void run_mass_balance(const Config *c, const StationHeader *h,
                             const DayRecord *rec, double *annual, double *ela)
{
    double snow[MAX_BANDS], zb[MAX_BANDS], bal[MAX_BANDS];
    int b, y, d, nb = c->n_bands;
    for (b = 0; b < nb; b++) {
        zb[b] = c->z_min + (c->z_max - c->z_min) * (b + 0.5) / nb;
        snow[b] = 500.0;
    }
    for (y = 0; y < c->n_years; y++) {
        double total = 0.0;
        for (b = 0; b < nb; b++) bal[b] = 0.0;
        for (d = 0; d < 365; d++) {
            const DayRecord *r = &rec[y * 365 + d];
            for (b = 0; b < nb; b++) {
                double dz = zb[b] - h->elevation;
                double t = r->temp + c->lapse_rate * dz;
                double p = r->precip * (1.0 + c->precip_grad * dz / 100.0);
                double melt;
                if (p < 0.0) p = 0.0;
                if (t < c->t_snow) { snow[b] += p; bal[b] += p; }
                if (t > 0.0) {
                    double pot = c->ddf_snow * t;
                    if (snow[b] >= pot) { melt = pot; snow[b] -= pot; }
                    else {
                        double rest = 1.0 - snow[b] / pot;
                        melt = snow[b] + c->ddf_ice * t * rest;
                        snow[b] = 0.0;
                    }
                    bal[b] -= melt;
                }
            }
        }
        /* equilibrium line altitude: lowest band with positive balance */
        ela[y] = c->z_max;
        for (b = 0; b < nb; b++) {
            total += bal[b];
            if (bal[b] > 0.0 && zb[b] < ela[y]) { ela[y] = zb[b]; }
        }
        annual[y] = total / nb;
    }
}

static void write_balance_table(FILE *out, FILE *logf, const Config *c, const StationHeader *h,
                                const double *annual, const double *ela)
{
    int y;
    for (y = 0; y < c->n_years; y++)
        fprintf(out, "%4d %5d %10.2f %8.1f %8.1f\n", h->station_id, 1980 + y, annual[y], ela[y], h->elevation);
    fprintf(logf, "station %03d elev %.1f m: mean balance %.1f mm w.e.\n", h->station_id, h->elevation,
            annual[c->n_years - 1]);
    fflush(logf);
}

/* Re-read the table and compute a linear trend of balance and ELA with time. */
static void summarise_table(const char *dir, int n_years)
{
    char path[512];
    FILE *f, *s;
    int id, year;
    double bal, ela, elev;
    double *sb = calloc(n_years, sizeof(double)), *se = calloc(n_years, sizeof(double));
    int *cnt = calloc(n_years, sizeof(int));
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
    int y;

    snprintf(path, sizeof path, "%s/results/balance.txt", dir);
    f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    while (fscanf(f, "%d %d %lf %lf %lf", &id, &year, &bal, &ela, &elev) == 5) {
        y = year - 1980;
        if (y < 0 || y >= n_years) continue;
        sb[y] += bal; se[y] += ela; cnt[y]++;
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/results/summary.txt", dir);
    s = fopen(path, "w");
    fprintf(s, "year mean_balance mean_ela n\n");
    for (y = 0; y < n_years; y++) {
        if (!cnt[y]) continue;
        sb[y] /= cnt[y]; se[y] /= cnt[y];
        fprintf(s, "%d %.2f %.1f %d\n", 1980 + y, sb[y], se[y], cnt[y]);
        sx += y; sy += sb[y]; sxx += (double)y * y; sxy += y * sb[y]; n += 1;
    }
    fprintf(s, "trend_mm_per_decade %.3f\n", 10.0 * (n * sxy - sx * sy) / (n * sxx - sx * sx));
    fclose(s);
    free(sb); free(se); free(cnt);
}

int main(int argc, char **argv)
{
    char path[512];
    Config cfg;
    FILE *table, *logf;
    int s;
    double *annual, *ela;

    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 2; }
    snprintf(path, sizeof path, "%s/glacier.cfg", argv[1]);
    write_config(path);
    parse_config(path, &cfg);
    rng_state = cfg.seed;

    snprintf(path, sizeof path, "%s/stations", argv[1]);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/results", argv[1]);
    mkdir(path, 0755);

    for (s = 0; s < cfg.n_stations; s++)
        generate_station(argv[1], &cfg, s);

    snprintf(path, sizeof path, "%s/results/balance.txt", argv[1]);
    table = fopen(path, "w");
    snprintf(path, sizeof path, "%s/results/run.log", argv[1]);
    logf = fopen(path, "a");
    if (!table || !logf) { perror("open results"); return 1; }
    annual = malloc(sizeof(double) * cfg.n_years);
    ela = malloc(sizeof(double) * cfg.n_years);
    for (s = 0; s < cfg.n_stations; s++) {
        StationHeader h;
        DayRecord *rec = load_station(argv[1], s, &h);
        run_mass_balance(&cfg, &h, rec, annual, ela);
        write_balance_table(table, logf, &cfg, &h, annual, ela);
        free(rec);
    }
    fclose(table);
    fclose(logf);
    summarise_table(argv[1], cfg.n_years);
    free(annual); free(ela);
    return 0;
}
