package collector

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
)

// sumCounter adds counter name over every record of module m named name.
func sumCounter(t *testing.T, l *darshan.Log, m darshan.ModuleID, name, counter string) int64 {
	t.Helper()
	var sum int64
	for _, r := range records(t, l, m) {
		if n, _ := l.RecordName(r.ID); n == name {
			v, ok := r.Counter(counter)
			if !ok {
				t.Fatalf("no counter %s", counter)
			}
			sum += v
		}
	}
	return sum
}

// wantSum checks the sum of a POSIX counter over the records named name.
func wantSum(t *testing.T, l *darshan.Log, name, counter string, want int64) {
	t.Helper()
	if got := sumCounter(t, l, darshan.ModPOSIX, name, counter); got != want {
		t.Errorf("%s of %s = %d, want %d", counter, name, got, want)
	}
}

func TestThreads(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/threads.c", "-pthread")
	dir := t.TempDir()
	l := runCollected(t, RunOptions{}, nil, prog, dir).Logs[0]
	wantCounters(t, record(t, l, darshan.ModPOSIX, filepath.Join(dir, "shared.dat"), 0), map[string]int64{
		"POSIX_OPENS": 1, "POSIX_WRITES": 8000, "POSIX_BYTES_WRITTEN": 512000,
		"POSIX_MAX_BYTE_WRITTEN": 511999, "POSIX_SIZE_WRITE_0_100": 8000,
		"POSIX_ACCESS1_ACCESS": 64, "POSIX_ACCESS1_COUNT": 8000,
	})
	for i := range 8 {
		wantCounters(t, record(t, l, darshan.ModPOSIX, filepath.Join(dir, fmt.Sprintf("thread%d.dat", i)), 0), map[string]int64{
			"POSIX_OPENS": 1, "POSIX_WRITES": 1000, "POSIX_BYTES_WRITTEN": 64000,
			"POSIX_SEQ_WRITES": 999, "POSIX_CONSEC_WRITES": 999, "POSIX_MAX_BYTE_WRITTEN": 63999,
		})
	}
}

func TestForkAndExit(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/fork.c")
	dir := t.TempDir()
	l := runCollected(t, RunOptions{}, nil, prog, dir).Logs[0]
	if l.Job.NProcs != 2 {
		t.Fatalf("nprocs = %d, want 2 (parent and fork child)", l.Job.NProcs)
	}
	a, b := filepath.Join(dir, "a.dat"), filepath.Join(dir, "b.dat")
	// Rank 0 is the parent (started first); the child's records are its own.
	wantCounters(t, record(t, l, darshan.ModPOSIX, a, 0), map[string]int64{
		"POSIX_OPENS": 1, "POSIX_WRITES": 11, "POSIX_BYTES_WRITTEN": 1100,
	})
	wantCounters(t, record(t, l, darshan.ModPOSIX, a, 1), map[string]int64{
		"POSIX_OPENS": 0, "POSIX_WRITES": 20, "POSIX_BYTES_WRITTEN": 2000,
		// The child continues at the inherited position.
		"POSIX_MAX_BYTE_WRITTEN": 2999, "POSIX_CONSEC_WRITES": 20,
	})
	wantCounters(t, record(t, l, darshan.ModPOSIX, b, 1), map[string]int64{
		"POSIX_OPENS": 1, "POSIX_WRITES": 5, "POSIX_BYTES_WRITTEN": 50,
	})
}

func TestExecPipelines(t *testing.T) {
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "cat.out"), filepath.Join(dir, "dd.out")
	script := fmt.Sprintf("printf hello | cat > %s && dd if=/dev/zero bs=1000 count=5 status=none | dd of=%s bs=1000 iflag=fullblock status=none", f1, f2)
	res := runCollected(t, RunOptions{}, nil, "/bin/sh", "-c", script)
	if len(res.Logs) != 1 {
		t.Fatalf("%d logs, want 1", len(res.Logs))
	}
	l := res.Logs[0]
	// cat writes through the descriptor the shell opened and passed on.
	wantSum(t, l, f1, "POSIX_BYTES_WRITTEN", 5)
	wantSum(t, l, f1, "POSIX_WRITES", 1)
	wantSum(t, l, f2, "POSIX_WRITES", 5)
	wantSum(t, l, f2, "POSIX_BYTES_WRITTEN", 5000)
	if names := dirNames(t, res.LogDir); len(names) != 1 {
		t.Errorf("log directory holds %q, want only the log", names)
	}
}

func TestPythonMultiprocessing(t *testing.T) {
	python := needTool(t, "python3")
	dir := t.TempDir()
	script := `
import multiprocessing, os, sys
d = sys.argv[1]
def work(i):
    with open(os.path.join(d, "part%d.dat" % i), "wb", buffering=0) as f:
        for _ in range(10):
            f.write(b"x" * 100)
    return i
if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    with multiprocessing.Pool(4) as p:
        assert sorted(p.map(work, range(8))) == list(range(8))
    with open(os.path.join(d, "main.dat"), "wb", buffering=0) as f:
        f.write(b"y" * 4096)
    with open(os.path.join(d, "main.dat"), "rb", buffering=0) as f:
        while f.read(1000):
            pass
`
	l := runCollected(t, RunOptions{}, nil, python, "-c", script, dir).Logs[0]
	for i := range 8 {
		name := filepath.Join(dir, fmt.Sprintf("part%d.dat", i))
		wantSum(t, l, name, "POSIX_WRITES", 10)
		wantSum(t, l, name, "POSIX_BYTES_WRITTEN", 1000)
	}
	main := filepath.Join(dir, "main.dat")
	wantSum(t, l, main, "POSIX_BYTES_WRITTEN", 4096)
	// 4 reads of 1000 bytes, one of 96, one at the end of the file.
	wantSum(t, l, main, "POSIX_READS", 6)
	wantSum(t, l, main, "POSIX_BYTES_READ", 4096)
	if l.Job.NProcs < 2 {
		t.Errorf("nprocs = %d, want the main process and the pool workers", l.Job.NProcs)
	}
}

func TestExclusions(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "iolens-test-")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("/dev/shm is required in CI: %v", err)
		}
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	dir := t.TempDir()
	script := fmt.Sprintf("cat /etc/hostname > %s/a.txt; cat /etc/hostname > %s/b.txt; cat %s/b.txt > %s/skip.txt", shm, dir, dir, dir)
	l := runCollected(t, RunOptions{}, []string{"IOLENS_EXCLUDE=skip"}, "/bin/sh", "-c", script).Logs[0]
	names := map[string]bool{}
	for _, r := range records(t, l, darshan.ModPOSIX) {
		n, _ := l.RecordName(r.ID)
		names[n] = true
	}
	for _, want := range []string{shm + "/a.txt", dir + "/b.txt"} {
		if !names[want] {
			t.Errorf("no record of %s; records: %v", want, names)
		}
	}
	for n := range names {
		if strings.HasPrefix(n, "/etc/") || strings.Contains(n, "skip") {
			t.Errorf("excluded file %s has a record", n)
		}
	}
	if got := sumCounter(t, l, darshan.ModPOSIX, dir+"/b.txt", "POSIX_BYTES_READ"); got < 1 {
		t.Errorf("bytes read from %s = %d, want > 0", dir+"/b.txt", got)
	}
	// IOLENS_INCLUDE brings back a file of a default exclusion.
	l = runCollected(t, RunOptions{}, []string{"IOLENS_INCLUDE=^/etc/hostname$"}, "/bin/sh", "-c", "cat /etc/hostname > /dev/null").Logs[0]
	wantSum(t, l, "/etc/hostname", "POSIX_OPENS", 1)
}

func TestDXT(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/basic.c")
	dir := t.TempDir()
	l := runCollected(t, RunOptions{DXT: true}, nil, prog, dir).Logs[0]
	r := record(t, l, darshan.ModDXTPOSIX, filepath.Join(dir, "basic.dat"), 0)
	if len(r.DXT.Writes) != 1000 || len(r.DXT.Reads) != 12 {
		t.Fatalf("%d write and %d read segments, want 1000 and 12", len(r.DXT.Writes), len(r.DXT.Reads))
	}
	for i, s := range r.DXT.Writes {
		if s.Offset != int64(100*i) || s.Length != 100 || s.End < s.Start || s.Start <= 0 {
			t.Fatalf("write segment %d = %+v", i, s)
		}
	}
	wantReads := []int64{0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 5000, 10000}
	for i, s := range r.DXT.Reads {
		if s.Offset != wantReads[i] {
			t.Errorf("read segment %d at %d, want %d", i, s.Offset, wantReads[i])
		}
	}
	if l.Header.Incomplete(darshan.ModDXTPOSIX) {
		t.Error("DXT_POSIX flagged partial")
	}
}

func TestDXTCap(t *testing.T) {
	prog := compileWorkload(t, "cc", "../../bench/microbench.c")
	dir := t.TempDir()
	l := runCollected(t, RunOptions{DXT: true}, []string{"IOLENS_DXT_MAX=64K"}, prog, filepath.Join(dir, "f"), "5000").Logs[0]
	if !l.Header.Incomplete(darshan.ModDXTPOSIX) {
		t.Error("DXT_POSIX not flagged partial when its cap was reached")
	}
	r := record(t, l, darshan.ModDXTPOSIX, filepath.Join(dir, "f"), 0)
	n := len(r.DXT.Writes)
	if n < 1000 || n >= 5000 || len(r.DXT.Reads) != 0 {
		t.Fatalf("%d write and %d read segments kept under a 64 KiB cap", n, len(r.DXT.Reads))
	}
	// The kept segments are the first operations, in order.
	for i, s := range r.DXT.Writes {
		if s.Offset != int64(64*i) {
			t.Fatalf("segment %d at offset %d, want %d", i, s.Offset, 64*i)
		}
	}
	// The counters are complete.
	wantCounters(t, record(t, l, darshan.ModPOSIX, filepath.Join(dir, "f"), 0), map[string]int64{
		"POSIX_WRITES": 5000, "POSIX_READS": 5000,
	})
}

// startCrash starts the crash workload under the collector with its stores
// in dir; it returns the command and its progress pipe.
func startCrash(t *testing.T, prog, lib, dir, mode string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(prog, dir, mode)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "IOLENS_STORE_DIR="+dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, in, bufio.NewReader(out)
}

// crashWrites returns POSIX_WRITES and POSIX_BYTES_WRITTEN of crash.dat
// recovered from the store the killed process left in dir (none if it was
// killed before it created one).
func crashWrites(t *testing.T, dir string) (int64, int64) {
	t.Helper()
	stores, err := ReadStores(dir)
	if err != nil || len(stores) > 1 {
		t.Fatalf("%d stores, %v", len(stores), err)
	}
	if len(stores) == 0 {
		return 0, 0 // killed before its first operation
	}
	s := stores[0]
	if s.Header.State != StateRunning {
		t.Errorf("state of a killed process = %d, want %d", s.Header.State, StateRunning)
	}
	id := darshan.RecordID(filepath.Join(dir, "crash.dat"))
	for _, r := range s.Records {
		if r.Module == darshan.ModPOSIX && r.ID == id {
			w, _ := r.Counter("POSIX_WRITES")
			b, _ := r.Counter("POSIX_BYTES_WRITTEN")
			return w, b
		}
	}
	return 0, 0
}

func TestCrashRecovery(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/crash.c")
	lib := testLibrary(t, "")
	rng := rand.New(rand.NewPCG(1, 2))
	// Killed at a known point: after k acknowledged writes, while it waits.
	for iter := range 10 {
		dir := t.TempDir()
		k := rng.IntN(300)
		cmd, in, out := startCrash(t, prog, lib, dir, "step")
		var n uint32
		for i := 0; ; i++ {
			if err := binary.Read(out, binary.LittleEndian, &n); err != nil {
				t.Fatal(err)
			}
			if i == k {
				break
			}
			in.Write([]byte{1})
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if w, b := crashWrites(t, dir); w != int64(n) || b != 100*int64(n) {
			t.Errorf("iteration %d: killed after %d writes, recovered %d writes of %d bytes", iter, n, w, b)
		}
	}
	// Killed at random moments while it writes as fast as it can.
	for iter := range 20 {
		dir := t.TempDir()
		cmd, in, out := startCrash(t, prog, lib, dir, "free")
		defer in.Close()
		time.Sleep(time.Duration(1+rng.IntN(20000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		var n, last uint32
		for binary.Read(out, binary.LittleEndian, &n) == nil {
			last = n
		}
		cmd.Wait()
		w, b := crashWrites(t, dir)
		// The write after the last report may have completed too.
		if w < int64(last) || w > int64(last)+1 || b < 100*int64(last) || b > 100*(int64(last)+1) {
			t.Errorf("iteration %d: %d writes reported, recovered %d writes of %d bytes", iter, last, w, b)
		}
	}
}

// TestSignalHandlerIO: I/O from a signal handler that interrupts the
// program's own I/O neither deadlocks nor disturbs the program's counts.
// A handler write that lands while this thread updates a record is not
// counted (the update cannot be re-entered), so the handler's file has at
// most the handler's writes.
func TestSignalHandlerIO(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/signals.c")
	dir := t.TempDir()
	var out strings.Builder
	l := runCollected(t, RunOptions{Stdout: &out}, nil, prog, dir).Logs[0]
	handled, err := strconv.ParseInt(strings.TrimSpace(out.String()), 10, 64)
	if err != nil {
		t.Fatalf("workload output %q: %v", out.String(), err)
	}
	wantCounters(t, record(t, l, darshan.ModPOSIX, filepath.Join(dir, "main.dat"), 0), map[string]int64{
		"POSIX_WRITES": 20000, "POSIX_BYTES_WRITTEN": 200000,
	})
	if handled == 0 {
		t.Fatal("no signal arrived during the run")
	}
	w := sumCounter(t, l, darshan.ModPOSIX, filepath.Join(dir, "handler.dat"), "POSIX_WRITES")
	b := sumCounter(t, l, darshan.ModPOSIX, filepath.Join(dir, "handler.dat"), "POSIX_BYTES_WRITTEN")
	if w > handled || w < 1 || b != w {
		t.Errorf("handler file: %d writes of %d bytes recorded, %d done", w, b, handled)
	}
}

// TestStorePermissions: stores are private to the user, in directories the
// library creates with mode 0700.
func TestStorePermissions(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/fork.c")
	lib := testLibrary(t, "")
	dir := filepath.Join(t.TempDir(), "a", "b")
	cmd := exec.Command(prog, t.TempDir())
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "IOLENS_STORE_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, mode %v, want 0700", d, err, st.Mode().Perm())
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 2 {
		t.Fatalf("%d stores (parent and child), %v", len(entries), err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || info.Mode().Perm() != 0o600 || !strings.HasSuffix(e.Name(), ".store") {
			t.Errorf("%s: mode %v, %v; want a 0600 .store file", e.Name(), info.Mode().Perm(), err)
		}
	}
}
