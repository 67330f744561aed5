package fix

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/internal/fixture"
	"github.com/iolens/iolens/static"
)

var update = flag.Bool("update", false, "rewrite the expected diffs under testdata/static/fix/expected")

// root is the module root, the root of the diffs' paths.
const root = "../.."

// fixCase is a program, its expected diff and how to build and run it.
type fixCase struct {
	name  string
	files []string // relative to the module root
	procs int
	// build is the compiler command: {out} the executable, {src} the
	// sources, {pkg-config PKG} the flags of PKG.
	build []string
	ranks int // > 0: run with mpiexec -n ranks
	// same: the patched program writes the same files, byte for byte.
	same bool
}

var fixCases = []fixCase{
	{name: "flush_loop", files: []string{"testdata/static/fix/flush_loop.c"}, build: []string{"cc", "-O2", "-o", "{out}", "{src}"}, same: true},
	{name: "small_writes", files: []string{"testdata/static/fix/small_writes.c"}, build: []string{"cc", "-O2", "-o", "{out}", "{src}"}, same: true},
	{name: "csv_parse", files: []string{"testdata/static/corpus/csv_parse.c"}, build: []string{"cc", "-O2", "-o", "{out}", "{src}"}, same: true},
	{name: "fscanf_reader", files: []string{"testdata/static/corpus/fscanf_reader.c"}, build: []string{"cc", "-O2", "-o", "{out}", "{src}"}, same: true},
	{name: "extsort", files: []string{"testdata/static/corpus/extsort.c"}, build: []string{"cc", "-O2", "-o", "{out}", "{src}"}, same: true},
	{name: "write_loop", files: []string{"testdata/static/fix/write_loop.c"}, build: []string{"cc", "-O2", "-Wall", "-o", "{out}", "{src}"}, same: true},
	{name: "write_loop_cxx", files: []string{"testdata/static/fix/write_loop.c"}, build: []string{"c++", "-O2", "-Wall", "-x", "c++", "-o", "{out}", "{src}"}, same: true},
	{name: "endl_loop", files: []string{"testdata/static/fix/endl_loop.cpp"}, build: []string{"c++", "-O2", "-o", "{out}", "{src}"}, same: true},
	{name: "flush_loop_f90", files: []string{"testdata/static/fix/flush_loop.f90"}, build: []string{"gfortran", "-O2", "-o", "{out}", "{src}"}, same: true},
	{name: "seq_read", files: []string{"testdata/static/fix/seq_read.c"}, build: []string{"cc", "-O2", "-std=c99", "-o", "{out}", "{src}"}, same: true},
	{name: "seq_read_gnu", files: []string{"testdata/static/fix/seq_read.c"}, build: []string{"cc", "-O2", "-o", "{out}", "{src}"}, same: true},
	{name: "mpiio_indep", files: []string{"testdata/static/corpus/mpiio_indep.c"}, procs: 2, ranks: 2, same: true,
		build: []string{"mpicc.openmpi", "-O2", "-o", "{out}", "{src}", "-lm"}},
	{name: "mpiio_rank0", files: []string{"testdata/static/fix/mpiio_rank0.c"}, procs: 2, ranks: 2, same: true,
		build: []string{"mpicc.openmpi", "-O2", "-o", "{out}", "{src}"}},
	// HDF5 object headers hold modification times: the files differ.
	{name: "hdf5_indep", files: []string{"testdata/static/fix/hdf5_indep.c"}, procs: 2, ranks: 2,
		build: []string{"mpicc.openmpi", "-O2", "-o", "{out}", "{src}", "{pkg-config hdf5-openmpi}"}},
	{name: "pnetcdf_indep", files: []string{"testdata/static/fix/pnetcdf_indep.c"}, procs: 2, ranks: 2, same: true,
		build: []string{"mpicc.openmpi", "-O2", "-o", "{out}", "{src}", "{pkg-config pnetcdf}"}},
	// Nothing to fix: the program sets its buffer already.
	{name: "buffered_fwrite", files: []string{"testdata/static/corpus/buffered_fwrite.c"}},
}

// makePatch analyses the files of a case and makes its patch.
func makePatch(t *testing.T, c fixCase) *Patch {
	t.Helper()
	var files []string
	for _, f := range c.files {
		files = append(files, filepath.Join(root, f))
	}
	ctx := context.Background()
	res, err := static.Analyze(ctx, files, static.Options{Procs: c.procs})
	if err != nil {
		t.Fatal(err)
	}
	prog, _, err := static.Parse(ctx, files)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Make(res, prog, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDiffs(t *testing.T) {
	for _, c := range fixCases {
		t.Run(c.name, func(t *testing.T) {
			p := makePatch(t, c)
			got, err := p.Diff()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(root, "testdata/static/fix/expected", c.name+".diff")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("diff differs from %s:\n%s", golden, got)
			}
		})
	}
}

// TestPatchedPrograms applies every diff with patch -p1, checks that it
// gives the text Patched returns, builds the original and the patched
// program with the real compiler, runs both and compares what they write.
func TestPatchedPrograms(t *testing.T) {
	patchTool := fixture.Tool(t, "patch")
	for _, c := range fixCases {
		if c.build == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			p := makePatch(t, c)
			diff, err := p.Diff()
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Fixes) == 0 {
				t.Fatal("no fix")
			}
			orig, patched := t.TempDir(), t.TempDir()
			for _, f := range c.files {
				copyFile(t, filepath.Join(root, f), filepath.Join(orig, f))
				copyFile(t, filepath.Join(root, f), filepath.Join(patched, f))
			}
			cmd := exec.Command(patchTool, "-p1", "--batch", "--no-backup-if-mismatch")
			cmd.Dir, cmd.Stdin = patched, strings.NewReader(diff)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("patch -p1: %v\n%s", err, out)
			}
			for _, f := range c.files {
				want, _ := p.Patched(filepath.Join(root, f))
				got, err := os.ReadFile(filepath.Join(patched, f))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s patched by patch differs from Patched (%v)", f, err)
				}
			}
			outA := runProgram(t, c, orig)
			outB := runProgram(t, c, patched)
			if c.same {
				sameFiles(t, outA, outB)
			}
		})
	}
}

// runProgram builds the case's program in dir and runs it on a new
// output directory, which it returns.
func runProgram(t *testing.T, c fixCase, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, c.name)
	var argv []string
	for _, a := range c.build {
		switch {
		case a == "{out}":
			argv = append(argv, exe)
		case a == "{src}":
			for _, f := range c.files {
				argv = append(argv, filepath.Join(dir, f))
			}
		case strings.HasPrefix(a, "{pkg-config "):
			pc := fixture.Tool(t, "pkg-config")
			out, err := exec.Command(pc, "--cflags", "--libs", strings.TrimSuffix(strings.TrimPrefix(a, "{pkg-config "), "}")).Output()
			if err != nil {
				t.Fatalf("pkg-config %s: %v", a, err)
			}
			argv = append(argv, strings.Fields(string(out))...)
		default:
			argv = append(argv, a)
		}
	}
	argv[0] = fixture.Tool(t, argv[0])
	if out, err := exec.Command(argv[0], append(argv[1:], "-Werror=implicit-function-declaration")...).CombinedOutput(); err != nil && !strings.Contains(argv[0], "gfortran") {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	} else if err != nil {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o700); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(exe, outDir)
	if c.ranks > 0 {
		run = exec.Command(fixture.Tool(t, "mpiexec"), "--oversubscribe", "-n", "2", exe, outDir)
		run.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(run.Args, " "), err, out)
	}
	return outDir
}

// sameFiles checks that two directories hold the same files, byte for
// byte.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	ents, err := os.ReadDir(a)
	if err != nil || len(ents) == 0 {
		t.Fatalf("no output in %s: %v", a, err)
	}
	for _, e := range ents {
		x, errA := os.ReadFile(filepath.Join(a, e.Name()))
		y, errB := os.ReadFile(filepath.Join(b, e.Name()))
		if errA != nil || errB != nil || !bytes.Equal(x, y) {
			t.Errorf("output %s differs between the original and the patched program (%v, %v)", e.Name(), errA, errB)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSkipReasons checks that code that cannot be fixed safely is left
// with its reason.
func TestSkipReasons(t *testing.T) {
	for _, c := range []struct {
		files  []string
		line   int
		reason string
	}{
		{[]string{"testdata/static/fix/mpiio_rank0.c"}, 29, "depends on the MPI rank (line 28)"},
		{[]string{"testdata/static/corpus/buffered_fwrite.c"}, 29, "setvbuf already sets the buffer of f"},
		{[]string{"testdata/static/corpus/small_files.c"}, 38, "fd is opened inside the loop"},
		// The flush is a cause of main's loop, through report().
		{[]string{"testdata/static/corpus/fflush_loop.c"}, 23, "the flush is in report(), which the loop calls"},
		// Small write()s that a buffer would change.
		{[]string{"testdata/static/fix/write_skips.c"}, 16, "the loop returns at line 17"},
		{[]string{"testdata/static/fix/write_skips.c"}, 25, "fd is also used by lseek at line 26"},
		{[]string{"testdata/static/fix/write_skips.c"}, 33, "logfd is not a local variable or parameter"},
		{[]string{"testdata/static/corpus/pread_random.c"}, 24, "the loop can end the program at line 25"},
		{[]string{"testdata/static/corpus/unbuf_log.c"}, 39, "the write() is in log_event(), which the loop calls"},
	} {
		p := makePatch(t, fixCase{files: c.files, procs: 2})
		found := false
		for _, s := range p.Skipped {
			found = found || s.Line == c.line && strings.Contains(s.Reason, c.reason)
		}
		if !found {
			t.Errorf("%s:%d: no skip with %q in %+v", c.files[0], c.line, c.reason, p.Skipped)
		}
	}
}
