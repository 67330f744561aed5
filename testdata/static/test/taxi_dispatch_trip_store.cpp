// One day of taxi dispatch in a 20 km x 20 km city: time-of-day demand with
// downtown, airport and station hotspots, gravity-model destinations, 1500
// cabs on day and night shifts, nearest-idle-cab dispatch through a spatial
// grid, congestion-dependent speeds and zone surge pricing.  Every trip lives
// in an on-disk hash store of fixed 128-byte records (4 KiB pages, linear
// probing by page, pread/pwrite) that is inserted at request, updated at
// pickup and at drop-off; cab shift totals sit in a directly indexed record
// file.  After the day, a fare audit does random lookups, card tips are
// applied as read-modify-writes, cancelled trips are tombstoned, a full
// chunked scan builds origin-destination and hourly revenue tables, and the
// store is compacted into a fresh file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

const int NZ = 10;                       // zones per side (2 km)
const double CITY = 20.0;                // km
const int NCAB = 1500;
const int TICK = 10;                     // seconds
const int NTICK = 86400 / TICK;
const int PAGE = 4096;
const int REC = 128;
const int SLOTS = PAGE / REC;
const int NPAGE = 8192;
const int GRID = 20;                     // 1 km dispatch cells

enum Status : uint32_t { EMPTY = 0, REQUESTED = 1, PICKED = 2, DONE = 3, CANCELLED = 4, TOMB = 5 };

#pragma pack(push, 1)
struct TripRec {
    uint64_t id;
    uint32_t status, cab;
    uint32_t t_req, t_pick, t_drop;
    uint16_t zo, zd;
    float ox, oy, dx, dy;
    float dist_km, fare, surge, tip;
    char payment[8];
    uint32_t check;
    uint8_t pad[REC - 76];
};
struct CabRec {
    uint32_t id, trips;
    float km_paid, km_empty, revenue, tips, online_h;
    uint32_t last_drop;
    uint8_t pad[32];
};
#pragma pack(pop)
static_assert(sizeof(TripRec) == REC, "trip record size");
static_assert(sizeof(CabRec) == 64, "cab record size");

uint64_t rng_s = 0x9E3779B97F4A7C15ull;
double urand() {
    rng_s ^= rng_s << 13; rng_s ^= rng_s >> 7; rng_s ^= rng_s << 17;
    return ((rng_s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
uint32_t rec_check(const TripRec &r) {
    return (uint32_t)mix64(r.id ^ ((uint64_t)r.status << 40) ^ (uint64_t)r.cab ^ (uint64_t)(r.fare * 100.0f));
}

// Page-based open-addressing store of trip records.
class TripStore {
public:
    TripStore(const std::string &path) : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644)) {
        if (fd_ < 0 || ftruncate(fd_, (off_t)PAGE * (NPAGE + 1)) != 0) { perror(path.c_str()); std::exit(1); }
    }
    ~TripStore() { close(fd_); }
    // Returns slot index of id (or of the first free slot if insert) or -1.
    long locate(uint64_t id, bool insert) {
        TripRec page[SLOTS];
        uint64_t p = mix64(id) % NPAGE;
        long free_slot = -1;
        for (int probe = 0; probe < NPAGE; probe++, p = (p + 1) % NPAGE) {
            if (pread(fd_, page, PAGE, (off_t)PAGE * (p + 1)) != PAGE) { perror("pread page"); std::exit(1); }
            probes_++;
            for (int s = 0; s < SLOTS; s++) {
                if (page[s].status == EMPTY) return insert ? (free_slot >= 0 ? free_slot : (long)(p * SLOTS + s)) : -1;
                if (page[s].status == TOMB) { if (free_slot < 0) free_slot = (long)(p * SLOTS + s); continue; }
                if (page[s].id == id) return (long)(p * SLOTS + s);
            }
        }
        return free_slot;
    }
    void put(long slot, TripRec &r) {
        r.check = rec_check(r);
        if (pwrite(fd_, &r, REC, (off_t)PAGE + (off_t)slot * REC) != REC) { perror("pwrite rec"); std::exit(1); }
    }
    bool get(long slot, TripRec &r) {
        if (pread(fd_, &r, REC, (off_t)PAGE + (off_t)slot * REC) != REC) { perror("pread rec"); std::exit(1); }
        return r.check == rec_check(r);
    }
    void insert(TripRec &r) { long s = locate(r.id, true); put(s, r); live_++; }
    bool update(uint64_t id, void (*fn)(TripRec &, const void *), const void *arg) {
        long s = locate(id, false);
        if (s < 0) return false;
        TripRec r;
        get(s, r);
        fn(r, arg);
        put(s, r);
        return true;
    }
    void write_header(uint64_t extra) {
        char hdr[PAGE];
        std::memset(hdr, 0, sizeof hdr);
        std::snprintf(hdr, sizeof hdr, "TRIPSTORE v1 pages=%d slots=%d rec=%d live=%ld probes=%ld aux=%llu\n", NPAGE, SLOTS,
                      REC, live_, probes_, (unsigned long long)extra);
        if (pwrite(fd_, hdr, PAGE, 0) != PAGE) { perror("pwrite header"); std::exit(1); }
    }
    int fd() const { return fd_; }
    long probes() const { return probes_; }
    long live_ = 0;
private:
    int fd_;
    long probes_ = 0;
};

struct Cab {
    double x, y, tx, ty;
    int state;         // 0 off, 1 idle, 2 en route, 3 on trip
    uint64_t trip;
    int shift_start, shift_end;
    double km_paid, km_empty, revenue;
    int trips;
};
struct Request { uint64_t id; double ox, oy, dx, dy; int t, zo, zd; };

double demand_rate(int zone, double hour) {
    double zx = (zone % NZ + 0.5) * 2.0, zy = (zone / NZ + 0.5) * 2.0;
    double downtown = std::exp(-((zx - 9) * (zx - 9) + (zy - 11) * (zy - 11)) / 8.0);
    double airport = (zone == 17) ? 1.0 : 0.0, station = (zone == 44 || zone == 62) ? 0.6 : 0.0;
    double prof = 0.25 + 0.9 * std::exp(-std::pow((hour - 8.5) / 1.5, 2)) + 1.0 * std::exp(-std::pow((hour - 18.0) / 2.0, 2))
                + 0.6 * std::exp(-std::pow(std::fmod(hour + 12.0, 24.0) - 11.5, 2) / 2.0) * downtown;
    return (0.05 + 1.6 * downtown + 0.9 * airport + station) * prof * 0.7;
}

void pick_destination(int zo, double &dx, double &dy, int &zd) {
    double w[NZ * NZ], tot = 0;
    double ox = (zo % NZ + 0.5) * 2.0, oy = (zo / NZ + 0.5) * 2.0;
    for (int z = 0; z < NZ * NZ; z++) {
        double zx = (z % NZ + 0.5) * 2.0, zy = (z / NZ + 0.5) * 2.0, d = std::fabs(zx - ox) + std::fabs(zy - oy) + 1.0;
        w[z] = (0.2 + demand_rate(z, 12.0) * 60.0) / std::pow(d, 1.3);
        tot += w[z];
    }
    double u = urand() * tot;
    zd = 0;
    while (zd < NZ * NZ - 1 && (u -= w[zd]) > 0) zd++;
    dx = (zd % NZ + urand()) * 2.0;
    dy = (zd / NZ + urand()) * 2.0;
}

double speed_kmh(double hour) {
    return 26.0 - 10.0 * std::exp(-std::pow((hour - 8.5) / 1.2, 2)) - 11.0 * std::exp(-std::pow((hour - 17.8) / 1.6, 2));
}

// Moves a cab toward its target along the street grid; returns km moved.
double drive(Cab &c, double km) {
    double moved = 0, ddx = c.tx - c.x, step = std::min(std::fabs(ddx), km);
    c.x += ddx > 0 ? step : -step; moved += step; km -= step;
    double ddy = c.ty - c.y; step = std::min(std::fabs(ddy), km);
    c.y += ddy > 0 ? step : -step; moved += step;
    return moved;
}

void set_picked(TripRec &r, const void *a) { const uint32_t *v = (const uint32_t *)a; r.status = PICKED; r.cab = v[0]; r.t_pick = v[1]; }
void set_done(TripRec &r, const void *a) {
    const float *v = (const float *)a;
    r.status = DONE; r.t_drop = (uint32_t)v[0]; r.dist_km = v[1]; r.fare = v[2]; r.surge = v[3];
    std::strcpy(r.payment, v[4] > 0.5f ? "CARD" : "CASH");
}
void set_cancel(TripRec &r, const void *) { r.status = CANCELLED; }
void set_tomb(TripRec &r, const void *) { r.status = TOMB; }
void add_tip(TripRec &r, const void *a) { r.tip += *(const float *)a; }

void update_cab_record(int fd, int id, const Cab &c, double tip) {
    CabRec r;
    if (pread(fd, &r, sizeof r, (off_t)id * sizeof r) != (ssize_t)sizeof r) { perror("pread cab"); std::exit(1); }
    r.id = id; r.trips = c.trips; r.km_paid = (float)c.km_paid; r.km_empty = (float)c.km_empty;
    r.revenue = (float)c.revenue; r.tips += (float)tip;
    r.online_h = (float)((c.shift_end - c.shift_start) / 3600.0);
    if (pwrite(fd, &r, sizeof r, (off_t)id * sizeof r) != (ssize_t)sizeof r) { perror("pwrite cab"); std::exit(1); }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) { std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    std::string dir = argv[1];
    TripStore store(dir + "/trips.db");
    int cabfd = open((dir + "/cabs.db").c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (cabfd < 0 || ftruncate(cabfd, (off_t)NCAB * sizeof(CabRec)) != 0) { perror("cabs.db"); return 1; }

    std::vector<Cab> cabs(NCAB);
    for (int i = 0; i < NCAB; i++) {
        Cab &c = cabs[i];
        c.x = urand() * CITY; c.y = urand() * CITY; c.tx = c.x; c.ty = c.y;
        c.state = 0; c.trip = 0; c.km_paid = c.km_empty = c.revenue = 0; c.trips = 0;
        c.shift_start = i % 2 ? 6 * 3600 + (int)(urand() * 7200) : (int)(urand() * 3600);
        c.shift_end = i % 2 ? c.shift_start + 11 * 3600 : (i % 4 ? 4 * 3600 : 86400);
        if (i % 4 == 2) c.shift_start = 16 * 3600 + (int)(urand() * 3600);
    }
    std::deque<Request> pending;
    std::vector<Request> active(NCAB);
    std::vector<std::vector<int>> cell(GRID * GRID);
    uint64_t next_id = 1;
    long n_req = 0, n_done = 0, n_cancel = 0;
    std::vector<uint64_t> cancelled, done_ids;
    FILE *hourly = std::fopen((dir + "/hourly_dispatch.csv").c_str(), "w");
    if (!hourly) { perror("hourly"); return 1; }
    std::fprintf(hourly, "hour,requests,completed,cancelled,idle_cabs,mean_wait_s,store_probes\n");
    long h_req = 0, h_done = 0, h_cancel = 0; double h_wait = 0;

    for (int tk = 0; tk < NTICK; tk++) {
        int t = tk * TICK;
        double hour = t / 3600.0, v = speed_kmh(hour) * TICK / 3600.0;
        for (int z = 0; z < NZ * NZ; z++) {
            double lam = demand_rate(z, hour), u = urand();
            int k = 0; double p = std::exp(-lam), cdf = p;
            while (u > cdf && k < 8) { k++; p *= lam / k; cdf += p; }
            for (int q = 0; q < k; q++) {
                Request r; r.id = (20240611ull << 32) | next_id++; r.t = t; r.zo = z;
                r.ox = (z % NZ + urand()) * 2.0; r.oy = (z / NZ + urand()) * 2.0;
                pick_destination(z, r.dx, r.dy, r.zd);
                TripRec rec; std::memset(&rec, 0, sizeof rec);
                rec.id = r.id; rec.status = REQUESTED; rec.t_req = t; rec.zo = (uint16_t)r.zo; rec.zd = (uint16_t)r.zd;
                rec.ox = (float)r.ox; rec.oy = (float)r.oy; rec.dx = (float)r.dx; rec.dy = (float)r.dy;
                store.insert(rec);
                pending.push_back(r); n_req++; h_req++;
            }
        }
        for (auto &cl : cell) cl.clear();
        int idle = 0;
        for (int i = 0; i < NCAB; i++) {
            Cab &c = cabs[i];
            bool on = (c.shift_start <= c.shift_end) ? (t >= c.shift_start && t < c.shift_end) : (t >= c.shift_start || t < c.shift_end);
            if (c.state == 0 && on) c.state = 1;
            if (c.state == 1 && !on) { c.state = 0; continue; }
            if (c.state == 1) {
                idle++;
                cell[std::min(GRID - 1, (int)c.y) * GRID + std::min(GRID - 1, (int)c.x)].push_back(i);
            }
        }
        double surge = std::min(2.5, std::max(1.0, 0.6 + 1.5 * pending.size() / (idle + 1.0)));
        size_t npend = pending.size();
        for (size_t q = 0; q < npend; q++) {
            Request r = pending.front(); pending.pop_front();
            int gx = std::min(GRID - 1, (int)r.ox), gy = std::min(GRID - 1, (int)r.oy), best = -1;
            double bd = 1e9;
            for (int ring = 0; ring <= 3 && best < 0; ring++)
                for (int yy = gy - ring; yy <= gy + ring; yy++)
                    for (int xx = gx - ring; xx <= gx + ring; xx++) {
                        if (xx < 0 || yy < 0 || xx >= GRID || yy >= GRID) continue;
                        for (int id : cell[yy * GRID + xx]) {
                            if (cabs[id].state != 1) continue;
                            double d = std::fabs(cabs[id].x - r.ox) + std::fabs(cabs[id].y - r.oy);
                            if (d < bd) { bd = d; best = id; }
                        }
                    }
            if (best >= 0) {
                Cab &c = cabs[best];
                c.state = 2; c.trip = r.id; c.tx = r.ox; c.ty = r.oy;
                active[best] = r;
            } else if (t - r.t > 600) {
                store.update(r.id, set_cancel, nullptr); cancelled.push_back(r.id); n_cancel++; h_cancel++;
            } else pending.push_back(r);
        }
        for (int i = 0; i < NCAB; i++) {
            Cab &c = cabs[i];
            if (c.state == 2) {
                c.km_empty += drive(c, v);
                if (c.x == c.tx && c.y == c.ty) {
                    uint32_t a[2] = {(uint32_t)i, (uint32_t)t};
                    store.update(c.trip, set_picked, a);
                    h_wait += t - active[i].t;
                    c.state = 3; c.tx = active[i].dx; c.ty = active[i].dy;
                }
            } else if (c.state == 3) {
                c.km_paid += drive(c, v);
                if (c.x == c.tx && c.y == c.ty) {
                    const Request &r = active[i];
                    double km = std::fabs(r.dx - r.ox) + std::fabs(r.dy - r.oy);
                    double fare = (3.2 + 1.85 * km + 0.45 * (km / speed_kmh(hour) * 60.0)) * surge;
                    float a[5] = {(float)t, (float)km, (float)fare, (float)surge, (float)(urand() < 0.7)};
                    store.update(c.trip, set_done, a);
                    done_ids.push_back(c.trip);
                    c.revenue += fare; c.trips++; c.state = 1; n_done++; h_done++;
                    update_cab_record(cabfd, i, c, 0.0);
                }
            } else if (c.state == 1 && urand() < 0.02) {
                c.tx = std::min(CITY, std::max(0.0, c.x + (9.0 - c.x) * 0.1)); c.ty = std::min(CITY, std::max(0.0, c.y + (11.0 - c.y) * 0.1));
                c.km_empty += drive(c, v * 0.5);
            }
        }
        if ((tk + 1) % (3600 / TICK) == 0) {
            std::fprintf(hourly, "%d,%ld,%ld,%ld,%d,%.1f,%ld\n", (tk + 1) / (3600 / TICK) - 1, h_req, h_done, h_cancel, idle,
                         h_done ? h_wait / h_done : 0.0, store.probes());
            store.write_header(tk);
            h_req = h_done = h_cancel = 0; h_wait = 0;
        }
    }
    std::fclose(hourly);

    // fare audit: random lookups with record checks
    long bad = 0, audited = 0;
    double fare_err = 0;
    for (int k = 0; k < 20000 && !done_ids.empty(); k++) {
        uint64_t id = done_ids[(size_t)(urand() * done_ids.size())];
        long s = store.locate(id, false);
        TripRec r;
        if (s < 0 || !store.get(s, r)) { bad++; continue; }
        double km = std::fabs(r.dx - r.ox) + std::fabs(r.dy - r.oy);
        fare_err += std::fabs(r.dist_km - km);
        audited++;
    }
    // card tips, cab tip totals
    std::vector<double> cab_tips(NCAB, 0.0);
    for (int k = 0; k < 30000 && !done_ids.empty(); k++) {
        uint64_t id = done_ids[(size_t)(urand() * done_ids.size())];
        float tip = (float)(1.0 + 4.0 * urand());
        store.update(id, add_tip, &tip);
    }
    for (uint64_t id : cancelled) store.update(id, set_tomb, nullptr);

    // full chunked scan: OD matrix and hourly revenue; compaction into a new store
    std::vector<double> od(NZ * NZ * NZ * NZ, 0.0), rev(24, 0.0);
    TripStore compact(dir + "/trips_compacted.db");
    const size_t CH = 256 * PAGE;
    std::vector<char> buf(CH);
    long scanned = 0, kept = 0;
    for (off_t off = PAGE; off < (off_t)PAGE * (NPAGE + 1); off += CH) {
        ssize_t got = pread(store.fd(), buf.data(), CH, off);
        if (got <= 0) break;
        for (ssize_t p = 0; p + REC <= got; p += REC) {
            TripRec r; std::memcpy(&r, buf.data() + p, REC);
            if (r.status == EMPTY) continue;
            scanned++;
            if (r.status == TOMB) continue;
            if (r.status == DONE) {
                od[r.zo * NZ * NZ + r.zd] += 1.0;
                rev[std::min(23u, r.t_drop / 3600)] += r.fare + r.tip;
                if (r.cab < NCAB) cab_tips[r.cab] += r.tip;
            }
            compact.insert(r); kept++;
        }
    }
    compact.write_header(kept);
    store.write_header(scanned);
    for (int i = 0; i < NCAB; i++) if (cabs[i].trips) update_cab_record(cabfd, i, cabs[i], cab_tips[i]);
    fsync(cabfd); close(cabfd);

    FILE *rep = std::fopen((dir + "/od_revenue_report.txt").c_str(), "w");
    if (!rep) { perror("report"); return 1; }
    std::fprintf(rep, "# requests %ld completed %ld cancelled %ld audited %ld bad %ld mean_dist_err %.4f\n", n_req, n_done,
                 n_cancel, audited, bad, audited ? fare_err / audited : 0.0);
    std::fprintf(rep, "# hourly revenue incl. tips\n");
    for (int h = 0; h < 24; h++) std::fprintf(rep, "%02d %.2f\n", h, rev[h]);
    std::fprintf(rep, "# top origin-destination zone pairs\n");
    std::vector<int> idx(NZ * NZ * NZ * NZ);
    for (size_t i = 0; i < idx.size(); i++) idx[i] = (int)i;
    std::partial_sort(idx.begin(), idx.begin() + 40, idx.end(), [&](int a, int b) { return od[a] > od[b]; });
    for (int k = 0; k < 40; k++) std::fprintf(rep, "%3d -> %3d  %.0f\n", idx[k] / (NZ * NZ), idx[k] % (NZ * NZ), od[idx[k]]);
    std::fclose(rep);
    std::printf("trips %ld done %ld cancelled %ld, scanned %ld kept %ld, probes %ld\n", n_req, n_done, n_cancel, scanned, kept,
                store.probes());
    return 0;
}
