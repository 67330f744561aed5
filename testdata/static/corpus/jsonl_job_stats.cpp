// Batch-scheduler accounting analysis: emits a synthetic JSON-lines job log, parses it
// with a small flat-object JSON parser, aggregates per-queue and per-user statistics,
// writes CSV summaries, and caches the parsed table in a columnar binary file.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kJobs = 300000;
constexpr int kUsers = 240;
const char *kQueues[] = {"debug", "short", "normal", "long", "gpu", "bigmem"};
const char *kStates[] = {"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED"};

struct Job {
    int64_t id = 0;
    std::string user, queue, state;
    int nodes = 0;
    double submit = 0, start = 0, end = 0, mem_gb = 0;
};

void emit_log(const fs::path &path)
{
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot create " + path.string());
    std::mt19937_64 rng(31337);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::lognormal_distribution<double> runtime(7.0, 1.3);
    std::exponential_distribution<double> gap(1.0 / 20.0);
    double t = 1.7e9;
    out << std::fixed << std::setprecision(3);
    for (int i = 0; i < kJobs; i++) {
        t += gap(rng);
        int q = static_cast<int>(u(rng) * 6);
        int user = static_cast<int>(std::pow(u(rng), 2.0) * kUsers);
        int nodes = 1 << static_cast<int>(u(rng) * (q == 0 ? 2 : 8));
        double wait = gap(rng) * (1.0 + nodes / 8.0) * (q == 3 ? 6.0 : 1.0);
        double run = std::min(runtime(rng), q == 0 ? 1800.0 : 86400.0);
        double r = u(rng);
        int st = r < 0.86 ? 0 : r < 0.93 ? 1 : r < 0.97 ? 2 : 3;
        out << "{\"job_id\": " << 5000000 + i << ", \"user\": \"u" << std::setw(4) << std::setfill('0') << user
            << std::setfill(' ') << "\", \"queue\": \"" << kQueues[q] << "\", \"nodes\": " << nodes
            << ", \"submit\": " << t << ", \"start\": " << t + wait << ", \"end\": " << t + wait + run
            << ", \"mem_gb\": " << 2.0 * nodes * (0.5 + u(rng)) << ", \"state\": \"" << kStates[st] << "\"}\n";
    }
}

// Parses one flat JSON object with string and number values.
bool parse_line(const std::string &s, Job &job)
{
    std::size_t i = 0, n = s.size();
    auto skip = [&] { while (i < n && (s[i] == ' ' || s[i] == '\t')) i++; };
    auto read_string = [&](std::string &dst) {
        if (s[i] != '"') return false;
        std::size_t j = s.find('"', i + 1);
        if (j == std::string::npos) return false;
        dst.assign(s, i + 1, j - i - 1);
        i = j + 1;
        return true;
    };
    skip();
    if (i >= n || s[i] != '{') return false;
    i++;
    std::string key, sval;
    while (true) {
        skip();
        if (i < n && s[i] == '}') return true;
        if (!read_string(key)) return false;
        skip();
        if (i >= n || s[i] != ':') return false;
        i++;
        skip();
        if (i < n && s[i] == '"') {
            if (!read_string(sval)) return false;
            if (key == "user") job.user = sval;
            else if (key == "queue") job.queue = sval;
            else if (key == "state") job.state = sval;
        } else {
            char *endp = nullptr;
            double v = std::strtod(s.c_str() + i, &endp);
            if (endp == s.c_str() + i) return false;
            i = static_cast<std::size_t>(endp - s.c_str());
            if (key == "job_id") job.id = static_cast<int64_t>(v);
            else if (key == "nodes") job.nodes = static_cast<int>(v);
            else if (key == "submit") job.submit = v;
            else if (key == "start") job.start = v;
            else if (key == "end") job.end = v;
            else if (key == "mem_gb") job.mem_gb = v;
        }
        skip();
        if (i < n && s[i] == ',') i++;
    }
}

std::vector<Job> load_log(const fs::path &path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path.string());
    std::vector<Job> jobs;
    jobs.reserve(kJobs);
    std::string line;
    long lineno = 0;
    while (std::getline(in, line)) {
        lineno++;
        Job j;
        if (!parse_line(line, j)) throw std::runtime_error("parse error on line " + std::to_string(lineno));
        jobs.push_back(std::move(j));
    }
    return jobs;
}

double percentile(std::vector<double> v, double q)
{
    if (v.empty()) return 0.0;
    std::size_t k = static_cast<std::size_t>(q * (v.size() - 1));
    std::nth_element(v.begin(), v.begin() + k, v.end());
    return v[k];
}

void queue_summary(const std::vector<Job> &jobs, const fs::path &path)
{
    std::map<std::string, std::vector<double>> waits, node_hours;
    std::map<std::string, int> failed;
    for (const auto &j : jobs) {
        waits[j.queue].push_back(j.start - j.submit);
        node_hours[j.queue].push_back(j.nodes * (j.end - j.start) / 3600.0);
        if (j.state != "COMPLETED") failed[j.queue]++;
    }
    std::ofstream out(path);
    out << "queue,jobs,wait_p50,wait_p90,wait_p99,node_hours,fail_frac\n";
    for (const auto &[q, w] : waits) {
        double nh = 0;
        for (double x : node_hours[q]) nh += x;
        out << q << ',' << w.size() << ',' << percentile(w, 0.5) << ',' << percentile(w, 0.9) << ','
            << percentile(w, 0.99) << ',' << nh << ',' << double(failed[q]) / w.size() << '\n';
    }
}

// Least-squares fit of log(wait) against log2(nodes) per user with enough jobs.
void user_summary(const std::vector<Job> &jobs, const fs::path &path)
{
    struct Acc { double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, mem = 0; };
    std::map<std::string, Acc> acc;
    for (const auto &j : jobs) {
        Acc &a = acc[j.user];
        double x = std::log2(static_cast<double>(j.nodes));
        double y = std::log(1.0 + j.start - j.submit);
        a.n += 1; a.sx += x; a.sy += y; a.sxx += x * x; a.sxy += x * y; a.mem += j.mem_gb;
    }
    std::ofstream out(path);
    out << "user,jobs,slope,intercept,mean_mem_gb\n";
    for (const auto &[u, a] : acc) {
        double det = a.n * a.sxx - a.sx * a.sx;
        double slope = det > 1e-12 ? (a.n * a.sxy - a.sx * a.sy) / det : 0.0;
        double icpt = (a.sy - slope * a.sx) / a.n;
        out << u << ',' << a.n << ',' << slope << ',' << icpt << ',' << a.mem / a.n << '\n';
    }
}

// Sweep over start/end events to get busy node counts in fixed time bins.
void utilization_timeline(const std::vector<Job> &jobs, const fs::path &path, int nbins)
{
    std::vector<std::pair<double, int>> ev;
    ev.reserve(2 * jobs.size());
    double t0 = 1e300, t1 = -1e300;
    for (const auto &j : jobs) {
        ev.emplace_back(j.start, j.nodes);
        ev.emplace_back(j.end, -j.nodes);
        t0 = std::min(t0, j.start);
        t1 = std::max(t1, j.end);
    }
    std::sort(ev.begin(), ev.end());
    double width = (t1 - t0) / nbins;
    std::vector<double> busy(nbins, 0.0);
    long level = 0;
    double last = t0;
    for (const auto &[t, d] : ev) {
        // distribute the interval [last, t) at the current level over bins
        double a = last;
        while (a < t) {
            int b = std::min(nbins - 1, static_cast<int>((a - t0) / width));
            double edge = std::min(t, t0 + (b + 1) * width);
            if (edge <= a) edge = t;
            busy[b] += level * (edge - a);
            a = edge;
        }
        level += d;
        last = t;
    }
    std::ofstream out(path);
    out << "bin_start,mean_busy_nodes\n" << std::setprecision(10);
    for (int b = 0; b < nbins; b++) out << t0 + b * width << ',' << busy[b] / width << '\n';
}

template <typename T>
void put_column(std::ofstream &out, const std::vector<T> &col)
{
    uint64_t n = col.size();
    out.write(reinterpret_cast<const char *>(&n), sizeof n);
    out.write(reinterpret_cast<const char *>(col.data()), static_cast<std::streamsize>(n * sizeof(T)));
}

template <typename T>
std::vector<T> get_column(std::ifstream &in)
{
    uint64_t n = 0;
    in.read(reinterpret_cast<char *>(&n), sizeof n);
    std::vector<T> col(n);
    in.read(reinterpret_cast<char *>(col.data()), static_cast<std::streamsize>(n * sizeof(T)));
    if (!in) throw std::runtime_error("truncated column cache");
    return col;
}

void write_cache(const std::vector<Job> &jobs, const fs::path &path)
{
    std::vector<int64_t> id;
    std::vector<int32_t> nodes;
    std::vector<double> submit, start, end;
    for (const auto &j : jobs) {
        id.push_back(j.id); nodes.push_back(j.nodes);
        submit.push_back(j.submit); start.push_back(j.start); end.push_back(j.end);
    }
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error("cannot create cache");
    put_column(out, id);
    put_column(out, nodes);
    put_column(out, submit);
    put_column(out, start);
    put_column(out, end);
}

bool verify_cache(const std::vector<Job> &jobs, const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    auto id = get_column<int64_t>(in);
    auto nodes = get_column<int32_t>(in);
    auto submit = get_column<double>(in);
    auto start = get_column<double>(in);
    auto end = get_column<double>(in);
    if (id.size() != jobs.size()) return false;
    for (std::size_t i = 0; i < jobs.size(); i++)
        if (id[i] != jobs[i].id || nodes[i] != jobs[i].nodes || submit[i] != jobs[i].submit ||
            start[i] != jobs[i].start || end[i] != jobs[i].end)
            return false;
    return true;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    try {
        fs::path dir(argv[1]);
        fs::create_directories(dir);
        emit_log(dir / "jobs.jsonl");
        auto jobs = load_log(dir / "jobs.jsonl");
        if (jobs.size() != static_cast<std::size_t>(kJobs)) throw std::runtime_error("job count mismatch");
        queue_summary(jobs, dir / "queues.csv");
        user_summary(jobs, dir / "users.csv");
        utilization_timeline(jobs, dir / "utilization.csv", 4000);
        write_cache(jobs, dir / "jobs.colcache");
        if (!verify_cache(jobs, dir / "jobs.colcache")) throw std::runtime_error("column cache mismatch");
        std::cout << jobs.size() << " jobs analysed\n";
    } catch (const std::exception &ex) {
        std::cerr << "jsonl_job_stats: " << ex.what() << '\n';
        return 1;
    }
    return 0;
}
