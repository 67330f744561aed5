package cli

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// writeStore writes a minimal collector store (layout of
// collector/c/store.h): one process that opened name once. mpiJob 0 makes
// a non-MPI process; otherwise it is rank 0 of a one-rank job.
func writeStore(t *testing.T, path string, pid int64, mpiJob uint64, name string) {
	t.Helper()
	le := binary.LittleEndian
	posix := darshan.ModPOSIX.Info()
	nc, nf := len(posix.Counters), len(posix.FCounters)
	nameBlock := (24 + len(name) + 1 + 7) &^ 7
	recBlock := 48 + 8*(nc+nf)
	used := 4096 + nameBlock + recBlock
	b := make([]byte, used+4096)
	copy(b, "IOLSTOR\x01")
	le.PutUint32(b[8:], 1)
	le.PutUint32(b[12:], 4096)
	le.PutUint64(b[16:], uint64(used))
	le.PutUint64(b[24:], uint64(len(b)))
	for off, v := range map[int]int64{32: pid, 56: 1000, 64: 1700000000 + pid, 80: 1700000001 + pid, 144: -1, 176: -1} {
		le.PutUint64(b[off:], uint64(v))
	}
	le.PutUint64(b[96:], 1)                      // tick0
	le.PutUint64(b[128:], math.Float64bits(1e9)) // tick_hz
	le.PutUint32(b[136:], 2)                     // exited
	if mpiJob != 0 {
		le.PutUint64(b[144:], 0) // rank
		le.PutUint64(b[152:], 1) // size
		le.PutUint64(b[160:], mpiJob)
	}
	copy(b[192:], "host")
	le.PutUint32(b[336:], 4)
	copy(b[344:], "./app")

	nb := b[4096:]
	le.PutUint64(nb, 1|uint64(nameBlock)<<32)
	le.PutUint64(nb[8:], darshan.RecordID(name))
	le.PutUint32(nb[16:], uint32(len(name)))
	copy(nb[24:], name)

	rb := nb[nameBlock:]
	le.PutUint64(rb, 2|uint64(recBlock)<<32)
	le.PutUint32(rb[8:], uint32(darshan.ModPOSIX))
	le.PutUint32(rb[12:], uint32(nc))
	le.PutUint32(rb[16:], uint32(nf))
	le.PutUint64(rb[24:], darshan.RecordID(name))
	le.PutUint64(rb[40:], 1) // events
	le.PutUint64(rb[48+8*darshan.ModPOSIX.CounterIndex("POSIX_OPENS"):], 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMerge(t *testing.T) {
	dir, outDir := t.TempDir(), t.TempDir()
	writeStore(t, filepath.Join(dir, "a.store"), 10, 0, "/data/a")
	writeStore(t, filepath.Join(dir, "b.store"), 11, 0, "/data/b")
	out := filepath.Join(outDir, "app.darshan")
	r := iolens(t, "merge", "--compress", "none", dir, "-o", out)
	r.want(t, 0)
	if r.stderr != "iolens: log "+out+"\n" || r.stdout != "" {
		t.Errorf("stderr %q, stdout %q", r.stderr, r.stdout)
	}
	st, err := os.Stat(out)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("log: %v %v", st, err)
	}
	l, err := darshan.OpenFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Job.NProcs != 2 || l.Header.Compression != darshan.CompressNone || !strings.HasPrefix(l.Job.Metadata, "lib_ver=iolens-") {
		t.Errorf("job %+v, compression %v", l.Job, l.Header.Compression)
	}
	var names []string
	err = l.Each(darshan.ModPOSIX, func(rec *darshan.Record) error {
		n, _ := l.RecordName(rec.ID)
		names = append(names, n)
		return nil
	})
	if err != nil || strings.Join(names, " ") != "/data/a /data/b" {
		t.Errorf("records %v, %v", names, err)
	}
	if r := iolens(t, "parse", out); r.code != 0 || !strings.Contains(r.stdout, "POSIX_OPENS") {
		t.Errorf("parse: %d %s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
		t.Errorf("files in the output directory: %v", entries)
	}
}

func TestMergeSeveralLogsAndBadStores(t *testing.T) {
	dir, dir2, outDir := t.TempDir(), t.TempDir(), t.TempDir()
	writeStore(t, filepath.Join(dir, "a.store"), 10, 0, "/data/a")
	writeStore(t, filepath.Join(dir2, "m.store"), 12, 77, "/data/m")
	bad := filepath.Join(dir, "bad.store")
	if err := os.WriteFile(bad, []byte("not a store"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outDir, "job.darshan")
	r := iolens(t, "merge", dir, dir2, "-o", out)
	r.want(t, 1)
	second := filepath.Join(outDir, "job-2.darshan")
	for _, want := range []string{"iolens: log " + out + "\n", "iolens: log " + second + "\n", "iolens: reading store " + bad} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	// The MPI job comes first.
	for path, nprocs := range map[string]int64{out: 1, second: 1} {
		l, err := darshan.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if l.Job.NProcs != nprocs {
			t.Errorf("%s: nprocs %d", path, l.Job.NProcs)
		}
		if path == out && l.Job.JobID != 12 {
			t.Errorf("first log: job id %d, want the MPI job's", l.Job.JobID)
		}
		l.Close()
	}
}

func TestMergeFailures(t *testing.T) {
	empty := t.TempDir()
	out := filepath.Join(empty, "x.darshan")
	r := iolens(t, "merge", empty, "-o", out)
	r.want(t, 1)
	if !strings.Contains(r.stderr, "no store with data") {
		t.Errorf("stderr %q", r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("log written without data")
	}
	for _, args := range [][]string{
		{"merge", empty},
		{"merge", "-o", out},
		{"merge", "--compress", "lzma", empty, "-o", out},
		{"merge", "--bogus", empty, "-o", out},
	} {
		r := iolens(t, args...)
		r.want(t, 2)
		if !strings.Contains(r.stderr, "--help") {
			t.Errorf("%v: stderr %q", args, r.stderr)
		}
	}
	r = iolens(t, "merge", "--help")
	r.want(t, 0)
	if !strings.Contains(r.stdout, "iolens merge /tmp/iolens-stores -o app.darshan") {
		t.Errorf("help without example: %q", r.stdout)
	}
}
