package tune

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goodSpace = `
presets = ["mpiio"]

[vars]
ranks = 2

[[param]]
name = "cb_nodes"          # replaces the preset's
kind = "mpiio"
values = [1, 2, 4, 8]

[[param]]
name = "align"
kind = "hdf5"
key = "alignment"
range = { min = "64K", max = "1M", scale = "pow2" }
default = "1M"

[[param]]
name = "size"
kind = "arg"
range = { min = 10, max = 40, step = 10 }

[[param]]
name = "OMP"
kind = "env"
key = "OMP_NUM_THREADS"
values = ["1", "2"]

[[param]]
name = "np"
kind = "ranks"
values = ["2", "4"]

[[param]]
name = "coll"
kind = "hdf5"
key = "coll_metadata_write"
values = [false, true]

[[constraint]]
expr = "cb_nodes <= ranks"
`

func TestParseSpace(t *testing.T) {
	s, err := ParseSpace([]byte(goodSpace), "good.toml")
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"cb_nodes", "cb_buffer_size", "romio_cb_write", "romio_cb_read", "romio_ds_write",
		"romio_ds_read", "ind_wr_buffer_size", "align", "size", "OMP", "np", "coll"}
	if diff := cmp.Diff(wantNames, s.Names()); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	p, _ := s.Param("cb_nodes")
	if diff := cmp.Diff([]string{"1", "2", "4", "8"}, p.Values); diff != "" {
		t.Errorf("cb_nodes values (-want +got):\n%s", diff)
	}
	if p.Kind != MPIIOHint || p.Key != "cb_nodes" {
		t.Errorf("cb_nodes: kind %v key %q", p.Kind, p.Key)
	}
	p, _ = s.Param("cb_buffer_size")
	if diff := cmp.Diff([]string{"1048576", "4194304", "16777216"}, p.Values); diff != "" {
		t.Errorf("cb_buffer_size values (-want +got):\n%s", diff)
	}
	p, _ = s.Param("align")
	if diff := cmp.Diff([]string{"65536", "131072", "262144", "524288", "1048576"}, p.Values); diff != "" {
		t.Errorf("pow2 range (-want +got):\n%s", diff)
	}
	if p.Key != "alignment" || p.Default != "1048576" {
		t.Errorf("align: key %q default %q", p.Key, p.Default)
	}
	p, _ = s.Param("size")
	if diff := cmp.Diff([]string{"10", "20", "30", "40"}, p.Values); diff != "" {
		t.Errorf("linear range (-want +got):\n%s", diff)
	}
	if p.Kind != Arg || p.Key != "size" {
		t.Errorf("size: kind %v key %q", p.Kind, p.Key)
	}
	p, _ = s.Param("coll")
	if diff := cmp.Diff([]string{"false", "true"}, p.Values); diff != "" {
		t.Errorf("boolean values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{"ranks": 2}, s.Vars()); diff != "" {
		t.Errorf("vars (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"cb_nodes <= ranks"}, s.Constraints()); diff != "" {
		t.Errorf("constraints (-want +got):\n%s", diff)
	}
	def := s.Default().String()
	want := "cb_nodes=1 cb_buffer_size=16777216 romio_cb_write=automatic romio_cb_read=automatic romio_ds_write=automatic " +
		"romio_ds_read=automatic ind_wr_buffer_size=524288 align=1048576 size=10 OMP=1 np=2 coll=false"
	if def != want {
		t.Errorf("default\n got %s\nwant %s", def, want)
	}
	// 2 cb_nodes (<= 2) x 3^6 x 5 x 4 x 2 x 2 x 2
	if got, want := s.Size(), 2*729*5*4*2*2*2; got != want {
		t.Errorf("Size = %d, want %d", got, want)
	}
	if got, want := s.Total(), 4*729*5*4*2*2*2; got != want {
		t.Errorf("Total = %d, want %d", got, want)
	}
}

func TestLoadSpace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(path, []byte(goodSpace), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSpace(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Names()) != 12 {
		t.Errorf("%d parameters, want 12", len(s.Names()))
	}
	_, err = LoadSpace(filepath.Join(dir, "missing.toml"))
	if err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Errorf("missing file: error %v, want one naming the file", err)
	}
}

func TestParseSpaceErrors(t *testing.T) {
	param := func(body string) string { return "[[param]]\n" + body + "\n" }
	cases := []struct {
		name, text string
		want       []string // substrings of the error, besides the file name
	}{
		{"unknown key", param(`name = "a"
kind = "env"
vaules = ["1"]`), []string{"parameter a", `unknown key "vaules"`}},
		{"unknown key of the second param", param(`name = "a"
kind = "env"
values = ["1"]`) + param(`name = "b"
kind = "env"
values = ["1"]
colour = "red"`), []string{"parameter b", `unknown key "colour"`}},
		{"unknown range key", param(`name = "a"
kind = "env"
range = { min = 1, max = 4, stride = 1 }`), []string{"parameter a", `unknown key "range.stride"`}},
		{"unknown top-level key", "title = \"x\"\n" + param(`name = "a"
kind = "env"
values = ["1"]`), []string{`unknown key "title"`}},
		{"unknown kind", param(`name = "a"
kind = "posix"
values = ["1"]`), []string{"parameter a", `unknown kind "posix"`, "mpiio, hdf5, stdio, env, arg, ranks"}},
		{"missing kind", param(`name = "a"
values = ["1"]`), []string{"parameter a", "missing kind"}},
		{"missing name", param(`kind = "env"
values = ["1"]`), []string{"parameter #1", "missing name"}},
		{"bad name", param(`name = "cb-nodes"
kind = "mpiio"
values = ["1"]`), []string{`name "cb-nodes" is not an identifier`}},
		{"empty values", param(`name = "a"
kind = "env"
values = []`), []string{"parameter a", "empty value list"}},
		{"no values", param(`name = "a"
kind = "env"`), []string{"parameter a", "empty value list"}},
		{"duplicate name", param(`name = "a"
kind = "env"
values = ["1"]`) + param(`name = "a"
kind = "env"
values = ["2"]`), []string{"parameter a", "defined twice"}},
		{"duplicate value", param(`name = "a"
kind = "mpiio"
values = ["1M", "1048576"]`), []string{"parameter a", `value "1048576" is given twice`}},
		{"values and range", param(`name = "a"
kind = "env"
values = ["1"]
range = { min = 1, max = 2, step = 1 }`), []string{"parameter a", "both values and range"}},
		{"range min > max", param(`name = "a"
kind = "mpiio"
range = { min = "4M", max = "1M" }`), []string{"parameter a", "bad range", "min 4194304 is greater than max 1048576"}},
		{"range without power of two", param(`name = "a"
kind = "mpiio"
range = { min = 5, max = 7, scale = "pow2" }`), []string{"parameter a", "bad range", "no power of two between 5 and 7"}},
		{"range bad scale", param(`name = "a"
kind = "mpiio"
range = { min = 1, max = 7, scale = "log" }`), []string{"parameter a", "bad range", `unknown scale "log"`}},
		{"linear range without step", param(`name = "a"
kind = "mpiio"
range = { min = 1, max = 7, scale = "linear" }`), []string{"parameter a", "bad range", "needs a step"}},
		{"range bad min", param(`name = "a"
kind = "mpiio"
range = { min = "lots", max = 7 }`), []string{"parameter a", "bad range", "min lots is not a number"}},
		{"range too long", param(`name = "a"
kind = "arg"
range = { min = 1, max = 1e9, step = 1 }`), []string{"parameter a", "bad range", "more than 10000 values"}},
		{"unknown HDF5 property", param(`name = "a"
kind = "hdf5"
values = ["1"]`), []string{"parameter a", `unknown HDF5 property "a"`}},
		{"HDF5 word", param(`name = "h5_alignment"
kind = "hdf5"
values = ["big"]`), []string{"parameter h5_alignment", `value "big" is not a number`}},
		{"negative size", param(`name = "stdio_buffer"
kind = "stdio"
values = ["-1"]`), []string{"parameter stdio_buffer", "not a non-negative integer"}},
		{"zero ranks", param(`name = "np"
kind = "ranks"
values = ["0", "2"]`), []string{"parameter np", "at least 1"}},
		{"bad default", param(`name = "a"
kind = "mpiio"
values = ["1", "2"]
default = "3"`), []string{"parameter a", `default "3" is not one of the values`}},
		{"unknown preset", `presets = ["gpfs"]`, []string{`unknown preset "gpfs"`}},
		{"constraint unknown parameter", param(`name = "a"
kind = "mpiio"
values = ["1"]`) + "[[constraint]]\nexpr = \"a <= b\"\n", []string{`constraint "a <= b"`, `unknown parameter "b"`}},
		{"constraint syntax", param(`name = "a"
kind = "mpiio"
values = ["1"]`) + "[[constraint]]\nexpr = \"a <=\"\n", []string{`constraint "a <="`, "expected operand"}},
		{"constraint not boolean", param(`name = "a"
kind = "mpiio"
values = ["1"]`) + "[[constraint]]\nexpr = \"a + 1\"\n", []string{`constraint "a + 1"`, "not a boolean"}},
		{"constraint call", param(`name = "a"
kind = "mpiio"
values = ["1"]`) + "[[constraint]]\nexpr = \"max(a, 1) > 0\"\n", []string{"unsupported expression"}},
		{"empty constraint", param(`name = "a"
kind = "mpiio"
values = ["1"]`) + "[[constraint]]\nexpr = \"\"\n", []string{"constraint #1", "empty expr"}},
		{"bad variable", param(`name = "a"
kind = "mpiio"
values = ["1"]`) + "[vars]\nranks = \"many\"\n", []string{"variable ranks", "not a number"}},
		{"toml syntax", "[[param]\n", []string{"toml"}},
		{"no parameter", "", []string{"no parameter"}},
	}
	for _, c := range cases {
		_, err := ParseSpace([]byte(c.text), "bad.toml")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "bad.toml: ") {
			t.Errorf("%s: error %q does not begin with the file name", c.name, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not contain %q", c.name, msg, w)
			}
		}
	}
}

// cube returns the 3x3x3 space of cb_nodes, cb_buffer_size and
// romio_cb_write, constrained by cb_nodes <= ranks.
func cube(t *testing.T) *Space {
	t.Helper()
	s, err := ParseSpace([]byte(`
[[param]]
name = "cb_nodes"
kind = "mpiio"
values = ["1", "2", "4"]
[[param]]
name = "cb_buffer_size"
kind = "mpiio"
values = ["1M", "4M", "16M"]
[[param]]
name = "romio_cb_write"
kind = "mpiio"
values = ["automatic", "enable", "disable"]
[[constraint]]
expr = "cb_nodes <= ranks"
`), "cube.toml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConfigsWithConstraint(t *testing.T) {
	s := cube(t)
	if diff := cmp.Diff([]string{"ranks"}, s.Unbound()); diff != "" {
		t.Errorf("unbound (-want +got):\n%s", diff)
	}
	if n := s.Size(); n != 0 {
		t.Errorf("Size with ranks unbound = %d, want 0", n)
	}
	if _, err := s.Allowed(s.Default()); err == nil || !strings.Contains(err.Error(), "ranks") {
		t.Errorf("Allowed with ranks unbound: error %v, want one naming ranks", err)
	}
	s.SetVar("ranks", 2)
	if u := s.Unbound(); len(u) != 0 {
		t.Errorf("unbound after SetVar: %v", u)
	}
	if n := s.Size(); n != 18 {
		t.Errorf("Size = %d, want 18", n)
	}
	if n := s.Total(); n != 27 {
		t.Errorf("Total = %d, want 27", n)
	}
	var got []string
	for c := range s.Configs() {
		got = append(got, c.String())
	}
	if len(got) != 18 {
		t.Fatalf("Configs yields %d, want 18", len(got))
	}
	if got[0] != "cb_nodes=1 cb_buffer_size=1048576 romio_cb_write=automatic" ||
		got[1] != "cb_nodes=1 cb_buffer_size=1048576 romio_cb_write=enable" ||
		got[17] != "cb_nodes=2 cb_buffer_size=16777216 romio_cb_write=disable" {
		t.Errorf("order: first %q, second %q, last %q", got[0], got[1], got[17])
	}
	for _, c := range got {
		if strings.Contains(c, "cb_nodes=4") {
			t.Errorf("config %s violates the constraint", c)
		}
	}
	// Configs stops when asked.
	n := 0
	for range s.Configs() {
		n++
		if n == 5 {
			break
		}
	}
	bad, _ := ParseConfig("cb_nodes=4 cb_buffer_size=1M romio_cb_write=enable")
	if ok, err := s.Allowed(bad); ok || err != nil {
		t.Errorf("Allowed(%s) = %v, %v; want false", bad, ok, err)
	}
	if s.Contains(bad) {
		t.Errorf("Contains(%s)", bad)
	}
	good, _ := ParseConfig("cb_nodes=2 cb_buffer_size=4194304")
	if !s.Contains(good) {
		t.Errorf("!Contains(%s)", good)
	}
}

func TestRanksParamInConstraint(t *testing.T) {
	s, err := NewSpace([]Param{
		{Name: "np", Kind: Ranks, Values: []string{"1", "2", "4"}},
		{Name: "cb_nodes", Kind: MPIIOHint, Values: []string{"1", "2", "4"}},
	}, []string{"cb_nodes <= ranks"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u := s.Unbound(); len(u) != 0 {
		t.Errorf("unbound %v: ranks should be the Ranks parameter", u)
	}
	if n := s.Size(); n != 6 {
		t.Errorf("Size = %d, want 6", n)
	}
}

func TestConstraintExpressions(t *testing.T) {
	s, err := NewSpace([]Param{
		{Name: "a", Kind: MPIIOHint, Values: []string{"1M", "4M"}},
		{Name: "w", Kind: MPIIOHint, Values: []string{"automatic", "enable", "disable"}},
		{Name: "n", Kind: Arg, Values: []string{"0", "10"}},
	}, nil, map[string]float64{"limit": 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{{"a", "1048576"}, {"w", "disable"}, {"n", "0"}}
	cases := []struct {
		expr string
		want bool
	}{
		{"a == 1M", true},
		{"a == 1MiB && a < 2M", true},
		{"a >= 4M", false},
		{"a <= limit", true},
		{"a * 2 + 1K > 2M", true},
		{"a / 1024 == 1024", true},
		{"w == 3", true}, // a word is its 1-based position
		{`w == "disable"`, true},
		{`"DISABLE" == w`, true},
		{`w != "enable"`, true},
		{`a == "1M"`, true},
		{"n == 1", true}, // a number <= 0 is its position too
		{"!(a > 2M) && (w == 1 || w == 3)", true},
		{"-a < 0 && +a > 0", true},
		{"true && !false", true},
		{"a > 2M || w == 2", false},
	}
	for _, c := range cases {
		ss, err := Merge(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := ss.addConstraint(c.expr); err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		got, err := ss.Allowed(cfg)
		if err != nil || got != c.want {
			t.Errorf("%s = %v, %v; want %v", c.expr, got, err, c.want)
		}
	}
	for _, bad := range []string{"a && w", "!a", "a < true", `a < "x"`, `"x" == "y"`, "a[1] > 0", "a % 2 == 0", "a +"} {
		if _, err := ParseConstraint(bad); err == nil {
			t.Errorf("%s: no error", bad)
		} else if !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("%s: error %q does not quote the expression", bad, err)
		}
	}
	c, err := ParseConstraint("b <= ranks && a >= 64K")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b", "ranks"}, c.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func TestEncodings(t *testing.T) {
	for in, want := range map[string]float64{"1M": 1048576, "64K": 65536, "2G": 2 << 30, "1T": 1 << 40, "4k": 4096,
		"1MiB": 1048576, "1MB": 1048576, "1.5K": 1536, "12": 12, "-3": -3, "2e3": 2000} {
		if got, ok := ParseNumber(in); !ok || got != want {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "M", "1X", "0x10", "Inf", "NaN", "1 M", "--1", "1e", "K1"} {
		if _, ok := ParseNumber(in); ok {
			t.Errorf("ParseNumber(%q) ok", in)
		}
	}
	rw, _ := Lookup("romio_cb_write")
	align, _ := Lookup("h5_alignment")
	coll, _ := Lookup("h5_coll_metadata_write")
	zero := Param{Name: "z", Kind: Arg, Values: []string{"0", "5", "-2"}}
	cases := []struct {
		p     Param
		value string
		want  float64
	}{
		{align, "1048576", 1048576},
		{align, "1M", 1048576},
		{align, "1", 1},
		{rw, "automatic", 1},
		{rw, "enable", 2},
		{rw, "disable", 3},
		{rw, "Enable", 2},
		{coll, "false", 1},
		{coll, "true", 2},
		{coll, "1", 2},
		{coll, "off", 1},
		{zero, "0", 1},
		{zero, "5", 5},
		{zero, "-2", 3},
	}
	for _, c := range cases {
		if got, ok := c.p.Encode(c.value); !ok || got != c.want {
			t.Errorf("%s.Encode(%q) = %v, %v; want %v", c.p.Name, c.value, got, ok, c.want)
		}
	}
	if _, ok := rw.Encode("sometimes"); ok {
		t.Error("Encode of an unknown word ok")
	}
	s, err := NewSpace([]Param{align, rw, coll}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Encode(Config{{"romio_cb_write", "disable"}, {"h5_alignment", "64K"}})
	if diff := cmp.Diff([]float64{65536, 3, 1}, got); diff != "" {
		t.Errorf("Encode (-want +got):\n%s", diff)
	}
	got = s.Encode(Config{{"romio_cb_write", "never"}})
	if !math.IsNaN(got[1]) || got[0] != 1 {
		t.Errorf("Encode with an unknown word = %v, want [1 NaN 1]", got)
	}
}

func TestPresets(t *testing.T) {
	s, err := Preset("hdf5, mpiio")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"h5_alignment", "h5_alignment_threshold", "h5_sieve_buf_size", "h5_meta_block_size", "h5_chunk_cache",
		"h5_coll_metadata_read", "h5_coll_metadata_write", "cb_nodes", "cb_buffer_size", "romio_cb_write", "romio_cb_read",
		"romio_ds_write", "romio_ds_read", "ind_wr_buffer_size"}
	if diff := cmp.Diff(want, s.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if got, want := s.Size(), (4*2*3*3*3*2*2)*(3*3*3*3*3*3*3); got != want {
		t.Errorf("Size = %d, want %d", got, want)
	}
	def := s.Default()
	for name, want := range map[string]string{"cb_buffer_size": "16777216", "ind_wr_buffer_size": "524288",
		"romio_ds_write": "automatic", "h5_alignment": "1", "h5_meta_block_size": "2048", "h5_coll_metadata_write": "false"} {
		if got, _ := def.Get(name); got != want {
			t.Errorf("default %s = %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"mpiio", "hdf5", "stdio", "lustre"} {
		if _, err := Preset(name); err != nil {
			t.Errorf("Preset(%s): %v", name, err)
		}
	}
	if _, err := Preset("mpiio,posix"); err == nil || !strings.Contains(err.Error(), `"posix"`) {
		t.Errorf("unknown preset: error %v", err)
	}
	for _, name := range []string{"cb_nodes", "cb_buffer_size", "romio_cb_write", "romio_cb_read", "romio_ds_write", "romio_ds_read",
		"ind_wr_buffer_size", "striping_factor", "striping_unit", "h5_alignment", "h5_alignment_threshold", "h5_sieve_buf_size",
		"h5_meta_block_size", "h5_chunk_cache", "h5_coll_metadata_read", "h5_coll_metadata_write", "stdio_buffer"} {
		if _, ok := Lookup(name); !ok {
			t.Errorf("Lookup(%s) failed", name)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) ok")
	}
	p, _ := Lookup("h5_chunk_cache")
	if p.Kind != HDF5 || p.Key != "chunk_cache_bytes" {
		t.Errorf("h5_chunk_cache: kind %v key %s", p.Kind, p.Key)
	}
	p, _ = Lookup("stdio_buffer")
	if p.Kind != Stdio || p.Key != "buffer_size" {
		t.Errorf("stdio_buffer: kind %v key %s", p.Kind, p.Key)
	}
}

func TestParamParse(t *testing.T) {
	look := func(n string) Param { p, _ := Lookup(n); return p }
	env := Param{Name: "size", Kind: Arg, Values: []string{"1M", "4M"}}
	good := []struct {
		p         Param
		in, canon string
	}{
		{look("cb_buffer_size"), "1M", "1048576"},
		{look("cb_buffer_size"), "3M", "3145728"},
		{look("cb_nodes"), " 8 ", "8"},
		{look("romio_cb_write"), "ENABLE", "enable"},
		{look("h5_coll_metadata_write"), "1", "true"},
		{look("h5_coll_metadata_write"), "off", "false"},
		{look("stdio_buffer"), "0", "0"},
		{env, "4194304", "4M"},
		{env, "2M", "2M"},
	}
	for _, c := range good {
		got, err := c.p.Parse(c.in)
		if err != nil || got != c.canon {
			t.Errorf("%s.Parse(%q) = %q, %v; want %q", c.p.Name, c.in, got, err, c.canon)
		}
	}
	bad := []struct {
		p      Param
		in     string
		substr string
	}{
		{look("cb_nodes"), "many", `"many" is not a number`},
		{look("cb_nodes"), "1.5", "not a non-negative integer"},
		{look("cb_buffer_size"), "-1M", "not a non-negative integer"},
		{look("romio_cb_write"), "4", "is not one of automatic, enable, disable"},
		{look("romio_cb_write"), "sometimes", "is not one of automatic, enable, disable"},
		{look("h5_coll_metadata_read"), "maybe", "not a boolean"},
		{look("h5_alignment"), "", "empty value"},
	}
	for _, c := range bad {
		_, err := c.p.Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.substr) || !strings.Contains(err.Error(), c.p.Name) {
			t.Errorf("%s.Parse(%q): error %v, want one with %q and the name", c.p.Name, c.in, err, c.substr)
		}
	}
	n, err := look("h5_coll_metadata_write").Int("true")
	if err != nil || n != 1 {
		t.Errorf("Int(true) = %d, %v", n, err)
	}
	n, err = look("h5_alignment").Int("4M")
	if err != nil || n != 4<<20 {
		t.Errorf("Int(4M) = %d, %v", n, err)
	}
	if _, err := look("romio_cb_write").Int("automatic"); err == nil {
		t.Error("Int(automatic): no error")
	}
}

func TestConfigText(t *testing.T) {
	c := Config{{"cb_nodes", "2"}, {"args", "-n 4"}, {"empty", ""}, {"eq", "a=b"}}
	text := c.String()
	if want := `cb_nodes=2 args="-n 4" empty="" eq="a=b"`; text != want {
		t.Errorf("String = %s, want %s", text, want)
	}
	back, err := ParseConfig(text)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("ParseConfig (-want +got):\n%s", diff)
	}
	if c.Key() != `args="-n 4" cb_nodes=2 empty="" eq="a=b"` {
		t.Errorf("Key = %s", c.Key())
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"cb_nodes":"2","args":"-n 4","empty":"","eq":"a=b"}`; string(data) != want {
		t.Errorf("JSON %s, want %s", data, want)
	}
	var fromJSON Config
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, fromJSON); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"a", "a=1 a=2", `a="x`, `a="x"y`, "=1"} {
		if _, err := ParseConfig(bad); err == nil {
			t.Errorf("ParseConfig(%q): no error", bad)
		}
	}
}

func TestFormatRoundTrip(t *testing.T) {
	s, err := ParseSpace([]byte(goodSpace), "good.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := s.Format()
	back, err := ParseSpace(text, "formatted.toml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if diff := cmp.Diff(s.Params(), back.Params()); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(s.Constraints(), back.Constraints()); diff != "" {
		t.Errorf("constraints (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(s.Vars(), back.Vars()); diff != "" {
		t.Errorf("vars (-want +got):\n%s", diff)
	}
	if s.Size() != back.Size() {
		t.Errorf("size %d, want %d", back.Size(), s.Size())
	}
}

func TestMerge(t *testing.T) {
	a, err := Preset("stdio")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSpace([]Param{
		{Name: "size", Kind: Arg, Values: []string{"1", "2"}},
		{Name: "stdio_buffer", Kind: Stdio, Values: []string{"8K"}},
	}, []string{"size >= 1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"stdio_buffer", "size"}, m.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	p, _ := m.Param("stdio_buffer")
	if diff := cmp.Diff([]string{"8192"}, p.Values); diff != "" {
		t.Errorf("replaced values (-want +got):\n%s", diff)
	}
	if m.Size() != 2 {
		t.Errorf("Size = %d, want 2", m.Size())
	}
}

func TestSettings(t *testing.T) {
	s, err := ParseSpace([]byte(goodSpace), "good.toml")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Default()
	for i := range c {
		switch c[i].Name {
		case "coll":
			c[i].Value = "true"
		case "size":
			c[i].Value = "30"
		case "romio_ds_write":
			c[i].Value = "disable"
		}
	}
	st, err := s.Settings(c)
	if err != nil {
		t.Fatal(err)
	}
	wantHints := [][2]string{{"cb_nodes", "1"}, {"cb_buffer_size", "16777216"}, {"romio_cb_write", "automatic"},
		{"romio_cb_read", "automatic"}, {"romio_ds_write", "disable"}, {"romio_ds_read", "automatic"}, {"ind_wr_buffer_size", "524288"}}
	if diff := cmp.Diff(wantHints, st.Hints); diff != "" {
		t.Errorf("hints (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"alignment": 1 << 20, "coll_metadata_write": 1}, st.HDF5); diff != "" {
		t.Errorf("HDF5 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"OMP_NUM_THREADS=1"}, st.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if st.Ranks != 2 || st.StdioBuffer != 0 {
		t.Errorf("ranks %d stdio %d", st.Ranks, st.StdioBuffer)
	}
	if diff := cmp.Diff([]string{"./app", "--size=30x", "{other}"}, st.ExpandArgs([]string{"./app", "--size={size}x", "{other}"})); diff != "" {
		t.Errorf("ExpandArgs (-want +got):\n%s", diff)
	}
	if _, err := s.Settings(Config{{"nope", "1"}}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown parameter: error %v", err)
	}
	if _, err := s.Settings(Config{{"romio_cb_write", "often"}}); err == nil || !strings.Contains(err.Error(), "often") {
		t.Errorf("bad value: error %v", err)
	}
	st, err = s.Settings(Config{{"coll", "false"}})
	if err != nil || !slices.Equal(st.Hints, nil) || st.HDF5["coll_metadata_write"] != 0 {
		t.Errorf("partial config: %+v, %v", st, err)
	}
}
