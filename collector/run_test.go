package collector

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// TestRunMPI runs "mpiexec -n 4 ./app" under Run with each MPI: the
// library built for the application's MPI reaches every rank, and the MPI
// job's log has the four ranks' shared records reduced.
func TestRunMPI(t *testing.T) {
	for _, m := range mpiioImpls {
		t.Run(m.flavor, func(t *testing.T) {
			mpicc := needTool(t, m.mpicc)
			mpiexec := needTool(t, m.mpiexec)
			prog := compileWorkload(t, mpicc, "mpiio/basic.c")
			dir := t.TempDir()
			argv := append(append([]string{mpiexec}, m.launch...), "-n", "4", prog, dir)
			env := []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "IOLENS_MPICC="}
			res := runCollected(t, RunOptions{}, env, argv...)
			var mpi *darshan.Log
			for _, l := range res.Logs {
				if l.Job.NProcs == 4 && strings.Contains(l.Exe, filepath.Base(prog)) {
					mpi = l
				}
			}
			if mpi == nil {
				t.Fatalf("no log of the 4-rank MPI job among %d logs", len(res.Logs))
			}
			shared := filepath.Join(dir, "shared.dat")
			wantCounters(t, record(t, mpi, darshan.ModMPIIO, shared, -1), map[string]int64{
				"MPIIO_COLL_OPENS": 4, "MPIIO_COLL_WRITES": 48, "MPIIO_COLL_READS": 40,
				"MPIIO_INDEP_WRITES": 28, "MPIIO_BYTES_WRITTEN": 4 * 10514680, "MPIIO_BYTES_READ": 4 * 10489856,
			})
			for r := int64(0); r < 4; r++ {
				name := filepath.Join(dir, "private."+string(rune('0'+r))+".dat")
				wantCounters(t, record(t, mpi, darshan.ModMPIIO, name, r), map[string]int64{
					"MPIIO_INDEP_OPENS": 1, "MPIIO_INDEP_WRITES": 3, "MPIIO_BYTES_WRITTEN": 3000,
				})
			}
			// The MPI library's own shared-memory files are not recorded.
			for _, r := range records(t, mpi, darshan.ModPOSIX) {
				if n, _ := mpi.RecordName(r.ID); strings.HasPrefix(n, "/dev/shm/") {
					t.Errorf("record of the MPI runtime file %s", n)
				}
			}
			if names := dirNames(t, res.LogDir); len(names) != len(res.Logs) {
				t.Errorf("log directory holds %q, want only the %d logs", names, len(res.Logs))
			}
		})
	}
}

// TestRunDir runs "./basic ." under Run with Dir set: the relative path of
// the command and the files it opens are found in Dir, and a relative
// LogDir stays relative to the current directory.
func TestRunDir(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/basic.c")
	work := filepath.Dir(prog)
	res := runCollected(t, RunOptions{Dir: work}, nil, "./"+filepath.Base(prog), ".")
	if res.Result.ExitCode != 0 || len(res.Logs) != 1 {
		t.Fatalf("exit %d, %d logs", res.Result.ExitCode, len(res.Logs))
	}
	if filepath.Dir(res.Result.Logs[0]) != res.LogDir {
		t.Errorf("log %s not in %s", res.Result.Logs[0], res.LogDir)
	}
	wantCounters(t, record(t, res.Logs[0], darshan.ModPOSIX, filepath.Join(work, "basic.dat"), 0), map[string]int64{
		"POSIX_WRITES": 1000, "POSIX_BYTES_WRITTEN": 100000,
	})
}
