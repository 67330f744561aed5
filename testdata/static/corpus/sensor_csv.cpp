// Weather-station data reduction.  A synthetic CSV export of hourly sensor
// readings is generated first (standing in for the logger dump), then parsed
// line by line and reduced to per-station statistics, which are written to a
// small summary table.  The reduction is checked against the totals the
// generator kept while writing.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <stdexcept>
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

struct StationStats {
    long count = 0;
    double t_mean = 0.0, t_m2 = 0.0; // Welford accumulators for temperature
    double t_min = 1e300, t_max = -1e300;
    double p_sum = 0.0, rain_sum = 0.0;

    void add(double temp, double pres, double rain)
    {
        ++count;
        double d = temp - t_mean;
        t_mean += d / count;
        t_m2 += d * (temp - t_mean);
        t_min = std::min(t_min, temp);
        t_max = std::max(t_max, temp);
        p_sum += pres;
        rain_sum += rain;
    }
};

struct GeneratorTotals {
    std::map<std::string, long> count;
    std::map<std::string, long long> rain_tenths; // exact integer totals
};

static std::string station_name(int s)
{
    static const char *regions[] = {"ALP", "CST", "PLN", "VAL", "MTN", "LKE"};
    std::ostringstream os;
    os << regions[s % 6] << '-' << std::setw(3) << std::setfill('0') << s;
    return os.str();
}

GeneratorTotals generate_csv(const std::string &path, int nrows, int nstations)
{
    GeneratorTotals tot;
    std::ofstream out(path);
    if (!out)
        throw std::runtime_error("cannot create " + path);
    out << "timestamp,station,temperature_C,pressure_hPa,rain_mm,status\n";
    std::uint64_t state = 0x2545f4914f6cdd1dull;
    std::vector<std::string> names;
    for (int s = 0; s < nstations; ++s)
        names.push_back(station_name(s));
    out << std::fixed;
    for (int r = 0; r < nrows; ++r) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        int s = static_cast<int>(state % nstations);
        long hour = r / nstations;
        double temp = 12.0 + 0.05 * (s % 40) - 8.0 * std::cos(2.0 * M_PI * hour / 24.0) +
                      0.001 * static_cast<double>((state >> 20) % 3000) - 1.5;
        double pres = 1013.0 - 0.9 * (s % 50) + 0.01 * static_cast<double>((state >> 32) % 900);
        long rain_tenths = ((state >> 44) % 7 == 0) ? static_cast<long>((state >> 50) % 120) : 0;
        const std::string &name = names[s];
        out << 1700000000L + 3600L * hour << ',' << name << ',' << std::setprecision(3) << temp << ','
            << std::setprecision(2) << pres << ',' << std::setprecision(1) << rain_tenths / 10.0 << ','
            << (rain_tenths > 100 ? "WARN" : "OK") << '\n';
        tot.count[name]++;
        tot.rain_tenths[name] += rain_tenths;
    }
    out.close();
    if (!out)
        throw std::runtime_error("write failed for " + path);
    return tot;
}

static bool parse_record(const std::string &line, std::string &station, double &temp, double &pres,
                         double &rain)
{
    std::stringstream ss(line);
    std::string field;
    std::vector<std::string> f;
    while (std::getline(ss, field, ','))
        f.push_back(field);
    if (f.size() != 6)
        return false;
    station = f[1];
    try {
        temp = std::stod(f[2]);
        pres = std::stod(f[3]);
        rain = std::stod(f[4]);
    } catch (const std::exception &) {
        return false;
    }
    return true;
}

std::map<std::string, StationStats> reduce_csv(const std::string &path, long &bad_lines)
{
    std::map<std::string, StationStats> stats;
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::string line, station;
    double temp, pres, rain;
    bad_lines = 0;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        if (!parse_record(line, station, temp, pres, rain)) {
            ++bad_lines;
            continue;
        }
        stats[station].add(temp, pres, rain);
    }
    return stats;
}

void write_summary(const std::string &path, const std::map<std::string, StationStats> &stats)
{
    std::ofstream out(path);
    out << "station,n,t_mean,t_sd,t_min,t_max,p_mean,rain_total\n" << std::fixed << std::setprecision(4);
    for (const auto &kv : stats) {
        const StationStats &s = kv.second;
        double sd = s.count > 1 ? std::sqrt(s.t_m2 / (s.count - 1)) : 0.0;
        out << kv.first << ',' << s.count << ',' << s.t_mean << ',' << sd << ',' << s.t_min << ','
            << s.t_max << ',' << s.p_sum / s.count << ',' << s.rain_sum << '\n';
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 1;
    }
    const std::string dir = argv[1];
    const int nrows = 300000, nstations = 180;
    try {
        GeneratorTotals tot = generate_csv(dir + "/readings.csv", nrows, nstations);
        long bad = 0;
        auto stats = reduce_csv(dir + "/readings.csv", bad);
        write_summary(dir + "/station_summary.csv", stats);

        long total = 0;
        int mismatches = 0;
        for (const auto &kv : stats) {
            total += kv.second.count;
            if (tot.count[kv.first] != kv.second.count)
                ++mismatches;
            double expect_rain = tot.rain_tenths[kv.first] / 10.0;
            if (std::fabs(kv.second.rain_sum - expect_rain) > 1e-6 * (1.0 + expect_rain))
                ++mismatches;
        }
        if (bad != 0 || total != nrows || stats.size() != tot.count.size() || mismatches) {
            std::cerr << "reduction mismatch: bad=" << bad << " total=" << total
                      << " stations=" << stats.size() << " mismatches=" << mismatches << "\n";
            return 1;
        }
        const auto &first = stats.begin()->second;
        std::cout << stats.size() << " stations, " << total << " readings; " << stats.begin()->first
                  << " mean T " << first.t_mean << "\n";
    } catch (const std::exception &e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}
