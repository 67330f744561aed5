// auction_lot_bid_ledger.cpp
//
// A season at a regional auction house: 30 sales of ~650 lots each across
// eight departments.  Bidders (room, phone, online, absentee commission bids)
// hold private valuations; each lot is sold by an ascending auction with the
// house increment table, reserve prices and absentee bids executed by the
// auctioneer.
//
// Files:
//   catalogue.tsv         lot catalogue (std::ofstream text)
//   bid_ledger.txt        every bid call, one line per event (std::ofstream)
//   hammer_results.bin    fixed binary record per lot (ofstream::write)
//   invoices/sale_NN.txt  buyer invoices with premium and VAT, per sale
//   season_report.txt     sell-through, hammer/estimate ratios, top buyers
// The post-sale office reloads the ledger with std::ifstream + getline,
// rebuilds hammer prices and bidder statistics in STL maps, cross-checks
// them against the binary results (ifstream::read) and prints invoices.
//
// Usage: auction_lot_bid_ledger OUTDIR
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kSales = 30;
constexpr int kLotsPerSale = 650;
constexpr int kBidders = 5200;
constexpr int kDepartments = 8;
const char *kDeptNames[kDepartments] = {"furniture", "silver", "paintings", "ceramics",
                                        "jewellery", "books", "clocks", "rugs"};

struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed) {}
    double uniform() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return static_cast<double>(s >> 11) * (1.0 / 9007199254740992.0);
    }
    double normal() {
        double u1 = uniform() + 1e-12, u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
};

struct Lot {
    int sale, number, dept;
    double low_est, high_est, reserve;
    double true_value;
    std::string title;
};

struct Bidder {
    int id;
    char channel;          // R room, P phone, O online, A absentee
    double budget;
    double taste[kDepartments];
    double spent = 0;
};

struct BidEvent {
    int sale, lot, bidder;
    char channel;
    double amount;
    char kind;  // B bid, H hammer, P passed
};

#pragma pack(push, 1)
struct HammerRecord {
    int32_t sale, lot, buyer;  // buyer -1: passed
    int32_t n_bids;
    double hammer, low_est, high_est;
};
#pragma pack(pop)

[[noreturn]] void fail(const std::string &what) {
    std::cerr << "auction: " << what << "\n";
    std::exit(2);
}

double increment_for(double price) {
    if (price < 100) return 5;
    if (price < 500) return 20;
    if (price < 1000) return 50;
    if (price < 5000) return 100;
    if (price < 10000) return 250;
    if (price < 50000) return 1000;
    return 2500;
}

// Order in which the auctioneer takes competing bids at the same level.
int channel_priority(char ch) {
    switch (ch) {
    case 'R': return 0;
    case 'P': return 1;
    case 'O': return 2;
    default: return 3;
    }
}

double round_estimate(double v) {
    double inc = increment_for(v) * 2;
    return std::max(inc, std::round(v / inc) * inc);
}

std::vector<Lot> make_catalogue(Rng &rng) {
    static const char *adj[] = {"Georgian", "Victorian", "Art Deco", "Regency", "Edwardian",
                                "Arts and Crafts", "Continental", "Chinese export"};
    static const char *noun[kDepartments] = {"bureau", "tea service", "landscape in oils", "vase",
                                             "brooch", "first edition", "bracket clock", "carpet"};
    std::vector<Lot> lots;
    lots.reserve(kSales * kLotsPerSale);
    for (int s = 0; s < kSales; ++s)
        for (int l = 0; l < kLotsPerSale; ++l) {
            Lot lot;
            lot.sale = s;
            lot.number = l + 1;
            lot.dept = (l / 80 + s) % kDepartments;
            double base = std::exp(5.0 + 0.35 * lot.dept + 1.1 * rng.normal());
            lot.true_value = base * (1.0 + 0.015 * s);  // slowly rising market
            double est = base * std::exp(0.25 * rng.normal());
            lot.low_est = round_estimate(est * 0.8);
            lot.high_est = round_estimate(est * 1.25);
            if (lot.high_est <= lot.low_est) lot.high_est = lot.low_est + 2 * increment_for(lot.low_est);
            lot.reserve = lot.low_est * (rng.uniform() < 0.8 ? 0.8 : 1.0);
            lot.title = std::string(adj[static_cast<int>(rng.uniform() * 8)]) + " " + noun[lot.dept];
            lots.push_back(std::move(lot));
        }
    return lots;
}

void write_catalogue(const fs::path &dir, const std::vector<Lot> &lots) {
    std::ofstream out(dir / "catalogue.tsv");
    if (!out) fail("cannot open catalogue.tsv");
    out << "sale\tlot\tdepartment\tlow\thigh\treserve\ttitle\n";
    for (const Lot &l : lots)
        out << l.sale << '\t' << l.number << '\t' << kDeptNames[l.dept] << '\t' << l.low_est << '\t'
            << l.high_est << '\t' << l.reserve << '\t' << l.title << '\n';
    if (!out) fail("write catalogue.tsv");
}

std::vector<Bidder> make_bidders(Rng &rng) {
    std::vector<Bidder> b(kBidders);
    for (int i = 0; i < kBidders; ++i) {
        b[i].id = 1000 + i;
        double u = rng.uniform();
        b[i].channel = u < 0.25 ? 'R' : u < 0.40 ? 'P' : u < 0.85 ? 'O' : 'A';
        b[i].budget = std::exp(8.0 + 1.3 * rng.normal());
        for (int d = 0; d < kDepartments; ++d) b[i].taste[d] = rng.uniform() < 0.25 ? 0.5 + 0.6 * rng.uniform() : 0.0;
    }
    return b;
}

// Ascending auction for every lot of one sale.  Interested bidders get a
// private valuation; the auctioneer calls increments until one bidder is left.
void simulate_sale(int sale, const std::vector<Lot> &lots, std::vector<Bidder> &bidders, Rng &rng,
                   std::vector<BidEvent> &events, std::vector<HammerRecord> &results) {
    std::vector<std::pair<double, int>> interest;
    for (const Lot &lot : lots) {
        if (lot.sale != sale) continue;
        interest.clear();
        // a few dozen catalogue readers look at each lot
        for (int k = 0; k < 48; ++k) {
            int bi = static_cast<int>(rng.uniform() * kBidders);
            Bidder &b = bidders[bi];
            if (b.taste[lot.dept] <= 0.0 || b.spent > b.budget) continue;
            double v = lot.true_value * b.taste[lot.dept] * std::exp(0.3 * rng.normal());
            v = std::min(v, b.budget - b.spent);
            if (v > lot.low_est * 0.5) interest.emplace_back(v, bi);
        }
        std::sort(interest.begin(), interest.end(), std::greater<>());
        interest.erase(std::unique(interest.begin(), interest.end(),
                                   [](const auto &a, const auto &b) { return a.second == b.second; }),
                       interest.end());
        HammerRecord rec{sale, lot.number, -1, 0, 0.0, lot.low_est, lot.high_est};
        double price = round_estimate(lot.low_est * 0.6);
        int leader = -1;
        // active bidders drop out when the asking price exceeds their valuation
        std::vector<std::pair<double, int>> active(interest.begin(), interest.end());
        while (true) {
            double ask = leader < 0 ? price : price + increment_for(price);
            int taker = -1;
            for (auto &a : active) {
                if (a.second == leader || a.first < ask) continue;
                // room bidders react first, absentee bids are executed last
                if (taker < 0 || channel_priority(bidders[a.second].channel) < channel_priority(bidders[taker].channel))
                    taker = a.second;
            }
            if (taker < 0) break;
            leader = taker;
            price = ask;
            events.push_back({sale, lot.number, bidders[taker].id, bidders[taker].channel, price, 'B'});
            ++rec.n_bids;
            active.erase(std::remove_if(active.begin(), active.end(),
                                        [&](const auto &a) { return a.first < price + increment_for(price) && a.second != leader; }),
                         active.end());
        }
        if (leader >= 0 && price >= lot.reserve) {
            rec.buyer = bidders[leader].id;
            rec.hammer = price;
            bidders[leader].spent += price;
            events.push_back({sale, lot.number, bidders[leader].id, bidders[leader].channel, price, 'H'});
        } else {
            events.push_back({sale, lot.number, -1, '-', price, 'P'});
        }
        results.push_back(rec);
    }
}

void append_ledger(std::ofstream &out, const std::vector<BidEvent> &events) {
    for (const BidEvent &e : events) {
        out << e.kind << ' ' << std::setw(2) << std::setfill('0') << e.sale << '-' << std::setw(3) << e.lot
            << std::setfill(' ') << ' ' << e.channel << ' ' << e.bidder << ' ' << std::fixed << std::setprecision(2)
            << e.amount << '\n';
    }
    if (!out) fail("write bid_ledger.txt");
}

void write_results_binary(const fs::path &dir, const std::vector<HammerRecord> &res) {
    std::ofstream out(dir / "hammer_results.bin", std::ios::binary);
    if (!out) fail("cannot open hammer_results.bin");
    uint32_t n = static_cast<uint32_t>(res.size());
    out.write(reinterpret_cast<const char *>(&n), sizeof n);
    for (const HammerRecord &r : res) out.write(reinterpret_cast<const char *>(&r), sizeof r);
    if (!out) fail("write hammer_results.bin");
}

struct LedgerSummary {
    std::map<std::pair<int, int>, std::pair<int, double>> hammer;  // (sale,lot) -> (buyer, price)
    std::unordered_map<int, int> bids_by_bidder;
    std::map<char, long> bids_by_channel;
    long lines = 0;
};

LedgerSummary load_ledger(const fs::path &path) {
    std::ifstream in(path);
    if (!in) fail("cannot reopen bid_ledger.txt");
    LedgerSummary s;
    std::string line, key;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        char kind, channel;
        int bidder;
        double amount;
        if (!(ls >> kind >> key >> channel >> bidder >> amount)) fail("bad ledger line: " + line);
        int sale = std::stoi(key.substr(0, 2)), lot = std::stoi(key.substr(3));
        ++s.lines;
        if (kind == 'B') {
            ++s.bids_by_bidder[bidder];
            ++s.bids_by_channel[channel];
        } else if (kind == 'H') {
            s.hammer[{sale, lot}] = {bidder, amount};
        }
    }
    if (in.bad()) fail("read bid_ledger.txt");
    return s;
}

std::vector<HammerRecord> read_results_binary(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot reopen hammer_results.bin");
    uint32_t n = 0;
    in.read(reinterpret_cast<char *>(&n), sizeof n);
    std::vector<HammerRecord> res(n);
    for (uint32_t i = 0; i < n; ++i) in.read(reinterpret_cast<char *>(&res[i]), sizeof(HammerRecord));
    if (!in) fail("short read hammer_results.bin");
    return res;
}

long cross_check(const LedgerSummary &s, const std::vector<HammerRecord> &res) {
    long bad = 0;
    for (const HammerRecord &r : res) {
        auto it = s.hammer.find({r.sale, r.lot});
        if (r.buyer < 0) {
            if (it != s.hammer.end()) ++bad;
        } else if (it == s.hammer.end() || it->second.first != r.buyer ||
                   std::fabs(it->second.second - r.hammer) > 0.005) {
            ++bad;
        }
    }
    return bad;
}

// Buyer's premium 25 % up to 100k, 20 % above; VAT 20 % on the premium.
void write_invoices(const fs::path &dir, const std::vector<HammerRecord> &res, const std::vector<Lot> &lots) {
    fs::create_directories(dir / "invoices");
    for (int s = 0; s < kSales; ++s) {
        std::map<int, std::vector<const HammerRecord *>> by_buyer;
        for (const HammerRecord &r : res)
            if (r.sale == s && r.buyer >= 0) by_buyer[r.buyer].push_back(&r);
        std::ostringstream name;
        name << "sale_" << std::setw(2) << std::setfill('0') << s << ".txt";
        std::ofstream out(dir / "invoices" / name.str());
        if (!out) fail("cannot open invoice file");
        out << std::fixed << std::setprecision(2);
        for (const auto &[buyer, recs] : by_buyer) {
            double total = 0;
            out << "INVOICE sale " << s << " paddle " << buyer << "\n";
            for (const HammerRecord *r : recs) {
                double prem = std::min(r->hammer, 100000.0) * 0.25 + std::max(0.0, r->hammer - 100000.0) * 0.20;
                double vat = prem * 0.20;
                const Lot &lot = lots[static_cast<size_t>(s) * kLotsPerSale + r->lot - 1];
                out << "  lot " << std::setw(3) << r->lot << "  " << std::left << std::setw(32) << lot.title
                    << std::right << std::setw(12) << r->hammer << std::setw(11) << prem << std::setw(10) << vat << "\n";
                total += r->hammer + prem + vat;
            }
            out << "  TOTAL" << std::setw(64) << total << "\n\n";
        }
        if (!out) fail("write invoice file");
    }
}

void write_report(const fs::path &dir, const std::vector<HammerRecord> &res, const std::vector<Lot> &lots,
                  const LedgerSummary &s, long mismatches) {
    std::ofstream out(dir / "season_report.txt");
    if (!out) fail("cannot open season_report.txt");
    out << std::fixed << std::setprecision(3);
    out << "sale  sold/offered  median(hammer/low)  total_hammer\n";
    std::vector<double> dept_ratio[kDepartments];
    for (int sale = 0; sale < kSales; ++sale) {
        std::vector<double> ratio;
        double total = 0;
        int sold = 0;
        for (const HammerRecord &r : res) {
            if (r.sale != sale || r.buyer < 0) continue;
            ++sold;
            total += r.hammer;
            ratio.push_back(r.hammer / r.low_est);
            dept_ratio[lots[static_cast<size_t>(sale) * kLotsPerSale + r.lot - 1].dept].push_back(r.hammer / r.low_est);
        }
        std::nth_element(ratio.begin(), ratio.begin() + ratio.size() / 2, ratio.end());
        out << std::setw(4) << sale << std::setw(8) << sold << "/" << kLotsPerSale << std::setw(16)
            << (ratio.empty() ? 0.0 : ratio[ratio.size() / 2]) << std::setw(18) << std::setprecision(0) << total
            << std::setprecision(3) << "\n";
    }
    out << "\ndepartment  lots_sold  mean(hammer/low)\n";
    for (int d = 0; d < kDepartments; ++d) {
        double m = dept_ratio[d].empty() ? 0.0
                                         : std::accumulate(dept_ratio[d].begin(), dept_ratio[d].end(), 0.0) / dept_ratio[d].size();
        out << std::left << std::setw(12) << kDeptNames[d] << std::right << std::setw(9) << dept_ratio[d].size()
            << std::setw(12) << m << "\n";
    }
    std::vector<std::pair<int, int>> top(s.bids_by_bidder.begin(), s.bids_by_bidder.end());
    std::sort(top.begin(), top.end(), [](auto &a, auto &b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    out << "\nmost active paddles\n";
    for (size_t i = 0; i < std::min<size_t>(15, top.size()); ++i) out << "  " << top[i].first << "  " << top[i].second << " bids\n";
    out << "\nbids by channel\n";
    for (const auto &[ch, n] : s.bids_by_channel) out << "  " << ch << "  " << n << "\n";
    out << "\nledger lines " << s.lines << ", ledger/binary mismatches " << mismatches << "\n";
    if (!out) fail("write season_report.txt");
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 1;
    }
    const fs::path dir = argv[1];
    Rng rng(0xA0C7104EULL);
    std::vector<Lot> lots = make_catalogue(rng);
    write_catalogue(dir, lots);
    std::vector<Bidder> bidders = make_bidders(rng);

    std::ofstream ledger(dir / "bid_ledger.txt");
    if (!ledger) fail("cannot open bid_ledger.txt");
    std::vector<HammerRecord> results;
    std::vector<BidEvent> events;
    for (int s = 0; s < kSales; ++s) {
        events.clear();
        simulate_sale(s, lots, bidders, rng, events, results);
        append_ledger(ledger, events);
    }
    ledger.close();
    if (!ledger) fail("close bid_ledger.txt");
    write_results_binary(dir, results);

    LedgerSummary summary = load_ledger(dir / "bid_ledger.txt");
    std::vector<HammerRecord> reread = read_results_binary(dir / "hammer_results.bin");
    long bad = cross_check(summary, reread);
    write_invoices(dir, reread, lots);
    write_report(dir, reread, lots, summary, bad);

    long sold = std::count_if(reread.begin(), reread.end(), [](const HammerRecord &r) { return r.buyer >= 0; });
    std::cout << "lots " << reread.size() << "  sold " << sold << "  ledger lines " << summary.lines
              << "  mismatches " << bad << "\n";
    return bad ? 3 : 0;
}
