package pdg

import (
	"strings"
	"testing"

	"github.com/iolens/iolens/static/iosem"
)

// A C++ method sees its class's data members: a file stream member
// constructed by a member initialiser is opened by the constructor, and
// insertions into it in other methods are I/O.
func TestMemberStreams(t *testing.T) {
	src := []source{cppSrc(`#include <fstream>
#include <string>
#include <vector>
class Writer {
public:
    Writer(const std::string &data, const std::string &index)
        : data_(data, std::ios::binary), index_(index), count_(0) {
        index_ << "# offset bytes\n";
    }
    void put(const std::vector<float> &v) {
        data_.write(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(float));
        index_ << count_ << ' ' << v.size() << '\n';
    }
private:
    std::ofstream data_;
    std::ofstream index_;
    long count_;
};
int main() {
    Writer w("tiles.bin", "tiles.idx");
    std::vector<float> v(1000);
    for (int i = 0; i < 500; i++) w.put(v);
    return 0;
}
`)}
	want := "std::ofstream(tiles.bin) std::ofstream(tiles.idx) operator<<(tiles.idx) write operator<<"
	if got := ioNodes(t, src); got != want {
		t.Errorf("I/O nodes %q, want %q", got, want)
	}
}

// Two streams constructed in one function open two files.
func TestTwoLocalStreams(t *testing.T) {
	src := []source{cppSrc(`#include <fstream>
int main() {
    std::ofstream a("one.txt");
    std::ofstream b("two.txt");
    b << 1 << '\n';
    a << "x\n";
    return 0;
}
`)}
	want := "std::ofstream(one.txt) std::ofstream(two.txt) operator<<(two.txt) operator<<(one.txt)"
	if got := ioNodes(t, src); got != want {
		t.Errorf("I/O nodes %q, want %q", got, want)
	}
}

// ioNodes returns the I/O nodes reached from the entry of the program,
// in order, each with its file name (written or built) when known.
func ioNodes(t *testing.T, src []source) string {
	t.Helper()
	return ioNodesWith(t, Options{}, src)
}

// ioNodesWith is ioNodes with options.
func ioNodesWith(t *testing.T, opts Options, src []source) string {
	t.Helper()
	g := buildSources(t, opts, src...)
	var ops []string
	var walk func(n *Node)
	walk = func(n *Node) {
		for _, c := range n.Children {
			if c.Kind == IONode {
				op := c.Name
				if f := c.IO.File; f != nil && f.Name+f.Path != "" {
					op += "(" + f.Name + f.Path + ")"
				}
				ops = append(ops, op)
			}
			walk(c)
			if c.Target != nil {
				walk(c.Target)
			}
		}
	}
	walk(g.Entry)
	return strings.Join(ops, " ")
}

// A vector declared empty grows by the iterations of the loops around its
// push_back calls; a loop with a default trip count, or a library call
// the vector is passed to, leaves its size unknown.
func TestContainerGrowth(t *testing.T) {
	src := []source{cppSrc(`#include <algorithm>
#include <cstdio>
#include <iterator>
#include <vector>
int main(int argc, char **argv) {
    std::vector<double> v;
    v.reserve(600);
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 30; j++) v.push_back(i * j);
    for (double x : v) std::printf("%g\n", x); /* grown loop */
    std::vector<int> w;
    while (argc-- > 1) w.push_back(argc);
    for (int x : w) std::printf("%d\n", x); /* default loop */
    std::vector<double> u;
    std::copy(v.begin(), v.end(), std::back_inserter(u));
    for (double x : u) std::printf("%g\n", x); /* copied loop */
    return 0;
}
`)}
	runPropagation(t, []propagationCase{
		{name: "nested loops", srcs: src, loop: "grown loop", trip: 600, source: TripPropagated},
		{name: "loop of default trips", srcs: src, loop: "default loop", trip: DefaultTrip, source: TripDefault},
		{name: "filled by a library call", srcs: src, loop: "copied loop", trip: DefaultTrip, source: TripDefault},
	})
}

// TestMemberContainerSizes: a container held in a member takes the size
// the walk has seen it filled to, in loops of known counts or by resize,
// for size() and for range-for loops over it; an element added in a loop
// of unknown count makes it unknown.
func TestMemberContainerSizes(t *testing.T) {
	src := []source{cppSrc(`#include <vector>
#include <cstdio>
struct Mesh { std::vector<double> verts; std::vector<int> tris; std::vector<int> extra; };
void fill(Mesh &m, int n) {
    for (int j = 0; j < 40; j++)
        for (int i = 0; i < 50; i++) {
            m.verts.push_back(i * j);
            m.tris.push_back(i);
            m.tris.push_back(j);
        }
    m.extra.resize(n);
}
void more(Mesh &m, FILE *in) {
    int v;
    while (fscanf(in, "%d", &v) == 1) m.extra.push_back(v);
}
void dump(const Mesh &m, FILE *f) {
    for (std::size_t i = 0; i < m.verts.size(); i++) fprintf(f, "%g\n", m.verts[i]); /* verts loop */
    for (int t : m.tris) fprintf(f, "%d\n", t); /* tris loop */
    for (int e : m.extra) fprintf(f, "%d\n", e); /* extra loop */
}
void dump_more(const Mesh &m, FILE *f) {
    for (int e : m.extra) fprintf(f, "%d\n", e); /* more loop */
}
int main() {
    Mesh m;
    FILE *f = fopen("mesh.txt", "w");
    fill(m, 300);
    dump(m, f);
    more(m, stdin);
    dump_more(m, f);
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		via, loop string
		trip      int64
		source    TripSource
	}{
		{"dump(m, f)", "verts loop", 2000, TripPropagated},
		{"dump(m, f)", "tris loop", 4000, TripPropagated},
		{"dump(m, f)", "extra loop", 300, TripPropagated},
		{"dump_more(m, f)", "more loop", DefaultTrip, TripDefault},
	} {
		l := loopVia(t, g, src, []string{c.via}, c.loop)
		if l.Trip != c.trip || l.TripSource != c.source {
			t.Errorf("%s: trip %d (%s), want %d (%s)", c.loop, l.Trip, l.TripSource, c.trip, c.source)
		}
	}
}

// A container member filled across the elements of a container holds, in
// one element a loop visits, its share of all that was added.
func TestMemberContainerShare(t *testing.T) {
	src := []source{cppSrc(`#include <vector>
#include <cstdio>
struct Train { int id; std::vector<int> stops; };
int main() {
    std::vector<Train> trains(60);
    for (int k = 0; k < 60; k++)
        for (int s = 0; s < 14; s++)
            trains[k].stops.push_back(s);
    FILE *f = fopen("t.txt", "w");
    for (const Train &tr : trains)
        for (std::size_t i = 0; i + 1 < tr.stops.size(); i++) fprintf(f, "%d\n", tr.stops[i]); /* range loop */
    for (int k = 0; k < 60; k++)
        for (std::size_t i = 0; i < trains[k].stops.size(); i++) fprintf(f, "%d\n", trains[k].stops[i]); /* index loop */
    for (std::size_t i = 0; i < trains[0].stops.size(); i++) fprintf(f, "%d\n", trains[0].stops[i]); /* first loop */
    fclose(f);
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		loop string
		trip int64
	}{
		{"range loop", 13},
		{"index loop", 14},
		{"first loop", 60 * 14}, // not known to be one of many
	} {
		l := entryLoop(t, g, src, c.loop)
		if l.Trip != c.trip || l.TripSource != TripPropagated {
			t.Errorf("%s: trip %d (%s), want %d (%s)", c.loop, l.Trip, l.TripSource, c.trip, TripPropagated)
		}
	}
}

// A container a function fills and returns by value has, in its caller,
// the size it had at the return, as a local initialised or assigned with
// the call, or as the parameter the call's result is passed to; a call
// whose result size is not known forgets it.
func TestReturnedContainer(t *testing.T) {
	src := []source{cppSrc(`#include <cstdio>
#include <vector>
std::vector<double> load(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; i++) v.push_back(i);
  return v;
}
void scan(const std::vector<double> &v) {
  for (size_t i = 0; i < v.size(); i++) std::printf("%g\n", v[i]); // scan loop
}
int main() {
  auto a = load(300);
  scan(a); // first call
  std::vector<double> b;
  b = load(40);
  scan(b); // second call
  scan( // third call
      load(25));
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		call string
		trip int64
	}{{"first call", 300}, {"second call", 40}, {"third call", 25}} {
		l := loopVia(t, g, src, []string{tc.call}, "scan loop")
		if l.Trip != tc.trip || l.TripSource != TripParameter {
			t.Errorf("%s: trip %d (%s), want %d (%s)", tc.call, l.Trip, l.TripSource, tc.trip, TripParameter)
		}
	}
}

// A std::filesystem::path made from a program argument and joined with
// "/" names the files opened with it.
func TestFilesystemPathNames(t *testing.T) {
	src := []source{cppSrc(`#include <filesystem>
#include <fstream>
namespace fs = std::filesystem;
int main(int argc, char **argv) {
  fs::path dir(argv[1]);
  std::ofstream o(dir / "log" / "run.txt");
  o << 1;
  return 0;
}`)}
	want := "std::ofstream(out/log/run.txt) operator<<(out/log/run.txt)"
	if got := ioNodesWith(t, Options{Args: []string{"out"}}, src); got != want {
		t.Errorf("I/O nodes %q, want %q", got, want)
	}
}

// A stream parameter bound to a string stream formats in memory, through
// the calls it is passed on to, while the same function writing to a
// file stream does I/O.
func TestStringStreamParameters(t *testing.T) {
	src := []source{cppSrc(`#include <fstream>
#include <sstream>
#include <string>
void item(std::ostream &os, int v) { os << v << ','; }
void put(std::ostream &os, int n) {
  os << '[';
  for (int i = 0; i < n; i++) item(os, i);
  os << ']';
}
int main() {
  std::ostringstream s;
  put(s, 10);
  std::string text = s.str();
  std::ofstream f("list.txt");
  put(f, 3);
  return 0;
}`)}
	want := "std::ofstream(list.txt) operator<<(list.txt) operator<<(list.txt) operator<<(list.txt)"
	if got := ioNodesWith(t, Options{}, src); got != want {
		t.Errorf("I/O nodes %q, want %q", got, want)
	}
}

// A loop splitting a string stream into fields runs the default count of
// a condition-only loop, not that of a loop reading a file.
func TestStringStreamFields(t *testing.T) {
	srcs := []source{cppSrc(`#include <fstream>
#include <sstream>
#include <string>
long count(std::istream &in) {
  std::string line, field;
  long n = 0;
  while (std::getline(in, line)) { // line loop
    std::istringstream ss(line);
    while (std::getline(ss, field, ',')) n++; // field loop
  }
  return n;
}`)}
	g := buildSources(t, Options{Entry: "count"}, srcs...)
	for _, c := range []struct {
		loop string
		trip int64
	}{{"line loop", DefaultReadTrip}, {"field loop", DefaultWhileTrip}} {
		if l := entryLoop(t, g, srcs, c.loop); l.Trip != c.trip || l.TripSource != TripDefault {
			t.Errorf("%s runs %d times (%s), want %d (%s)", c.loop, l.Trip, l.TripSource, c.trip, TripDefault)
		}
	}
}

// A string inserted into a text stream takes its length when known, and
// iosem.StrWidth characters when not, like printf's %s.
func TestStreamStringItems(t *testing.T) {
	srcs := []source{cppSrc(`#include <fstream>
#include <string>
std::string label(int i);
int main() {
  std::ofstream o("t.txt");
  std::string tag = "abc";
  std::string name = label(7);
  o << tag << '\n'; // text given
  o << 42 << ',' << name << '\n'; // unknown
  return 0;
}`)}
	g := buildSources(t, Options{}, srcs...)
	checkBytes(t, g, srcs, []bytesWant{{"text given", 4}, {"unknown", iosem.IntWidth + 1 + iosem.StrWidth + 1}})
}

// TestKeyedElementsAndArrays checks a loop over a global std::array (its
// extent), an insertion of one of its elements (sized as its element
// type), the lines a reader of the file then reads, and a container
// member filled through an element found by key: one element of many,
// whose size the walk does not know (not the total added to all).
func TestKeyedElementsAndArrays(t *testing.T) {
	src := []source{cppSrc(`#include <array>
#include <fstream>
#include <map>
#include <string>
#include <vector>
constexpr int kSubj = 40;
constexpr std::array<double, 13> kTimes = {0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 36};
constexpr std::array<double, 3> kDose = {50.0, 100.0, 200.0};
struct Profile { double dose = 0; std::vector<double> t; };
int main() {
  std::ofstream pk("c.csv");
  for (int i = 0; i < kSubj; i++)
    for (int p = 0; p < 3; p++)
      for (double t : kTimes) /* times */
        pk << kDose[p] << ',' << t << '\n'; /* insert */
  pk.close();
  std::ifstream in("c.csv");
  std::map<int, Profile> prof;
  std::string line;
  while (std::getline(in, line)) { /* lines */
    Profile &pr = prof[std::stoi(line)];
    pr.t.push_back(1.0);
  }
  double s = 0;
  for (auto &kv : prof)
    for (size_t i = 0; i < kv.second.t.size(); i++) s += kv.second.t[i]; /* points */
  return (int)s;
}
`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"times", 13}, {"lines", 40 * 3 * 13}, {"points", DefaultTrip}})
	double := iosem.TextWidth("double", 8)
	checkBytes(t, g, src, []bytesWant{{"insert", 2*double + 2}})
}

// TestStreamVectorsAndDistributions checks insertions into the elements
// of a container of file streams (I/O on the files they opened, each
// holding its share of what is written through any), and
// draws from C++ uniform distributions: a count drawn from one runs its
// mean, a comparison of a [0, 1) draw holds its bound's share.
func TestStreamVectorsAndDistributions(t *testing.T) {
	src := []source{cppSrc(`#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>
int main() {
  std::vector<std::ofstream> logs(4);
  for (int m = 0; m < 4; m++) {
    char name[32];
    std::snprintf(name, sizeof name, "mat%d.log", m);
    logs[m].open(name);
  }
  for (int m = 0; m < 4; m++) logs[m] << "# mat " << m << '\n';
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> pick(2, 6);
  for (int r = 0; r < 1000; r++) {
    int n = 1 + static_cast<int>(u(rng) * 5);
    for (int k = 0; k < n; k++) logs[r % 4] << r << ',' << k << '\n'; /* reads */
    int q = pick(rng);
    for (int j = 0; j < q; j++) logs[0] << 'x'; /* picks */
    if (u(rng) < 0.25) logs[1] << r << '\n'; /* quarter */
  }
  for (auto &f : logs) f.close();
  long lines = 0;
  for (int m = 0; m < 4; m++) {
    char name[32];
    std::snprintf(name, sizeof name, "mat%d.log", m);
    std::ifstream in(name);
    std::string line;
    while (std::getline(in, line)) lines++; /* one log */
  }
  return (int)lines;
}
`)}
	g := buildSources(t, Options{}, src...)
	// A log holds its header and a quarter of 1000 × (3 + 0.25) lines:
	// 813.5, rounded.
	checkTrips(t, g, src, []tripWant{{"reads", 3}, {"picks", 4}, {"one log", 814}})
	integer := iosem.TextWidth("int", 4)
	checkBytes(t, g, src, []bytesWant{{"reads", 2*integer + 2}, {"picks", 1}})
	checkOdds(t, src, func(string) *Node { return g.Entry }, []oddsCase{{"quarter", 0.25}})
}

// TestConstantOfCall checks a constant defined by a call ("kMats =
// kKm.size()"): not the result of the last call of that name the
// function made (the size of another container).
func TestConstantOfCall(t *testing.T) {
	src := []source{cppSrc(`#include <array>
#include <vector>
constexpr std::array<double, 3> kKm = {0.0, 5.0, 10.0};
const int kMats = static_cast<int>(kKm.size());
int main() {
  std::vector<int> v(30000);
  size_t n = v.size();
  long s = 0;
  for (int m = 0; m < kMats; m++) s += m; /* mats */
  return (int)(s + n);
}
`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"mats", DefaultTrip}})
}
