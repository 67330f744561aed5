package darshan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/internal/fixture"
)

// jsonLines runs WriteJSON on the log at path and decodes every line.
func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	l, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, l); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		var v map[string]any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", len(out)+1, err, sc.Bytes())
		}
		if d.More() {
			t.Fatalf("line %d holds more than one value", len(out)+1)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func samplePath(t *testing.T, rel string) string {
	return filepath.Join(fixture.Dir(t), "darshan-logs", rel)
}

// findRecord returns the record line of module mod, rank and id.
func findRecord(t *testing.T, lines []map[string]any, mod string, rank int64, id string) map[string]any {
	t.Helper()
	for _, v := range lines[1:] {
		if v["module"] == mod && num(t, v["rank"]) == rank && v["id_str"] == id {
			return v
		}
	}
	t.Fatalf("no %s record of rank %d with id %s", mod, rank, id)
	return nil
}

// number asserts that v is a JSON number.
func number(t *testing.T, v any) json.Number {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	return n
}

func num(t *testing.T, v any) int64 {
	t.Helper()
	i, err := number(t, v).Int64()
	if err != nil {
		t.Fatalf("%v is not an integer: %v", v, err)
	}
	return i
}

func fnum(t *testing.T, v any) float64 {
	t.Helper()
	f, err := number(t, v).Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestJSONEveryLog(t *testing.T) {
	for _, lg := range fixture.Logs(t) {
		t.Run(lg.Key, func(t *testing.T) {
			lines := jsonLines(t, lg.Path)
			if len(lines) == 0 || lines[0]["type"] != "job" {
				t.Fatalf("first line is not the job: %v", lines)
			}
			// One record line per record the reader returns, module by module.
			l, err := OpenFile(lg.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			var want []string
			for m := ModuleID(0); m < NumKnownModules; m++ {
				err := l.Each(m, func(r *Record) error {
					want = append(want, m.String())
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(lines)-1 != len(want) {
				t.Fatalf("%d record lines, the reader returns %d records", len(lines)-1, len(want))
			}
			for i, v := range lines[1:] {
				if v["type"] != "record" || v["module"] != want[i] {
					t.Fatalf("line %d: type %v module %v, want a %s record", i+2, v["type"], v["module"], want[i])
				}
				if v["id"].(json.Number).String() != v["id_str"] {
					t.Fatalf("line %d: id %v and id_str %v differ", i+2, v["id"], v["id_str"])
				}
			}
		})
	}
}

func TestJSONRelease350(t *testing.T) {
	lines := jsonLines(t, samplePath(t, "release_logs/mpi-io-test-x86_64-3.5.0.darshan"))
	job := lines[0]
	for k, want := range map[string]int64{
		"uid": 30146, "jobid": 3171794, "nprocs": 4,
		"start_time": 1762569885, "start_time_nsec": 209444863,
		"end_time": 1762569885, "end_time_nsec": 260728648,
	} {
		if got := num(t, job[k]); got != want {
			t.Errorf("job %s = %d, want %d", k, got, want)
		}
	}
	if job["version"] != "3.41" || job["compression"] != "ZLIB" {
		t.Errorf("version %v compression %v", job["version"], job["compression"])
	}
	if got := job["exe"]; got != "/home/wkliao/Darshan/TEST/mpi-io-test -f /home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat" {
		t.Errorf("exe = %q", got)
	}
	if rt := fnum(t, job["run_time"]); math.Abs(rt-0.0513) > 1e-4 {
		t.Errorf("run_time = %v", rt)
	}
	md := job["metadata"].(map[string]any)
	if md["lib_ver"] != "3.5.0" || md["h"] != "romio_no_indep_rw=true;cb_nodes=4" {
		t.Errorf("metadata = %v", md)
	}
	mounts := job["mounts"].([]any)
	if m := mounts[len(mounts)-1].(map[string]any); m["path"] != "/" || m["fs_type"] != "overlay" {
		t.Errorf("last mount = %v", m)
	}
	var mods []string
	for _, m := range job["modules"].([]any) {
		mm := m.(map[string]any)
		mods = append(mods, mm["name"].(string))
		if mm["name"] == "POSIX" && (num(t, mm["id"]) != 1 || num(t, mm["version"]) != 4 || num(t, mm["bytes"]) != 156 || mm["incomplete"] != false) {
			t.Errorf("POSIX module = %v", mm)
		}
	}
	if got := strings.Join(mods, ","); got != "POSIX,MPI-IO,LUSTRE,STDIO,HEATMAP" {
		t.Errorf("modules = %s", got)
	}

	const id = "9347516096890457488"
	posix := findRecord(t, lines, "POSIX", -1, id)
	if posix["name"] != "/home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat" {
		t.Errorf("name = %v", posix["name"])
	}
	c := posix["counters"].(map[string]any)
	if num(t, c["POSIX_OPENS"]) != 16 || num(t, c["POSIX_BYTES_WRITTEN"]) != 67108864 || num(t, c["POSIX_MMAPS"]) != -1 {
		t.Errorf("POSIX_OPENS %v POSIX_BYTES_WRITTEN %v POSIX_MMAPS %v", c["POSIX_OPENS"], c["POSIX_BYTES_WRITTEN"], c["POSIX_MMAPS"])
	}
	if len(c) != len(posixCounters) {
		t.Errorf("%d POSIX counters, want %d", len(c), len(posixCounters))
	}
	if f := fnum(t, posix["fcounters"].(map[string]any)["POSIX_F_WRITE_TIME"]); math.Abs(f-0.078341) > 1e-6 {
		t.Errorf("POSIX_F_WRITE_TIME = %v", f)
	}

	lu := findRecord(t, lines, "LUSTRE", -1, id)["lustre"].(map[string]any)
	comp := lu["components"].([]any)[0].(map[string]any)
	if num(t, comp["stripe_size"]) != 1048576 || num(t, comp["stripe_count"]) != 1 || num(t, comp["ext_end"]) != -1 || comp["pool_name"] != "" {
		t.Errorf("lustre component = %v", comp)
	}
	if osts := lu["osts"].([]any); len(osts) != 1 || num(t, osts[0]) != 1 {
		t.Errorf("osts = %v", osts)
	}

	hm := findRecord(t, lines, "HEATMAP", 0, "3989511027826779520")
	if hm["name"] != "heatmap:STDIO" {
		t.Errorf("heatmap name = %v", hm["name"])
	}
	h := hm["heatmap"].(map[string]any)
	if fnum(t, h["bin_width"]) != 0.1 || num(t, h["write"].([]any)[0]) != 322 {
		t.Errorf("heatmap = %v", h)
	}
}

// TestJSONCounterOrder checks that counters appear in table order.
func TestJSONCounterOrder(t *testing.T) {
	l, err := OpenFile(samplePath(t, "release_logs/mpi-io-test-x86_64-3.5.0.darshan"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, l); err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(strings.SplitN(buf.String(), "\n", 3)[1], `"fcounters"`)
	_, obj, _ := strings.Cut(line, `"counters":`)
	d := json.NewDecoder(strings.NewReader(strings.TrimSuffix(obj, ",")))
	var keys []string
	if _, err := d.Token(); err != nil { // {
		t.Fatal(err)
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		if _, err := d.Token(); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(keys, ",") != strings.Join(posixCounters, ",") {
		t.Errorf("counter order:\n got %v\nwant %v", keys, posixCounters)
	}
}

func TestJSONDXT(t *testing.T) {
	lines := jsonLines(t, samplePath(t, "mpi_io_test_with_dxt/treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan"))
	r := findRecord(t, lines, "DXT_POSIX", 0, "2971090431609867297")
	if r["name"] != "/yellow/users/treddy/mpi_io_rough_work/test.out" {
		t.Errorf("name = %v", r["name"])
	}
	d := r["dxt"].(map[string]any)
	if d["hostname"] != "sn362.localdomain" || d["thread_ids"] != false {
		t.Errorf("dxt = %v", d)
	}
	w, rd := d["writes"].([]any), d["reads"].([]any)
	if len(w) != 4 || len(rd) != 4 {
		t.Fatalf("%d writes, %d reads; want 4 and 4", len(w), len(rd))
	}
	seg := w[1].([]any)
	if num(t, seg[0]) != 536870912 || num(t, seg[1]) != 16777216 ||
		math.Abs(fnum(t, seg[2])-4.7482) > 1e-4 || math.Abs(fnum(t, seg[3])-4.7563) > 1e-4 {
		t.Errorf("write 1 = %v", seg)
	}
}

func TestJSONDFS(t *testing.T) {
	lines := jsonLines(t, samplePath(t, "ior_daos/snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan"))
	r := findRecord(t, lines, "DFS", -1, "1033117239470149052")
	if r["pool_uuid"] != "d0e93d4c-fc99-4657-96a8-fb9fa4f43073" || r["cont_uuid"] != "15a24825-f921-47b9-a097-594e1ca4e86e" {
		t.Errorf("pool %v cont %v", r["pool_uuid"], r["cont_uuid"])
	}
	if num(t, r["counters"].(map[string]any)["DFS_OPENS"]) != 2 {
		t.Errorf("DFS_OPENS = %v", r["counters"].(map[string]any)["DFS_OPENS"])
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quo"te`, `back\slash`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f",
		"héllo 世界", "line\u2028sep\u2029", "</script>",
	} {
		b := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("%q: %s is not JSON: %v", s, b, err)
			continue
		}
		if got != s {
			t.Errorf("%q: read back as %q", s, got)
		}
	}
	// Invalid UTF-8 becomes U+FFFD, as encoding/json does.
	b := appendJSONString(nil, "a\xffb\xc3")
	var got string
	if err := json.Unmarshal(b, &got); err != nil || got != "a\ufffdb\ufffd" {
		t.Errorf("invalid UTF-8: %s read back as %q, %v", b, got, err)
	}
}

func TestAppendJSONFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"},
		{0, "0"}, {0.1, "0.1"}, {-2.5, "-2.5"}, {1e21, "1e+21"}, {5e-324, "5e-324"},
	} {
		got := string(appendJSONFloat(nil, c.v))
		if got != c.want {
			t.Errorf("%v: got %s, want %s", c.v, got, c.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%v: %s is not JSON", c.v, got)
		}
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestJSONWriteError(t *testing.T) {
	l, err := OpenFile(samplePath(t, "release_logs/mpi-io-test-x86_64-3.5.0.darshan"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := WriteJSON(failWriter{}, l); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteJSON to a failing writer: %v", err)
	}
	if err := WriteJSON(io.Discard, l); err != nil {
		t.Errorf("WriteJSON: %v", err)
	}
}
