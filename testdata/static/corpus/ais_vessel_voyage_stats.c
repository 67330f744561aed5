/*
 * AIS (ship Automatic Identification System) voyage statistics.
 *
 * A coastal receiver network logs binary position reports (one file per
 * six-hour watch).  This tool first synthesises those logs for a fleet of
 * vessels sailing between ports, then analyses them read-only in several
 * streaming passes: a per-vessel index, track metrics (distance sailed,
 * position jumps inconsistent with reported speed), a traffic-density grid,
 * and port-call detection.  Results go to a small text report.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVESSELS   1400
#define NPORTS     40
#define NFILES     4
#define WATCH_S    (6 * 3600)
#define TICK_S     10
#define HSIZE      4096            /* vessel hash table slots (power of two) */
#define CHUNK_RECS 32768
#define GRID_NX    200
#define GRID_NY    160
#define LAT0 50.0
#define LAT1 58.0
#define LON0 0.0
#define LON1 10.0
#define DEG2RAD 0.017453292519943295
#define R_EARTH_NM 3440.065

typedef struct {
    uint32_t mmsi;
    uint32_t t;          /* seconds since start of day */
    int32_t lat_e7, lon_e7;
    uint16_t sog_dkn;    /* speed over ground, 0.1 knot */
    uint16_t cog_ddeg;   /* course over ground, 0.1 degree */
    uint16_t heading;
    uint8_t navstat, msgtype;
    uint32_t seq;
    uint32_t rx_station;
} ais_rec_t;

typedef struct { double lat, lon; char name[16]; } port_t;

typedef struct {
    uint32_t mmsi;
    uint32_t nrep, first_t, last_t;
    double last_lat, last_lon;
    uint32_t last_tt;
    double dist_nm, max_sog;
    uint32_t jumps, calls;
    int in_port;          /* port index while moored, -1 otherwise */
} vessel_stat_t;

static port_t ports[NPORTS];
static vessel_stat_t vtab[HSIZE];
static char g_dir[900];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "ais: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint64_t rs = 0x243F6A8885A308D3ull;
static double urand(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (rs >> 11) * (1.0 / 9007199254740992.0);
}

static double haversine_nm(double la1, double lo1, double la2, double lo2)
{
    double dla = (la2 - la1) * DEG2RAD, dlo = (lo2 - lo1) * DEG2RAD;
    double a = sin(dla / 2) * sin(dla / 2) + cos(la1 * DEG2RAD) * cos(la2 * DEG2RAD) * sin(dlo / 2) * sin(dlo / 2);
    return 2.0 * R_EARTH_NM * asin(sqrt(a));
}

static void make_ports(void)
{
    for (int p = 0; p < NPORTS; p++) {
        /* ports strung along a curved coastline */
        double s = (double)p / (NPORTS - 1);
        ports[p].lat = LAT0 + 0.5 + 7.0 * s;
        ports[p].lon = LON0 + 1.0 + 2.5 * sin(3.0 * s) + 0.6 * urand();
        snprintf(ports[p].name, sizeof ports[p].name, "PORT%02d", p);
    }
}

typedef struct {
    uint32_t mmsi;
    double lat, lon, sog, cog;
    int dest, moored_until, next_report;
    uint32_t seq;
} ship_t;

static void pick_course(ship_t *s)
{
    double dla = ports[s->dest].lat - s->lat;
    double dlo = (ports[s->dest].lon - s->lon) * cos(s->lat * DEG2RAD);
    s->cog = fmod(atan2(dlo, dla) / DEG2RAD + 360.0, 360.0);
}

/* Simulate the fleet and write the receiver logs. Returns records written. */
static long generate_logs(void)
{
    static ship_t fleet[NVESSELS];
    for (int v = 0; v < NVESSELS; v++) {
        ship_t *s = &fleet[v];
        s->mmsi = 211000000u + (uint32_t)v * 7919u;
        int p = (int)(urand() * NPORTS);
        s->lat = ports[p].lat + 0.3 * (urand() - 0.5);
        s->lon = ports[p].lon + 2.0 + 3.0 * urand();
        s->dest = (int)(urand() * NPORTS);
        s->sog = 8.0 + 12.0 * urand();
        s->moored_until = 0; s->next_report = (int)(urand() * 60); s->seq = 0;
        pick_course(s);
    }
    static ais_rec_t buf[CHUNK_RECS];
    long total = 0;
    for (int f = 0; f < NFILES; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/ais_watch%d.bin", g_dir, f);
        FILE *out = fopen(path, "wb");
        if (!out) die("fopen", path);
        size_t nb = 0;
        for (int t = f * WATCH_S; t < (f + 1) * WATCH_S; t += TICK_S) {
            for (int v = 0; v < NVESSELS; v++) {
                ship_t *s = &fleet[v];
                int moored = t < s->moored_until;
                if (!moored) {
                    double step = s->sog * TICK_S / 3600.0 / 60.0; /* degrees of latitude */
                    s->lat += step * cos(s->cog * DEG2RAD);
                    s->lon += step * sin(s->cog * DEG2RAD) / cos(s->lat * DEG2RAD);
                    if (fabs(s->lat - ports[s->dest].lat) < 0.01 && fabs(s->lon - ports[s->dest].lon) < 0.015) {
                        s->moored_until = t + 1800 + (int)(urand() * 7200);
                        s->dest = (int)(urand() * NPORTS);
                        s->sog = 8.0 + 12.0 * urand();
                    } else if ((t / TICK_S) % 30 == v % 30) {
                        pick_course(s);
                    }
                }
                if (t < s->next_report) continue;
                /* receiver-decimated reporting: ~1.5 min under way, 6 min at anchor */
                s->next_report = t + (moored ? 360 : 60) + (int)(urand() * 60);
                ais_rec_t *r = &buf[nb++];
                memset(r, 0, sizeof *r);
                r->mmsi = s->mmsi; r->t = (uint32_t)t;
                double lat = s->lat, lon = s->lon;
                if (urand() < 0.0005) { lat += 0.5 * (urand() - 0.5); lon += 0.5 * (urand() - 0.5); } /* GPS glitch */
                r->lat_e7 = (int32_t)lrint(lat * 1e7); r->lon_e7 = (int32_t)lrint(lon * 1e7);
                r->sog_dkn = (uint16_t)lrint((moored ? 0.1 * urand() : s->sog) * 10.0);
                r->cog_ddeg = (uint16_t)lrint(s->cog * 10.0) % 3600;
                r->heading = (uint16_t)lrint(s->cog) % 360;
                r->navstat = moored ? 5 : 0; r->msgtype = 1;
                r->seq = s->seq++; r->rx_station = (uint32_t)(lat * 3.0) % 7;
                if (nb == CHUNK_RECS) {
                    if (fwrite(buf, sizeof *buf, nb, out) != nb) die("fwrite", path);
                    total += (long)nb; nb = 0;
                }
            }
        }
        if (nb && fwrite(buf, sizeof *buf, nb, out) != nb) die("fwrite", path);
        total += (long)nb;
        if (fclose(out) != 0) die("fclose", path);
    }
    return total;
}

static vessel_stat_t *lookup(uint32_t mmsi, int create)
{
    uint32_t h = (mmsi * 2654435761u) & (HSIZE - 1);
    while (vtab[h].mmsi != 0) {
        if (vtab[h].mmsi == mmsi) return &vtab[h];
        h = (h + 1) & (HSIZE - 1);
    }
    if (!create) return NULL;
    memset(&vtab[h], 0, sizeof vtab[h]);
    vtab[h].mmsi = mmsi; vtab[h].in_port = -1;
    return &vtab[h];
}

/* Stream all logs through a per-chunk callback. */
typedef void (*rec_fn)(const ais_rec_t *r, size_t n, void *ctx);
static long stream_logs(rec_fn fn, void *ctx)
{
    static ais_rec_t buf[CHUNK_RECS];
    long n = 0;
    for (int f = 0; f < NFILES; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/ais_watch%d.bin", g_dir, f);
        FILE *in = fopen(path, "rb");
        if (!in) die("fopen", path);
        size_t got;
        while ((got = fread(buf, sizeof *buf, CHUNK_RECS, in)) > 0) {
            fn(buf, got, ctx);
            n += (long)got;
        }
        if (ferror(in)) die("fread", path);
        fclose(in);
    }
    return n;
}

static void index_chunk(const ais_rec_t *r, size_t n, void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++) {
        vessel_stat_t *v = lookup(r[i].mmsi, 1);
        if (v->nrep == 0) v->first_t = r[i].t;
        v->nrep++;
        v->last_t = r[i].t;
    }
}

static void track_chunk(const ais_rec_t *r, size_t n, void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++) {
        vessel_stat_t *v = lookup(r[i].mmsi, 0);
        if (!v) continue;
        double lat = r[i].lat_e7 * 1e-7, lon = r[i].lon_e7 * 1e-7, sog = r[i].sog_dkn * 0.1;
        if (v->last_tt != 0 || v->last_lat != 0.0) {
            double d = haversine_nm(v->last_lat, v->last_lon, lat, lon);
            double dt_h = (r[i].t - v->last_tt) / 3600.0;
            double implied = dt_h > 0 ? d / dt_h : 0.0;
            if (implied > 3.0 * (sog + 2.0) && d > 1.0) {
                v->jumps++;             /* reject glitch, keep previous fix */
                continue;
            }
            v->dist_nm += d;
        }
        if (sog > v->max_sog) v->max_sog = sog;
        v->last_lat = lat; v->last_lon = lon; v->last_tt = r[i].t;
    }
}

typedef struct { uint32_t count[GRID_NY][GRID_NX]; double sog[GRID_NY][GRID_NX]; } density_t;

static void density_chunk(const ais_rec_t *r, size_t n, void *ctx)
{
    density_t *g = ctx;
    for (size_t i = 0; i < n; i++) {
        double lat = r[i].lat_e7 * 1e-7, lon = r[i].lon_e7 * 1e-7;
        int gy = (int)((lat - LAT0) / (LAT1 - LAT0) * GRID_NY);
        int gx = (int)((lon - LON0) / (LON1 - LON0) * GRID_NX);
        if (gx < 0 || gy < 0 || gx >= GRID_NX || gy >= GRID_NY) continue;
        g->count[gy][gx]++;
        g->sog[gy][gx] += r[i].sog_dkn * 0.1;
    }
}

typedef struct { uint32_t calls[NPORTS]; double dwell_h[NPORTS]; uint32_t since[HSIZE]; } portcall_t;

static void portcall_chunk(const ais_rec_t *r, size_t n, void *ctx)
{
    portcall_t *pc = ctx;
    for (size_t i = 0; i < n; i++) {
        vessel_stat_t *v = lookup(r[i].mmsi, 0);
        if (!v) continue;
        size_t slot = (size_t)(v - vtab);
        double lat = r[i].lat_e7 * 1e-7, lon = r[i].lon_e7 * 1e-7;
        int stopped = r[i].sog_dkn < 5 && r[i].navstat == 5;
        if (!stopped) {
            if (v->in_port >= 0) {
                pc->dwell_h[v->in_port] += (r[i].t - pc->since[slot]) / 3600.0;
                v->in_port = -1;
            }
            continue;
        }
        if (v->in_port >= 0) continue;
        for (int p = 0; p < NPORTS; p++) {
            if (fabs(lat - ports[p].lat) > 0.1 || fabs(lon - ports[p].lon) > 0.15) continue;
            if (haversine_nm(lat, lon, ports[p].lat, ports[p].lon) < 2.0) {
                v->in_port = p; v->calls++; pc->calls[p]++; pc->since[slot] = r[i].t;
                break;
            }
        }
    }
}

static int cmp_dist(const void *a, const void *b)
{
    const vessel_stat_t *x = *(const vessel_stat_t * const *)a, *y = *(const vessel_stat_t * const *)b;
    return (x->dist_nm < y->dist_nm) - (x->dist_nm > y->dist_nm);
}

static void write_report(const density_t *g, const portcall_t *pc, long nrec)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/voyage_report.txt", g_dir);
    FILE *o = fopen(path, "w");
    if (!o) die("fopen", path);
    static vessel_stat_t *list[HSIZE];
    int nv = 0; uint32_t jumps = 0; double fleet_nm = 0.0;
    for (int h = 0; h < HSIZE; h++)
        if (vtab[h].mmsi) { list[nv++] = &vtab[h]; jumps += vtab[h].jumps; fleet_nm += vtab[h].dist_nm; }
    qsort(list, (size_t)nv, sizeof list[0], cmp_dist);
    fprintf(o, "AIS voyage report: %ld position reports, %d vessels, %.0f nm sailed, %u rejected jumps\n\n",
            nrec, nv, fleet_nm, jumps);
    fprintf(o, "Top vessels by distance\n   mmsi      reports  dist_nm  max_sog  calls  jumps\n");
    for (int i = 0; i < 25 && i < nv; i++)
        fprintf(o, "%10u %8u %8.1f %8.1f %6u %6u\n", list[i]->mmsi, list[i]->nrep, list[i]->dist_nm,
                list[i]->max_sog, list[i]->calls, list[i]->jumps);
    fprintf(o, "\nPort calls\n port      lat      lon  calls  dwell_h\n");
    for (int p = 0; p < NPORTS; p++)
        fprintf(o, "%s %8.4f %8.4f %6u %8.1f\n", ports[p].name, ports[p].lat, ports[p].lon, pc->calls[p], pc->dwell_h[p]);
    uint32_t busiest = 0; int bx = 0, by = 0;
    for (int y = 0; y < GRID_NY; y++)
        for (int x = 0; x < GRID_NX; x++)
            if (g->count[y][x] > busiest) { busiest = g->count[y][x]; bx = x; by = y; }
    fprintf(o, "\nBusiest density cell: lat %.3f lon %.3f, %u reports, mean SOG %.1f kn\n",
            LAT0 + (by + 0.5) * (LAT1 - LAT0) / GRID_NY, LON0 + (bx + 0.5) * (LON1 - LON0) / GRID_NX,
            busiest, busiest ? g->sog[by][bx] / busiest : 0.0);
    if (fclose(o) != 0) die("fclose", path);
    printf("ais: %ld reports, %d vessels, %.0f nm sailed, %u jumps rejected\n", nrec, nv, fleet_nm, jumps);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    make_ports();
    long nw = generate_logs();
    long n1 = stream_logs(index_chunk, NULL);
    long n2 = stream_logs(track_chunk, NULL);
    density_t *g = calloc(1, sizeof *g);
    portcall_t *pc = calloc(1, sizeof *pc);
    if (!g || !pc) { fprintf(stderr, "ais: out of memory\n"); return 1; }
    long n3 = stream_logs(density_chunk, g);
    for (int h = 0; h < HSIZE; h++) vtab[h].in_port = -1;
    long n4 = stream_logs(portcall_chunk, pc);
    if (n1 != nw || n2 != nw || n3 != nw || n4 != nw) { fprintf(stderr, "ais: record count mismatch\n"); return 1; }
    write_report(g, pc, nw);
    free(g); free(pc);
    return 0;
}
