package collector

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// injectedMetadata returns the injection lines of the metadata of l.
func injectedMetadata(l *darshan.Log) string {
	var lines []string
	for _, p := range l.Job.MetadataPairs() {
		if strings.HasPrefix(p.Key, "iolens_set") {
			lines = append(lines, p.Key+"="+p.Value)
		}
	}
	return strings.Join(lines, "\n")
}

func TestInjectMPIIOHints(t *testing.T) {
	for _, mpi := range []struct{ name, mpicc, mpiexec string }{
		{"openmpi", "mpicc.openmpi", "mpiexec.openmpi"},
		{"mpich", "mpicc.mpich", "mpiexec.mpich"},
	} {
		t.Run(mpi.name, func(t *testing.T) {
			mpicc, mpiexec := needTool(t, mpi.mpicc), needTool(t, mpi.mpiexec)
			prog := compileWorkload(t, mpicc, "mpiio/hints.c")
			dir := t.TempDir()
			env := openMPIEnv
			if mpi.name == "mpich" {
				env = nil
			}
			var stdout strings.Builder
			set := &Injection{Hints: [][2]string{{"cb_buffer_size", "8388608"}, {"romio_ds_write", "disable"}}, Label: "cb_buffer_size=8388608 romio_ds_write=disable"}
			res := runCollected(t, RunOptions{Stdout: &stdout, Set: set, MPICC: mpicc}, env, mpiexec, "-n", "2", prog, dir)
			if res.Result.ExitCode != 0 {
				t.Fatalf("exit code %d", res.Result.ExitCode)
			}
			// The injected hints win over the program's own.
			want := "a cb_buffer_size=8388608 romio_ds_write=disable\nb cb_buffer_size=8388608 romio_ds_write=disable\n"
			if stdout.String() != want {
				t.Errorf("hints seen by the program:\n%s\nwant:\n%s", stdout.String(), want)
			}
			// Two opens on each of 2 ranks.
			if got, want := injectedMetadata(mpiLog(t, res.Logs, 2)), "iolens_set=cb_buffer_size:8388608 romio_ds_write:disable\niolens_set_opens=mpiio:4,hdf5:0,stdio:0"; got != want {
				t.Errorf("metadata:\n%s\nwant:\n%s", got, want)
			}

			// Without injection the program sees the library's defaults.
			stdout.Reset()
			runCollected(t, RunOptions{Stdout: &stdout, MPICC: mpicc}, env, mpiexec, "-n", "2", prog, dir)
			if strings.Contains(stdout.String(), "cb_buffer_size=8388608") || !strings.Contains(stdout.String(), "b cb_buffer_size=1048576") {
				t.Errorf("without injection the program saw:\n%s", stdout.String())
			}

			// Hints for other files only: none here.
			stdout.Reset()
			set.HintFiles = `\.nc$`
			runCollected(t, RunOptions{Stdout: &stdout, Set: set, MPICC: mpicc}, env, mpiexec, "-n", "2", prog, dir)
			if strings.Contains(stdout.String(), "romio_ds_write=disable") {
				t.Errorf("hints for *.nc reached *.dat:\n%s", stdout.String())
			}
		})
	}
}

func TestInjectHDF5AndStdio(t *testing.T) {
	mpicc := needTool(t, "mpicc.openmpi")
	prog := compileWorkload(t, mpicc, "hdf5/props.c", pkgFlags(t, "hdf5-openmpi")...)
	dir := t.TempDir()
	var stdout strings.Builder
	res := runCollected(t, RunOptions{Stdout: &stdout}, nil, prog, dir)
	base := stdout.String()
	if res.Result.ExitCode != 0 || !strings.Contains(base, "alignment=1/1 ") {
		t.Fatalf("exit %d, defaults:\n%s", res.Result.ExitCode, base)
	}
	stdout.Reset()
	set := &Injection{
		HDF5:        map[string]int64{"alignment": 1 << 20, "alignment_threshold": 65536, "sieve_buf_size": 4 << 20, "meta_block_size": 65536, "chunk_cache_bytes": 8 << 20},
		StdioBuffer: 1 << 20,
		Label:       "h5_alignment=1048576",
	}
	res = runCollected(t, RunOptions{Stdout: &stdout, Set: set}, nil, prog, dir)
	want := "alignment=65536/1048576 sieve=4194304 meta_block=65536 chunk_cache=8388608\nstdio_buffer=1048576\n"
	if stdout.String() != want {
		t.Errorf("properties seen by the program:\n%s\nwant:\n%s", stdout.String(), want)
	}
	if got, want := injectedMetadata(mpiLog(t, res.Logs, 1)), "iolens_set=h5_alignment:1048576\niolens_set_opens=mpiio:0,hdf5:1,stdio:1"; got != want {
		t.Errorf("metadata:\n%s\nwant:\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.txt")); err != nil {
		t.Error(err)
	}
}

func TestInjectBad(t *testing.T) {
	for _, in := range []*Injection{
		{Hints: [][2]string{{"cb;nodes", "2"}}},
		{HDF5: map[string]int64{"alignmnt": 4}},
		{HDF5: map[string]int64{"alignment": -1}},
		{StdioBuffer: -1},
	} {
		if _, err := in.env(); err == nil {
			t.Errorf("%+v: no error", in)
		}
	}
}
