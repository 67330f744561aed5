// Miniature log-structured merge tree. A write workload fills an in-memory
// memtable that is flushed to level-0 sorted-string-table files (data
// entries, sparse index, footer). Reads probe the memtable, then tables via
// seekg on the sparse index. When level 0 grows, all tables are k-way merged
// into level-1 files. A text manifest is rewritten atomically after each
// change; at the end the store is reopened from the manifest and checked
// against a reference map. Compactions are logged with stdio.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>
#include <sys/stat.h>

#define FAIL(msg) do { std::cerr << "error: " << msg << std::endl; std::exit(1); } while (0)

namespace {

const int NOPS = 260000;
const uint64_t KEYSPACE = 80000;
const size_t MEMTABLE_BYTES = 1 << 20;
const int L0_TRIGGER = 5;
const size_t L1_FILE_BYTES = 2 << 20;
const int INDEX_EVERY = 16;
const uint32_t MAGIC = 0x4c534d54;
const size_t ENTRY_HDR = 21;   // key, seq, tomb flag, value length
const int MAXVAL = 120;

// plain fixed-slot records keep the hot paths free of hidden member calls
struct Entry { uint64_t seq; uint32_t len; uint8_t tomb; char val[MAXVAL]; };
struct Footer { uint64_t index_off; uint32_t index_n, entries, magic; };
struct Table {
    char name[24];
    std::ifstream *in;
    uint64_t *ikeys, *ioffs;
    uint32_t nidx, entries;
    uint64_t min_key, max_key;
};
typedef std::vector<std::pair<uint64_t, const Entry *>> Run;

std::string g_dir;
FILE *g_log = nullptr;
std::map<uint64_t, Entry> g_mem;          // memtable
size_t g_mem_bytes = 0;
std::vector<Table *> g_l0, g_l1;          // l0: newest last
int g_file_seq = 0;

void make_value(uint64_t key, uint64_t seq, Entry &e)
{
    static const char alpha[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    e.len = (uint32_t)(8 + (key * 31 + seq) % 110);
    uint64_t h = key * 0x9e3779b97f4a7c15ULL ^ seq;
    for (uint32_t i = 0; i < e.len; i++) { h = h * 6364136223846793005ULL + 1; e.val[i] = alpha[(h >> 33) % 36]; }
}

bool read_entry(std::istream &in, uint64_t &k, Entry &e)
{
    in.read(reinterpret_cast<char *>(&k), 8);
    in.read(reinterpret_cast<char *>(&e.seq), 8);
    in.read(reinterpret_cast<char *>(&e.tomb), 1);
    in.read(reinterpret_cast<char *>(&e.len), 4);
    if (!in || e.len > (uint32_t)MAXVAL) return false;
    return e.len == 0 || static_cast<bool>(in.read(e.val, e.len));
}

// data entries, then (key, offset) index every INDEX_EVERY entries, max key, footer
Table *write_table(int level, const Run &run)
{
    Table *t = new Table();
    std::snprintf(t->name, sizeof t->name, "L%d_%06d.sst", level, g_file_seq++);
    const char *buf = t->name;
    std::ofstream out(g_dir + "/" + buf, std::ios::binary);
    if (!out) FAIL("create " << buf);
    std::vector<std::pair<uint64_t, uint64_t>> idx;
    uint64_t off = 0;
    for (size_t i = 0; i < run.size(); i++) {
        const Entry &e = *run[i].second;
        if (i % INDEX_EVERY == 0) idx.emplace_back(run[i].first, off);
        out.write(reinterpret_cast<const char *>(&run[i].first), 8);
        out.write(reinterpret_cast<const char *>(&e.seq), 8);
        out.write(reinterpret_cast<const char *>(&e.tomb), 1);
        out.write(reinterpret_cast<const char *>(&e.len), 4);
        out.write(e.val, e.len);
        off += ENTRY_HDR + e.len;
    }
    Footer f{off, (uint32_t)idx.size(), (uint32_t)run.size(), MAGIC};
    for (auto &p : idx) {
        out.write(reinterpret_cast<const char *>(&p.first), 8);
        out.write(reinterpret_cast<const char *>(&p.second), 8);
    }
    uint64_t last = run.empty() ? 0 : run.back().first;
    out.write(reinterpret_cast<const char *>(&last), 8);
    out.write(reinterpret_cast<const char *>(&f), sizeof f);
    out.close();
    if (out.fail()) FAIL("write " << buf);
    return t;
}

// open a table file: footer from the end, then the sparse index
void open_table(Table *t)
{
    t->in = new std::ifstream(g_dir + "/" + t->name, std::ios::binary);
    std::ifstream &in = *t->in;
    if (!in) FAIL("open " << t->name);
    Footer f;
    in.seekg(-(std::streamoff)sizeof f, std::ios::end);
    if (!in.read(reinterpret_cast<char *>(&f), sizeof f) || f.magic != MAGIC) FAIL("footer " << t->name);
    t->entries = f.entries;
    t->nidx = f.index_n;
    t->ikeys = new uint64_t[f.index_n + 1];
    t->ioffs = new uint64_t[f.index_n + 1];
    in.seekg((std::streamoff)f.index_off);
    for (uint32_t i = 0; i < f.index_n; i++) {
        in.read(reinterpret_cast<char *>(&t->ikeys[i]), 8);
        in.read(reinterpret_cast<char *>(&t->ioffs[i]), 8);
    }
    in.read(reinterpret_cast<char *>(&t->max_key), 8);
    if (!in) FAIL("index " << t->name);
    t->min_key = f.index_n ? t->ikeys[0] : 0;
}

void write_manifest()
{
    std::string tmp = g_dir + "/MANIFEST.tmp";
    {
        std::ofstream m(tmp);
        if (!m) FAIL("manifest");
        m << "next_file " << g_file_seq << "\n";
        for (auto *t : g_l0) m << "L0 " << t->name << " " << t->entries << "\n";
        for (auto *t : g_l1) m << "L1 " << t->name << " " << t->entries << "\n";
        if (!m) FAIL("manifest write");
    }
    if (std::rename(tmp.c_str(), (g_dir + "/MANIFEST").c_str())) FAIL("rename manifest");
}

// memtable, then L0 newest first, then L1; sparse-index seek + short scan
bool lookup(uint64_t key, Entry &e)
{
    auto it = g_mem.find(key);
    if (it != g_mem.end()) { e = it->second; return !e.tomb; }
    std::vector<Table *> order(g_l0.rbegin(), g_l0.rend());
    order.insert(order.end(), g_l1.begin(), g_l1.end());
    for (Table *t : order) {
        if (key < t->min_key || key > t->max_key) continue;
        size_t b = (size_t)(std::upper_bound(t->ikeys, t->ikeys + t->nidx, key) - t->ikeys);
        if (b == 0) continue;
        t->in->clear();
        t->in->seekg((std::streamoff)t->ioffs[b - 1]);
        uint64_t k;
        for (int i = 0; i < INDEX_EVERY && read_entry(*t->in, k, e) && k <= key; i++)
            if (k == key) return !e.tomb;
    }
    return false;
}

// k-way merge of every table into fresh L1 files; newest version wins,
// tombstones are dropped because L1 is the bottom level
void compact()
{
    std::vector<Table *> srcs(g_l0.begin(), g_l0.end());
    srcs.insert(srcs.end(), g_l1.begin(), g_l1.end());
    std::vector<Entry> cur(srcs.size());
    std::vector<uint32_t> left(srcs.size());
    typedef std::tuple<uint64_t, uint64_t, size_t> Head;   // key, ~seq, source
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> pq;
    for (size_t i = 0; i < srcs.size(); i++) {
        srcs[i]->in->clear();
        srcs[i]->in->seekg(0);
        left[i] = srcs[i]->entries;
        uint64_t k;
        if (left[i]-- && read_entry(*srcs[i]->in, k, cur[i])) pq.emplace(k, ~cur[i].seq, i);
    }
    std::vector<Table *> out;
    std::vector<Entry> pending;
    pending.reserve(L1_FILE_BYTES / (ENTRY_HDR + 8) + 1);
    std::vector<uint64_t> pkeys;
    size_t bytes = 0;
    long kept = 0, dropped = 0;
    bool have_last = false;
    uint64_t last_key = 0;
    while (!pq.empty() || !pending.empty()) {
        bool done = pq.empty();
        if (!done) {
            Head h = pq.top();
            pq.pop();
            size_t src = std::get<2>(h);
            uint64_t key = std::get<0>(h);
            Entry e = cur[src];
            uint64_t k;
            if (left[src] && read_entry(*srcs[src]->in, k, cur[src])) { left[src]--; pq.emplace(k, ~cur[src].seq, src); }
            if (have_last && key == last_key) { dropped++; continue; }
            have_last = true;
            last_key = key;
            if (e.tomb) { dropped++; continue; }
            bytes += ENTRY_HDR + e.len;
            pkeys.push_back(key);
            pending.push_back(e);
            kept++;
        }
        if (done || bytes >= L1_FILE_BYTES) {
            Run run;
            for (size_t i = 0; i < pending.size(); i++) run.emplace_back(pkeys[i], &pending[i]);
            Table *t = write_table(1, run);
            open_table(t);
            out.push_back(t);
            pending.clear();
            pkeys.clear();
            bytes = 0;
        }
    }
    g_l0.clear();
    g_l1 = out;
    write_manifest();
    for (Table *t : srcs) {   // inputs are obsolete now
        std::remove((g_dir + "/" + t->name).c_str());
        delete t->in;
        delete[] t->ikeys;
        delete[] t->ioffs;
        delete t;
    }
    std::fprintf(g_log, "compaction: %zu inputs -> %zu L1 files, kept %ld dropped %ld\n", srcs.size(),
                 g_l1.size(), kept, dropped);
    std::fflush(g_log);
}

long run_workload(std::unordered_map<uint64_t, std::string> &ref, long &wrong)
{
    uint64_t rng = 0x853c49e6748fea9bULL;
    long gets = 0;
    wrong = 0;
    for (uint64_t seq = 1; seq <= (uint64_t)NOPS; seq++) {
        rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
        uint64_t r = rng * 2685821657736338717ULL;
        uint64_t key = (r >> 20) % KEYSPACE;
        if (key % 3 == 0) key = (key * 7) % (KEYSPACE / 8);   // hot range
        int op = (int)(r % 100);
        if (op < 93) {
            Entry &e = g_mem[key];
            e.seq = seq;
            e.tomb = op >= 84;
            e.len = 0;
            if (!e.tomb) { make_value(key, seq, e); ref[key].assign(e.val, e.len); }
            else ref.erase(key);
            g_mem_bytes += ENTRY_HDR + e.len;
        } else {
            Entry e;
            bool found = lookup(key, e);
            auto it = ref.find(key);
            if (found != (it != ref.end()) || (found && it->second.compare(0, std::string::npos, e.val, e.len)))
                wrong++;
            gets++;
        }
        bool last = seq == (uint64_t)NOPS;
        if (g_mem_bytes >= MEMTABLE_BYTES || (last && !g_mem.empty())) {   // flush memtable to L0
            Run run;
            for (auto &kv : g_mem) run.emplace_back(kv.first, &kv.second);
            Table *t = write_table(0, run);
            open_table(t);
            g_l0.push_back(t);
            g_mem.clear();
            g_mem_bytes = 0;
            write_manifest();
            if (!last && (int)g_l0.size() >= L0_TRIGGER) compact();
        }
    }
    return gets;
}

// reopen from the manifest alone, then check every key of the key space
long recover_and_verify(const std::unordered_map<uint64_t, std::string> &ref)
{
    // drop every in-memory handle first, as after a restart
    for (int lv = 0; lv < 2; lv++)
        for (Table *t : lv ? g_l1 : g_l0) { delete t->in; delete[] t->ikeys; delete[] t->ioffs; delete t; }
    g_l0.clear();
    g_l1.clear();
    g_mem.clear();
    std::ifstream m(g_dir + "/MANIFEST");
    if (!m) FAIL("open manifest");
    std::string tag, name;
    uint32_t n;
    m >> tag >> g_file_seq;
    while (m >> tag >> name >> n) {
        Table *t = new Table();
        std::snprintf(t->name, sizeof t->name, "%s", name.c_str());
        open_table(t);
        if (t->entries != n) FAIL("entry count mismatch in " << name);
        (tag == "L0" ? g_l0 : g_l1).push_back(t);
    }
    long bad = 0;
    for (uint64_t k = 0; k < KEYSPACE; k++) {
        Entry e;
        bool found = lookup(k, e);
        auto it = ref.find(k);
        if (found != (it != ref.end()) || (found && it->second.compare(0, std::string::npos, e.val, e.len))) bad++;
    }
    std::fprintf(g_log, "recovered %zu L0 + %zu L1 tables, %ld mismatches\n", g_l0.size(), g_l1.size(), bad);
    return bad;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) { std::cerr << "usage: " << argv[0] << " DIR\n"; return 2; }
    g_dir = argv[1];
    mkdir(g_dir.c_str(), 0755);
    g_log = std::fopen((g_dir + "/compaction.log").c_str(), "w");
    if (!g_log) FAIL("open log");
    std::unordered_map<uint64_t, std::string> ref;
    long wrong;
    long gets = run_workload(ref, wrong);
    long bad = recover_and_verify(ref);
    if (std::fclose(g_log)) FAIL("close log");
    std::cout << "lsm: " << NOPS << " ops, " << gets << " gets (" << wrong << " wrong), live keys "
              << ref.size() << ", verify mismatches " << bad << std::endl;
    return (wrong || bad) ? 1 : 0;
}
