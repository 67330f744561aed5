// build_dep_scheduler.cpp
//
// A toy build-system front end.  It lays out a synthetic multi-module C
// project (hundreds of .c/.h files with #include graphs and "// cost:"
// annotations) plus a project.cfg, then scans the tree with
// std::filesystem and std::regex, resolves include paths, computes
// transitive header closures with bitsets, and simulates a parallel build
// (critical-path list scheduling on N workers).  It emits a ninja-style
// build file, a schedule log and a binary dependency database.  In a
// second pass a few headers are edited and their mtimes bumped; the tree is
// re-scanned, compared against the saved database, the dirty set is
// rebuilt (object stubs are written into build/) and re-scheduled.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <queue>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

struct Config {
    int modules = 0, sources_per_module = 0, headers_per_module = 0, jobs = 1;
    double header_parse_cost = 0, link_cost = 0;
    unsigned seed = 1;
};

struct SourceFile {
    std::string rel;                   // path relative to src/
    bool header = false;
    int module = 0;
    int lines = 0;
    int cost = 0;
    std::vector<std::string> inc_names;
    std::vector<int> inc;              // resolved ids
    std::vector<std::pair<std::string, int>> symbols; // declared functions (name, line)
    fs::file_time_type mtime;
    uintmax_t size = 0;
};

using Bits = std::vector<uint64_t>;

// ------------------------------------------------------------------ setup
static void write_config(const fs::path &p)
{
    std::ofstream o(p);
    o << "# toy project description\n"
      << "modules = 16\nsources_per_module = 40\nheaders_per_module = 20\n"
      << "jobs = 6\nheader_parse_cost = 0.015\nlink_cost = 40\nseed = 20240611\n";
}

static Config read_config(const fs::path &p)
{
    std::ifstream in(p);
    Config c;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        std::string k = line.substr(0, eq), v = line.substr(eq + 1);
        k.erase(k.find_last_not_of(' ') + 1);
        std::istringstream vs(v);
        if (k == "modules") vs >> c.modules;
        else if (k == "sources_per_module") vs >> c.sources_per_module;
        else if (k == "headers_per_module") vs >> c.headers_per_module;
        else if (k == "jobs") vs >> c.jobs;
        else if (k == "header_parse_cost") vs >> c.header_parse_cost;
        else if (k == "link_cost") vs >> c.link_cost;
        else if (k == "seed") vs >> c.seed;
    }
    return c;
}

static std::string mod_name(int m) { return "mod" + std::to_string(m); }

static void create_source_tree(const fs::path &src, const Config &c)
{
    std::mt19937 rng(c.seed);
    std::vector<std::string> all_headers;
    for (int m = 0; m < c.modules; m++) {
        fs::create_directories(src / mod_name(m) / "include");
        for (int h = 0; h < c.headers_per_module; h++) {
            std::string rel = mod_name(m) + "/include/" + mod_name(m) + "_h" + std::to_string(h) + ".h";
            std::ofstream o(src / rel);
            std::string guard = mod_name(m) + "_H" + std::to_string(h);
            o << "#ifndef " << guard << "\n#define " << guard << "\n";
            int ninc = all_headers.empty() ? 0 : (int)(rng() % 5);
            for (int k = 0; k < ninc; k++) {
                // bias towards recent headers (same or previous module)
                size_t lo = all_headers.size() > 60 ? all_headers.size() - 60 : 0;
                size_t pick = lo + rng() % (all_headers.size() - lo);
                o << "#include \"" << all_headers[pick] << "\"\n";
            }
            int decls = 40 + (int)(rng() % 100);
            for (int d = 0; d < decls; d++)
                o << "int " << mod_name(m) << "_fn" << h << "_" << d << "(int a, const char *b, double c);\n";
            o << "#endif /* " << guard << " */\n";
            all_headers.push_back(rel);
        }
        for (int s = 0; s < c.sources_per_module; s++) {
            std::string rel = mod_name(m) + "/" + mod_name(m) + "_s" + std::to_string(s) + ".c";
            std::ofstream o(src / rel);
            o << "/* generated translation unit */\n";
            o << "// cost: " << 20 + rng() % 300 << "\n";
            o << "#include <stdio.h>\n#include <stdlib.h>\n";
            int ninc = 2 + (int)(rng() % 9);
            for (int k = 0; k < ninc; k++) {
                size_t hi = (size_t)(m + 1) * c.headers_per_module;
                o << "#include \"" << all_headers[rng() % hi] << "\"\n";
            }
            int body = 100 + (int)(rng() % 200);
            for (int b = 0; b < body; b++)
                o << "    acc += table_" << b % 17 << "[i * " << rng() % 97 << "] ^ 0x" << std::hex << rng() % 65536
                  << std::dec << ";\n";
        }
    }
}

// ------------------------------------------------------------------ scanning
static std::vector<SourceFile> scan_tree(const fs::path &src)
{
    static const std::regex inc_re(R"(^\s*#\s*include\s*\"([^\"]+)\")");
    static const std::regex cost_re(R"(^//\s*cost:\s*([0-9]+))");
    static const std::regex decl_re(R"(^\s*(?:static\s+|extern\s+)?(?:const\s+)?(int|void|double|char|float|long)\s+\**(\w+)\s*\(([^)]*)\)\s*;)");
    std::vector<SourceFile> files;
    std::vector<fs::path> paths;
    for (const auto &e : fs::recursive_directory_iterator(src))
        if (e.is_regular_file() && (e.path().extension() == ".c" || e.path().extension() == ".h"))
            paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    for (const auto &p : paths) {
        SourceFile f;
        f.rel = fs::relative(p, src).generic_string();
        f.header = p.extension() == ".h";
        f.module = std::stoi(f.rel.substr(3, f.rel.find('/') - 3));
        f.mtime = fs::last_write_time(p);
        f.size = fs::file_size(p);
        std::ifstream in(p);
        std::string line;
        std::smatch m;
        while (std::getline(in, line)) {
            f.lines++;
            if (std::regex_search(line, m, inc_re)) f.inc_names.push_back(m[1]);
            else if (std::regex_search(line, m, cost_re)) f.cost = std::stoi(m[1]);
            else if (std::regex_search(line, m, decl_re)) f.symbols.emplace_back(m[2], f.lines);
        }
        files.push_back(std::move(f));
    }
    std::unordered_map<std::string, int> id;
    for (size_t i = 0; i < files.size(); i++) id[files[i].rel] = (int)i;
    for (auto &f : files)
        for (auto &n : f.inc_names) {
            auto it = id.find(n);
            if (it != id.end()) f.inc.push_back(it->second);
        }
    return files;
}

// Transitive include closure of every file (memoised DFS over the DAG).
static std::vector<Bits> include_closure(const std::vector<SourceFile> &files)
{
    size_t n = files.size(), words = (n + 63) / 64;
    std::vector<Bits> clo(n, Bits(words, 0));
    std::vector<char> state(n, 0);
    std::vector<std::pair<int, size_t>> stack;
    for (size_t root = 0; root < n; root++) {
        if (state[root]) continue;
        stack.push_back({(int)root, 0});
        state[root] = 1;
        while (!stack.empty()) {
            auto &[v, k] = stack.back();
            if (k < files[v].inc.size()) {
                int w = files[v].inc[k++];
                if (state[w] == 0) {
                    state[w] = 1;
                    stack.push_back({w, 0});
                }
                continue;
            }
            for (int w : files[v].inc) {
                clo[v][w / 64] |= 1ull << (w % 64);
                for (size_t q = 0; q < words; q++) clo[v][q] |= clo[w][q];
            }
            state[v] = 2;
            stack.pop_back();
        }
    }
    return clo;
}

// ------------------------------------------------------------------ scheduling
struct Job {
    std::string name;
    double cost = 0;
    std::vector<int> succ;
    int npred = 0;
    double blevel = 0, start = 0, finish = 0;
    int worker = -1;
};

static std::vector<Job> make_jobs(const std::vector<SourceFile> &files, const std::vector<Bits> &clo,
                                  const std::vector<char> &selected, const Config &c)
{
    std::vector<Job> jobs;
    std::vector<int> lib_job(c.modules);
    for (int m = 0; m < c.modules; m++) {
        Job j;
        j.name = "lib" + mod_name(m) + ".a";
        j.cost = c.link_cost * 0.25;
        lib_job[m] = (int)jobs.size();
        jobs.push_back(j);
    }
    int exe = (int)jobs.size();
    jobs.push_back(Job{"app", c.link_cost, {}, 0, 0, 0, 0, -1});
    for (int m = 0; m < c.modules; m++) {
        jobs[lib_job[m]].succ.push_back(exe);
        jobs[exe].npred++;
    }
    for (size_t i = 0; i < files.size(); i++) {
        if (files[i].header || !selected[i]) continue;
        double hc = 0;
        for (size_t w = 0; w < clo[i].size(); w++) {
            uint64_t bits = clo[i][w];
            while (bits) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                hc += files[w * 64 + b].lines * c.header_parse_cost;
            }
        }
        Job j;
        j.name = files[i].rel.substr(0, files[i].rel.size() - 2) + ".o";
        j.cost = files[i].cost * 0.1 + hc;
        j.succ.push_back(lib_job[files[i].module]);
        jobs[lib_job[files[i].module]].npred++;
        jobs.push_back(j);
    }
    return jobs;
}

static double schedule(std::vector<Job> &jobs, int workers)
{
    // bottom levels by reverse topological order (jobs are a 3-level DAG)
    for (int pass = 0; pass < 3; pass++)
        for (auto &j : jobs) {
            double b = 0;
            for (int s : j.succ) b = std::max(b, jobs[s].blevel);
            j.blevel = j.cost + b;
        }
    using Ready = std::pair<double, int>;
    std::priority_queue<Ready> ready;
    std::vector<int> npred(jobs.size());
    for (size_t i = 0; i < jobs.size(); i++) {
        npred[i] = jobs[i].npred;
        if (npred[i] == 0) ready.push({jobs[i].blevel, (int)i});
    }
    using Event = std::pair<double, int>; // finish time, job
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> running;
    std::vector<int> free_workers;
    for (int w = workers - 1; w >= 0; w--) free_workers.push_back(w);
    double now = 0;
    size_t done = 0;
    while (done < jobs.size()) {
        while (!ready.empty() && !free_workers.empty()) {
            int j = ready.top().second;
            ready.pop();
            jobs[j].worker = free_workers.back();
            free_workers.pop_back();
            jobs[j].start = now;
            jobs[j].finish = now + jobs[j].cost;
            running.push({jobs[j].finish, j});
        }
        auto [t, j] = running.top();
        running.pop();
        now = t;
        done++;
        free_workers.push_back(jobs[j].worker);
        for (int s : jobs[j].succ)
            if (--npred[s] == 0) ready.push({jobs[s].blevel, s});
    }
    return now;
}

static void write_ninja(const fs::path &p, const std::vector<SourceFile> &files, const std::vector<Bits> &clo)
{
    std::ofstream o(p);
    o << "rule cc\n  command = cc -c $in -o $out\nrule ar\n  command = ar rcs $out $in\n\n";
    for (size_t i = 0; i < files.size(); i++) {
        if (files[i].header) continue;
        o << "build " << files[i].rel.substr(0, files[i].rel.size() - 2) << ".o: cc src/" << files[i].rel << " |";
        for (size_t w = 0; w < clo[i].size(); w++) {
            uint64_t bits = clo[i][w];
            while (bits) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                o << " src/" << files[w * 64 + b].rel;
            }
        }
        o << "\n";
    }
}

// ctags-style index of every declared function, sorted by name.
static size_t write_tags(const fs::path &p, const std::vector<SourceFile> &files)
{
    std::vector<std::tuple<std::string, int, int>> tags;
    for (size_t i = 0; i < files.size(); i++)
        for (const auto &[name, line] : files[i].symbols) tags.emplace_back(name, (int)i, line);
    std::sort(tags.begin(), tags.end());
    std::ofstream o(p);
    o << "!_TAG_FILE_SORTED\t1\n";
    for (const auto &[name, fi, line] : tags) o << name << '\t' << "src/" << files[fi].rel << '\t' << line << '\n';
    return tags.size();
}

static void write_schedule(const fs::path &p, const std::vector<Job> &jobs, double makespan, int workers)
{
    std::ofstream o(p, std::ios::app);
    o << "=== schedule: " << jobs.size() << " jobs on " << workers << " workers, makespan " << std::fixed
      << std::setprecision(2) << makespan << " s ===\n";
    std::vector<const Job *> order;
    for (auto &j : jobs) order.push_back(&j);
    std::sort(order.begin(), order.end(), [](const Job *a, const Job *b) { return a->start < b->start; });
    for (auto *j : order)
        o << std::setw(9) << j->start << std::setw(9) << j->finish << "  w" << j->worker << "  " << j->name << "\n";
}

// ------------------------------------------------------------------ dep database
static void save_db(const fs::path &p, const std::vector<SourceFile> &files)
{
    std::ofstream o(p, std::ios::binary);
    uint32_t n = (uint32_t)files.size();
    o.write("DEPDB001", 8);
    o.write(reinterpret_cast<const char *>(&n), 4);
    for (const auto &f : files) {
        uint16_t len = (uint16_t)f.rel.size();
        int64_t t = f.mtime.time_since_epoch().count();
        uint64_t sz = f.size;
        o.write(reinterpret_cast<const char *>(&len), 2);
        o.write(f.rel.data(), len);
        o.write(reinterpret_cast<const char *>(&t), 8);
        o.write(reinterpret_cast<const char *>(&sz), 8);
    }
}

static std::unordered_map<std::string, std::pair<int64_t, uint64_t>> load_db(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    char magic[8];
    uint32_t n = 0;
    in.read(magic, 8);
    in.read(reinterpret_cast<char *>(&n), 4);
    std::unordered_map<std::string, std::pair<int64_t, uint64_t>> db;
    for (uint32_t i = 0; i < n && in; i++) {
        uint16_t len;
        in.read(reinterpret_cast<char *>(&len), 2);
        std::string s(len, '\0');
        in.read(&s[0], len);
        int64_t t;
        uint64_t sz;
        in.read(reinterpret_cast<char *>(&t), 8);
        in.read(reinterpret_cast<char *>(&sz), 8);
        db[s] = {t, sz};
    }
    return db;
}

static void edit_headers(const fs::path &src, const std::vector<SourceFile> &files, int count, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<int> headers;
    for (size_t i = 0; i < files.size(); i++)
        if (files[i].header) headers.push_back((int)i);
    for (int k = 0; k < count; k++) {
        const auto &f = files[headers[rng() % headers.size()]];
        fs::path p = src / f.rel;
        std::ofstream o(p, std::ios::app);
        o << "/* edited: added declaration */\nint patched_" << k << "(void);\n";
        o.close();
        fs::last_write_time(p, f.mtime + std::chrono::seconds(5 + k));
    }
}

static uintmax_t emit_objects(const fs::path &build, const std::vector<Job> &jobs)
{
    uintmax_t total = 0;
    for (const auto &j : jobs) {
        fs::path p = build / j.name;
        fs::create_directories(p.parent_path());
        std::ofstream o(p, std::ios::binary);
        std::string blob((size_t)(256 + j.cost * 64), '\x90');
        o << "OBJ " << j.name << "\n";
        o.write(blob.data(), (std::streamsize)blob.size());
    }
    for (const auto &e : fs::recursive_directory_iterator(build))
        if (e.is_regular_file()) total += e.file_size();
    return total;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 1;
    }
    fs::path root = argv[1];
    write_config(root / "project.cfg");
    Config cfg = read_config(root / "project.cfg");
    fs::path src = root / "src";
    create_source_tree(src, cfg);

    // ---- full build
    auto files = scan_tree(src);
    auto clo = include_closure(files);
    std::vector<char> all(files.size(), 1);
    auto jobs = make_jobs(files, clo, all, cfg);
    double full = schedule(jobs, cfg.jobs);
    write_ninja(root / "build.ninja", files, clo);
    size_t ntags = write_tags(root / "tags", files);
    write_schedule(root / "schedule.log", jobs, full, cfg.jobs);
    save_db(root / "deps.db", files);
    uintmax_t obj_bytes = emit_objects(root / "build", jobs);

    // ---- incremental build after header edits
    edit_headers(src, files, 6, cfg.seed + 1);
    auto db = load_db(root / "deps.db");
    auto files2 = scan_tree(src);
    auto clo2 = include_closure(files2);
    std::vector<char> changed(files2.size(), 0), dirty(files2.size(), 0);
    for (size_t i = 0; i < files2.size(); i++) {
        auto it = db.find(files2[i].rel);
        if (it == db.end() || it->second.first != files2[i].mtime.time_since_epoch().count() ||
            it->second.second != files2[i].size)
            changed[i] = 1;
    }
    size_t ndirty = 0;
    for (size_t i = 0; i < files2.size(); i++) {
        if (files2[i].header) continue;
        bool d = changed[i];
        for (size_t j = 0; j < files2.size() && !d; j++)
            if (changed[j] && (clo2[i][j / 64] >> (j % 64) & 1)) d = true;
        dirty[i] = d;
        ndirty += d;
    }
    auto jobs2 = make_jobs(files2, clo2, dirty, cfg);
    double incr = schedule(jobs2, cfg.jobs);
    write_schedule(root / "schedule.log", jobs2, incr, cfg.jobs);
    {
        std::ofstream o(root / "rebuild.txt");
        for (size_t i = 0; i < files2.size(); i++)
            if (changed[i]) o << "changed " << files2[i].rel << "\n";
        for (size_t i = 0; i < files2.size(); i++)
            if (dirty[i]) o << "rebuild " << files2[i].rel << "\n";
    }
    obj_bytes += emit_objects(root / "build", jobs2);
    save_db(root / "deps.db", files2);
    ntags = write_tags(root / "tags", files2);

    // ---- no-op check: a fresh scan must find nothing changed against the new database
    auto db2 = load_db(root / "deps.db");
    auto files3 = scan_tree(src);
    size_t stale = 0;
    for (const auto &f : files3) {
        auto it = db2.find(f.rel);
        if (it == db2.end() || it->second.first != f.mtime.time_since_epoch().count() || it->second.second != f.size)
            stale++;
    }
    {
        std::ofstream o(root / "schedule.log", std::ios::app);
        o << "=== no-op check: " << files3.size() << " files, " << stale << " out of date ===\n";
    }
    if (stale) {
        std::cerr << "build_dep_scheduler: " << stale << " files unexpectedly out of date\n";
        return 3;
    }

    std::cout << files.size() << " files scanned, full makespan " << full << " s, " << ndirty
              << " dirty sources, incremental makespan " << incr << " s, objects " << obj_bytes << " bytes, " << ntags
              << " tags\n";
    return 0;
}
