// toy_linker_gc_mapfile.cpp
//
// A small static linker for a toy relocatable object format ("TOBJ").
// The program first plays compiler: it emits a few hundred object modules
// compiled with per-function sections (.text.<fn>), .rodata, .data with
// function-pointer tables and .bss, each with a symbol table, relocations
// (PC-relative 32-bit calls, absolute 64-bit pointers) and a string table,
// all through std::ofstream in binary mode.  Then it links them:
//   read every object back with std::ifstream, resolve global/weak/local
//   symbols in a hash table, garbage-collect sections unreachable from
//   _start, fold identical code sections (ICF), lay out output sections
//   with alignment, apply relocations,
//   write the executable image, a text link map and a cross-reference
//   listing, and finally re-read the image to verify every relocation and
//   compute a build-id.
//
// usage: toy_linker_gc_mapfile OUTDIR

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kModules = 680;
constexpr int kFuncsPerModule = 28;
constexpr int kUsedFuncs = 23;      // functions >= this index are never called
constexpr int kWeakHelpers = 64;
constexpr int kRuntimeFuncs = 48;
constexpr uint64_t kBase = 0x400000;

enum Kind : uint32_t { TEXT = 0, RODATA = 1, DATA = 2, BSS = 3 };
enum Bind : uint8_t { LOCAL = 0, GLOBAL = 1, WEAK = 2 };
enum RelType : uint32_t { REL32 = 1, ABS64 = 2 };

struct ObjHeader {
    char magic[4];
    uint32_t version, nsect, nsym, nrel, strsz, module_id, reserved;
};
struct SectHdr {
    uint32_t name, kind, align, size;
    uint64_t file_off;
};
struct SymEnt {
    uint32_t name;
    int32_t sect;
    uint32_t value, size;
    uint8_t bind, is_func, pad[2];
};
struct RelEnt {
    uint32_t sect, offset, sym, type;
    int64_t addend;
};

struct Object {
    std::string path;
    std::vector<SectHdr> sects;
    std::vector<std::vector<uint8_t>> data;
    std::vector<SymEnt> syms;
    std::vector<RelEnt> rels;
    std::string strtab;
};

// Where a symbol reference of an object ends up after resolution.
struct Binding {
    int32_t obj, sect;
    uint32_t value;
};

struct SymRef {
    int obj = -1;
    int sym = -1;
    uint8_t bind = LOCAL;
};

struct Placed {
    uint64_t addr = 0;
    bool live = false;
    int32_t rep_obj = -1, rep_sect = -1; // set when folded into another section
};

std::string g_outdir;

[[noreturn]] void fail(const std::string &msg)
{
    std::cerr << "toy_linker_gc_mapfile: " << msg << std::endl;
    std::exit(1);
}

uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Builds one module in memory (sections, symbols, relocations, strings).
struct ModuleBuilder {
    ObjHeader hdr{};
    std::vector<SectHdr> sects;
    std::vector<std::vector<uint8_t>> data;
    std::vector<SymEnt> syms;
    std::vector<RelEnt> rels;
    std::string strtab{'\0'};
    std::unordered_map<std::string, uint32_t> symidx;

    uint32_t str(const std::string &s)
    {
        uint32_t off = static_cast<uint32_t>(strtab.size());
        strtab += s;
        strtab.push_back('\0');
        return off;
    }
    uint32_t section(const std::string &name, Kind k, uint32_t align, std::vector<uint8_t> bytes,
                     uint32_t bss_size = 0)
    {
        SectHdr h{str(name), k, align, k == BSS ? bss_size : static_cast<uint32_t>(bytes.size()), 0};
        sects.push_back(h);
        data.push_back(std::move(bytes));
        return static_cast<uint32_t>(sects.size() - 1);
    }
    uint32_t symbol(const std::string &name, int32_t sect, uint32_t value, uint32_t size,
                    uint8_t bind, bool func)
    {
        auto it = symidx.find(name);
        if (it != symidx.end()) {
            SymEnt &e = syms[it->second];
            if (sect >= 0 && e.sect < 0) { e.sect = sect; e.value = value; e.size = size; e.bind = bind; }
            return it->second;
        }
        SymEnt e{str(name), sect, value, size, bind, static_cast<uint8_t>(func), {0, 0}};
        syms.push_back(e);
        symidx.emplace(name, static_cast<uint32_t>(syms.size() - 1));
        return static_cast<uint32_t>(syms.size() - 1);
    }
};

std::string fn_name(int m, int k) { return "m" + std::to_string(m) + "_fn" + std::to_string(k); }

// "Compiles" module m: pseudo-random code bytes, call sites and tables.
void generate_object(int m, const std::string &path)
{
    ModuleBuilder b;
    uint64_t seed = mix64(0xC0FFEEULL + static_cast<uint64_t>(m));
    const bool runtime = (m == kModules - 1);
    const int nfunc = runtime ? kRuntimeFuncs : kFuncsPerModule;

    // .rodata string pool
    std::vector<uint8_t> ro;
    for (int k = 0; k < 40; k++) {
        std::string s = "module " + std::to_string(m) + " message " + std::to_string(k);
        ro.insert(ro.end(), s.begin(), s.end());
        ro.push_back(0);
    }
    uint32_t ro_sect = b.section(".rodata", RODATA, 16, ro);
    uint32_t ro_sym = b.symbol(".Lstr" + std::to_string(m), static_cast<int32_t>(ro_sect), 0,
                               static_cast<uint32_t>(ro.size()), LOCAL, false);

    for (int k = 0; k < nfunc; k++) {
        uint64_t h = mix64(seed ^ (static_cast<uint64_t>(k) << 32));
        uint32_t size = 96 + static_cast<uint32_t>(h % 1400);
        size = (size + 15) & ~15u;
        // every seventh function is a tiny forwarding thunk with identical
        // code in all modules (think of identical template instantiations)
        const bool thunk = !runtime && k % 7 == 3;
        if (thunk) size = 48;
        std::vector<uint8_t> code(size);
        uint64_t z = thunk ? 0x7417ULL * static_cast<uint64_t>(k) : h;
        for (uint32_t i = 0; i < size; i += 8) { // splitmix64 byte stream
            z += 0x9E3779B97F4A7C15ULL;
            uint64_t w = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            w = (w ^ (w >> 27)) * 0x94d049bb133111ebULL;
            w ^= w >> 31;
            std::memcpy(&code[i], &w, std::min<uint32_t>(8, size - i));
        }
        std::string name = runtime ? "rt_func" + std::to_string(k) : fn_name(m, k);
        uint32_t sect = b.section(".text." + name, TEXT, 16, code);
        bool local = !runtime && (k % 5 == 4);
        uint32_t self = b.symbol(local ? "static_fn" + std::to_string(k) : name,
                                 static_cast<int32_t>(sect), 0, size, local ? LOCAL : GLOBAL, true);
        (void)self;
        if (runtime) continue;
        if (thunk) {
            code[15] = 0xe9;
            uint32_t ts = b.symbol("rt_func" + std::to_string(k % kRuntimeFuncs), -1, 0, 0, GLOBAL, true);
            b.rels.push_back(RelEnt{sect, 16, ts, REL32, -4});
            b.data[sect] = code;
            continue;
        }
        // call sites: e8 xx xx xx xx patched with REL32, addend -4
        int ncalls = 3 + static_cast<int>(h % 6);
        for (int c = 0; c < ncalls; c++) {
            uint64_t r = mix64(h ^ (0x1000u + static_cast<uint64_t>(c)));
            uint32_t off = (16 + static_cast<uint32_t>(c) * (size - 20) / static_cast<uint32_t>(ncalls)) & ~3u;
            code[off - 1] = 0xe8;
            std::string target;
            int pick = static_cast<int>(r % 100);
            if (pick < 50) {
                int tm = (m + 1 + static_cast<int>((r >> 20) % 12)) % (kModules - 1);
                target = fn_name(tm, static_cast<int>((r >> 32) % kUsedFuncs));
                if ((r >> 32) % kUsedFuncs % 5 == 4) target = fn_name(tm, 0);
            } else if (pick < 65) {
                int lk = 4 + 5 * static_cast<int>((r >> 24) % 3);
                target = "static_fn" + std::to_string(lk);
            } else if (pick < 82) {
                target = "helper_inline" + std::to_string((r >> 40) % kWeakHelpers);
            } else {
                target = "rt_func" + std::to_string((r >> 40) % kRuntimeFuncs);
            }
            uint32_t ts = b.symbol(target, -1, 0, 0, GLOBAL, true);
            b.rels.push_back(RelEnt{sect, off, ts, REL32, -4});
        }
        // one string reference per function
        b.rels.push_back(RelEnt{sect, 4, ro_sym, REL32, static_cast<int64_t>((k % 40) * 8) - 4});
        b.data[sect] = code;
    }
    if (!runtime) {
        // weak inline helpers emitted by this translation unit
        for (int w = 0; w < 6; w++) {
            int hid = static_cast<int>((seed >> (w * 6)) % kWeakHelpers);
            std::string name = "helper_inline" + std::to_string(hid);
            if (b.symidx.count(name) && b.syms[b.symidx[name]].sect >= 0) continue;
            std::vector<uint8_t> code(64, 0x90);
            uint32_t sect = b.section(".text." + name, TEXT, 16, code);
            b.symbol(name, static_cast<int32_t>(sect), 0, 64, WEAK, true);
        }
        // .data: a dispatch table of absolute function pointers
        std::vector<uint8_t> table(8 * 16, 0);
        uint32_t dsect = b.section(".data", DATA, 8, table);
        b.symbol("m" + std::to_string(m) + "_dispatch", static_cast<int32_t>(dsect), 0, 128, GLOBAL,
                 false);
        for (int e = 0; e < 16; e++) {
            int k = static_cast<int>(mix64(seed + 77 + static_cast<uint64_t>(e)) % kUsedFuncs);
            if (k % 5 == 4) k = 0;
            uint32_t ts = b.symbol(fn_name(m, k), -1, 0, 0, GLOBAL, true);
            b.rels.push_back(RelEnt{dsect, static_cast<uint32_t>(8 * e), ts, ABS64, 0});
        }
        uint32_t bss = b.section(".bss", BSS, 64, {}, 4096 + static_cast<uint32_t>(seed % 8192));
        b.symbol("m" + std::to_string(m) + "_state", static_cast<int32_t>(bss), 0, 4096, GLOBAL,
                 false);
        if (m == 0) { // _start: calls m1_fn0 and references every module's dispatch table
            std::vector<uint8_t> roots(8 * (kModules - 1), 0);
            uint32_t rs = b.section(".data.roots", DATA, 8, roots);
            uint32_t roots_sym = b.symbol(".Lroots", static_cast<int32_t>(rs), 0,
                                          static_cast<uint32_t>(roots.size()), LOCAL, false);
            for (int t = 0; t < kModules - 1; t++) {
                uint32_t sym = b.symbol("m" + std::to_string(t) + "_dispatch", -1, 0, 0, GLOBAL, false);
                b.rels.push_back(RelEnt{rs, static_cast<uint32_t>(8 * t), sym, ABS64, 0});
            }
            std::vector<uint8_t> code(64, 0x90);
            code[7] = 0x48;
            code[15] = 0xe8;
            uint32_t ss = b.section(".text._start", TEXT, 16, code);
            b.symbol("_start", static_cast<int32_t>(ss), 0, 64, GLOBAL, true);
            b.rels.push_back(RelEnt{ss, 8, roots_sym, REL32, -4});
            b.rels.push_back(RelEnt{ss, 16, b.symbol("m1_fn0", -1, 0, 0, GLOBAL, true), REL32, -4});
        }
    } else {
        // the runtime library carries out-of-line copies of every inline helper
        for (int w = 0; w < kWeakHelpers; w++) {
            std::string name = "helper_inline" + std::to_string(w);
            std::vector<uint8_t> code(80, 0xcc);
            uint32_t sect = b.section(".text." + name, TEXT, 16, code);
            b.symbol(name, static_cast<int32_t>(sect), 0, 80, WEAK, true);
        }
    }

    // serialise
    std::memcpy(b.hdr.magic, "TOBJ", 4);
    b.hdr.version = 1;
    b.hdr.nsect = static_cast<uint32_t>(b.sects.size());
    b.hdr.nsym = static_cast<uint32_t>(b.syms.size());
    b.hdr.nrel = static_cast<uint32_t>(b.rels.size());
    b.hdr.strsz = static_cast<uint32_t>(b.strtab.size());
    b.hdr.module_id = static_cast<uint32_t>(m);
    uint64_t off = sizeof(ObjHeader) + b.sects.size() * sizeof(SectHdr);
    for (size_t s = 0; s < b.sects.size(); s++) {
        off = (off + 15) & ~uint64_t(15);
        b.sects[s].file_off = off;
        off += b.data[s].size();
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot create " + path);
    out.write(reinterpret_cast<const char *>(&b.hdr), sizeof b.hdr);
    out.write(reinterpret_cast<const char *>(b.sects.data()),
              static_cast<std::streamsize>(b.sects.size() * sizeof(SectHdr)));
    uint64_t pos = sizeof(ObjHeader) + b.sects.size() * sizeof(SectHdr);
    static const char zeros[16] = {0};
    for (size_t s = 0; s < b.sects.size(); s++) {
        out.write(zeros, static_cast<std::streamsize>(b.sects[s].file_off - pos));
        out.write(reinterpret_cast<const char *>(b.data[s].data()),
                  static_cast<std::streamsize>(b.data[s].size()));
        pos = b.sects[s].file_off + b.data[s].size();
    }
    out.write(reinterpret_cast<const char *>(b.syms.data()),
              static_cast<std::streamsize>(b.syms.size() * sizeof(SymEnt)));
    out.write(reinterpret_cast<const char *>(b.rels.data()),
              static_cast<std::streamsize>(b.rels.size() * sizeof(RelEnt)));
    out.write(b.strtab.data(), static_cast<std::streamsize>(b.strtab.size()));
    out.close();
    if (!out) fail("write failed: " + path);
}

Object read_object(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot open " + path);
    ObjHeader h;
    in.read(reinterpret_cast<char *>(&h), sizeof h);
    if (!in || std::memcmp(h.magic, "TOBJ", 4) != 0) fail("bad object header: " + path);
    Object o;
    o.path = path;
    o.sects.resize(h.nsect);
    in.read(reinterpret_cast<char *>(o.sects.data()), static_cast<std::streamsize>(h.nsect * sizeof(SectHdr)));
    o.data.resize(h.nsect);
    uint64_t end = sizeof(ObjHeader) + h.nsect * sizeof(SectHdr);
    for (uint32_t s = 0; s < h.nsect; s++) {
        if (o.sects[s].kind == BSS) continue;
        o.data[s].resize(o.sects[s].size);
        in.seekg(static_cast<std::streamoff>(o.sects[s].file_off));
        in.read(reinterpret_cast<char *>(o.data[s].data()), o.sects[s].size);
        end = o.sects[s].file_off + o.sects[s].size;
    }
    in.seekg(static_cast<std::streamoff>(end));
    o.syms.resize(h.nsym);
    in.read(reinterpret_cast<char *>(o.syms.data()), static_cast<std::streamsize>(h.nsym * sizeof(SymEnt)));
    o.rels.resize(h.nrel);
    in.read(reinterpret_cast<char *>(o.rels.data()), static_cast<std::streamsize>(h.nrel * sizeof(RelEnt)));
    o.strtab.resize(h.strsz);
    in.read(&o.strtab[0], h.strsz);
    if (!in) fail("truncated object: " + path);
    return o;
}

struct LinkStats {
    size_t globals = 0, weak_dups = 0, undefined = 0, sections = 0, live = 0, relocs = 0, folded = 0;
};

// Global symbol resolution: strong beats weak, first weak wins among weaks.
std::unordered_map<std::string, SymRef> resolve_symbols(const std::vector<Object> &objs, LinkStats &st)
{
    std::unordered_map<std::string, SymRef> table;
    table.reserve(16384);
    for (size_t oi = 0; oi < objs.size(); oi++) {
        const Object &o = objs[oi];
        const char *str = o.strtab.c_str();
        for (size_t si = 0; si < o.syms.size(); si++) {
            const SymEnt &s = o.syms[si];
            if (s.sect < 0 || s.bind == LOCAL) continue;
            auto [it, inserted] = table.try_emplace(str + s.name);
            if (inserted || (it->second.bind == WEAK && s.bind == GLOBAL)) {
                it->second = SymRef{static_cast<int>(oi), static_cast<int>(si), s.bind};
            } else if (s.bind == GLOBAL && it->second.bind == GLOBAL) {
                fail(std::string("duplicate symbol ") + (str + s.name));
            } else {
                st.weak_dups++;
            }
        }
    }
    for (const Object &o : objs) {
        const char *str = o.strtab.c_str();
        for (const SymEnt &s : o.syms)
            if (s.sect < 0 && !table.count(str + s.name)) {
                std::cerr << "undefined reference to " << (str + s.name) << " in " << o.path << "\n";
                st.undefined++;
            }
    }
    if (st.undefined) fail("undefined symbols");
    st.globals = table.size();
    return table;
}

// Binds every symbol of every object to its definition: locals to their
// own section, everything else through the global table.
std::vector<std::vector<Binding>> bind_symbols(const std::vector<Object> &objs,
                                               const std::unordered_map<std::string, SymRef> &table)
{
    std::vector<std::vector<Binding>> bind(objs.size());
    std::string key;
    for (size_t oi = 0; oi < objs.size(); oi++) {
        const Object &o = objs[oi];
        const char *str = o.strtab.c_str();
        bind[oi].resize(o.syms.size());
        for (size_t si = 0; si < o.syms.size(); si++) {
            const SymEnt &s = o.syms[si];
            if (s.bind == LOCAL && s.sect >= 0) {
                bind[oi][si] = Binding{static_cast<int32_t>(oi), s.sect, s.value};
                continue;
            }
            key.assign(str + s.name);
            const SymRef &r = table.at(key);
            const SymEnt &d = objs[r.obj].syms[r.sym];
            bind[oi][si] = Binding{r.obj, d.sect, d.value};
        }
    }
    return bind;
}

// Mark sections reachable from _start through relocations (--gc-sections).
std::vector<std::vector<Placed>> gc_sections(const std::vector<Object> &objs,
                                             const std::unordered_map<std::string, SymRef> &table,
                                             const std::vector<std::vector<Binding>> &bind, LinkStats &st)
{
    std::vector<std::vector<Placed>> placed(objs.size());
    std::vector<std::vector<std::vector<uint32_t>>> relsBySect(objs.size());
    for (size_t oi = 0; oi < objs.size(); oi++) {
        placed[oi].resize(objs[oi].sects.size());
        relsBySect[oi].resize(objs[oi].sects.size());
        st.sections += objs[oi].sects.size();
        for (uint32_t r = 0; r < objs[oi].rels.size(); r++)
            relsBySect[oi][objs[oi].rels[r].sect].push_back(r);
    }
    const SymRef &entry = table.at("_start");
    std::deque<std::pair<int, int>> work;
    work.emplace_back(entry.obj, objs[entry.obj].syms[entry.sym].sect);
    for (size_t oi = 0; oi < objs.size(); oi++) // .bss/.rodata of every module are kept
        for (size_t s = 0; s < objs[oi].sects.size(); s++)
            if (objs[oi].sects[s].kind == BSS || objs[oi].sects[s].kind == RODATA)
                work.emplace_back(static_cast<int>(oi), static_cast<int>(s));
    while (!work.empty()) {
        auto [oi, s] = work.front();
        work.pop_front();
        if (placed[oi][s].live) continue;
        placed[oi][s].live = true;
        st.live++;
        for (uint32_t r : relsBySect[oi][s]) {
            const Binding &t = bind[oi][objs[oi].rels[r].sym];
            if (!placed[t.obj][t.sect].live) work.emplace_back(t.obj, t.sect);
        }
    }
    return placed;
}

// Identical code folding: live .text sections with equal bytes (relocation
// fields masked) and equal relocations against equal targets are merged
// into the first such section.
void fold_identical_code(const std::vector<Object> &objs, const std::vector<std::vector<Binding>> &bind,
                         std::vector<std::vector<Placed>> &placed, LinkStats &st)
{
    std::vector<std::vector<std::vector<uint32_t>>> relsBySect(objs.size());
    for (size_t oi = 0; oi < objs.size(); oi++) {
        relsBySect[oi].resize(objs[oi].sects.size());
        for (uint32_t r = 0; r < objs[oi].rels.size(); r++)
            relsBySect[oi][objs[oi].rels[r].sect].push_back(r);
    }
    std::unordered_map<uint64_t, std::vector<std::pair<int, int>>> buckets;
    std::vector<uint8_t> masked;
    for (size_t oi = 0; oi < objs.size(); oi++)
        for (size_t s = 0; s < objs[oi].sects.size(); s++) {
            const SectHdr &h = objs[oi].sects[s];
            if (h.kind != TEXT || !placed[oi][s].live) continue;
            masked.assign(objs[oi].data[s].begin(), objs[oi].data[s].end());
            uint64_t key = 0xcbf29ce484222325ULL;
            for (uint32_t r : relsBySect[oi][s]) {
                const RelEnt &rel = objs[oi].rels[r];
                std::memset(&masked[rel.offset], 0, rel.type == REL32 ? 4 : 8);
                const Binding &b = bind[oi][rel.sym];
                uint64_t parts[4] = {rel.offset, static_cast<uint64_t>(rel.addend),
                                     (static_cast<uint64_t>(b.obj) << 32) | static_cast<uint32_t>(b.sect), b.value};
                for (uint64_t v : parts) { key ^= v; key *= 0x100000001b3ULL; key ^= key >> 29; }
            }
            for (uint8_t c : masked) { key ^= c; key *= 0x100000001b3ULL; }
            key ^= h.size;
            auto &bucket = buckets[key];
            bool folded = false;
            for (const auto &cand : bucket) {
                const Object &co = objs[cand.first];
                if (co.data[cand.second].size() != masked.size()) continue;
                const auto &ra = relsBySect[oi][s], &rb = relsBySect[cand.first][cand.second];
                if (ra.size() != rb.size()) continue;
                bool same = true;
                for (size_t q = 0; q < ra.size() && same; q++) {
                    const RelEnt &x = objs[oi].rels[ra[q]], &y = co.rels[rb[q]];
                    const Binding &bx = bind[oi][x.sym], &by = bind[cand.first][y.sym];
                    same = x.offset == y.offset && x.type == y.type && x.addend == y.addend &&
                           bx.obj == by.obj && bx.sect == by.sect && bx.value == by.value;
                }
                if (!same) continue;
                std::vector<uint8_t> other(co.data[cand.second]);
                for (uint32_t r : rb) std::memset(&other[co.rels[r].offset], 0, co.rels[r].type == REL32 ? 4 : 8);
                if (other != masked) continue;
                placed[oi][s].live = false;
                placed[oi][s].rep_obj = cand.first;
                placed[oi][s].rep_sect = cand.second;
                st.folded++;
                folded = true;
                break;
            }
            if (!folded) bucket.emplace_back(static_cast<int>(oi), static_cast<int>(s));
        }
}

struct Layout {
    uint64_t seg_start[4], seg_size[4];
    uint64_t end;
};

Layout layout_sections(const std::vector<Object> &objs, std::vector<std::vector<Placed>> &placed)
{
    Layout L{};
    uint64_t addr = kBase + 0x1000;
    for (uint32_t kind = TEXT; kind <= BSS; kind++) {
        addr = (addr + 0xFFF) & ~uint64_t(0xFFF);
        L.seg_start[kind] = addr;
        for (size_t oi = 0; oi < objs.size(); oi++)
            for (size_t s = 0; s < objs[oi].sects.size(); s++) {
                const SectHdr &h = objs[oi].sects[s];
                if (h.kind != kind || !placed[oi][s].live) continue;
                addr = (addr + h.align - 1) & ~uint64_t(h.align - 1);
                placed[oi][s].addr = addr;
                addr += h.size;
            }
        L.seg_size[kind] = addr - L.seg_start[kind];
    }
    L.end = addr;
    for (auto &po : placed) // folded sections share their representative's address
        for (auto &p : po)
            if (p.rep_obj >= 0) p.addr = placed[p.rep_obj][p.rep_sect].addr;
    return L;
}

// Copy live sections into the image and patch relocations in place.
std::vector<uint8_t> apply_relocations(const std::vector<Object> &objs,
                                       const std::vector<std::vector<Placed>> &placed,
                                       const std::vector<std::vector<Binding>> &bind, const Layout &L,
                                       LinkStats &st)
{
    uint64_t filesz = L.seg_start[BSS] - kBase;
    std::vector<uint8_t> img(filesz, 0);
    for (size_t oi = 0; oi < objs.size(); oi++)
        for (size_t s = 0; s < objs[oi].sects.size(); s++) {
            if (!placed[oi][s].live || objs[oi].sects[s].kind == BSS) continue;
            std::memcpy(&img[placed[oi][s].addr - kBase], objs[oi].data[s].data(), objs[oi].sects[s].size);
        }
    for (size_t oi = 0; oi < objs.size(); oi++)
        for (const RelEnt &r : objs[oi].rels) {
            if (!placed[oi][r.sect].live) continue;
            uint64_t P = placed[oi][r.sect].addr + r.offset;
            const Binding &b = bind[oi][r.sym];
            uint64_t S = placed[b.obj][b.sect].addr + b.value;
            if (r.type == REL32) {
                int64_t v = static_cast<int64_t>(S) + r.addend - static_cast<int64_t>(P);
                if (v < INT32_MIN || v > INT32_MAX) fail("REL32 overflow");
                int32_t v32 = static_cast<int32_t>(v);
                std::memcpy(&img[P - kBase], &v32, 4);
            } else {
                uint64_t v = S + static_cast<uint64_t>(r.addend);
                std::memcpy(&img[P - kBase], &v, 8);
            }
            st.relocs++;
        }
    return img;
}

void write_image(const std::string &path, const std::vector<uint8_t> &img, const Layout &L, uint64_t entry)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot create " + path);
    struct { char magic[8]; uint64_t entry, base, filesz, memsz, seg_start[4], seg_size[4]; } hdr{};
    std::memcpy(hdr.magic, "TIMG\x01\0\0\0", 8);
    hdr.entry = entry;
    hdr.base = kBase;
    hdr.filesz = img.size();
    hdr.memsz = L.end - kBase;
    for (int k = 0; k < 4; k++) { hdr.seg_start[k] = L.seg_start[k]; hdr.seg_size[k] = L.seg_size[k]; }
    out.write(reinterpret_cast<const char *>(&hdr), sizeof hdr);
    std::vector<char> pad(0x1000 - sizeof hdr, 0);
    out.write(pad.data(), static_cast<std::streamsize>(pad.size()));
    // image starts at kBase + 0x1000 (file offset 0x1000)
    out.write(reinterpret_cast<const char *>(img.data()) + 0x1000, static_cast<std::streamsize>(img.size() - 0x1000));
    out.close();
    if (!out) fail("write failed: " + path);
}

void write_map_file(const std::string &path, const std::vector<Object> &objs,
                    const std::vector<std::vector<Placed>> &placed, const Layout &L)
{
    static const char *kname[4] = {".text", ".rodata", ".data", ".bss"};
    std::ofstream out(path, std::ios::trunc);
    if (!out) fail("cannot create " + path);
    out << "Memory map\n\n";
    size_t discarded = 0;
    for (uint32_t kind = TEXT; kind <= BSS; kind++) {
        out << kname[kind] << std::hex << "  0x" << std::setw(8) << std::setfill('0') << L.seg_start[kind]
            << "  0x" << L.seg_size[kind] << std::dec << std::setfill(' ') << "\n";
        std::vector<std::pair<uint64_t, std::pair<uint32_t, uint32_t>>> order;
        for (size_t oi = 0; oi < objs.size(); oi++)
            for (size_t s = 0; s < objs[oi].sects.size(); s++)
                if (objs[oi].sects[s].kind == kind && placed[oi][s].live)
                    order.push_back({placed[oi][s].addr, {static_cast<uint32_t>(oi), static_cast<uint32_t>(s)}});
        std::sort(order.begin(), order.end());
        for (const auto &e : order) {
            const Object &o = objs[e.second.first];
            const char *str = o.strtab.c_str();
            const SectHdr &h = o.sects[e.second.second];
            out << " " << std::left << std::setw(28) << (str + h.name) << std::right << std::hex
                << " 0x" << std::setw(8) << std::setfill('0') << e.first << " 0x" << std::setw(5) << h.size
                << std::dec << std::setfill(' ') << " " << o.path.substr(o.path.rfind('/') + 1) << "\n";
            for (const SymEnt &sy : o.syms)
                if (sy.sect == static_cast<int32_t>(e.second.second))
                    out << "                0x" << std::hex << std::setw(8) << std::setfill('0')
                        << e.first + sy.value << std::dec << std::setfill(' ') << "    " << (str + sy.name)
                        << (sy.bind == WEAK ? " (weak)" : sy.bind == LOCAL ? " (local)" : "") << "\n";
        }
        out << "\n";
    }
    out << "Discarded input sections\n\n";
    for (size_t oi = 0; oi < objs.size(); oi++)
        for (size_t s = 0; s < objs[oi].sects.size(); s++)
            if (!placed[oi][s].live) {
                out << " " << (objs[oi].strtab.c_str() + objs[oi].sects[s].name) << "  0x" << std::hex
                    << objs[oi].sects[s].size << std::dec << "  " << objs[oi].path.substr(objs[oi].path.rfind('/') + 1);
                if (placed[oi][s].rep_obj >= 0)
                    out << "  (folded into " << objs[placed[oi][s].rep_obj].path.substr(objs[placed[oi][s].rep_obj].path.rfind('/') + 1)
                        << ")";
                out << "\n";
                discarded++;
            }
    out << "\n" << discarded << " sections discarded\n";
    out.close();
    if (!out) fail("write failed: " + path);
}

// Cross-reference table: for each global symbol, its definer and all users.
void write_xref(const std::string &path, const std::vector<Object> &objs,
                const std::unordered_map<std::string, SymRef> &table)
{
    std::map<std::string, std::vector<int>> users;
    for (size_t oi = 0; oi < objs.size(); oi++) {
        const char *str = objs[oi].strtab.c_str();
        for (const SymEnt &s : objs[oi].syms)
            if (s.sect < 0) users[str + s.name].push_back(static_cast<int>(oi));
    }
    std::ofstream out(path, std::ios::trunc);
    if (!out) fail("cannot create " + path);
    out << "Cross Reference Table\n\nSymbol                          File\n";
    for (const auto &kv : table) users.try_emplace(kv.first);
    for (auto &kv : users) {
        auto it = table.find(kv.first);
        if (it == table.end()) continue;
        const Object &def = objs[it->second.obj];
        out << std::left << std::setw(32) << kv.first << def.path.substr(def.path.rfind('/') + 1) << "\n";
        std::sort(kv.second.begin(), kv.second.end());
        kv.second.erase(std::unique(kv.second.begin(), kv.second.end()), kv.second.end());
        for (int u : kv.second)
            out << std::setw(32) << "" << objs[u].path.substr(objs[u].path.rfind('/') + 1) << "\n";
    }
    out.close();
    if (!out) fail("write failed: " + path);
}

// Re-read the image, check every relocation site and hash the file.
size_t verify_image(const std::string &path, const std::vector<Object> &objs,
                    const std::vector<std::vector<Placed>> &placed,
                    const std::vector<std::vector<Binding>> &bind, uint64_t &build_id)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) fail("cannot open " + path);
    std::streamsize n = in.tellg();
    in.seekg(0);
    std::vector<uint8_t> file(static_cast<size_t>(n));
    in.read(reinterpret_cast<char *>(file.data()), n);
    if (!in) fail("short read on " + path);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint8_t c : file) { h ^= c; h *= 0x100000001b3ULL; }
    build_id = h;
    size_t bad = 0;
    for (size_t oi = 0; oi < objs.size(); oi++)
        for (const RelEnt &r : objs[oi].rels) {
            if (!placed[oi][r.sect].live) continue;
            uint64_t P = placed[oi][r.sect].addr + r.offset;
            const Binding &b = bind[oi][r.sym];
            uint64_t S = placed[b.obj][b.sect].addr + b.value;
            size_t fo = static_cast<size_t>(P - kBase);
            if (r.type == REL32) {
                int32_t v;
                std::memcpy(&v, &file[fo], 4);
                if (static_cast<int64_t>(v) != static_cast<int64_t>(S) + r.addend - static_cast<int64_t>(P)) bad++;
            } else {
                uint64_t v;
                std::memcpy(&v, &file[fo], 8);
                if (v != S + static_cast<uint64_t>(r.addend)) bad++;
            }
        }
    return bad;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    g_outdir = argv[1];

    std::vector<std::string> paths;
    for (int m = 0; m < kModules; m++) {
        std::ostringstream p;
        p << g_outdir << "/mod" << std::setw(3) << std::setfill('0') << m << ".o";
        paths.push_back(p.str());
        generate_object(m, p.str());
    }

    std::vector<Object> objs;
    objs.reserve(paths.size());
    for (const auto &p : paths) objs.push_back(read_object(p));

    LinkStats st;
    auto table = resolve_symbols(objs, st);
    auto bind = bind_symbols(objs, table);
    auto placed = gc_sections(objs, table, bind, st);
    fold_identical_code(objs, bind, placed, st);
    Layout L = layout_sections(objs, placed);
    std::vector<uint8_t> img = apply_relocations(objs, placed, bind, L, st);
    const SymRef &entry = table.at("_start");
    uint64_t entry_addr = placed[entry.obj][objs[entry.obj].syms[entry.sym].sect].addr;
    write_image(g_outdir + "/a.out", img, L, entry_addr);
    write_map_file(g_outdir + "/a.map", objs, placed, L);
    write_xref(g_outdir + "/a.xref", objs, table);
    uint64_t build_id = 0;
    size_t bad = verify_image(g_outdir + "/a.out", objs, placed, bind, build_id);

    std::cout << "linked " << objs.size() << " objects: " << st.globals << " global symbols, "
              << st.weak_dups << " weak duplicates, " << st.live << "/" << st.sections
              << " sections live, " << st.folded << " folded, " << st.relocs << " relocations\n";
    std::cout << "image " << img.size() << " bytes (+" << L.seg_size[BSS] << " bss), entry 0x" << std::hex
              << entry_addr << ", build-id " << std::setw(16) << std::setfill('0') << build_id << std::dec
              << ", " << bad << " bad relocations\n";
    return bad ? 1 : 0;
}
