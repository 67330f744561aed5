package collector

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
)

// MPI-IO module: workloads of testdata/mpiio run under each MPI with 2 and
// 4 ranks; the per-rank stores and the merged log must hold exactly the
// counters the workloads imply.

// mpiioImpl is an MPI installation the workloads run with.
type mpiioImpl struct {
	flavor                  string
	mpicc, mpifort, mpiexec string
	launch                  []string // launcher options before -n
}

var mpiioImpls = []mpiioImpl{
	{FlavorOpenMPI, "mpicc.openmpi", "mpifort.openmpi", "mpiexec.openmpi", []string{"--oversubscribe"}},
	{FlavorMPICH, "mpicc.mpich", "mpifort.mpich", "mpiexec.mpich", nil},
}

const mpiioMiB = 1 << 20

// forEachMPI runs test in a subtest per MPI implementation, with its mpicc
// and the collector library built with it.
func forEachMPI(t *testing.T, test func(t *testing.T, m mpiioImpl, mpicc, lib string)) {
	for _, m := range mpiioImpls {
		t.Run(m.flavor, func(t *testing.T) {
			mpicc := needTool(t, m.mpicc)
			needTool(t, m.mpiexec)
			test(t, m, mpicc, testLibrary(t, mpicc))
		})
	}
}

// mpiioJob is one run of a workload under mpiexec with the collector.
type mpiioJob struct {
	ranks []*Store // the stores of the MPI job, by rank
	log   *darshan.Log
}

// mpiioRun runs prog with args on n ranks under m's mpiexec with the
// preload library lib (DXT on) and returns what was recorded, and the exit
// status; a run that fails returns only its status (and logs its output).
// mpiJobTimeout bounds one MPI job of the tests.
const mpiJobTimeout = 2 * time.Minute

// mpiLaunch runs mpiexec with argv under the collector lib, storing into
// a new directory, and returns that directory, the job's output and exit
// status, and whether it had to be killed after mpiJobTimeout. The job
// runs in a process group of its own, killed as a whole: ranks left
// behind would hold its output open.
func mpiLaunch(t *testing.T, mpiexec, lib string, argv []string) (storeDir string, out []byte, code int, hung bool) {
	t.Helper()
	storeDir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), mpiJobTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpiexec, argv...)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "IOLENS_STORE_DIR="+storeDir, "IOLENS_DXT=1")
	if os.Geteuid() == 0 {
		cmd.Env = append(cmd.Env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return storeDir, out, -1, true
	}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("%s %s: %v\n%s", mpiexec, strings.Join(argv, " "), err, out)
		}
		code = exit.ExitCode()
	}
	return storeDir, out, code, false
}

func mpiioRun(t *testing.T, m mpiioImpl, lib string, n int, prog string, args ...string) (*mpiioJob, int) {
	t.Helper()
	argv := append(append(append([]string{}, m.launch...), "-n", fmt.Sprint(n), prog), args...)
	storeDir, out, code, hung := mpiLaunch(t, m.mpiexec, lib, argv)
	if hung {
		// Open MPI 4.1 started oversubscribed now and then leaves a rank
		// waiting for ever in ompi_mpi_init, inside PMPI_Init: such a
		// job is killed and tried once more.
		t.Logf("%s %s: not finished after %v, killed; run 2 of 2\n%s", m.mpiexec, strings.Join(argv, " "), mpiJobTimeout, out)
		storeDir, out, code, hung = mpiLaunch(t, m.mpiexec, lib, argv)
	}
	if hung {
		t.Fatalf("%s %s: not finished after %v, killed\n%s", m.mpiexec, strings.Join(argv, " "), mpiJobTimeout, out)
	}
	if code != 0 {
		t.Logf("%s %s: exit status %d\n%s", m.mpiexec, strings.Join(argv, " "), code, out)
		return nil, code
	}

	run := &mpiioJob{}
	stores, err := ReadStores(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stores {
		if s.Header.MPIJob != 0 {
			run.ranks = append(run.ranks, s)
		}
	}
	slices.SortFunc(run.ranks, func(a, b *Store) int { return int(a.Header.MPIRank - b.Header.MPIRank) })
	if len(run.ranks) != n {
		t.Fatalf("%d stores of MPI ranks, want %d", len(run.ranks), n)
	}
	for r, s := range run.ranks {
		h := s.Header
		if h.MPIRank != int64(r) || h.MPISize != int64(n) || h.MPIJob != run.ranks[0].Header.MPIJob ||
			h.MPIFlavor != m.flavor || h.MPIInitTick == 0 {
			t.Errorf("store %s: rank %d size %d job %#x flavor %q init tick %d; want rank %d size %d job %#x flavor %q",
				s.Path, h.MPIRank, h.MPISize, h.MPIJob, h.MPIFlavor, h.MPIInitTick, r, n, run.ranks[0].Header.MPIJob, m.flavor)
		}
	}

	logs, err := MergeDirs([]string{storeDir}, filepath.Join(t.TempDir(), "run.darshan"), LogOptions{})
	if err != nil {
		t.Fatalf("merging: %v", err)
	}
	for _, p := range logs {
		l, err := darshan.OpenFile(p)
		if err != nil {
			t.Fatalf("reading %s: %v", p, err)
		}
		t.Cleanup(func() { l.Close() })
		if l.Job.NProcs == int64(n) && run.log == nil {
			run.log = l
		}
	}
	if run.log == nil {
		t.Fatalf("no log of the %d-rank job among %q", n, logs)
	}
	return run, 0
}

// mpiioStoreRecord returns the record of module m named name in s.
func mpiioStoreRecord(t *testing.T, s *Store, m darshan.ModuleID, name string) *darshan.Record {
	t.Helper()
	for _, r := range s.Records {
		if r.Module == m && s.Names[r.ID] == name {
			return &r.Record
		}
	}
	var names []string
	for _, r := range s.Records {
		if r.Module == m {
			names = append(names, s.Names[r.ID])
		}
	}
	t.Fatalf("rank %d: no %s record of %q; records: %q", s.Header.MPIRank, m.Info().Name, name, names)
	return nil
}

// counter returns the named integer counter of r.
func mpiioCounter(t *testing.T, r *darshan.Record, name string) int64 {
	t.Helper()
	i := slices.Index(r.Module.Info().Counters, name)
	if i < 0 {
		t.Fatalf("no counter %s in %s", name, r.Module.Info().Name)
	}
	return r.Counters[i]
}

// mpiioOneOf checks that the named counter of r is one of the values.
func mpiioOneOf(t *testing.T, r *darshan.Record, name string, values ...int64) {
	t.Helper()
	if v := mpiioCounter(t, r, name); !slices.Contains(values, v) {
		t.Errorf("%s = %d, want one of %d", name, v, values)
	}
}

// mpiioTimes checks that the named time counters of r are positive and at
// most limit seconds.
func mpiioTimes(t *testing.T, r *darshan.Record, limit float64, names ...string) {
	t.Helper()
	for _, f := range names {
		if v := fcounter(t, r, f); v <= 0 || v > limit {
			t.Errorf("%s = %g, want a time in (0, %g] s", f, v, limit)
		}
	}
}

// mpiioZero is every MPI-IO counter at 0; a want map starts from it.
func mpiioZero() map[string]int64 {
	m := map[string]int64{}
	for _, c := range darshan.ModMPIIO.Info().Counters {
		switch c {
		case "MPIIO_MAX_READ_TIME_SIZE", "MPIIO_MAX_WRITE_TIME_SIZE",
			"MPIIO_FASTEST_RANK", "MPIIO_FASTEST_RANK_BYTES", "MPIIO_SLOWEST_RANK", "MPIIO_SLOWEST_RANK_BYTES":
			continue // depend on timing
		}
		m[c] = 0
	}
	return m
}

// mpiioWith returns base with the entries of set replaced.
func mpiioWith(base map[string]int64, set map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}

// Per-rank counters of DIR/shared.dat in testdata/mpiio/basic.c.
const (
	mpiioSharedRead    = 10*mpiioMiB + 4096
	mpiioSharedWritten = 10*mpiioMiB + 5*4096 + 4096 + 0 + 4096 + 100 + 100 + 48
)

// mpiioSharedCounters returns the counters of DIR/shared.dat summed over k ranks.
func mpiioSharedCounters(k int64) map[string]int64 {
	return mpiioWith(mpiioZero(), map[string]int64{
		"MPIIO_COLL_OPENS":   k,
		"MPIIO_INDEP_WRITES": 7 * k, // 5 write_at, the 0-byte write_at, write_shared
		"MPIIO_COLL_READS":   10 * k,
		"MPIIO_COLL_WRITES":  12 * k, // 10 write_at_all, write_ordered, write_all
		"MPIIO_SPLIT_WRITES": k,
		"MPIIO_NB_READS":     k,
		"MPIIO_NB_WRITES":    k,
		"MPIIO_SYNCS":        3 * k, // before and after the barrier, before closing
		"MPIIO_HINTS":        2 * k, // open and the second set_view
		"MPIIO_VIEWS":        2 * k,
		"MPIIO_MODE":         9, // MPI_MODE_CREATE | MPI_MODE_RDWR
		"MPIIO_BYTES_READ":   mpiioSharedRead * k, "MPIIO_BYTES_WRITTEN": mpiioSharedWritten * k,
		"MPIIO_RW_SWITCHES":            2 * k,
		"MPIIO_SIZE_READ_AGG_1K_10K":   k,
		"MPIIO_SIZE_READ_AGG_100K_1M":  10 * k,
		"MPIIO_SIZE_WRITE_AGG_0_100":   4 * k, // 0, 100, 100, 48
		"MPIIO_SIZE_WRITE_AGG_1K_10K":  7 * k,
		"MPIIO_SIZE_WRITE_AGG_100K_1M": 10 * k,
		"MPIIO_ACCESS1_ACCESS":         mpiioMiB, "MPIIO_ACCESS1_COUNT": 20 * k,
		"MPIIO_ACCESS2_ACCESS": 4096, "MPIIO_ACCESS2_COUNT": 8 * k,
		"MPIIO_ACCESS3_ACCESS": 100, "MPIIO_ACCESS3_COUNT": 2 * k,
		"MPIIO_ACCESS4_ACCESS": 48, "MPIIO_ACCESS4_COUNT": k,
	})
}

// mpiioPrivateCounters are the counters of DIR/private.<r>.dat.
func mpiioPrivateCounters() map[string]int64 {
	return mpiioWith(mpiioZero(), map[string]int64{
		"MPIIO_INDEP_OPENS": 1, "MPIIO_INDEP_WRITES": 3, "MPIIO_MODE": 5, // MPI_MODE_CREATE | MPI_MODE_WRONLY
		"MPIIO_BYTES_WRITTEN": 3000, "MPIIO_SIZE_WRITE_AGG_100_1K": 3,
		"MPIIO_ACCESS1_ACCESS": 1000, "MPIIO_ACCESS1_COUNT": 3,
		"MPIIO_MAX_WRITE_TIME_SIZE": 1000,
	})
}

// mpiioSegment is a DXT operation without its times.
type mpiioSegment struct {
	op             uint32
	offset, length int64
}

// mpiioWantSegments checks the MPI-IO DXT segments of record id in s: those in
// exact must all be there (as a multiset); the others must be shared file
// pointer operations that match shared.
func mpiioWantSegments(t *testing.T, s *Store, id uint64, exact []mpiioSegment, shared func(mpiioSegment) bool) {
	t.Helper()
	left := slices.Clone(exact)
	var extra []mpiioSegment
	for _, g := range s.Segments {
		if g.Module != darshan.ModMPIIO || g.ID != id {
			continue
		}
		seg := mpiioSegment{g.Op, g.Offset, g.Length}
		if i := slices.Index(left, seg); i >= 0 {
			left = slices.Delete(left, i, i+1)
		} else if shared == nil || !shared(seg) {
			extra = append(extra, seg)
		}
	}
	if len(left) > 0 || len(extra) > 0 {
		t.Errorf("rank %d %s: DXT segments missing %v, unexpected %v", s.Header.MPIRank, s.Names[id], left, extra)
	}
}

func TestMPIIOCounters(t *testing.T) {
	forEachMPI(t, func(t *testing.T, m mpiioImpl, mpicc, lib string) {
		prog := compileWorkload(t, mpicc, "mpiio/basic.c")
		for _, n := range []int{2, 4} {
			t.Run(fmt.Sprintf("%d ranks", n), func(t *testing.T) {
				dir := t.TempDir()
				run, code := mpiioRun(t, m, lib, n, prog, dir)
				// Open MPI's OMPIO (4.1, Debian 12) now and then reads back
				// wrong data in this workload, without iolens as with it (a
				// few runs in a hundred; never with ROMIO): the program
				// checks and exits with 1. Such a run is tried again.
				for try := 1; code == 1 && m.flavor == FlavorOpenMPI && try < 3; try++ {
					t.Logf("exit status 1 under OMPIO: run %d of 3", try+1)
					dir = t.TempDir()
					run, code = mpiioRun(t, m, lib, n, prog, dir)
				}
				if code != 0 {
					t.Fatalf("exit status %d", code)
				}
				mpiioCheckBasic(t, run, dir, int64(n))
			})
		}
	})
}

func mpiioCheckBasic(t *testing.T, run *mpiioJob, dir string, n int64) {
	shared := filepath.Join(dir, "shared.dat")
	base := 10 * n * mpiioMiB
	vbase := base + 7*n*4096
	for r, s := range run.ranks {
		rank := int64(r)
		rec := mpiioStoreRecord(t, s, darshan.ModMPIIO, shared)
		wantCounters(t, rec, mpiioSharedCounters(1))
		mpiioOneOf(t, rec, "MPIIO_MAX_READ_TIME_SIZE", mpiioMiB, 4096)
		mpiioOneOf(t, rec, "MPIIO_MAX_WRITE_TIME_SIZE", mpiioMiB, 4096, 100, 48, 0)
		mpiioTimes(t, rec, 120, "MPIIO_F_OPEN_START_TIMESTAMP", "MPIIO_F_OPEN_END_TIMESTAMP",
			"MPIIO_F_READ_START_TIMESTAMP", "MPIIO_F_READ_END_TIMESTAMP",
			"MPIIO_F_WRITE_START_TIMESTAMP", "MPIIO_F_WRITE_END_TIMESTAMP",
			"MPIIO_F_CLOSE_START_TIMESTAMP", "MPIIO_F_CLOSE_END_TIMESTAMP",
			"MPIIO_F_READ_TIME", "MPIIO_F_WRITE_TIME", "MPIIO_F_META_TIME",
			"MPIIO_F_MAX_READ_TIME", "MPIIO_F_MAX_WRITE_TIME")
		if a, b := fcounter(t, rec, "MPIIO_F_OPEN_START_TIMESTAMP"), fcounter(t, rec, "MPIIO_F_WRITE_START_TIMESTAMP"); a > b {
			t.Errorf("rank %d: open start %g after write start %g", r, a, b)
		}
		if a, b := fcounter(t, rec, "MPIIO_F_WRITE_END_TIMESTAMP"), fcounter(t, rec, "MPIIO_F_CLOSE_END_TIMESTAMP"); a > b {
			t.Errorf("rank %d: write end %g after close end %g", r, a, b)
		}

		var exact []mpiioSegment
		for i := int64(0); i < 10; i++ {
			off := (i*n + rank) * mpiioMiB
			exact = append(exact, mpiioSegment{OpWrite, off, mpiioMiB}, mpiioSegment{OpRead, off, mpiioMiB})
		}
		for j := int64(0); j < 5; j++ {
			exact = append(exact, mpiioSegment{OpWrite, base + (rank*5+j)*4096, 4096})
		}
		exact = append(exact,
			mpiioSegment{OpWrite, base + (5*n+rank)*4096, 4096}, // write_at_all_begin
			mpiioSegment{OpWrite, base, 0},                      // 0-byte write_at
			mpiioSegment{OpRead, base + rank*5*4096, 4096},      // iread_at
			mpiioSegment{OpWrite, base + (6*n+rank)*4096, 4096}, // iwrite_at
			mpiioSegment{OpWrite, vbase + rank*48, 48},          // write_all through the view
		)
		// write_shared and write_ordered: 100 bytes at the shared pointer,
		// which others move concurrently.
		sharedPtr := func(g mpiioSegment) bool {
			return g.op == OpWrite && g.length == 100 && g.offset >= 0 && g.offset < 2*n*100 && g.offset%100 == 0
		}
		mpiioWantSegments(t, s, rec.ID, exact, sharedPtr)
		if got := mpiioCountSegments(s, rec.ID, sharedPtr); got != 2 {
			t.Errorf("rank %d: %d shared-pointer segments, want 2", r, got)
		}

		priv := mpiioStoreRecord(t, s, darshan.ModMPIIO, filepath.Join(dir, fmt.Sprintf("private.%d.dat", r)))
		wantCounters(t, priv, mpiioPrivateCounters())
		mpiioTimes(t, priv, 120, "MPIIO_F_OPEN_START_TIMESTAMP", "MPIIO_F_WRITE_END_TIMESTAMP",
			"MPIIO_F_CLOSE_END_TIMESTAMP", "MPIIO_F_META_TIME")
		mpiioWantSegments(t, s, priv.ID, []mpiioSegment{{OpWrite, 0, 1000}, {OpWrite, 1000, 1000}, {OpWrite, 2000, 1000}}, nil)

		var heat *StoreHeatmap
		for i := range s.Heatmaps {
			if s.Heatmaps[i].Module == darshan.ModMPIIO {
				heat = &s.Heatmaps[i]
			}
		}
		if heat == nil {
			t.Errorf("rank %d: no MPI-IO heatmap", r)
		} else if w, rd := mpiioSum(heat.Write), mpiioSum(heat.Read); w != mpiioSharedWritten+3000 || rd != mpiioSharedRead {
			t.Errorf("rank %d: MPI-IO heatmap holds %d bytes written, %d read; want %d, %d",
				r, w, rd, mpiioSharedWritten+3000, mpiioSharedRead)
		}
	}

	// The merged log: the shared file reduced over the ranks, the private
	// files per rank.
	rec := record(t, run.log, darshan.ModMPIIO, shared, -1)
	wantCounters(t, rec, mpiioSharedCounters(n))
	mpiioOneOf(t, rec, "MPIIO_MAX_READ_TIME_SIZE", mpiioMiB, 4096)
	mpiioOneOf(t, rec, "MPIIO_MAX_WRITE_TIME_SIZE", mpiioMiB, 4096, 100, 48, 0)
	for _, c := range []string{"MPIIO_FASTEST_RANK", "MPIIO_SLOWEST_RANK"} {
		if v := mpiioCounter(t, rec, c); v < 0 || v >= n {
			t.Errorf("%s = %d, want a rank", c, v)
		}
	}
	wantCounters(t, rec, map[string]int64{
		"MPIIO_FASTEST_RANK_BYTES": mpiioSharedRead + mpiioSharedWritten,
		"MPIIO_SLOWEST_RANK_BYTES": mpiioSharedRead + mpiioSharedWritten,
	})
	for r := int64(0); r < n; r++ {
		wantCounters(t, record(t, run.log, darshan.ModMPIIO, filepath.Join(dir, fmt.Sprintf("private.%d.dat", r)), r),
			mpiioPrivateCounters())
	}
}

func mpiioCountSegments(s *Store, id uint64, match func(mpiioSegment) bool) int {
	n := 0
	for _, g := range s.Segments {
		if g.Module == darshan.ModMPIIO && g.ID == id && match(mpiioSegment{g.Op, g.Offset, g.Length}) {
			n++
		}
	}
	return n
}

func mpiioSum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

// TestMPIIOLargeCount checks the large-count (_c) calls of MPI 4.0 and
// MPI_Init_thread; it is skipped for an MPI without them.
func TestMPIIOLargeCount(t *testing.T) {
	forEachMPI(t, func(t *testing.T, m mpiioImpl, mpicc, lib string) {
		prog := compileWorkload(t, mpicc, "mpiio/largecount.c")
		dir := t.TempDir()
		run, code := mpiioRun(t, m, lib, 2, prog, dir)
		switch {
		case code == 77 && m.flavor != FlavorMPICH:
			t.Skip("this MPI has no large-count calls")
		case code != 0:
			t.Fatalf("exit status %d", code)
		}
		for r, s := range run.ranks {
			name := filepath.Join(dir, fmt.Sprintf("large.%d.dat", r))
			want := mpiioWith(mpiioZero(), map[string]int64{
				"MPIIO_INDEP_OPENS": 1, "MPIIO_INDEP_READS": 1, "MPIIO_INDEP_WRITES": 1,
				"MPIIO_COLL_READS": 1, "MPIIO_SPLIT_WRITES": 1, "MPIIO_NB_WRITES": 1,
				"MPIIO_MODE": 9, "MPIIO_BYTES_READ": 4040, "MPIIO_BYTES_WRITTEN": 4040, "MPIIO_RW_SWITCHES": 2,
				"MPIIO_SIZE_READ_AGG_0_100": 1, "MPIIO_SIZE_READ_AGG_1K_10K": 1,
				"MPIIO_SIZE_WRITE_AGG_0_100": 1, "MPIIO_SIZE_WRITE_AGG_100_1K": 1, "MPIIO_SIZE_WRITE_AGG_1K_10K": 1,
				"MPIIO_ACCESS1_ACCESS": 40, "MPIIO_ACCESS1_COUNT": 2,
				"MPIIO_ACCESS2_ACCESS": 4000, "MPIIO_ACCESS2_COUNT": 1,
				"MPIIO_ACCESS3_ACCESS": 3000, "MPIIO_ACCESS3_COUNT": 1,
				"MPIIO_ACCESS4_ACCESS": 1000, "MPIIO_ACCESS4_COUNT": 1,
			})
			rec := mpiioStoreRecord(t, s, darshan.ModMPIIO, name)
			wantCounters(t, rec, want)
			mpiioOneOf(t, rec, "MPIIO_MAX_READ_TIME_SIZE", 4000, 40)
			mpiioOneOf(t, rec, "MPIIO_MAX_WRITE_TIME_SIZE", 3000, 1000, 40)
			mpiioWantSegments(t, s, rec.ID, []mpiioSegment{
				{OpWrite, 0, 3000}, {OpWrite, 3000, 1000}, {OpRead, 0, 4000}, {OpRead, 0, 40},
			}, func(g mpiioSegment) bool { return g.op == OpWrite && g.length == 40 && g.offset == 0 })
			wantCounters(t, record(t, run.log, darshan.ModMPIIO, name, int64(r)), want)
		}
	})
}

// TestMPIIOFortran runs a Fortran workload: Open MPI's Fortran bindings
// call MPI_Init and the MPI-IO functions by their PMPI_ names.
func TestMPIIOFortran(t *testing.T) {
	forEachMPI(t, func(t *testing.T, m mpiioImpl, mpicc, lib string) {
		mpifort := needTool(t, m.mpifort)
		prog := compileWorkload(t, mpifort, "mpiio/fortran.f90")
		dir := t.TempDir()
		run, code := mpiioRun(t, m, lib, 2, prog, dir)
		if code != 0 {
			t.Fatalf("exit status %d", code)
		}
		for r := range run.ranks {
			name := filepath.Join(dir, fmt.Sprintf("fortran.%d.dat", r))
			wantCounters(t, record(t, run.log, darshan.ModMPIIO, name, int64(r)), mpiioWith(mpiioZero(), map[string]int64{
				"MPIIO_INDEP_OPENS": 1, "MPIIO_INDEP_WRITES": 4, "MPIIO_MODE": 5,
				"MPIIO_BYTES_WRITTEN": 4000, "MPIIO_SIZE_WRITE_AGG_100_1K": 4,
				"MPIIO_ACCESS1_ACCESS": 1000, "MPIIO_ACCESS1_COUNT": 4, "MPIIO_MAX_WRITE_TIME_SIZE": 1000,
			}))
			mpiioWantSegments(t, run.ranks[r], mpiioStoreRecord(t, run.ranks[r], darshan.ModMPIIO, name).ID,
				[]mpiioSegment{{OpWrite, 0, 1000}, {OpWrite, 1000, 1000}, {OpWrite, 2000, 1000}, {OpWrite, 3000, 1000}}, nil)
		}
	})
}

// TestMPIIODlopen runs a program that loads MPI with dlopen(RTLD_LOCAL)
// after start-up (as Python does): the library must find the MPI functions
// and Open MPI's predefined handles at run time.
func TestMPIIODlopen(t *testing.T) {
	forEachMPI(t, func(t *testing.T, m mpiioImpl, mpicc, lib string) {
		mpiPart := compileWorkload(t, mpicc, "mpiio/dlopen_lib.c", "-shared", "-fPIC")
		prog := compileWorkload(t, "cc", "mpiio/dlopen.c", "-ldl")
		dir := t.TempDir()
		run, code := mpiioRun(t, m, lib, 2, prog, mpiPart, dir)
		if code != 0 {
			t.Fatalf("exit status %d", code)
		}
		name := filepath.Join(dir, "dlopen.dat")
		perRank := mpiioWith(mpiioZero(), map[string]int64{
			"MPIIO_COLL_OPENS": 1, "MPIIO_COLL_WRITES": 1, "MPIIO_MODE": 9,
			"MPIIO_BYTES_WRITTEN": 100, "MPIIO_SIZE_WRITE_AGG_0_100": 1,
			"MPIIO_ACCESS1_ACCESS": 100, "MPIIO_ACCESS1_COUNT": 1, "MPIIO_MAX_WRITE_TIME_SIZE": 100,
		})
		for r, s := range run.ranks {
			rec := mpiioStoreRecord(t, s, darshan.ModMPIIO, name)
			wantCounters(t, rec, perRank)
			mpiioWantSegments(t, s, rec.ID, []mpiioSegment{{OpWrite, int64(r) * 100, 100}}, nil)
		}
		wantCounters(t, record(t, run.log, darshan.ModMPIIO, name, -1), mpiioWith(mpiioZero(), map[string]int64{
			"MPIIO_COLL_OPENS": 2, "MPIIO_COLL_WRITES": 2, "MPIIO_MODE": 9,
			"MPIIO_BYTES_WRITTEN": 200, "MPIIO_SIZE_WRITE_AGG_0_100": 2,
			"MPIIO_ACCESS1_ACCESS": 100, "MPIIO_ACCESS1_COUNT": 2, "MPIIO_MAX_WRITE_TIME_SIZE": 100,
		}))
	})
}
