/*
 * lighthouse_lamp_log_audit.c
 *
 * Annual audit of a coastal lighthouse network.  The program first writes
 * what the monitoring units would have sent in: an official light list
 * (position, flash character, nominal range) and one year of per-station
 * text logs (lamp on/off against the photocell, hourly telemetry of supply
 * voltage, lamp current and lens rotation period, periodic measurements of
 * the flash sequence, lamp faults with changeover to the standby lamp,
 * mains failures, some garbled lines).  The audit then re-reads the light
 * list with fscanf and every log with fgets/sscanf: it computes lamp-hours
 * per lamp, finds night-time outages against computed sunset/sunrise,
 * checks each measured flash sequence against the official character
 * (best cyclic alignment), tracks rotation-period drift, and writes an
 * audit table, an outage CSV, draft notices to mariners and a fault-code
 * frequency table from a second scan of the logs.
 *
 * usage: lighthouse_lamp_log_audit OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NST 48
#define NDAYS 365
#define MAXPH 12                  /* phases in a flash character */
#define PI_D 3.14159265358979323846
#define NFAULT 24

typedef struct {
    char id[8];
    char name[32];
    double lat, lon;              /* degrees, E positive */
    char character[24];           /* e.g. Fl(3)W 15s */
    int nph;
    double phase[MAXPH];          /* on,off,on,off... seconds */
    double period;
    int range_nm;
} station_t;

typedef struct {
    double hours_main, hours_standby;
    double outage_min;
    int outage_events;
    int char_checks, char_fail;
    double char_err_max;
    double v_min, v_sum;
    long v_n;
    double rot_t_sum, rot_tt, rot_r, rot_tr;   /* regression of rotation period on day */
    long rot_n;
    int faults, mains_failures, garbled;
} audit_t;

static const char *outdir;
static station_t st[NST];
static const char *fault_text[NFAULT] = {
    "filament open", "lamp current low", "lamp current high", "rotation stalled", "rotation slow",
    "battery low", "charger fault", "mains lost", "door open", "photocell stuck",
    "lens heater fault", "fog detector fault", "fog signal fault", "AIS link down", "GSM link down",
    "over temperature", "under temperature", "flasher fault", "standby lamp fault", "changer jam",
    "solar panel low", "earth fault", "surge arrester", "watchdog reset"};

static void die(const char *what)
{
    fprintf(stderr, "lighthouse_audit: %s: %s\n", what, errno ? strerror(errno) : "bad input");
    exit(1);
}

static uint64_t rng = 0x853c49e6748fea9bULL;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static FILE *open_file(const char *name, const char *mode)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", outdir, name) >= sizeof path) { errno = ENAMETOOLONG; die(name); }
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

/* NOAA-style sunrise/sunset (UTC minutes after midnight) for day-of-year doy */
static double solar_event(int doy, double lat, double lon, int rising)
{
    double g = 2.0 * PI_D / 365.0 * (doy - 1 + 0.5);
    double eqt = 229.18 * (0.000075 + 0.001868 * cos(g) - 0.032077 * sin(g) - 0.014615 * cos(2 * g) - 0.040849 * sin(2 * g));
    double decl = 0.006918 - 0.399912 * cos(g) + 0.070257 * sin(g) - 0.006758 * cos(2 * g) + 0.000907 * sin(2 * g) -
                  0.002697 * cos(3 * g) + 0.00148 * sin(3 * g);
    double la = lat * PI_D / 180.0;
    double c = cos(90.833 * PI_D / 180.0) / (cos(la) * cos(decl)) - tan(la) * tan(decl);
    if (c > 1.0) c = 1.0;
    if (c < -1.0) c = -1.0;
    double ha = acos(c) * 180.0 / PI_D;
    return rising ? 720.0 - 4.0 * (lon + ha) - eqt : 720.0 - 4.0 * (lon - ha) - eqt;
}

static void make_stations(void)
{
    static const char *names[] = {"Nordre", "Sortskjaer", "Hestholmen", "YtreFlu", "Kalvoy", "Fyrodden", "Stappen",
                                  "Marstein", "Utvaer", "Kvitskjer", "Bremholm", "Langoy"};
    static const int groups[] = {1, 2, 3, 4, 1, 2};
    for (int s = 0; s < NST; s++) {
        station_t *x = &st[s];
        snprintf(x->id, sizeof x->id, "LH%03d", s + 1);
        snprintf(x->name, sizeof x->name, "%s_%d", names[s % 12], s / 12 + 1);
        x->lat = 57.8 + 13.0 * urand();
        x->lon = 4.8 + 12.0 * urand();
        int n = groups[s % 6];
        double on = 0.3 + 0.1 * (s % 4), gap = 1.2 + 0.3 * (s % 3);
        x->nph = 2 * n;
        double used = 0.0;
        for (int k = 0; k < n; k++) { x->phase[2 * k] = on; x->phase[2 * k + 1] = gap; used += on + gap; }
        x->period = 5.0 * ceil((used + 2.0) / 5.0);
        x->phase[2 * n - 1] += x->period - used;      /* long eclipse ends the group */
        snprintf(x->character, sizeof x->character, "Fl(%d)%c_%.0fs", n, "WRG"[s % 3], x->period);
        x->range_nm = 8 + (s * 7) % 15;
    }
}

static void write_light_list(void)
{
    FILE *f = open_file("light_list.txt", "w");
    if (fprintf(f, "# id name lat lon character period nphase phases... range_nm\n") < 0) die("light list");
    for (int s = 0; s < NST; s++) {
        const station_t *x = &st[s];
        if (fprintf(f, "%s %s %.5f %.5f %s %.1f %d", x->id, x->name, x->lat, x->lon, x->character, x->period, x->nph) < 0)
            die("light list");
        for (int k = 0; k < x->nph; k++) if (fprintf(f, " %.2f", x->phase[k]) < 0) die("light list");
        if (fprintf(f, " %d\n", x->range_nm) < 0) die("light list");
    }
    if (fclose(f) != 0) die("close light list");
}

static void stamp(char *buf, size_t n, int doy, double minute)
{
    /* day-of-year 1..365 of 2024-like non-leap year, minute may exceed 1440 */
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    while (minute >= 1440.0) { minute -= 1440.0; doy++; }
    while (minute < 0.0) { minute += 1440.0; doy--; }
    int d = doy, m = 0;
    if (d < 1) d = 1;
    while (m < 11 && d > mdays[m]) { d -= mdays[m]; m++; }
    int sec = (int)(minute * 60.0);
    snprintf(buf, n, "2023-%02d-%02d %02d:%02d:%02d", m + 1, d, sec / 3600, (sec / 60) % 60, sec % 60);
}

/* one year of monitoring log for station s */
static void generate_station_log(int s)
{
    const station_t *x = &st[s];
    char name[64], ts[32];
    snprintf(name, sizeof name, "log_%s.txt", x->id);
    FILE *f = open_file(name, "w");
    int standby = 0;
    double rot = 20.0 + 0.5 * (s % 5), drift = (urand() - 0.3) * 0.004;
    double flasher_fault = (s % 7 == 3) ? 0.012 : 0.0004;    /* a few stations have a worn flasher */
    for (int doy = 1; doy <= NDAYS; doy++) {
        double set = solar_event(doy, x->lat, x->lon, 0), rise = solar_event(doy + 1, x->lat, x->lon, 1) + 1440.0;
        if (rise - set < 60.0) continue;                       /* white night: no darkness */
        double on = set - 10.0 + 6.0 * (urand() - 0.5), off = rise + 10.0 + 6.0 * (urand() - 0.5);
        stamp(ts, sizeof ts, doy, on);
        if (fprintf(f, "%s %s LAMP ON %s\n", ts, x->id, standby ? "standby" : "main") < 0) die("log write");
        for (double t = ceil(on / 60.0) * 60.0; t < off; t += 60.0) {
            double v = 24.4 + 0.6 * sin(t / 300.0) + 0.15 * (urand() - 0.5), cur = 2.3 + 0.05 * (urand() - 0.5);
            rot += drift / 24.0;
            stamp(ts, sizeof ts, doy, t);
            if (urand() < 0.003) { v = 22.1; }                  /* battery sag */
            if (fprintf(f, "%s %s TELEM V=%.2f I=%.3f T=%.1f ROT=%.3f\n", ts, x->id, v, cur,
                        4.0 + 8.0 * sin(2 * PI_D * doy / 365.0) + urand(), rot + 0.02 * (urand() - 0.5)) < 0)
                die("log write");
            if (((int)(t / 60.0)) % 2 == 0) {
                /* photometer measures one flash group; occasionally the flasher is off-character */
                stamp(ts, sizeof ts, doy, t + 5.0);
                if (fprintf(f, "%s %s CHAR %s obs=", ts, x->id, x->character) < 0) die("log write");
                int start = (int)(urand() * x->nph) & ~1;
                double scale = urand() < flasher_fault ? 1.25 : 1.0;
                for (int k = 0; k < x->nph; k++) {
                    double d = x->phase[(start + k) % x->nph] * scale + 0.03 * (urand() - 0.5);
                    if (fprintf(f, "%s%.2f", k ? "," : "", d) < 0) die("log write");
                }
                if (fputc('\n', f) == EOF) die("log write");
            }
            if (urand() < 0.0015) {
                int code = (int)(urand() * NFAULT);
                stamp(ts, sizeof ts, doy, t + 17.0);
                if (fprintf(f, "%s %s FAULT E%02d %s\n", ts, x->id, code, fault_text[code]) < 0) die("log write");
                if (code == 0 || code == 17) {                  /* lamp out until changeover */
                    double gap = 1.0 + 25.0 * urand();
                    stamp(ts, sizeof ts, doy, t + 17.0);
                    if (fprintf(f, "%s %s LAMP OFF %s\n", ts, x->id, standby ? "standby" : "main") < 0) die("log write");
                    standby = !standby;
                    stamp(ts, sizeof ts, doy, t + 17.0 + gap);
                    if (fprintf(f, "%s %s LAMP ON %s changeover\n", ts, x->id, standby ? "standby" : "main") < 0)
                        die("log write");
                } else if (code == 7) {
                    stamp(ts, sizeof ts, doy, t + 18.0);
                    if (fprintf(f, "%s %s MAINS FAIL battery=%.1fV\n", ts, x->id, 24.0 + urand()) < 0) die("log write");
                }
            }
            if (urand() < 0.0008 && fprintf(f, "%s %s TEL", ts, x->id) < 0) die("log write");   /* garbled, no newline */
        }
        stamp(ts, sizeof ts, doy, off);
        if (fprintf(f, "%s %s LAMP OFF %s\n", ts, x->id, standby ? "standby" : "main") < 0) die("log write");
        if (doy % 90 == 0) standby = 0;                          /* maintenance visit restores main lamp */
    }
    if (fclose(f) != 0) die("close log");
}

static void read_light_list(station_t *out)
{
    FILE *f = open_file("light_list.txt", "r");
    char line[512];
    if (!fgets(line, sizeof line, f)) die("light list header");
    for (int s = 0; s < NST; s++) {
        station_t *x = &out[s];
        if (fscanf(f, "%7s %31s %lf %lf %23s %lf %d", x->id, x->name, &x->lat, &x->lon, x->character, &x->period,
                   &x->nph) != 7 || x->nph < 2 || x->nph > MAXPH) { errno = 0; die("light list record"); }
        for (int k = 0; k < x->nph; k++)
            if (fscanf(f, "%lf", &x->phase[k]) != 1) { errno = 0; die("light list phases"); }
        if (fscanf(f, "%d", &x->range_nm) != 1) { errno = 0; die("light list range"); }
    }
    fclose(f);
}

static int doy_of(int mon, int day)
{
    static const int cum[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    return cum[mon - 1] + day;
}

/* best cyclic alignment of observed phase durations against the official ones */
static double character_error(const station_t *x, const double *obs, int n)
{
    if (n != x->nph) return 99.0;
    double best = 1e9;
    for (int sh = 0; sh < n; sh += 2) {
        double e = 0.0;
        for (int k = 0; k < n; k++) {
            double d = obs[k] - x->phase[(sh + k) % n];
            e = fmax(e, fabs(d) / fmax(x->phase[(sh + k) % n], 0.3));
        }
        if (e < best) best = e;
    }
    return best;
}

/* parse one station log: lamp intervals, outages, telemetry and character checks */
static void audit_station(const station_t *x, audit_t *a, FILE *outages)
{
    char name[64], line[512];
    snprintf(name, sizeof name, "log_%s.txt", x->id);
    FILE *f = open_file(name, "r");
    memset(a, 0, sizeof *a);
    a->v_min = 1e9;
    int lamp_on = 0, lamp_standby = 0;
    double on_abs = 0.0;
    /* per-day coverage of the dark period, in minutes relative to the day's sunset */
    static double covered[NDAYS + 2];
    memset(covered, 0, sizeof covered);
    while (fgets(line, sizeof line, f)) {
        int yy, mo, dd, hh, mi, ss, n = 0;
        char id[8], kind[8];
        if (!strchr(line, '\n') ||
            sscanf(line, "%d-%d-%d %d:%d:%d %7s %7s %n", &yy, &mo, &dd, &hh, &mi, &ss, id, kind, &n) != 8) {
            a->garbled++;
            continue;
        }
        int doy = doy_of(mo, dd);
        double tmin = (doy - 1) * 1440.0 + hh * 60.0 + mi + ss / 60.0;
        const char *rest = line + n;
        if (strcmp(kind, "LAMP") == 0) {
            char state[8], which[12];
            if (sscanf(rest, "%7s %11s", state, which) != 2) { a->garbled++; continue; }
            if (strcmp(state, "ON") == 0) { lamp_on = 1; lamp_standby = strcmp(which, "standby") == 0; on_abs = tmin; }
            else if (lamp_on) {
                double dur = tmin - on_abs;
                if (lamp_standby) a->hours_standby += dur / 60.0; else a->hours_main += dur / 60.0;
                /* credit the lit time to the dark windows it overlaps */
                int d0 = (int)(on_abs / 1440.0) + 1;
                for (int nd = d0 - 1; nd <= d0 + 1; nd++) {
                    if (nd < 1 || nd > NDAYS) continue;
                    double ws = (nd - 1) * 1440.0 + solar_event(nd, x->lat, x->lon, 0);
                    double we = nd * 1440.0 + solar_event(nd + 1, x->lat, x->lon, 1);
                    double ov = fmin(we, tmin) - fmax(ws, on_abs);
                    if (ov > 0.0) covered[nd] += ov;
                }
                lamp_on = 0;
            }
        } else if (strcmp(kind, "TELEM") == 0) {
            double v, cur, temp, rot;
            if (sscanf(rest, "V=%lf I=%lf T=%lf ROT=%lf", &v, &cur, &temp, &rot) != 4) { a->garbled++; continue; }
            if (v < a->v_min) a->v_min = v;
            a->v_sum += v; a->v_n++;
            double day = tmin / 1440.0;
            a->rot_t_sum += day; a->rot_tt += day * day; a->rot_r += rot; a->rot_tr += day * rot; a->rot_n++;
        } else if (strcmp(kind, "CHAR") == 0) {
            char chr[24];
            const char *p = strstr(rest, "obs=");
            if (sscanf(rest, "%23s", chr) != 1 || !p) { a->garbled++; continue; }
            double obs[MAXPH];
            int k = 0;
            p += 4;
            while (k < MAXPH) {
                char *end;
                obs[k] = strtod(p, &end);
                if (end == p) break;
                k++;
                if (*end != ',') break;
                p = end + 1;
            }
            double e = character_error(x, obs, k);
            a->char_checks++;
            if (e > 0.1) a->char_fail++;
            if (e > a->char_err_max) a->char_err_max = e;
        } else if (strcmp(kind, "FAULT") == 0) {
            a->faults++;
        } else if (strcmp(kind, "MAINS") == 0) {
            a->mains_failures++;
        } else {
            a->garbled++;
        }
    }
    if (ferror(f)) die("read log");
    fclose(f);
    for (int doy = 1; doy <= NDAYS; doy++) {
        double set = solar_event(doy, x->lat, x->lon, 0), rise = solar_event(doy + 1, x->lat, x->lon, 1) + 1440.0;
        double dark = rise - set;
        if (dark < 60.0) continue;
        double missing = dark - covered[doy];
        if (missing > 2.0) {
            a->outage_min += missing;
            a->outage_events++;
            if (fprintf(outages, "%s,%d,%.1f,%.1f,%.1f\n", x->id, doy, set, dark, missing) < 0) die("outage csv");
        }
    }
}

static void write_audit_and_notices(const station_t *xs, const audit_t *as)
{
    FILE *f = open_file("audit_report.txt", "w");
    FILE *n = open_file("notices_to_mariners.txt", "w");
    int ok = fprintf(f, "%-6s %-14s %-10s %8s %8s %7s %5s %6s %6s %7s %7s %8s %4s\n", "id", "name", "character", "h_main",
                     "h_stby", "out_min", "outs", "chk", "fail", "errmax", "Vmin", "rot_drift", "grb") >= 0;
    int notices = 0;
    for (int s = 0; s < NST && ok; s++) {
        const station_t *x = &xs[s];
        const audit_t *a = &as[s];
        double den = a->rot_n * a->rot_tt - a->rot_t_sum * a->rot_t_sum;
        double slope = den != 0.0 ? (a->rot_n * a->rot_tr - a->rot_t_sum * a->rot_r) / den : 0.0;
        ok = fprintf(f, "%-6s %-14s %-10s %8.1f %8.1f %7.1f %5d %6d %6d %7.3f %7.2f %+8.5f %4d\n", x->id, x->name,
                     x->character, a->hours_main, a->hours_standby, a->outage_min, a->outage_events, a->char_checks,
                     a->char_fail, a->char_err_max, a->v_min, slope * 365.0, a->garbled) >= 0;
        if (a->char_fail > 10 || a->outage_min > 120.0 || fabs(slope * 365.0) > 0.5) {
            notices++;
            ok = ok && fprintf(n, "NtM draft %02d: %s %s (%.4f N %.4f E) %s range %d nm.\n", notices, x->id, x->name,
                               x->lat, x->lon, x->character, x->range_nm) >= 0;
            if (a->char_fail > 10)
                ok = ok && fprintf(n, "  Light reported exhibiting irregular character (%d of %d checks).\n",
                                   a->char_fail, a->char_checks) >= 0;
            if (a->outage_min > 120.0)
                ok = ok && fprintf(n, "  Light unreliable: %.0f min unlit in darkness over %d nights.\n", a->outage_min,
                                   a->outage_events) >= 0;
            if (fabs(slope * 365.0) > 0.5)
                ok = ok && fprintf(n, "  Lens rotation drifting %.2f s/yr: service visit scheduled.\n", slope * 365.0) >= 0;
        }
    }
    if (!ok || fclose(f) != 0 || fclose(n) != 0) die("write audit");
    printf("lighthouse audit: %d stations, %d notices drafted\n", NST, notices);
}

/* second pass over all logs: frequency of each fault code */
static void fault_code_table(const station_t *xs)
{
    long count[NFAULT] = {0};
    char line[512], name[64];
    for (int s = 0; s < NST; s++) {
        snprintf(name, sizeof name, "log_%s.txt", xs[s].id);
        FILE *f = open_file(name, "r");
        while (fgets(line, sizeof line, f)) {
            const char *p = strstr(line, " FAULT E");
            if (!p) continue;
            int code = atoi(p + 8);
            if (code >= 0 && code < NFAULT) count[code]++;
        }
        if (ferror(f)) die("read log for faults");
        fclose(f);
    }
    int idx[NFAULT];
    for (int i = 0; i < NFAULT; i++) idx[i] = i;
    for (int i = 1; i < NFAULT; i++)
        for (int j = i; j > 0 && count[idx[j]] > count[idx[j - 1]]; j--) { int t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t; }
    FILE *f = open_file("fault_codes.txt", "w");
    int ok = 1;
    for (int i = 0; i < NFAULT && ok; i++)
        ok = fprintf(f, "E%02d %-22s %6ld\n", idx[i], fault_text[idx[i]], count[idx[i]]) >= 0;
    if (!ok || fclose(f) != 0) die("fault table");
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    outdir = argv[1];
    make_stations();
    write_light_list();
    for (int s = 0; s < NST; s++) generate_station_log(s);

    static station_t list[NST];
    static audit_t audit[NST];
    read_light_list(list);
    FILE *outages = open_file("outages.csv", "w");
    if (fprintf(outages, "station,doy,sunset_utc_min,dark_min,unlit_min\n") < 0) die("outage csv");
    for (int s = 0; s < NST; s++) audit_station(&list[s], &audit[s], outages);
    if (fclose(outages) != 0) die("close outage csv");
    write_audit_and_notices(list, audit);
    fault_code_table(list);
    return 0;
}
