// limit_order_book.cpp -- exchange message-feed replay through a price-time
// priority limit order book.
//
// A stochastic order-flow generator writes a binary ITCH-like message file
// (add / cancel / replace / market messages, one std::ofstream::write per
// message).  The matching engine reads the feed back in large chunks,
// maintains bid and ask ladders as std::map<price, std::deque<order>> with
// an unordered_map from order id to its resting price, matches crossing
// orders, writes every execution to a trade tape (text), and appends a
// top-of-book depth snapshot every SNAP_EVERY messages.  Finally the trade
// tape is re-read with std::getline to compute per-interval VWAP, traded
// volume and realised volatility (CSV report), and an exponential Hawkes
// model of trade arrivals is fitted by grid-search maximum likelihood.
//
// Usage: limit_order_book OUTDIR

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
#include <sys/stat.h>

namespace {

const int NMSG = 900000;
const int SNAP_EVERY = 1000;
const int HAWKES_GRID = 4;
const int SNAP_LEVELS = 5;
const int CHUNK = 8192;
const int64_t TICK = 1;                 // price in cents
const int64_t MID0 = 10000;
const int64_t INTERVAL_NS = 60000000000LL;

#pragma pack(push, 1)
struct Msg {
    char type;        // 'A' add, 'X' cancel, 'U' replace, 'M' market
    char side;        // 'B' or 'S'
    uint16_t pad;
    uint32_t qty;
    uint64_t id;
    int64_t price;
    int64_t ts;       // nanoseconds
};
#pragma pack(pop)

struct Order {
    uint64_t id;
    uint32_t qty;
};

using Level = std::deque<Order>;
using BidBook = std::map<int64_t, Level, std::greater<int64_t>>;
using AskBook = std::map<int64_t, Level>;

struct Book {
    BidBook bids;
    AskBook asks;
    std::unordered_map<uint64_t, std::pair<char, int64_t>> where;   // id -> (side, price)
    uint64_t trades = 0, volume = 0;
};

size_t generate_feed(const std::string &path)
{
    std::mt19937_64 rng(777);
    std::normal_distribution<double> drift(0.0, 1.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::geometric_distribution<int> depth(0.25);
    std::ofstream out(path, std::ios::binary);
    std::vector<uint64_t> live;
    live.reserve(NMSG);
    double mid = MID0;
    int64_t ts = 34200LL * 1000000000LL;
    uint64_t next_id = 1;
    for (int i = 0; i < NMSG; i++) {
        Msg m{};
        ts += 1000000 + (int64_t)(u(rng) * 40000000.0);
        mid += 0.05 * drift(rng);
        double r = u(rng);
        if (r < 0.50 || live.size() < 100) {
            m.type = 'A';
            m.side = u(rng) < 0.5 ? 'B' : 'S';
            int off = depth(rng);
            m.price = m.side == 'B' ? (int64_t)std::floor(mid) - off * TICK
                                    : (int64_t)std::ceil(mid) + off * TICK;
            m.qty = 100 * (1 + (uint32_t)(u(rng) * 9));
            m.id = next_id++;
            live.push_back(m.id);
        } else if (r < 0.85) {
            size_t k = (size_t)(u(rng) * live.size());
            m.type = u(rng) < 0.8 ? 'X' : 'U';
            m.id = live[k];
            m.qty = 100 * (1 + (uint32_t)(u(rng) * 5));
            m.side = 'B';
            if (m.type == 'X') {
                live[k] = live.back();
                live.pop_back();
            }
        } else {
            m.type = 'M';
            m.side = u(rng) < 0.5 ? 'B' : 'S';
            m.qty = 100 * (1 + (uint32_t)(u(rng) * 6));
            m.id = next_id++;
        }
        m.ts = ts;
        out.write(reinterpret_cast<const char *>(&m), sizeof m);
    }
    return (size_t)NMSG * sizeof(Msg);
}

template <class Ladder>
uint32_t sweep(Book &b, Ladder &opp, uint32_t qty, int64_t limit, bool is_buy, int64_t ts,
               std::ofstream &tape)
{
    while (qty > 0 && !opp.empty()) {
        auto lvl = opp.begin();
        int64_t px = lvl->first;
        if (limit != 0 && (is_buy ? px > limit : px < limit))
            break;
        Level &q = lvl->second;
        while (qty > 0 && !q.empty()) {
            Order &o = q.front();
            uint32_t fill = std::min(qty, o.qty);
            o.qty -= fill;
            qty -= fill;
            b.trades++;
            b.volume += fill;
            tape << ts << ' ' << (is_buy ? 'B' : 'S') << ' ' << px << ' ' << fill << ' '
                 << o.id << '\n';
            if (o.qty == 0) {
                b.where.erase(o.id);
                q.pop_front();
            }
        }
        if (q.empty())
            opp.erase(lvl);
    }
    return qty;
}

// Cancel (new_qty == 0) or reduce an order resting in one price level.
void adjust_level(Level &q, uint64_t id, uint32_t new_qty)
{
    for (size_t k = 0; k < q.size(); k++)
        if (q[k].id == id) {
            if (new_qty > 0 && new_qty < q[k].qty)
                q[k].qty = new_qty;              // size reduction keeps priority
            else
                q.erase(q.begin() + (std::ptrdiff_t)k);
            return;
        }
}

void remove_order(Book &b, uint64_t id, uint32_t new_qty)
{
    auto it = b.where.find(id);
    if (it == b.where.end())
        return;
    int64_t px = it->second.second;
    if (it->second.first == 'B') {
        auto l = b.bids.find(px);
        if (l != b.bids.end()) {
            adjust_level(l->second, id, new_qty);
            if (l->second.empty())
                b.bids.erase(l);
        }
    } else {
        auto l = b.asks.find(px);
        if (l != b.asks.end()) {
            adjust_level(l->second, id, new_qty);
            if (l->second.empty())
                b.asks.erase(l);
        }
    }
    if (new_qty == 0)
        b.where.erase(it);
}

void snapshot(const Book &b, int64_t ts, std::ofstream &snap)
{
    snap << ts;
    int n = 0;
    for (auto it = b.bids.begin(); it != b.bids.end() && n < SNAP_LEVELS; ++it, ++n) {
        uint64_t q = 0;
        for (const Order &o : it->second)
            q += o.qty;
        snap << " B" << it->first << ':' << q;
    }
    n = 0;
    for (auto it = b.asks.begin(); it != b.asks.end() && n < SNAP_LEVELS; ++it, ++n) {
        uint64_t q = 0;
        for (const Order &o : it->second)
            q += o.qty;
        snap << " A" << it->first << ':' << q;
    }
    snap << '\n';
}

void replay(const std::string &feed, const std::string &tape_path, const std::string &snap_path,
            Book &b)
{
    std::ifstream in(feed, std::ios::binary);
    std::ofstream tape(tape_path), snap(snap_path);
    std::vector<Msg> buf(CHUNK);
    long count = 0;
    while (in) {
        in.read(reinterpret_cast<char *>(buf.data()), (std::streamsize)(CHUNK * sizeof(Msg)));
        size_t n = (size_t)in.gcount() / sizeof(Msg);
        for (size_t i = 0; i < n; i++) {
            const Msg &m = buf[i];
            if (m.type == 'A') {
                bool buy = m.side == 'B';
                uint32_t left = buy ? sweep(b, b.asks, m.qty, m.price, true, m.ts, tape)
                                    : sweep(b, b.bids, m.qty, m.price, false, m.ts, tape);
                if (left > 0) {
                    if (buy)
                        b.bids[m.price].push_back({m.id, left});
                    else
                        b.asks[m.price].push_back({m.id, left});
                    b.where[m.id] = {m.side, m.price};
                }
            } else if (m.type == 'X') {
                remove_order(b, m.id, 0);
            } else if (m.type == 'U') {
                remove_order(b, m.id, m.qty);
            } else {
                if (m.side == 'B')
                    sweep(b, b.asks, m.qty, 0, true, m.ts, tape);
                else
                    sweep(b, b.bids, m.qty, 0, false, m.ts, tape);
            }
            if (++count % SNAP_EVERY == 0)
                snapshot(b, m.ts, snap);
        }
    }
}

int analyse_tape(const std::string &tape_path, const std::string &report_path,
                 std::vector<double> &times)
{
    std::ifstream in(tape_path);
    std::ofstream rep(report_path);
    rep << "interval_start_s,trades,volume,vwap,high,low,realised_vol_bp\n";
    std::string line;
    int64_t cur = -1;
    double pv = 0, vol = 0, hi = 0, lo = 1e18, lastpx = 0, rv = 0;
    long nt = 0;
    int intervals = 0;
    auto flush = [&]() {
        if (nt == 0)
            return;
        rep << std::fixed << std::setprecision(4) << cur * (INTERVAL_NS / 1e9) / 1.0 << ','
            << nt << ',' << (long)vol << ',' << pv / vol / 100.0 << ',' << hi / 100.0 << ','
            << lo / 100.0 << ',' << std::sqrt(rv) * 1e4 << '\n';
        intervals++;
    };
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        int64_t ts, px;
        char side;
        uint64_t qty, id;
        if (!(ls >> ts >> side >> px >> qty >> id))
            continue;
        int64_t bucket = ts / INTERVAL_NS;
        if (bucket != cur) {
            flush();
            cur = bucket;
            pv = vol = rv = 0;
            hi = 0;
            lo = 1e18;
            nt = 0;
        }
        if (lastpx > 0) {
            double r = std::log((double)px / lastpx);
            rv += r * r;
        }
        lastpx = (double)px;
        if (times.empty() || ts * 1e-9 > times.back())
            times.push_back(ts * 1e-9);
        pv += (double)px * qty;
        vol += (double)qty;
        hi = std::max(hi, (double)px);
        lo = std::min(lo, (double)px);
        nt++;
    }
    flush();
    return intervals;
}

// Exponential Hawkes process log-likelihood (recursive form), grid-search MLE.
double hawkes_loglik(const std::vector<double> &t, double mu, double alpha, double beta)
{
    double T = t.back() - t.front(), A = 0.0, ll = 0.0;
    for (size_t i = 0; i < t.size(); i++) {
        if (i > 0)
            A = std::exp(-beta * (t[i] - t[i - 1])) * (1.0 + A);
        ll += std::log(mu + alpha * A);
        ll -= alpha / beta * (1.0 - std::exp(-beta * (t.back() - t[i])));
    }
    return ll - mu * T;
}

void fit_hawkes(const std::vector<double> &t, const std::string &path)
{
    std::ofstream out(path);
    out << "# mu alpha beta loglik\n";
    double base = (double)t.size() / (t.back() - t.front());
    double best = -1e300, bm = 0, ba = 0, bb = 0;
    for (int i = 0; i < HAWKES_GRID; i++)
        for (int j = 0; j < HAWKES_GRID; j++)
            for (int k = 0; k < HAWKES_GRID; k++) {
                double beta = 0.5 * std::pow(3.0, k);
                double branching = 0.1 + 0.24 * j;
                double mu = base * (1.0 - branching) * (0.6 + 0.2 * i);
                double ll = hawkes_loglik(t, mu, branching * beta, beta);
                out << mu << ' ' << branching * beta << ' ' << beta << ' ' << ll << '\n';
                if (ll > best) {
                    best = ll; bm = mu; ba = branching * beta; bb = beta;
                }
            }
    out << "# best mu=" << bm << " alpha=" << ba << " beta=" << bb << " branching=" << ba / bb
        << " loglik=" << best << '\n';
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    std::string dir = argv[1];
    mkdir(dir.c_str(), 0755);
    size_t bytes = generate_feed(dir + "/feed.bin");
    Book book;
    replay(dir + "/feed.bin", dir + "/trades.txt", dir + "/depth_snapshots.txt", book);
    std::vector<double> times;
    int iv = analyse_tape(dir + "/trades.txt", dir + "/vwap_report.csv", times);
    fit_hawkes(times, dir + "/hawkes_fit.txt");
    std::cout << "feed_bytes=" << bytes << " trades=" << book.trades << " volume=" << book.volume
              << " resting=" << book.where.size() << " bid_levels=" << book.bids.size()
              << " ask_levels=" << book.asks.size() << " intervals=" << iv << "\n";
    return 0;
}
