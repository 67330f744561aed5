package collector

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// stdioBuilds are the ways the STDIO workloads are compiled: the counters
// must not depend on which symbols the compiler chose (at -O2 getline becomes
// __getdelim and putchar putc; fortified builds call __printf_chk,
// __fprintf_chk, __vfprintf_chk, __fgets_chk and __fread_unlocked_chk).
var stdioBuilds = []struct {
	name  string
	flags []string
}{
	{"O0", []string{"-O0"}},
	{"O2", nil},
	{"fortify", []string{"-D_FORTIFY_SOURCE=2"}},
}

// stdioRun compiles testdata/stdio/src with each build and runs it with a
// fresh directory argument; check gets the single log.
func stdioRun(t *testing.T, src string, check func(t *testing.T, l *darshan.Log, dir string)) {
	for _, b := range stdioBuilds {
		t.Run(b.name, func(t *testing.T) {
			prog := compileWorkload(t, "cc", "stdio/"+src, b.flags...)
			dir := t.TempDir()
			res := runCollected(t, RunOptions{Stdout: &strings.Builder{}}, nil, prog, dir)
			if res.Result.ExitCode != 0 {
				t.Fatalf("%s exited with %d", src, res.Result.ExitCode)
			}
			if len(res.Logs) != 1 {
				t.Fatalf("%d logs, want 1", len(res.Logs))
			}
			check(t, res.Logs[0], dir)
		})
	}
}

// stdioNames returns the names of the STDIO records of l.
func stdioNames(t *testing.T, l *darshan.Log) []string {
	t.Helper()
	var names []string
	for _, r := range records(t, l, darshan.ModSTDIO) {
		n, _ := l.RecordName(r.ID)
		names = append(names, n)
	}
	return names
}

// wantSTDIONames checks the set of STDIO record names: standard streams that
// saw no reads or writes are left out of the log.
func wantSTDIONames(t *testing.T, l *darshan.Log, want ...string) {
	t.Helper()
	got := stdioNames(t, l)
	if len(got) != len(want) {
		t.Fatalf("STDIO records %q, want %q", got, want)
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Fatalf("STDIO records %q, want %q", got, want)
		}
	}
}

// wantHeatmap checks the bytes of the STDIO heatmap of rank 0.
func wantHeatmap(t *testing.T, l *darshan.Log, write, read int64) {
	t.Helper()
	r := record(t, l, darshan.ModHeatmap, "heatmap:STDIO", 0)
	var w, rd int64
	for _, v := range r.Heatmap.Write {
		w += v
	}
	for _, v := range r.Heatmap.Read {
		rd += v
	}
	if w != write || rd != read {
		t.Errorf("heatmap:STDIO write %d read %d bytes, want %d and %d", w, rd, write, read)
	}
}

// wantTimes checks that the named fcounters of r hold times in (0, 60] s.
func wantTimes(t *testing.T, r *darshan.Record, names ...string) {
	t.Helper()
	for _, f := range names {
		if v := fcounter(t, r, f); v <= 0 || v > 60 {
			t.Errorf("%s = %g, want a time in (0, 60] s", f, v)
		}
	}
}

func TestSTDIOReadWriteSeek(t *testing.T) {
	stdioRun(t, "rw.c", func(t *testing.T, l *darshan.Log, dir string) {
		path := filepath.Join(dir, "rw.dat")
		r := record(t, l, darshan.ModSTDIO, path, 0)
		wantCounters(t, r, map[string]int64{
			"STDIO_OPENS": 2, "STDIO_FDOPENS": 0,
			"STDIO_WRITES": 1000, "STDIO_READS": 1003, "STDIO_SEEKS": 4, "STDIO_FLUSHES": 2,
			"STDIO_BYTES_WRITTEN": 100000, "STDIO_BYTES_READ": 100300,
			"STDIO_MAX_BYTE_WRITTEN": 99999, "STDIO_MAX_BYTE_READ": 99999,
		})
		wantTimes(t, r, "STDIO_F_OPEN_START_TIMESTAMP", "STDIO_F_OPEN_END_TIMESTAMP",
			"STDIO_F_CLOSE_START_TIMESTAMP", "STDIO_F_CLOSE_END_TIMESTAMP",
			"STDIO_F_WRITE_START_TIMESTAMP", "STDIO_F_WRITE_END_TIMESTAMP",
			"STDIO_F_READ_START_TIMESTAMP", "STDIO_F_READ_END_TIMESTAMP",
			"STDIO_F_WRITE_TIME", "STDIO_F_READ_TIME", "STDIO_F_META_TIME")
		for _, p := range [][2]string{
			{"STDIO_F_OPEN_START_TIMESTAMP", "STDIO_F_WRITE_START_TIMESTAMP"},
			{"STDIO_F_WRITE_END_TIMESTAMP", "STDIO_F_READ_START_TIMESTAMP"},
			{"STDIO_F_READ_END_TIMESTAMP", "STDIO_F_CLOSE_END_TIMESTAMP"},
		} {
			if a, b := fcounter(t, r, p[0]), fcounter(t, r, p[1]); a > b {
				t.Errorf("%s %g after %s %g", p[0], a, p[1], b)
			}
		}
		wantSTDIONames(t, l, path)
		// The C library opens and reads the file itself: no POSIX record.
		if n := len(records(t, l, darshan.ModPOSIX)); n != 0 {
			t.Errorf("%d POSIX records, want 0", n)
		}
		wantHeatmap(t, l, 100000, 100300)
	})
}

func TestSTDIOFormatted(t *testing.T) {
	stdioRun(t, "fprintf.c", func(t *testing.T, l *darshan.Log, dir string) {
		path := filepath.Join(dir, "fprintf.dat")
		wantCounters(t, record(t, l, darshan.ModSTDIO, path, 0), map[string]int64{
			"STDIO_OPENS": 2, "STDIO_FDOPENS": 0,
			"STDIO_WRITES": 105, "STDIO_READS": 106, "STDIO_SEEKS": 0, "STDIO_FLUSHES": 0,
			"STDIO_BYTES_WRITTEN": 1014, "STDIO_BYTES_READ": 1014,
			"STDIO_MAX_BYTE_WRITTEN": 1013, "STDIO_MAX_BYTE_READ": 1013,
		})
		wantSTDIONames(t, l, path)
		wantHeatmap(t, l, 1014, 1014)
	})
}

func TestSTDIOStandardStreams(t *testing.T) {
	for _, b := range stdioBuilds {
		t.Run(b.name, func(t *testing.T) {
			prog := compileWorkload(t, "cc", "stdio/stdout.c", b.flags...)
			var stdout, stderr strings.Builder
			res := runCollected(t, RunOptions{Stdout: &stdout, Stderr: &stderr}, nil, prog)
			if res.Result.ExitCode != 0 {
				t.Fatalf("exit status %d", res.Result.ExitCode)
			}
			if want := "hello 42\nplain\nabc\nzv1\n"; stdout.String() != want {
				t.Errorf("stdout %q, want %q", stdout.String(), want)
			}
			if want := "err\n12345\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			l := res.Logs[0]
			out := record(t, l, darshan.ModSTDIO, "<STDOUT>", 0)
			wantCounters(t, out, map[string]int64{
				"STDIO_OPENS": 1, "STDIO_WRITES": 5, "STDIO_READS": 0, "STDIO_FLUSHES": 1,
				"STDIO_BYTES_WRITTEN": 23, "STDIO_MAX_BYTE_WRITTEN": 22,
			})
			// Opened when the module started, at time 0, without meta time.
			for _, f := range []string{"STDIO_F_OPEN_START_TIMESTAMP", "STDIO_F_OPEN_END_TIMESTAMP", "STDIO_F_META_TIME"} {
				if v := fcounter(t, out, f); v != 0 {
					t.Errorf("<STDOUT> %s = %g, want 0", f, v)
				}
			}
			wantTimes(t, out, "STDIO_F_WRITE_START_TIMESTAMP", "STDIO_F_WRITE_END_TIMESTAMP", "STDIO_F_WRITE_TIME")
			wantCounters(t, record(t, l, darshan.ModSTDIO, "<STDERR>", 0), map[string]int64{
				"STDIO_OPENS": 1, "STDIO_WRITES": 2, "STDIO_BYTES_WRITTEN": 10, "STDIO_MAX_BYTE_WRITTEN": 9,
			})
			// <STDIN> saw no I/O.
			wantSTDIONames(t, l, "<STDOUT>", "<STDERR>")
			// fileno on a stream: a POSIX record named like the stream.
			wantCounters(t, record(t, l, darshan.ModPOSIX, "<STDOUT>", 0), map[string]int64{
				"POSIX_OPENS": 1, "POSIX_FILENOS": 1, "POSIX_WRITES": 0,
			})
			wantHeatmap(t, l, 33, 0)
		})
	}
}

func TestSTDIOFdopen(t *testing.T) {
	stdioRun(t, "fdopen.c", func(t *testing.T, l *darshan.Log, dir string) {
		path := filepath.Join(dir, "fdopen.dat")
		wantCounters(t, record(t, l, darshan.ModSTDIO, path, 0), map[string]int64{
			"STDIO_OPENS": 2, "STDIO_FDOPENS": 1,
			"STDIO_WRITES": 1, "STDIO_READS": 1, "STDIO_SEEKS": 0, "STDIO_FLUSHES": 0,
			"STDIO_BYTES_WRITTEN": 50, "STDIO_BYTES_READ": 60,
			// The stream's offset starts at 0, not at the descriptor's 10.
			"STDIO_MAX_BYTE_WRITTEN": 49, "STDIO_MAX_BYTE_READ": 59,
		})
		wantCounters(t, record(t, l, darshan.ModPOSIX, path, 0), map[string]int64{
			"POSIX_OPENS": 2, "POSIX_FILENOS": 1, "POSIX_WRITES": 1, "POSIX_BYTES_WRITTEN": 10,
			"POSIX_READS": 0,
		})
		// The stream fdopen'ed on a pipe is not tracked.
		wantSTDIONames(t, l, path)
	})
}

func TestSTDIOFreopen(t *testing.T) {
	stdioRun(t, "freopen.c", func(t *testing.T, l *darshan.Log, dir string) {
		in, out := filepath.Join(dir, "in.dat"), filepath.Join(dir, "out.dat")
		wantCounters(t, record(t, l, darshan.ModSTDIO, in, 0), map[string]int64{
			"STDIO_OPENS": 2, "STDIO_FDOPENS": 0,
			"STDIO_WRITES": 3, "STDIO_BYTES_WRITTEN": 19, "STDIO_MAX_BYTE_WRITTEN": 18,
			"STDIO_READS": 9, "STDIO_BYTES_READ": 19, "STDIO_MAX_BYTE_READ": 18,
			"STDIO_SEEKS": 0, "STDIO_FLUSHES": 0,
		})
		wantCounters(t, record(t, l, darshan.ModSTDIO, out, 0), map[string]int64{
			"STDIO_OPENS": 1, "STDIO_WRITES": 4, "STDIO_BYTES_WRITTEN": 32, "STDIO_MAX_BYTE_WRITTEN": 31,
			"STDIO_FLUSHES": 1, "STDIO_READS": 0,
		})
		// Reads through stdin and writes through stdout went to the
		// reopened files.
		wantSTDIONames(t, l, in, out)
	})
}

func TestSTDIOFork(t *testing.T) {
	stdioRun(t, "fork.c", func(t *testing.T, l *darshan.Log, dir string) {
		if l.Job.NProcs != 2 {
			t.Fatalf("nprocs = %d, want 2 (parent and fork child)", l.Job.NProcs)
		}
		path := filepath.Join(dir, "fork.dat")
		wantCounters(t, record(t, l, darshan.ModSTDIO, path, 0), map[string]int64{
			"STDIO_OPENS": 1, "STDIO_WRITES": 2, "STDIO_FLUSHES": 1,
			"STDIO_BYTES_WRITTEN": 40, "STDIO_MAX_BYTE_WRITTEN": 39,
		})
		// The child inherits the stream at the parent's offset, without
		// an open of its own.
		wantCounters(t, record(t, l, darshan.ModSTDIO, path, 1), map[string]int64{
			"STDIO_OPENS": 0, "STDIO_WRITES": 1, "STDIO_FLUSHES": 1,
			"STDIO_BYTES_WRITTEN": 20, "STDIO_MAX_BYTE_WRITTEN": 29,
		})
		if n := len(records(t, l, darshan.ModSTDIO)); n != 2 {
			t.Errorf("STDIO records %q, want the file's of ranks 0 and 1", stdioNames(t, l))
		}
	})
}

// TestSTDIOMPIStandardStreams checks that ranks that never use STDIO have no
// standard-stream records (the MPI library's own reads of its configuration
// do not count), so that what rank 0 alone prints stays a rank-0 record;
// when every rank uses STDIO, the standard streams are shared records, as
// under Darshan.
func TestSTDIOMPIStandardStreams(t *testing.T) {
	const n = 4
	forEachMPI(t, func(t *testing.T, m mpiioImpl, mpicc, lib string) {
		prog := compileWorkload(t, mpicc, "stdio/mpi_stdout.c")
		stdout := map[string]int64{"STDIO_WRITES": 1, "STDIO_FLUSHES": 1, "STDIO_BYTES_WRITTEN": 23, "STDIO_MAX_BYTE_WRITTEN": 22}

		t.Run("rank 0 alone", func(t *testing.T) {
			run, code := mpiioRun(t, m, lib, n, prog)
			if code != 0 {
				t.Fatalf("exit status %d", code)
			}
			for r, s := range run.ranks[1:] {
				for _, rec := range s.Records {
					if rec.Module == darshan.ModSTDIO {
						t.Errorf("rank %d: STDIO record %q, want none", r+1, s.Names[rec.ID])
					}
				}
			}
			wantCounters(t, record(t, run.log, darshan.ModSTDIO, "<STDOUT>", 0), mpiioWith(stdout, map[string]int64{"STDIO_OPENS": 1}))
			wantSTDIONames(t, run.log, "<STDOUT>")
		})

		t.Run("every rank", func(t *testing.T) {
			dir := t.TempDir()
			run, code := mpiioRun(t, m, lib, n, prog, dir)
			if code != 0 {
				t.Fatalf("exit status %d", code)
			}
			wantCounters(t, record(t, run.log, darshan.ModSTDIO, "<STDOUT>", -1), mpiioWith(stdout, map[string]int64{"STDIO_OPENS": n}))
			for r := range int64(n) {
				wantCounters(t, record(t, run.log, darshan.ModSTDIO, filepath.Join(dir, fmt.Sprintf("rank-%d.txt", r)), r), map[string]int64{
					"STDIO_OPENS": 1, "STDIO_WRITES": 1, "STDIO_BYTES_WRITTEN": 7,
				})
			}
		})
	})
}
