package collector

import (
	"bytes"
	"context"
	"debug/elf"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/internal/fixture"
)

// needTool returns the path of a program the test needs (see
// fixture.Tool).
func needTool(t testing.TB, name string) string {
	t.Helper()
	return fixture.Tool(t, name)
}

// testWriteC interposes write(2), counts the calls and reports them when
// the process exits; its constructor says it was loaded.
const testWriteC = `#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "iotest.h"

static ssize_t (*real_write)(int, const void *, size_t);
static long nwrites;
static int report_fd = -1;

ssize_t write(int fd, const void *buf, size_t n)
{
	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	__atomic_fetch_add(&nwrites, 1, __ATOMIC_RELAXED);
	return real_write(fd, buf, n);
}

__attribute__((constructor)) static void loaded(void)
{
	if (getenv("IOTEST_REPORT")) {
		/* A copy of stderr, which some programs close before exiting. */
		report_fd = dup(2);
		dprintf(report_fd, IOTEST_TAG " loaded\n");
	}
}

__attribute__((destructor)) static void report(void)
{
	if (report_fd >= 0)
		dprintf(report_fd, IOTEST_TAG " writes=%ld\n", nwrites);
}
`

// testMPIC is compiled only with an mpicc: it wraps MPI_Init and reports
// the rank and the flavor macro it was built with.
const testMPIC = MPIMarker + `
#include <mpi.h>
#include <stdio.h>
#include "iotest.h"

#if !defined(IOLENS_MPI) || IOLENS_MPI != 1
#error "IOLENS_MPI is not set"
#endif
#if defined(IOLENS_MPI_OPENMPI)
#define FLAVOR "openmpi"
#elif defined(IOLENS_MPI_MPICH)
#define FLAVOR "mpich"
#else
#error "no MPI flavor macro"
#endif

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv), rank = -1;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	fprintf(stderr, IOTEST_TAG " rank=%d flavor=" FLAVOR "\n", rank);
	return rc;
}
`

func testSources() fstest.MapFS {
	return fstest.MapFS{
		"iotest.h":  {Data: []byte("#define IOTEST_TAG \"iotest\"\n")},
		"write.c":   {Data: []byte(testWriteC)},
		"mpiwrap.c": {Data: []byte(testMPIC)},
		"README":    {Data: []byte("not a source\n")},
	}
}

func buildTest(t *testing.T, opts BuildOptions) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	lib, err := Library(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// ddArgv calls write(2) exactly three times.
var ddArgv = []string{"dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=3", "status=none"}

// preload runs argv with lib preloaded and returns its standard error.
func preload(t *testing.T, lib string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "IOTEST_REPORT=1")
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("LD_PRELOAD=%s %s: %v\nstdout: %s\nstderr: %s", lib, strings.Join(argv, " "), err, stdout.String(), stderr.String())
	}
	if strings.Contains(stderr.String(), "ERROR") || strings.Contains(stderr.String(), "cannot be preloaded") {
		t.Fatalf("LD_PRELOAD=%s %s: the loader complained:\n%s", lib, strings.Join(argv, " "), stderr.String())
	}
	return stderr.String()
}

func dynamicSymbols(t *testing.T, lib string) []string {
	t.Helper()
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			names = append(names, s.Name)
		}
	}
	return names
}

func neededLibs(t *testing.T, path string) []string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	return libs
}

// leftovers lists the temporary build directories left in a cache.
func leftovers(t *testing.T, cache string) []string {
	t.Helper()
	entries, err := os.ReadDir(cache)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestLibraryCache(t *testing.T) {
	needTool(t, "cc")
	cache := filepath.Join(t.TempDir(), "cache")
	src := testSources()
	lib := buildTest(t, BuildOptions{CacheDir: cache, Sources: src})

	if got, want := filepath.Dir(filepath.Dir(lib)), cache; got != want {
		t.Errorf("library %s is not in %s/<key>/", lib, cache)
	}
	if filepath.Base(lib) != LibraryName {
		t.Errorf("library name %s, want %s", filepath.Base(lib), LibraryName)
	}
	for _, p := range []string{cache, filepath.Dir(lib), lib} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", p, st.Mode().Perm())
		}
	}
	if l := leftovers(t, cache); len(l) > 0 {
		t.Errorf("temporary files left in the cache: %v", l)
	}
	st1, err := os.Stat(lib)
	if err != nil {
		t.Fatal(err)
	}

	// A cache hit returns the same file without rebuilding it.
	time.Sleep(20 * time.Millisecond)
	again := buildTest(t, BuildOptions{CacheDir: cache, Sources: src})
	if again != lib {
		t.Fatalf("second build: %s, want the cached %s", again, lib)
	}
	st2, err := os.Stat(again)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(st1, st2) || !st1.ModTime().Equal(st2.ModTime()) {
		t.Errorf("cache hit rebuilt the library")
	}

	// Any change of a source, a header included, changes the key.
	changed := testSources()
	changed["write.c"] = &fstest.MapFile{Data: []byte(testWriteC + "\n/* changed */\n")}
	if other := buildTest(t, BuildOptions{CacheDir: cache, Sources: changed}); other == lib {
		t.Errorf("changed write.c: same library %s", other)
	}
	header := testSources()
	header["iotest.h"] = &fstest.MapFile{Data: []byte("#define IOTEST_TAG \"iotest2\"\n")}
	if other := buildTest(t, BuildOptions{CacheDir: cache, Sources: header}); other == lib {
		t.Errorf("changed iotest.h: same library %s", other)
	}
	// A file that is not a source does not.
	readme := testSources()
	readme["README"] = &fstest.MapFile{Data: []byte("changed\n")}
	if other := buildTest(t, BuildOptions{CacheDir: cache, Sources: readme}); other != lib {
		t.Errorf("changed README: library %s, want %s", other, lib)
	}
}

func TestLibraryCacheDirFromEnv(t *testing.T) {
	needTool(t, "cc")
	cache := t.TempDir()
	t.Setenv("IOLENS_CACHE_DIR", cache)
	lib := buildTest(t, BuildOptions{Sources: testSources()})
	if !strings.HasPrefix(lib, cache+string(filepath.Separator)) {
		t.Errorf("library %s is not under IOLENS_CACHE_DIR=%s", lib, cache)
	}
}

func TestLibraryRelativeCacheDir(t *testing.T) {
	needTool(t, "cc")
	dir := t.TempDir()
	t.Chdir(dir)
	lib := buildTest(t, BuildOptions{CacheDir: "cache", Sources: testSources()})
	if !filepath.IsAbs(lib) || !strings.HasPrefix(lib, dir) {
		t.Errorf("library %s: want an absolute path under %s", lib, dir)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("IOLENS_CACHE_DIR", "/some/where")
	if d, err := DefaultCacheDir(); err != nil || d != "/some/where" {
		t.Errorf("with IOLENS_CACHE_DIR: %q, %v", d, err)
	}
	t.Setenv("IOLENS_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "/xdg/cache")
	if d, err := DefaultCacheDir(); err != nil || d != "/xdg/cache/iolens/collector" {
		t.Errorf("with XDG_CACHE_HOME: %q, %v", d, err)
	}
}

func TestLibraryWithoutMPI(t *testing.T) {
	needTool(t, "cc")
	lib := buildTest(t, BuildOptions{CacheDir: t.TempDir(), Sources: testSources()})
	syms := dynamicSymbols(t, lib)
	if !slices.Contains(syms, "write") {
		t.Errorf("library does not define write: %v", syms)
	}
	if slices.Contains(syms, "MPI_Init") {
		t.Errorf("library built without MPI contains the MPI-marked source")
	}

	// It loads into a program and interposes its calls.
	if out := preload(t, lib, "/bin/true"); !strings.Contains(out, "iotest loaded") {
		t.Errorf("/bin/true: library not loaded; stderr:\n%s", out)
	}
	if out := preload(t, lib, ddArgv...); !strings.Contains(out, "iotest writes=3\n") {
		t.Errorf("dd: write not interposed; stderr:\n%s", out)
	}
}

func TestLibraryCC(t *testing.T) {
	needTool(t, "cc")
	gcc := needTool(t, "gcc")
	cache := t.TempDir()
	t.Setenv("CC", "")
	def := buildTest(t, BuildOptions{CacheDir: cache, Sources: testSources()})
	t.Setenv("CC", gcc+" -fno-common")
	withCC := buildTest(t, BuildOptions{CacheDir: cache, Sources: testSources()})
	if withCC == def {
		t.Errorf("CC changed but the library did not: %s", def)
	}
	preload(t, withCC, "/bin/true")

	t.Setenv("CC", "no-such-compiler-iolens")
	if _, err := Library(t.Context(), BuildOptions{CacheDir: cache, Sources: testSources()}); err == nil || !strings.Contains(err.Error(), "no-such-compiler-iolens") {
		t.Errorf("missing CC: error %v", err)
	}
}

func TestLibraryCompileError(t *testing.T) {
	needTool(t, "cc")
	cache := t.TempDir()
	src := testSources()
	src["broken.c"] = &fstest.MapFile{Data: []byte("int broken(void) { return undeclared_iolens_identifier; }\n")}
	var diag bytes.Buffer
	_, err := Library(t.Context(), BuildOptions{CacheDir: cache, Sources: src, Stderr: &diag})
	if err == nil {
		t.Fatal("broken source built")
	}
	for _, want := range []string{"broken.c", "undeclared_iolens_identifier", "without MPI"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
	if strings.Contains(diag.String(), "undeclared_iolens_identifier") {
		t.Errorf("the failure is also printed on Stderr: %q", diag.String())
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("failed build left %v in the cache", names)
	}
}

func TestLibraryWarnings(t *testing.T) {
	needTool(t, "cc")
	src := testSources()
	src["warn.c"] = &fstest.MapFile{Data: []byte("int warn_iolens(void) { int unused_iolens_variable; return 0; }\n")}
	var diag bytes.Buffer
	if _, err := Library(t.Context(), BuildOptions{CacheDir: t.TempDir(), Sources: src, Stderr: &diag}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diag.String(), "unused_iolens_variable") {
		t.Errorf("warnings not copied to Stderr: %q", diag.String())
	}
}

func TestLibraryNoSources(t *testing.T) {
	needTool(t, "cc")
	src := fstest.MapFS{
		"only.h":    {Data: []byte("\n")},
		"mpiwrap.c": {Data: []byte(testMPIC)},
	}
	_, err := Library(t.Context(), BuildOptions{CacheDir: t.TempDir(), Sources: src})
	if err == nil || !strings.Contains(err.Error(), "no C source") {
		t.Errorf("error %v, want no C source files", err)
	}
}

func TestLibraryConcurrent(t *testing.T) {
	needTool(t, "cc")
	cache := t.TempDir()
	const n = 4
	libs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			libs[i], errs[i] = Library(t.Context(), BuildOptions{CacheDir: cache, Sources: testSources()})
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if libs[i] != libs[0] {
			t.Errorf("build %d: %s, want %s", i, libs[i], libs[0])
		}
	}
	if l := leftovers(t, cache); len(l) > 0 {
		t.Errorf("temporary files left in the cache: %v", l)
	}
	preload(t, libs[0], "/bin/true")
}

// mpiFlavors are the MPI compiler wrappers of the Debian packages the
// tests need.
var mpiFlavors = []struct{ flavor, mpicc string }{
	{FlavorOpenMPI, "mpicc.openmpi"},
	{FlavorMPICH, "mpicc.mpich"},
}

const testMPIApp = `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int size = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	printf("size=%d\n", size);
	MPI_Finalize();
	return 0;
}
`

// compileC compiles one C program with the given compiler.
func compileC(t *testing.T, compiler, dir, name, code string, extra ...string) string {
	t.Helper()
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	args := append([]string{"-o", out, src}, extra...)
	if b, err := exec.CommandContext(t.Context(), compiler, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, b)
	}
	return out
}

func TestLibraryMPI(t *testing.T) {
	needTool(t, "cc")
	needTool(t, "objcopy")
	cache := t.TempDir()
	plain := buildTest(t, BuildOptions{CacheDir: cache, Sources: testSources()})
	built := map[string]string{}
	for _, m := range mpiFlavors {
		t.Run(m.flavor, func(t *testing.T) {
			mpicc := needTool(t, m.mpicc)
			lib := buildTest(t, BuildOptions{CacheDir: cache, Sources: testSources(), MPICC: m.mpicc})
			if lib == plain {
				t.Fatalf("MPI build has the key of the build without MPI")
			}
			built[m.flavor] = lib
			if again := buildTest(t, BuildOptions{CacheDir: cache, Sources: testSources(), MPICC: mpicc}); again != lib {
				t.Errorf("same mpicc by path: %s, want %s", again, lib)
			}
			if !slices.Contains(dynamicSymbols(t, lib), "MPI_Init") {
				t.Errorf("MPI build lacks the MPI-marked source")
			}
			for _, n := range neededLibs(t, lib) {
				if strings.Contains(n, "mpi") {
					t.Errorf("library needs %s; it must not link MPI", n)
				}
			}

			// A process without MPI loads it.
			if out := preload(t, lib, "/bin/true"); !strings.Contains(out, "iotest loaded") {
				t.Errorf("/bin/true: library not loaded; stderr:\n%s", out)
			}
			if out := preload(t, lib, ddArgv...); !strings.Contains(out, "iotest writes=3\n") {
				t.Errorf("dd: write not interposed; stderr:\n%s", out)
			}

			// An MPI program of that MPI loads it, and its wrappers reach MPI.
			app := compileC(t, mpicc, t.TempDir(), "app", testMPIApp)
			out := preload(t, lib, app)
			if want := "iotest rank=0 flavor=" + m.flavor; !strings.Contains(out, want) {
				t.Errorf("MPI program: no %q on stderr:\n%s", want, out)
			}
		})
	}
	if len(built) == 2 && built[FlavorOpenMPI] == built[FlavorMPICH] {
		t.Errorf("both MPIs share the library %s", built[FlavorOpenMPI])
	}
}

func TestFlavor(t *testing.T) {
	for _, m := range mpiFlavors {
		t.Run(m.flavor, func(t *testing.T) {
			needTool(t, m.mpicc)
			got, err := Flavor(m.mpicc)
			if err != nil {
				t.Fatal(err)
			}
			if got != m.flavor {
				t.Errorf("Flavor(%s) = %q, want %q", m.mpicc, got, m.flavor)
			}
		})
	}
	t.Run("not an mpicc", func(t *testing.T) {
		for _, name := range []string{"/bin/true", needTool(t, "cc")} {
			if fl, err := Flavor(name); err == nil {
				t.Errorf("Flavor(%s) = %q, want an error", name, fl)
			}
		}
		if _, err := Flavor("/no/such/mpicc"); err == nil {
			t.Errorf("Flavor of a missing file: no error")
		}
	})
}

func TestMPICHCompileInfo(t *testing.T) {
	cc, flags := mpichCompileInfo("gcc -Wl,-z,relro -I/usr/include/x86_64-linux-gnu/mpich -L/usr/lib/x86_64-linux-gnu -lmpich\n")
	if diff := cmp.Diff([]string{"gcc"}, cc); diff != "" {
		t.Errorf("compiler (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"-I/usr/include/x86_64-linux-gnu/mpich"}, flags); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	cc, flags = mpichCompileInfo("/opt/cc -O2 -DFOO=1 -I /opt/mpi/include -isystem /x -pthread -Wl,-rpath,/opt/mpi/lib -lmpi")
	if diff := cmp.Diff([]string{"/opt/cc"}, cc); diff != "" {
		t.Errorf("compiler (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"-DFOO=1", "-I", "/opt/mpi/include", "-isystem", "/x", "-pthread"}, flags); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if cc, flags := mpichCompileInfo(""); cc != nil || flags != nil {
		t.Errorf("empty output: %v %v", cc, flags)
	}
}

func TestEmbeddedSources(t *testing.T) {
	if _, err := fs.Stat(sources, "c/counters.h"); err != nil {
		t.Fatalf("counters.h is not embedded: %v", err)
	}
	if _, err := fs.Stat(sources, "c/core.c"); err != nil {
		t.Fatalf("core.c is not embedded: %v", err)
	}
	needTool(t, "cc")
	lib := buildTest(t, BuildOptions{CacheDir: t.TempDir()})
	t.Setenv("IOLENS_LOG_DIR", t.TempDir())
	preload(t, lib, "/bin/true")
}
