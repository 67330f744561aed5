// warehouse_picking_routes: generates a day of e-commerce order lines as CSV,
// parses them back, batches orders into picker waves per warehouse zone,
// routes each wave through the aisle grid (nearest neighbour + 2-opt on
// Manhattan-with-aisles distances), writes one route sheet per wave under
// zone directories, a binary wave index, and re-reads the index to total the
// walking distance per zone.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

struct Slot { int aisle, bay, level; };
struct OrderLine { int order; std::string sku; int qty; int zone; Slot slot; };
struct WaveRecord { int32_t zone, wave, nstops; double dist_before, dist_after; };

static constexpr int kZones = 6;
static constexpr int kAisles = 40;
static constexpr int kBays = 60;
static constexpr int kOrders = 45000;
static constexpr int kWaveSize = 140;

struct Lcg {
    uint64_t s;
    uint32_t next() { s = s * 6364136223846793005ULL + 1442695040888963407ULL; return uint32_t(s >> 33); }
};

static void generate_orders(const fs::path &csv, int norders)
{
    std::ofstream out(csv);
    out << "order_id,sku,qty,zone,aisle,bay,level\n";
    Lcg g{99};
    for (int o = 0; o < norders; ++o) {
        int lines = 1 + int(g.next() % 5);
        for (int l = 0; l < lines; ++l) {
            uint32_t item = g.next() % 50000;
            // popular SKUs cluster near the front aisles
            if (g.next() % 3 == 0) item %= 900;
            int zone = int(item % kZones);
            out << o << ",SKU" << std::setw(6) << std::setfill('0') << item << std::setfill(' ') << ','
                << 1 + g.next() % 4 << ',' << zone << ',' << (item / kZones) % kAisles << ','
                << (item / 7) % kBays << ',' << item % 5 << '\n';
        }
    }
}

static std::vector<OrderLine> parse_orders(const fs::path &csv)
{
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    std::vector<OrderLine> v;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string f[7];
        for (auto &x : f) std::getline(ss, x, ',');
        OrderLine ol{std::stoi(f[0]), f[1], std::stoi(f[2]), std::stoi(f[3]),
                     Slot{std::stoi(f[4]), std::stoi(f[5]), std::stoi(f[6])}};
        v.push_back(std::move(ol));
    }
    return v;
}

// walking distance between two slots in a parallel-aisle layout
static double walk(const Slot &a, const Slot &b)
{
    if (a.aisle == b.aisle) return std::abs(a.bay - b.bay);
    double via_front = a.bay + b.bay, via_back = (kBays - a.bay) + (kBays - b.bay);
    return std::min(via_front, via_back) + 3.0 * std::abs(a.aisle - b.aisle);
}

static double tour_length(const std::vector<Slot> &t)
{
    double d = 0;
    Slot depot{0, 0, 0};
    Slot prev = depot;
    for (auto &s : t) { d += walk(prev, s); prev = s; }
    return d + walk(prev, depot);
}

static std::vector<Slot> route_wave(std::vector<Slot> stops, double &before)
{
    std::vector<Slot> tour;
    tour.reserve(stops.size());
    Slot cur{0, 0, 0};
    while (!stops.empty()) {
        size_t best = 0;
        double bd = 1e30;
        for (size_t i = 0; i < stops.size(); ++i) {
            double d = walk(cur, stops[i]);
            if (d < bd) { bd = d; best = i; }
        }
        cur = stops[best];
        tour.push_back(cur);
        stops[best] = stops.back();
        stops.pop_back();
    }
    before = tour_length(tour);
    bool improved = true;
    int passes = 0;
    while (improved && passes++ < 25) {
        improved = false;
        for (size_t i = 0; i + 2 < tour.size(); ++i)
            for (size_t j = i + 2; j < tour.size(); ++j) {
                const Slot &a = tour[i], &b = tour[i + 1], &c = tour[j];
                Slot d = j + 1 < tour.size() ? tour[j + 1] : Slot{0, 0, 0};
                if (walk(a, c) + walk(b, d) + 1e-9 < walk(a, b) + walk(c, d)) {
                    std::reverse(tour.begin() + long(i) + 1, tour.begin() + long(j) + 1);
                    improved = true;
                }
            }
    }
    return tour;
}

static void write_route_sheet(const fs::path &file, int zone, int wave, const std::vector<Slot> &tour, double len)
{
    std::ofstream out(file);
    out << "# zone " << zone << " wave " << wave << " stops " << tour.size() << " length "
        << std::fixed << std::setprecision(1) << len << "\n";
    int step = 0;
    for (auto &s : tour)
        out << std::setw(4) << ++step << "  A" << std::setw(2) << s.aisle << "-B" << std::setw(2) << s.bay
            << "-L" << s.level << '\n';
}

static std::vector<WaveRecord> plan_waves(const std::vector<OrderLine> &lines, const fs::path &root)
{
    std::map<int, std::vector<Slot>> per_zone;
    for (auto &l : lines) per_zone[l.zone].push_back(l.slot);
    std::vector<WaveRecord> recs;
    for (auto &[zone, stops] : per_zone) {
        fs::path zdir = root / ("zone_" + std::to_string(zone));
        fs::create_directories(zdir);
        int wave = 0;
        for (size_t i = 0; i < stops.size(); i += kWaveSize, ++wave) {
            std::vector<Slot> w(stops.begin() + long(i), stops.begin() + long(std::min(stops.size(), i + kWaveSize)));
            double before = 0;
            auto tour = route_wave(w, before);
            double after = tour_length(tour);
            std::ostringstream nm;
            nm << "wave_" << std::setw(4) << std::setfill('0') << wave << ".txt";
            write_route_sheet(zdir / nm.str(), zone, wave, tour, after);
            recs.push_back({zone, wave, int32_t(tour.size()), before, after});
        }
    }
    return recs;
}

static void write_index(const fs::path &file, const std::vector<WaveRecord> &recs)
{
    std::ofstream out(file, std::ios::binary);
    uint64_t n = recs.size();
    out.write(reinterpret_cast<const char *>(&n), sizeof n);
    for (auto &r : recs) out.write(reinterpret_cast<const char *>(&r), sizeof r);
}

static std::map<int, std::pair<double, double>> reread_index(const fs::path &file)
{
    std::ifstream in(file, std::ios::binary);
    uint64_t n = 0;
    in.read(reinterpret_cast<char *>(&n), sizeof n);
    std::map<int, std::pair<double, double>> tot;
    WaveRecord r;
    for (uint64_t i = 0; i < n && in.read(reinterpret_cast<char *>(&r), sizeof r); ++i) {
        tot[r.zone].first += r.dist_before;
        tot[r.zone].second += r.dist_after;
    }
    return tot;
}

int main(int argc, char **argv)
{
    if (argc < 2) { std::cerr << "usage: " << argv[0] << " dir\n"; return 1; }
    fs::path root(argv[1]);
    fs::create_directories(root);
    generate_orders(root / "order_lines.csv", kOrders);
    auto lines = parse_orders(root / "order_lines.csv");
    auto recs = plan_waves(lines, root / "routes");
    write_index(root / "waves.idx", recs);
    auto tot = reread_index(root / "waves.idx");
    std::ofstream rep(root / "zone_summary.txt");
    double saved = 0;
    for (auto &[z, p] : tot) {
        rep << "zone " << z << " nn " << p.first << " 2opt " << p.second << '\n';
        saved += p.first - p.second;
    }
    std::cout << "lines " << lines.size() << " waves " << recs.size() << " distance saved " << saved << '\n';
    return 0;
}
