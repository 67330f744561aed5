// ledger_rollup: a transaction ledger in CSV form is generated, together with
// a small currency-rate table; both are parsed back with std::ifstream /
// std::getline / std::istringstream, amounts are converted and aggregated per
// account, per category and per month (std::map, std::vector), ranked with
// std::sort, and written as a report with std::ofstream.  The report is read
// back and its totals must equal the totals computed while generating.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

constexpr int kRows = 400000;
constexpr int kAccounts = 900;
constexpr int kBadEvery = 1499;  // every k-th line is deliberately malformed
constexpr int kTopAccounts = 40;

const char *const kCategories[] = {"payroll", "rent", "travel", "hardware", "software",
                                   "cloud", "energy", "catering", "consulting", "training"};
const char *const kCurrencies[] = {"EUR", "USD", "GBP", "CHF", "JPY"};
const double kRates[] = {1.0, 0.92, 1.17, 1.04, 0.0061};

uint32_t next_rand(uint64_t &s) {
    s = s * 2862933555777941757ULL + 3037000493ULL;
    return static_cast<uint32_t>(s >> 32);
}

struct AccountSummary {
    long count = 0;
    double debit = 0.0;   // in EUR
    double credit = 0.0;  // in EUR
};

struct ParseResult {
    std::map<std::string, AccountSummary> accounts;
    std::map<std::string, std::vector<double>> by_category;
    std::map<int, double> by_month;  // yyyymm -> net EUR
    long good = 0, bad = 0;
    double total_eur = 0.0;
};

void write_rates(const std::string &path) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    out << "# currency,eur_per_unit\n";
    for (size_t i = 0; i < sizeof kRates / sizeof kRates[0]; ++i)
        out << kCurrencies[i] << ',' << std::setprecision(10) << kRates[i] << '\n';
}

std::map<std::string, double> load_rates(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::map<std::string, double> rates;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        std::string code, value;
        if (std::getline(ss, code, ',') && std::getline(ss, value)) rates[code] = std::stod(value);
    }
    return rates;
}

std::string account_name(int a) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "ACC-%05d", a * 7 + 1000);
    return buf;
}

// Generates the ledger and returns the expected EUR total of the good rows.
double generate_ledger(const std::string &path, long &good_rows, long &bad_rows) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    uint64_t rng = 20240229ULL;
    double total = 0.0;
    good_rows = bad_rows = 0;
    out << "date,account,category,amount,currency,memo\n";
    for (int r = 1; r <= kRows; ++r) {
        if (r % kBadEvery == 0) {
            out << "2023-13-xx,ACC-?????,unknown,not-a-number,EUR,corrupted export\n";
            ++bad_rows;
            continue;
        }
        int month = 1 + static_cast<int>(next_rand(rng) % 12), day = 1 + static_cast<int>(next_rand(rng) % 28);
        int acc = static_cast<int>((next_rand(rng) % kAccounts) * (next_rand(rng) % kAccounts) / kAccounts);
        int cat = static_cast<int>(next_rand(rng) % 10), cur = static_cast<int>(next_rand(rng) % 5);
        double scale = cur == 4 ? 150.0 : 1.0;
        double unit = next_rand(rng) / 4294967296.0;
        double amount = std::round((unit * 2000.0 - 1200.0) * scale * 100.0) / 100.0;
        out << "2023-" << std::setw(2) << std::setfill('0') << month << '-' << std::setw(2) << day
            << std::setfill(' ') << ',' << account_name(acc) << ',' << kCategories[cat] << ','
            << std::fixed << std::setprecision(2) << amount << ',' << kCurrencies[cur] << ",batch "
            << (r / 500) << '\n';
        total += amount * kRates[cur];
        ++good_rows;
    }
    return total;
}

bool parse_row(const std::string &line, const std::map<std::string, double> &rates, ParseResult &res) {
    std::istringstream ss(line);
    std::string date, account, category, amount_s, currency, memo;
    if (!std::getline(ss, date, ',') || !std::getline(ss, account, ',') || !std::getline(ss, category, ',') ||
        !std::getline(ss, amount_s, ',') || !std::getline(ss, currency, ','))
        return false;
    std::getline(ss, memo);
    double amount;
    int year, month;
    try {
        amount = std::stod(amount_s);
        year = std::stoi(date.substr(0, 4));
        month = std::stoi(date.substr(5, 2));
    } catch (const std::exception &) {
        return false;
    }
    if (month < 1 || month > 12) return false;
    auto rate = rates.find(currency);
    if (rate == rates.end()) return false;
    double eur = amount * rate->second;
    AccountSummary &acc = res.accounts[account];
    acc.count++;
    if (eur < 0) acc.debit -= eur;
    else acc.credit += eur;
    res.by_category[category].push_back(eur);
    res.by_month[year * 100 + month] += eur;
    res.total_eur += eur;
    return true;
}

ParseResult parse_ledger(const std::string &path, const std::map<std::string, double> &rates) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    ParseResult res;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        if (parse_row(line, rates, res)) ++res.good;
        else ++res.bad;
    }
    return res;
}

double percentile(std::vector<double> &v, double p) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    double pos = p * (v.size() - 1);
    size_t lo = static_cast<size_t>(pos);
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

void write_report(const std::string &path, ParseResult &res) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    out << std::fixed << std::setprecision(4);
    out << "# rows good " << res.good << " bad " << res.bad << "\n";
    out << "[categories]\n";
    for (auto &kv : res.by_category) {
        std::vector<double> &v = kv.second;
        double sum = 0.0;
        for (double x : v) sum += x;
        out << kv.first << ',' << v.size() << ',' << sum << ',' << percentile(v, 0.5) << ','
            << percentile(v, 0.95) << '\n';
    }
    out << "[months]\n";
    for (const auto &kv : res.by_month) out << kv.first << ',' << kv.second << '\n';
    // rank by net flow: sort (-net, name) pairs ascending = largest net first
    std::vector<std::pair<double, std::string>> ranked;
    ranked.reserve(res.accounts.size());
    for (const auto &kv : res.accounts) ranked.emplace_back(-(kv.second.credit - kv.second.debit), kv.first);
    std::sort(ranked.begin(), ranked.end());
    out << "[top_accounts]\n";
    for (int i = 0; i < kTopAccounts && i < static_cast<int>(ranked.size()); ++i)
        out << ranked[i].second << ',' << res.accounts[ranked[i].second].count << ',' << -ranked[i].first << '\n';
    out << "[accounts]\n";
    for (const auto &kv : res.accounts)
        out << kv.first << ',' << kv.second.count << ',' << kv.second.debit << ',' << kv.second.credit << '\n';
}

// Re-reads the [accounts] section and returns the summed net and row count.
double verify_report(const std::string &path, long &rows) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::string line, section;
    double net = 0.0;
    rows = 0;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '[') {
            section = line;
            continue;
        }
        if (section != "[accounts]") continue;
        std::istringstream ss(line);
        std::string name, cnt, deb, cre;
        std::getline(ss, name, ',');
        std::getline(ss, cnt, ',');
        std::getline(ss, deb, ',');
        std::getline(ss, cre, ',');
        rows += std::stol(cnt);
        net += std::stod(cre) - std::stod(deb);
    }
    return net;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    std::string dir = argv[1];
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        std::cerr << "ledger_rollup: cannot create " << dir << "\n";
        return 1;
    }
    try {
        write_rates(dir + "/rates.csv");
        long good = 0, bad = 0;
        double expect_total = generate_ledger(dir + "/ledger.csv", good, bad);
        auto rates = load_rates(dir + "/rates.csv");
        ParseResult res = parse_ledger(dir + "/ledger.csv", rates);
        write_report(dir + "/rollup.txt", res);
        long rows = 0;
        double net = verify_report(dir + "/rollup.txt", rows);
        double tol = 1e-6 * (1.0 + std::fabs(expect_total)) + 1e-4 * res.accounts.size();
        if (res.good != good || res.bad != bad || rows != good || std::fabs(res.total_eur - expect_total) > tol ||
            std::fabs(net - expect_total) > tol) {
            std::cerr << "ledger_rollup: check FAILED (good " << res.good << "/" << good << ", total "
                      << res.total_eur << " vs " << expect_total << ", report " << net << ")\n";
            return 1;
        }
        std::cout << "ledger_rollup: ok (" << good << " rows, " << res.accounts.size() << " accounts)\n";
    } catch (const std::exception &e) {
        std::cerr << "ledger_rollup: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
