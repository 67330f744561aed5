// chess_pgn_opening_tally: writes a synthetic archive of PGN-style game
// records split into monthly files, walks the archive directory, parses tag
// pairs and movetext, builds an opening tree over the first plies with
// per-result tallies, computes Elo-expected vs. actual scores per opening,
// records byte offsets of every game (tellg) in a binary index and then
// re-reads a sample of games by seeking to their offsets.
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
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

static constexpr int kMonths = 12;
static constexpr int kGamesPerMonth = 6500;
static constexpr int kPlyKey = 6;
static constexpr int kSample = 60000;

struct Rng {
    uint64_t s;
    uint64_t next() { s ^= s << 7; s ^= s >> 9; return s; }
    double unit() { return double(next() % 1000000) / 1e6; }
};

struct GameIndex { int32_t month; int64_t offset; int32_t white_elo, black_elo; };

struct OpeningStats {
    int games = 0, white = 0, draw = 0, black = 0;
    double expected = 0, actual = 0;
};

static const char *kFirst[] = {"e4", "d4", "c4", "Nf3", "g3", "b3"};
static const char *kReply[] = {"e5", "c5", "e6", "c6", "d5", "Nf6", "g6", "d6"};
static const char *kPieces = "NBRQK";

static std::string random_move(Rng &r)
{
    std::string m;
    if (r.next() % 3) m += kPieces[r.next() % 5];
    m += char('a' + r.next() % 8);
    m += char('1' + r.next() % 8);
    if (r.next() % 11 == 0) m += '+';
    return m;
}

static void write_month(const fs::path &file, int month, Rng &r)
{
    std::ofstream out(file);
    for (int g = 0; g < kGamesPerMonth; ++g) {
        int we = 1200 + int(r.next() % 1400), be = 1200 + int(r.next() % 1400);
        double pw = 1.0 / (1.0 + std::pow(10.0, (be - we) / 400.0));
        double u = r.unit();
        const char *res = u < pw * 0.8 ? "1-0" : (u < pw * 0.8 + 0.25 ? "1/2-1/2" : "0-1");
        out << "[Event \"Rated blitz\"]\n[Date \"2023." << std::setw(2) << std::setfill('0') << month + 1
            << '.' << std::setw(2) << 1 + g % 28 << std::setfill(' ') << "\"]\n[White \"player" << r.next() % 5000
            << "\"]\n[Black \"player" << r.next() % 5000 << "\"]\n[WhiteElo \"" << we << "\"]\n[BlackElo \"" << be
            << "\"]\n[Result \"" << res << "\"]\n\n";
        int nply = 20 + int(r.next() % 90);
        for (int p = 0; p < nply; ++p) {
            if (p % 2 == 0) out << p / 2 + 1 << ". ";
            if (p == 0) out << kFirst[r.next() % 6 == 5 ? 5 : (r.next() % 4)];
            else if (p == 1) out << kReply[r.next() % 8];
            else if (p < 6) out << kReply[(r.next() + p) % 4];
            else out << random_move(r);
            out << ((p % 12 == 11) ? '\n' : ' ');
        }
        out << res << "\n\n";
    }
}

static std::vector<fs::path> list_archive(const fs::path &dir)
{
    std::vector<fs::path> files;
    for (auto &e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".pgn") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

static double score_of(const std::string &res) { return res == "1-0" ? 1.0 : res == "0-1" ? 0.0 : 0.5; }

// parses one file; fills opening tree and the offset index
static void parse_file(const fs::path &file, int month, std::unordered_map<std::string, OpeningStats> &tree,
                       std::vector<GameIndex> &index)
{
    std::ifstream in(file);
    std::string line, result, moves;
    int we = 0, be = 0;
    std::streamoff start = -1;
    bool in_moves = false;
    std::streamoff pos = in.tellg();
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '[') {
            if (start < 0) start = pos;
            auto q1 = line.find('"'), q2 = line.rfind('"');
            std::string key = line.substr(1, line.find(' ') - 1), val = line.substr(q1 + 1, q2 - q1 - 1);
            if (key == "WhiteElo") we = std::stoi(val);
            else if (key == "BlackElo") be = std::stoi(val);
            else if (key == "Result") result = val;
        } else if (!line.empty()) {
            in_moves = true;
            moves += line;
            moves += ' ';
        } else if (in_moves) {
            std::istringstream ms(moves);
            std::string tok, key;
            int ply = 0;
            while (ms >> tok && ply < kPlyKey) {
                if (tok.back() == '.') continue;
                key += tok; key += ' ';
                ++ply;
            }
            auto &st = tree[key];
            double s = score_of(result);
            st.games++;
            st.white += s == 1.0; st.draw += s == 0.5; st.black += s == 0.0;
            st.expected += 1.0 / (1.0 + std::pow(10.0, (be - we) / 400.0));
            st.actual += s;
            index.push_back({month, int64_t(start), we, be});
            moves.clear(); in_moves = false; start = -1;
        }
        pos = in.tellg();
    }
}

// compute: aggregate opening tree to shorter prefixes and rank by surprise
static std::vector<std::pair<std::string, OpeningStats>> rank_openings(
    const std::unordered_map<std::string, OpeningStats> &tree, int plies)
{
    std::map<std::string, OpeningStats> agg;
    for (auto &[k, st] : tree) {
        std::istringstream ks(k);
        std::string tok, pre;
        for (int i = 0; i < plies && ks >> tok; ++i) { pre += tok; pre += ' '; }
        auto &a = agg[pre];
        a.games += st.games; a.white += st.white; a.draw += st.draw; a.black += st.black;
        a.expected += st.expected; a.actual += st.actual;
    }
    std::vector<std::pair<std::string, OpeningStats>> v(agg.begin(), agg.end());
    std::sort(v.begin(), v.end(), [](auto &a, auto &b) {
        double za = (a.second.actual - a.second.expected) / std::sqrt(a.second.games + 1.0);
        double zb = (b.second.actual - b.second.expected) / std::sqrt(b.second.games + 1.0);
        return za > zb;
    });
    return v;
}

static void write_report(const fs::path &file, const std::vector<std::pair<std::string, OpeningStats>> &v, int plies)
{
    std::ofstream out(file, std::ios::app);
    out << "== openings by " << plies << " plies (" << v.size() << " lines) ==\n";
    for (auto &[k, st] : v)
        out << std::left << std::setw(40) << k << std::right << std::setw(7) << st.games << std::setw(7) << st.white
            << std::setw(7) << st.draw << std::setw(7) << st.black << std::fixed << std::setprecision(3)
            << std::setw(10) << (st.actual - st.expected) / std::max(1, st.games) << '\n';
}

static void write_index(const fs::path &file, const std::vector<GameIndex> &idx)
{
    std::ofstream out(file, std::ios::binary);
    for (auto &g : idx) out.write(reinterpret_cast<const char *>(&g), sizeof g);
}

// random access: seek to sampled offsets and re-read the WhiteElo tag
static int verify_sample(const fs::path &idxfile, const std::vector<fs::path> &files)
{
    std::ifstream ix(idxfile, std::ios::binary | std::ios::ate);
    auto n = int64_t(ix.tellg()) / int64_t(sizeof(GameIndex));
    std::vector<std::ifstream> streams;
    for (auto &f : files) streams.emplace_back(f);
    int ok = 0;
    GameIndex g;
    std::string line;
    for (int s = 0; s < kSample; ++s) {
        int64_t k = (int64_t(s) * 7919) % n;
        ix.seekg(k * int64_t(sizeof g));
        ix.read(reinterpret_cast<char *>(&g), sizeof g);
        auto &in = streams[size_t(g.month)];
        in.clear();
        in.seekg(g.offset);
        for (int t = 0; t < 6 && std::getline(in, line); ++t)
            if (line.rfind("[WhiteElo", 0) == 0 && std::stoi(line.substr(11)) == g.white_elo) ++ok;
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) { std::cerr << "usage: " << argv[0] << " dir\n"; return 1; }
    fs::path root(argv[1]);
    fs::path arch = root / "archive";
    fs::create_directories(arch);
    Rng r{0x9e3779b97f4a7c15ULL};
    for (int m = 0; m < kMonths; ++m) {
        std::ostringstream nm;
        nm << "games_2023_" << std::setw(2) << std::setfill('0') << m + 1 << ".pgn";
        write_month(arch / nm.str(), m, r);
    }
    auto files = list_archive(arch);
    std::unordered_map<std::string, OpeningStats> tree;
    std::vector<GameIndex> index;
    for (size_t i = 0; i < files.size(); ++i) parse_file(files[i], int(i), tree, index);
    fs::remove(root / "openings.txt");
    for (int plies : {2, 3, 4, 5, 6}) write_report(root / "openings.txt", rank_openings(tree, plies), plies);
    write_index(root / "games.idx", index);
    int ok = verify_sample(root / "games.idx", files);
    std::cout << "games " << index.size() << " distinct lines " << tree.size() << " verified " << ok << "/" << kSample << '\n';
    return ok == kSample ? 0 : 2;
}
