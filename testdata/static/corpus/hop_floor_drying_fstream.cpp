// hop_floor_drying_fstream.cpp
//
// Harvest season of an oast with slatted hop-drying floors.  Each batch of
// green hop cones is spread unevenly over the floor; heated air from the
// burner is distributed over floor cells according to the local bed
// resistance (iterative pressure balance), and rises through a deep bed
// modelled in layers (thin-layer drying kinetics with Arrhenius rate,
// equilibrium moisture from an Oswin-type isotherm, latent-heat cooling and
// humidification of the air, evaporation capped at saturation).  The
// burner follows a ramped recipe and the batch is unloaded when the top
// layer is dry.
//
// I/O (C++ streams and std::filesystem, one directory per batch):
//   state.bin    std::fstream opened in|out|binary: one fixed-size record
//                per floor cell rewritten in place (seekp/write) every 30 min,
//                and read back at random cells (seekg/read) by the moisture
//                probes every 15 minutes;
//   history.bin  std::ofstream binary appends of the layer moisture and
//                temperature fields every 10 minutes;
//   air.csv      std::ofstream text row per minute (burner, plenum, exhaust);
//   probes.txt   text probe readings;
//   moisture.pgm final moisture map;
// then a season pass walks the batch directories with
// std::filesystem::directory_iterator, re-reads every history.bin with
// std::ifstream and writes season_report.txt.
//
// usage: hop_floor_drying_fstream OUTDIR

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kNx = 20, kNy = 12, kCells = kNx * kNy;
constexpr int kLayers = 20;
constexpr int kBatches = 5;
constexpr int kMaxMinutes = 720;
constexpr int kProbes = 12;
constexpr double kCellArea = 0.9 * 0.9;        // m^2
constexpr double kRhoDry = 9.0;                 // kg dry matter per m^3 of loose green cones
constexpr double kFan = 36.0;                   // kg/s of air at the design point

struct CellRecord {                             // on-disk record, fixed size
    int32_t cell, minute;
    float depth_m, airflow;                     // m, kg/s
    float moisture[kLayers];                    // dry basis
    float hop_temp[kLayers];
    float air_temp_out, air_w_out;
};

struct Cell {
    double depth, resist, flow;
    std::array<double, kLayers> M, Th;
    double tout, wout;
};

[[noreturn]] void fail(const std::string &msg) {
    std::cerr << "hop_floor_drying_fstream: " << msg << "\n";
    std::exit(1);
}

class Rng {
    uint64_t s_;
public:
    explicit Rng(uint64_t s) : s_(s) {}
    double uniform() {
        s_ ^= s_ >> 12; s_ ^= s_ << 25; s_ ^= s_ >> 27;
        return static_cast<double>((s_ * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
    }
};

double psat(double t) { return 610.78 * std::exp(17.27 * t / (t + 237.3)); }          // Pa
double humidity_ratio(double t, double rh) { double p = rh * psat(t); return 0.622 * p / (101325.0 - p); }
double rel_humidity(double t, double w) { double p = w * 101325.0 / (0.622 + w); return p / psat(t); }

// equilibrium moisture (dry basis) of hop cones, Oswin form with temperature shift
double equilibrium_moisture(double t, double rh) {
    rh = std::clamp(rh, 0.01, 0.99);
    return (0.145 - 0.0011 * t) * std::pow(rh / (1.0 - rh), 0.42);
}

std::vector<Cell> load_floor(Rng &rng, int batch) {
    std::vector<Cell> floor(kCells);
    double mean_depth = 0.55 + 0.05 * (batch % 3);
    for (int j = 0; j < kNy; j++)
        for (int i = 0; i < kNx; i++) {
            Cell &c = floor[j * kNx + i];
            // heaps where the bags were tipped, thinner near the walls
            double dx = (i - kNx / 2.0) / kNx, dy = (j - kNy / 2.0) / kNy;
            c.depth = mean_depth * (1.0 + 0.25 * std::cos(9.0 * dx + batch) * std::cos(7.0 * dy) -
                                    0.2 * (dx * dx + dy * dy) * 4.0 + 0.08 * (rng.uniform() - 0.5));
            c.resist = 400.0 * c.depth * (1.0 + 0.3 * rng.uniform());
            double m0 = 3.4 + 0.6 * rng.uniform();              // ~78 % wet basis
            for (int k = 0; k < kLayers; k++) { c.M[k] = m0; c.Th[k] = 14.0; }
            c.flow = 0.0; c.tout = 14.0; c.wout = 0.008;
        }
    return floor;
}

// fan curve vs. parallel bed resistances: iterate the plenum pressure until flows match
double air_distribution(std::vector<Cell> &floor, double fan_kg_s) {
    double p = 150.0;
    for (int it = 0; it < 60; it++) {
        double total = 0.0;
        for (auto &c : floor) {
            double wet = 1.0 + 0.08 * c.M[kLayers - 1];            // wet cones pack denser
            c.flow = std::sqrt(std::max(p, 0.0) / (c.resist * wet)) * 0.1;
            total += c.flow;
        }
        double fan = fan_kg_s * (1.0 - 0.0012 * p);                // falling fan characteristic
        double err = total - fan;
        if (std::fabs(err) < 1e-10 * fan) break;
        p *= std::pow(fan / total, 1.5);
    }
    return p;
}

// one minute of deep-bed drying for every cell (air and cones in local thermal
// equilibrium, adiabatic evaporative cooling); returns kg water removed
double dry_step(std::vector<Cell> &floor, double t_in, double w_in) {
    double removed = 0.0;
    const double dt = 60.0, cp_air = 1006.0, lat = 2.45e6;
    for (auto &c : floor) {
        double dz = c.depth / kLayers, dry = kRhoDry * dz * kCellArea, air = c.flow * dt;
        double ta = t_in, w = w_in;
        for (int k = 0; k < kLayers; k++) {
            double rh = std::min(rel_humidity(ta, w), 0.999);
            double me = equilibrium_moisture(ta, rh);
            double rate = 1.6e-4 * std::exp(-3900.0 * (1.0 / (ta + 273.15) - 1.0 / 333.15));   // 1/s
            double mnew = me + (c.M[k] - me) * std::exp(-rate * dt);
            double water = (c.M[k] - mnew) * dry;
            // the air cannot be driven past saturation: limit evaporation (bisection on the water amount)
            double t2 = ta - water * lat / (air * cp_air), w2 = w + water / air;
            if (water > 0.0 && w2 > humidity_ratio(t2, 1.0)) {
                double lo = 0.0, hi = water;
                for (int it = 0; it < 30; it++) {
                    double mid = 0.5 * (lo + hi);
                    double tm = ta - mid * lat / (air * cp_air);
                    if (w + mid / air > humidity_ratio(tm, 1.0)) hi = mid; else lo = mid;
                }
                water = lo;
                t2 = ta - water * lat / (air * cp_air);
                w2 = w + water / air;
                mnew = c.M[k] - water / dry;
            }
            c.M[k] = mnew;
            c.Th[k] = t2;
            ta = t2;
            w = w2;
            removed += water;
        }
        c.tout = ta;
        c.wout = w;
    }
    return removed;
}

CellRecord make_record(const Cell &c, int idx, int minute) {
    CellRecord r{};
    r.cell = idx; r.minute = minute;
    r.depth_m = static_cast<float>(c.depth); r.airflow = static_cast<float>(c.flow);
    for (int k = 0; k < kLayers; k++) {
        r.moisture[k] = static_cast<float>(c.M[k]);
        r.hop_temp[k] = static_cast<float>(c.Th[k]);
    }
    r.air_temp_out = static_cast<float>(c.tout);
    r.air_w_out = static_cast<float>(c.wout);
    return r;
}

// rewrite every cell record in place
void checkpoint_state(std::fstream &st, const std::vector<Cell> &floor, int minute) {
    for (int i = 0; i < kCells; i++) {
        CellRecord r = make_record(floor[i], i, minute);
        st.seekp(static_cast<std::streamoff>(i) * static_cast<std::streamoff>(sizeof(CellRecord)));
        st.write(reinterpret_cast<const char *>(&r), sizeof r);
    }
    st.flush();
    if (!st) fail("state.bin checkpoint write failed");
}

// moisture probes: random cells read back from the state file
void probe_cells(std::fstream &st, std::ofstream &log, Rng &rng, int minute) {
    for (int p = 0; p < kProbes; p++) {
        int cell = static_cast<int>(rng.uniform() * kCells);
        CellRecord r;
        st.seekg(static_cast<std::streamoff>(cell) * static_cast<std::streamoff>(sizeof(CellRecord)));
        if (!st.read(reinterpret_cast<char *>(&r), sizeof r) || r.cell != cell) fail("state.bin probe read failed");
        double top = r.moisture[kLayers - 1], mid = r.moisture[kLayers / 2], bot = r.moisture[0];
        log << std::setw(4) << minute << " cell " << std::setw(3) << cell << " (state of min " << std::setw(3)
            << r.minute << ")  wb% top " << std::fixed << std::setprecision(1) << 100.0 * top / (1.0 + top) << " mid "
            << 100.0 * mid / (1.0 + mid) << " bottom " << 100.0 * bot / (1.0 + bot) << "  exhaust "
            << std::setprecision(1) << r.air_temp_out << " C\n";
    }
    if (!log) fail("probe log write failed");
}

void append_history(std::ofstream &h, const std::vector<Cell> &floor, int minute) {
    std::vector<float> buf(2 * static_cast<size_t>(kCells) * kLayers);
    for (int i = 0; i < kCells; i++)
        for (int k = 0; k < kLayers; k++) {
            buf[static_cast<size_t>(i) * kLayers + k] = static_cast<float>(floor[i].M[k]);
            buf[(static_cast<size_t>(kCells) + i) * kLayers + k] = static_cast<float>(floor[i].Th[k]);
        }
    int32_t m = minute;
    h.write(reinterpret_cast<const char *>(&m), sizeof m);
    h.write(reinterpret_cast<const char *>(buf.data()), static_cast<std::streamsize>(buf.size() * sizeof(float)));
    if (!h) fail("history.bin append failed");
}

void write_moisture_map(const fs::path &p, const std::vector<Cell> &floor) {
    constexpr int kScale = 8;
    std::ofstream f(p, std::ios::binary);
    if (!f) fail("cannot create " + p.string());
    f << "P5\n" << kNx * kScale << ' ' << kNy * kScale << "\n255\n";
    std::vector<unsigned char> row(static_cast<size_t>(kNx) * kScale);
    for (int j = 0; j < kNy * kScale; j++) {
        for (int i = 0; i < kNx * kScale; i++) {
            const Cell &c = floor[(j / kScale) * kNx + i / kScale];
            double mean = 0.0;
            for (double m : c.M) mean += m;
            mean /= kLayers;
            double wb = mean / (1.0 + mean);
            row[static_cast<size_t>(i)] = static_cast<unsigned char>(std::clamp(wb / 0.3, 0.0, 1.0) * 255.0);
        }
        f.write(reinterpret_cast<const char *>(row.data()), static_cast<std::streamsize>(row.size()));
    }
    if (!f) fail("write " + p.string());
}

struct BatchResult { int minutes; double water_kg, fuel_kwh, final_top_wb, final_bottom_wb; };

BatchResult dry_batch(const fs::path &dir, int batch, Rng &rng) {
    fs::create_directories(dir);
    std::vector<Cell> floor = load_floor(rng, batch);
    // pre-size the state file, then open it for in-place update
    {
        std::ofstream init(dir / "state.bin", std::ios::binary);
        for (int i = 0; i < kCells; i++) {
            CellRecord r = make_record(floor[i], i, 0);
            init.write(reinterpret_cast<const char *>(&r), sizeof r);
        }
        if (!init) fail("cannot create state.bin");
    }
    std::fstream st(dir / "state.bin", std::ios::in | std::ios::out | std::ios::binary);
    std::ofstream hist(dir / "history.bin", std::ios::binary);
    std::ofstream air(dir / "air.csv");
    std::ofstream probes(dir / "probes.txt");
    if (!st || !hist || !air || !probes) fail("cannot open batch files in " + dir.string());
    air << "minute,burner_C,plenum_Pa,fan_kg_s,exhaust_C,exhaust_RH,water_kg_min,top_wb_pct\n";
    double ambient = 12.0 + 6.0 * std::sin(batch * 0.7), w_amb = humidity_ratio(ambient, 0.8);
    BatchResult res{0, 0.0, 0.0, 0.0, 0.0};
    int minute = 0;
    double plenum = 0.0;
    for (; minute < kMaxMinutes; minute++) {
        double burner = minute < 60 ? 45.0 + 0.25 * minute : (minute < 420 ? 60.0 : 66.0);
        double fan = kFan;
        if (minute % 5 == 0) plenum = air_distribution(floor, fan);
        double p = plenum;
        double water = dry_step(floor, burner, w_amb);
        res.water_kg += water;
        res.fuel_kwh += fan * 1006.0 * (burner - ambient) * 60.0 / 3.6e6 / 0.85;
        double tex = 0.0, wex = 0.0, top = 0.0;
        for (const auto &c : floor) {
            tex += c.tout * c.flow; wex += c.wout * c.flow;
            top += c.M[kLayers - 1] / (1.0 + c.M[kLayers - 1]);
        }
        double ftot = 0.0;
        for (const auto &c : floor) ftot += c.flow;
        tex /= ftot; wex /= ftot; top /= kCells;
        air << minute << ',' << std::fixed << std::setprecision(2) << burner << ',' << p << ',' << fan << ','
            << tex << ',' << std::setprecision(3) << rel_humidity(tex, wex) << ',' << water << ','
            << std::setprecision(2) << 100.0 * top << '\n';
        if (minute % 30 == 29) checkpoint_state(st, floor, minute + 1);
        if (minute % 15 == 14) probe_cells(st, probes, rng, minute + 1);
        if (minute % 10 == 9) append_history(hist, floor, minute + 1);
        if (minute > 240 && top < 0.09) { minute++; break; }
    }
    checkpoint_state(st, floor, minute);
    append_history(hist, floor, minute);
    write_moisture_map(dir / "moisture.pgm", floor);
    if (!air) fail("air.csv write failed");
    double top = 0.0, bot = 0.0;
    for (const auto &c : floor) {
        top += c.M[kLayers - 1] / (1.0 + c.M[kLayers - 1]);
        bot += c.M[0] / (1.0 + c.M[0]);
    }
    res.minutes = minute;
    res.final_top_wb = 100.0 * top / kCells;
    res.final_bottom_wb = 100.0 * bot / kCells;
    return res;
}

// walk the batch directories, re-read every history file, grade uniformity
void season_report(const fs::path &root, const std::vector<BatchResult> &res) {
    std::vector<fs::path> dirs;
    for (const auto &e : fs::directory_iterator(root))
        if (e.is_directory() && e.path().filename().string().rfind("batch_", 0) == 0) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    std::ofstream rep(root / "season_report.txt");
    if (!rep) fail("cannot create season report");
    rep << "# batch minutes water_kg fuel_kWh top_wb% bottom_wb% snapshots overdried_cells% wet_cells% "
           "history_bytes state_bytes\n";
    const size_t frame = sizeof(int32_t) + 2 * sizeof(float) * static_cast<size_t>(kCells) * kLayers;
    std::vector<float> buf(2 * static_cast<size_t>(kCells) * kLayers);
    double season_water = 0.0;
    for (size_t b = 0; b < dirs.size(); b++) {
        std::ifstream h(dirs[b] / "history.bin", std::ios::binary);
        if (!h) fail("cannot open " + (dirs[b] / "history.bin").string());
        int snaps = 0, over = 0, wet = 0;
        int32_t m;
        while (h.read(reinterpret_cast<char *>(&m), sizeof m)) {
            if (!h.read(reinterpret_cast<char *>(buf.data()), static_cast<std::streamsize>(buf.size() * sizeof(float))))
                fail("truncated history frame");
            snaps++;
            over = wet = 0;
            for (int i = 0; i < kCells; i++) {
                double mean = 0.0;
                for (int k = 0; k < kLayers; k++) mean += buf[static_cast<size_t>(i) * kLayers + k];
                mean /= kLayers;
                double wb = mean / (1.0 + mean);
                if (wb < 0.06) over++;
                if (wb > 0.12) wet++;
            }
        }
        if (h.bad()) fail("read history");
        auto hbytes = fs::file_size(dirs[b] / "history.bin");
        auto sbytes = fs::file_size(dirs[b] / "state.bin");
        if (hbytes != static_cast<uintmax_t>(snaps) * frame) fail("history size mismatch");
        const BatchResult &r = res[b];
        season_water += r.water_kg;
        rep << std::setw(5) << b + 1 << std::setw(8) << r.minutes << std::fixed << std::setprecision(1) << std::setw(10)
            << r.water_kg << std::setw(10) << r.fuel_kwh << std::setw(8) << r.final_top_wb << std::setw(8)
            << r.final_bottom_wb << std::setw(6) << snaps << std::setw(8) << 100.0 * over / kCells << std::setw(8)
            << 100.0 * wet / kCells << std::setw(12) << hbytes << std::setw(10) << sbytes << '\n';
    }
    if (!rep) fail("write season report");
    std::cout << "hop oast: " << dirs.size() << " batches on a " << kNx << "x" << kNy << " floor, " << kLayers
              << " layers; season water removed " << std::fixed << std::setprecision(0) << season_water << " kg\n";
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 1;
    }
    fs::path root(argv[1]);
    Rng rng(0x4f0a57b4e11ull);
    std::vector<BatchResult> res;
    for (int b = 0; b < kBatches; b++) {
        std::ostringstream name;
        name << "batch_" << std::setw(2) << std::setfill('0') << b + 1;
        res.push_back(dry_batch(root / name.str(), b, rng));
        std::cout << "  " << name.str() << ": " << res.back().minutes << " min, top " << std::fixed
                  << std::setprecision(1) << res.back().final_top_wb << " % wb, bottom " << res.back().final_bottom_wb
                  << " % wb\n";
    }
    season_report(root, res);
    return 0;
}
