// Package demo_test runs `make demo` as a new user would and checks what it
// shows: the log of the demo workload, with exactly the I/O the workload
// does, the report naming its small-write problem, and the HTML page.
package demo_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

// The demo workload: 4 ranks, 4096 writes of 256 bytes each.
const (
	ranks  = 4
	writes = ranks * 4096
	bytes  = writes * 256
)

func TestMakeDemo(t *testing.T) {
	make := fixture.Tool(t, "make")
	fixture.Tool(t, "mpicc.openmpi")
	fixture.Tool(t, "mpiexec.openmpi")
	root, err := fixture.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, make, "-s", "-C", root, "demo", "DEMO_DIR="+out, "BIN="+filepath.Join(out, "iolens"))
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make demo: %v\n%s", err, output)
	}
	text := string(output)

	logs, _ := filepath.Glob(filepath.Join(out, "*_smallwrites_id*.darshan"))
	if len(logs) != 1 {
		t.Fatalf("logs of the workload: %q, want one\n%s", logs, text)
	}
	log := logs[0]
	if st, err := os.Stat(log); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log %s: %v, mode %v; want mode 0600", log, err, st.Mode())
	}
	for _, want := range []string{
		"HIGH P16  16384 small writes (under 1.00 MiB) to files shared by all ranks",
		"HIGH M03  The job uses MPI-IO but no write is collective: all 16384 MPI-IO writes are independent",
		"The log:  " + log,
		"The page: " + filepath.Join(out, "report.html"),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the demo does not print %q:\n%s", want, text)
		}
	}

	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<html", "P16", "Timeline per rank", filepath.Join(out, "shared.dat")} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}

	l, err := darshan.OpenFile(log)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Job.NProcs != ranks {
		t.Errorf("nprocs %d, want %d", l.Job.NProcs, ranks)
	}
	shared := filepath.Join(out, "shared.dat")
	wantCounters(t, l, darshan.ModMPIIO, shared, map[string]int64{
		"MPIIO_INDEP_OPENS": 0, "MPIIO_COLL_OPENS": ranks, "MPIIO_INDEP_WRITES": writes, "MPIIO_COLL_WRITES": 0,
		"MPIIO_BYTES_WRITTEN": bytes, "MPIIO_SIZE_WRITE_AGG_100_1K": writes,
	})
	wantCounters(t, l, darshan.ModPOSIX, shared, map[string]int64{
		"POSIX_WRITES": writes, "POSIX_BYTES_WRITTEN": bytes, "POSIX_SIZE_WRITE_100_1K": writes,
		"POSIX_MAX_BYTE_WRITTEN": bytes - 1,
	})
}

// wantCounters checks counters of the shared record (rank -1) of module m
// named name.
func wantCounters(t *testing.T, l *darshan.Log, m darshan.ModuleID, name string, want map[string]int64) {
	t.Helper()
	var rec *darshan.Record
	err := l.Each(m, func(r *darshan.Record) error {
		if n, _ := l.RecordName(r.ID); n == name && r.Rank == -1 {
			rec = r.Clone()
		}
		return nil
	})
	if err != nil || rec == nil {
		t.Fatalf("no shared %s record of %s: %v", m, name, err)
	}
	for c, v := range want {
		got, ok := rec.Counter(c)
		if !ok || got != v {
			t.Errorf("%s %s = %d (%v), want %d", m, c, got, ok, v)
		}
	}
}
