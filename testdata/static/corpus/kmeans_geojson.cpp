// Clusters synthetic geotagged observations with k-means on the sphere.
// Points are written to and parsed back from CSV, every iteration appends a
// JSON progress line, and the result is exported as GeoJSON plus a summary.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <sys/stat.h>

namespace {

constexpr int kPoints = 300000;
constexpr int kTrueCenters = 14;
constexpr int kClusters = 12;
constexpr int kMaxIter = 30;
constexpr double kPi = 3.14159265358979323846;

struct Obs {
    long id;
    double lat, lon;
    double value;
    std::string station;
};

struct Vec3 {
    double x, y, z;
};

Vec3 to_unit(double lat, double lon)
{
    double la = lat * kPi / 180.0, lo = lon * kPi / 180.0;
    return {std::cos(la) * std::cos(lo), std::cos(la) * std::sin(lo), std::sin(la)};
}

std::vector<Obs> generate_observations(std::mt19937_64 &rng)
{
    std::uniform_real_distribution<double> ulat(-55.0, 65.0), ulon(-170.0, 170.0);
    std::normal_distribution<double> g(0.0, 1.0);
    std::array<std::array<double, 3>, kTrueCenters> c{};
    for (auto &cc : c)
        cc = {ulat(rng), ulon(rng), 1.0 + 6.0 * std::abs(g(rng))};
    std::vector<Obs> obs;
    obs.reserve(kPoints);
    for (int i = 0; i < kPoints; ++i) {
        const auto &cc = c[static_cast<std::size_t>(rng() % kTrueCenters)];
        double lat = std::clamp(cc[0] + cc[2] * g(rng), -89.9, 89.9);
        double lon = cc[1] + cc[2] * g(rng) / std::cos(lat * kPi / 180.0);
        lon = std::fmod(lon + 540.0, 360.0) - 180.0;
        std::ostringstream st;
        st << "ST" << std::setw(5) << std::setfill('0') << (rng() % 40000);
        obs.push_back({i, lat, lon, 15.0 + 10.0 * g(rng), st.str()});
    }
    return obs;
}

void write_csv(const std::string &path, const std::vector<Obs> &obs)
{
    std::ofstream out(path);
    if (!out)
        throw std::runtime_error("cannot create " + path);
    out << "id,station,lat,lon,value\n" << std::setprecision(9);
    for (const Obs &o : obs)
        out << o.id << ',' << o.station << ',' << o.lat << ',' << o.lon << ','
            << o.value << '\n';
    if (!out)
        throw std::runtime_error("write failed on " + path);
}

std::vector<Obs> read_csv(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::string line, field;
    std::getline(in, line); // header
    std::vector<Obs> obs;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        Obs o;
        std::getline(ss, field, ',');
        o.id = std::stol(field);
        std::getline(ss, o.station, ',');
        std::getline(ss, field, ',');
        o.lat = std::stod(field);
        std::getline(ss, field, ',');
        o.lon = std::stod(field);
        std::getline(ss, field, ',');
        o.value = std::stod(field);
        obs.push_back(std::move(o));
    }
    return obs;
}

// Assign each point to the nearest centroid by great-circle (max dot product).
double assign(const std::vector<Vec3> &pts, const std::vector<Vec3> &cent,
              std::vector<int> &label)
{
    double cost = 0.0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        double best = -2.0;
        int bk = 0;
        for (int k = 0; k < static_cast<int>(cent.size()); ++k) {
            double d = pts[i].x * cent[k].x + pts[i].y * cent[k].y + pts[i].z * cent[k].z;
            if (d > best) {
                best = d;
                bk = k;
            }
        }
        label[i] = bk;
        cost += std::acos(std::min(1.0, best));
    }
    return cost;
}

double update_centroids(const std::vector<Vec3> &pts, const std::vector<int> &label,
                        std::vector<Vec3> &cent, std::vector<int> &counts)
{
    std::vector<Vec3> acc(cent.size(), {0, 0, 0});
    std::fill(counts.begin(), counts.end(), 0);
    for (std::size_t i = 0; i < pts.size(); ++i) {
        Vec3 &a = acc[static_cast<std::size_t>(label[i])];
        a.x += pts[i].x;
        a.y += pts[i].y;
        a.z += pts[i].z;
        counts[static_cast<std::size_t>(label[i])]++;
    }
    double shift = 0.0;
    for (std::size_t k = 0; k < cent.size(); ++k) {
        if (counts[k] == 0)
            continue;
        double n = std::sqrt(acc[k].x * acc[k].x + acc[k].y * acc[k].y + acc[k].z * acc[k].z);
        Vec3 c{acc[k].x / n, acc[k].y / n, acc[k].z / n};
        shift = std::max(shift, std::acos(std::min(1.0, c.x * cent[k].x + c.y * cent[k].y +
                                                             c.z * cent[k].z)));
        cent[k] = c;
    }
    return shift;
}

void to_latlon(const Vec3 &v, double &lat, double &lon)
{
    lat = std::asin(std::clamp(v.z, -1.0, 1.0)) * 180.0 / kPi;
    lon = std::atan2(v.y, v.x) * 180.0 / kPi;
}

std::string json_escape(const std::string &s)
{
    std::string r;
    r.reserve(s.size() + 2);
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            r += '\\';
        r += ch;
    }
    return r;
}

void emit_progress(std::ofstream &log, int iter, double cost, double shift,
                   const std::vector<Vec3> &cent, const std::vector<int> &counts)
{
    std::ostringstream js;
    js << std::setprecision(8) << "{\"iter\":" << iter << ",\"cost_rad\":" << cost
       << ",\"max_shift_rad\":" << shift << ",\"centroids\":[";
    for (std::size_t k = 0; k < cent.size(); ++k) {
        double lat, lon;
        to_latlon(cent[k], lat, lon);
        js << (k ? "," : "") << "{\"k\":" << k << ",\"lat\":" << lat << ",\"lon\":" << lon
           << ",\"n\":" << counts[k] << '}';
    }
    js << "]}\n";
    log << js.str();
    log.flush();
}

void emit_geojson(const std::string &path, const std::vector<Obs> &obs,
                  const std::vector<int> &label)
{
    std::ofstream out(path);
    if (!out)
        throw std::runtime_error("cannot create " + path);
    out << "{\"type\":\"FeatureCollection\",\"features\":[\n";
    for (std::size_t i = 0; i < obs.size(); ++i) {
        std::ostringstream f;
        f << std::setprecision(7) << "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\","
          << "\"coordinates\":[" << obs[i].lon << ',' << obs[i].lat << "]},"
          << "\"properties\":{\"id\":" << obs[i].id << ",\"station\":\""
          << json_escape(obs[i].station) << "\",\"value\":" << obs[i].value
          << ",\"cluster\":" << label[i] << "}}";
        out << f.str() << (i + 1 < obs.size() ? ",\n" : "\n");
    }
    out << "]}\n";
    if (!out)
        throw std::runtime_error("write failed on " + path);
}

void emit_summary(const std::string &path, const std::vector<Obs> &obs,
                  const std::vector<int> &label, const std::vector<Vec3> &cent)
{
    std::size_t K = cent.size();
    std::vector<double> mean(K, 0.0), m2(K, 0.0), spread(K, 0.0);
    std::vector<long> n(K, 0);
    for (std::size_t i = 0; i < obs.size(); ++i) {
        std::size_t k = static_cast<std::size_t>(label[i]);
        n[k]++;
        double d = obs[i].value - mean[k];
        mean[k] += d / n[k];
        m2[k] += d * (obs[i].value - mean[k]);
        Vec3 p = to_unit(obs[i].lat, obs[i].lon);
        spread[k] += 6371.0 * std::acos(std::min(1.0, p.x * cent[k].x + p.y * cent[k].y +
                                                           p.z * cent[k].z));
    }
    std::ofstream out(path);
    if (!out)
        throw std::runtime_error("cannot create " + path);
    out << "{\n  \"clusters\": [\n" << std::setprecision(6);
    for (std::size_t k = 0; k < K; ++k) {
        double lat, lon;
        to_latlon(cent[k], lat, lon);
        out << "    {\"k\": " << k << ", \"lat\": " << lat << ", \"lon\": " << lon
            << ", \"n\": " << n[k] << ", \"value_mean\": " << mean[k]
            << ", \"value_std\": " << (n[k] > 1 ? std::sqrt(m2[k] / (n[k] - 1)) : 0.0)
            << ", \"mean_dist_km\": " << (n[k] ? spread[k] / n[k] : 0.0) << "}"
            << (k + 1 < K ? ",\n" : "\n");
    }
    out << "  ]\n}\n";
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        std::cerr << "kmeans_geojson: cannot create " << dir << '\n';
        return 1;
    }
    try {
        std::mt19937_64 rng(777);
        write_csv(dir + "/observations.csv", generate_observations(rng));
        std::vector<Obs> obs = read_csv(dir + "/observations.csv");
        if (obs.size() != static_cast<std::size_t>(kPoints))
            throw std::runtime_error("unexpected number of rows in observations.csv");

        std::vector<Vec3> pts;
        pts.reserve(obs.size());
        for (const Obs &o : obs)
            pts.push_back(to_unit(o.lat, o.lon));

        // k-means++ style seeding with a fixed generator
        std::vector<Vec3> cent;
        cent.push_back(pts[rng() % pts.size()]);
        std::vector<double> dmin(pts.size(), 1e30);
        while (cent.size() < static_cast<std::size_t>(kClusters)) {
            double total = 0.0;
            for (std::size_t i = 0; i < pts.size(); ++i) {
                const Vec3 &c = cent.back();
                double d = 1.0 - (pts[i].x * c.x + pts[i].y * c.y + pts[i].z * c.z);
                dmin[i] = std::min(dmin[i], d);
                total += dmin[i];
            }
            double r = std::uniform_real_distribution<double>(0.0, total)(rng);
            std::size_t pick = 0;
            for (double acc = 0.0; pick < pts.size(); ++pick) {
                acc += dmin[pick];
                if (acc >= r)
                    break;
            }
            cent.push_back(pts[std::min(pick, pts.size() - 1)]);
        }

        std::vector<int> label(pts.size(), 0), counts(kClusters, 0);
        std::ofstream log(dir + "/progress.jsonl");
        if (!log)
            throw std::runtime_error("cannot create progress.jsonl");
        int iter = 0;
        for (; iter < kMaxIter; ++iter) {
            double cost = assign(pts, cent, label);
            double shift = update_centroids(pts, label, cent, counts);
            emit_progress(log, iter, cost, shift, cent, counts);
            if (shift < 1e-7)
                break;
        }
        assign(pts, cent, label);
        emit_geojson(dir + "/clusters.geojson", obs, label);
        emit_summary(dir + "/clusters_summary.json", obs, label, cent);
        std::cout << obs.size() << " points, " << kClusters << " clusters, " << iter
                  << " iterations\n";
    } catch (const std::exception &e) {
        std::cerr << "kmeans_geojson: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
