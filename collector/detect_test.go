package collector

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

const testSerialApp = `#include <stdio.h>
int main(void) { puts("hello"); return 0; }
`

const testMPILib = `#include <mpi.h>
int mpi_rank(void) { int r = -1; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
`

const testLibApp = `int mpi_rank(void);
int main(void) { return mpi_rank() < -1; }
`

// mpiApps compiles a small MPI program with each MPI's mpicc, and returns
// them by flavor.
func mpiApps(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	apps := map[string]string{}
	for _, m := range mpiFlavors {
		mpicc := needTool(t, m.mpicc)
		apps[m.flavor] = compileC(t, mpicc, dir, "app-"+m.flavor, testMPIApp)
	}
	return apps
}

func detect(t *testing.T, argv ...string) string {
	t.Helper()
	fl, err := DetectMPI(argv)
	if err != nil {
		t.Fatalf("DetectMPI(%q): %v", argv, err)
	}
	return fl
}

func TestDetectMPIPrograms(t *testing.T) {
	cc := needTool(t, "cc")
	apps := mpiApps(t)
	serial := compileC(t, cc, t.TempDir(), "serial", testSerialApp)
	needTool(t, "mpiexec.openmpi")
	needTool(t, "mpiexec.hydra")
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{apps[FlavorOpenMPI]}, FlavorOpenMPI},
		{[]string{apps[FlavorMPICH]}, FlavorMPICH},
		{[]string{apps[FlavorOpenMPI], "input.dat"}, FlavorOpenMPI},
		{[]string{serial}, ""},
		{[]string{"true"}, ""},
		{[]string{"mpiexec.openmpi", "-n", "2", apps[FlavorOpenMPI]}, FlavorOpenMPI},
		{[]string{"mpiexec.hydra", "-n", "2", apps[FlavorMPICH]}, FlavorMPICH},
		// The launcher alone, by its libraries or its name.
		{[]string{"mpiexec.openmpi", "-n", "2", serial}, FlavorOpenMPI},
		{[]string{"mpiexec.hydra", "-n", "2", serial}, FlavorMPICH},
		{[]string{"mpiexec.mpich", "-n", "2", "hostname"}, FlavorMPICH},
		{[]string{"orterun", "-n", "2", "hostname"}, FlavorOpenMPI},
		// The application wins over the launcher.
		{[]string{"mpiexec.openmpi", "-n", "2", apps[FlavorMPICH]}, FlavorMPICH},
		{[]string{"mpiexec.hydra", "-n", "2", apps[FlavorOpenMPI]}, FlavorOpenMPI},
		// An application found in PATH.
		{[]string{"mpiexec.hydra", "-n", "2", filepath.Base(apps[FlavorOpenMPI])}, FlavorOpenMPI},
	}
	t.Setenv("PATH", filepath.Dir(apps[FlavorOpenMPI])+string(filepath.ListSeparator)+os.Getenv("PATH"))
	for _, tt := range tests {
		if got := detect(t, tt.argv...); got != tt.want {
			t.Errorf("DetectMPI(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

func TestDetectMPILauncherSymlinks(t *testing.T) {
	// A launcher reached through links (as /usr/bin/mpiexec through
	// /etc/alternatives) is classified by the names along the way.
	for _, m := range []struct{ target, want string }{
		{"mpiexec.openmpi", FlavorOpenMPI},
		{"mpiexec.hydra", FlavorMPICH},
	} {
		target := needTool(t, m.target)
		dir := t.TempDir()
		alt := filepath.Join(dir, "alternatives-mpiexec")
		if err := os.Symlink(target, alt); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "mpiexec")
		if err := os.Symlink("alternatives-mpiexec", link); err != nil {
			t.Fatal(err)
		}
		if got := detect(t, link, "-n", "1", "hostname"); got != m.want {
			t.Errorf("mpiexec -> %s: %q, want %q", m.target, got, m.want)
		}
	}
}

func TestDetectMPITransitive(t *testing.T) {
	cc := needTool(t, "cc")
	for _, m := range mpiFlavors {
		t.Run(m.flavor, func(t *testing.T) {
			mpicc := needTool(t, m.mpicc)
			dir := t.TempDir()
			libdir := filepath.Join(dir, "lib")
			if err := os.Mkdir(libdir, 0o700); err != nil {
				t.Fatal(err)
			}
			compileC(t, mpicc, libdir, "libmpirank.so", testMPILib, "-shared", "-fPIC")
			if err := os.Rename(filepath.Join(libdir, "libmpirank.so"), filepath.Join(libdir, "libmpirank.so.1")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("libmpirank.so.1", filepath.Join(libdir, "libmpirank.so")); err != nil {
				t.Fatal(err)
			}

			// Found through the program's $ORIGIN-relative run path.
			withRpath := compileC(t, cc, dir, "app-rpath", testLibApp, "-L"+libdir, "-lmpirank", "-Wl,-rpath,$ORIGIN/lib")
			if got := detect(t, withRpath); got != m.flavor {
				t.Errorf("through the run path: %q, want %q", got, m.flavor)
			}

			// Found through LD_LIBRARY_PATH only.
			bare := compileC(t, cc, dir, "app-bare", testLibApp, "-L"+libdir, "-lmpirank")
			t.Setenv("LD_LIBRARY_PATH", "")
			if got := detect(t, bare); got != "" {
				t.Errorf("library not found: %q, want none", got)
			}
			t.Setenv("LD_LIBRARY_PATH", libdir)
			if got := detect(t, bare); got != m.flavor {
				t.Errorf("through LD_LIBRARY_PATH: %q, want %q", got, m.flavor)
			}
		})
	}
}

func TestDetectMPIErrors(t *testing.T) {
	if _, err := DetectMPI(nil); err == nil {
		t.Error("empty command: no error")
	}
	if _, err := DetectMPI([]string{"/no/such/program"}); err == nil {
		t.Error("missing program: no error")
	}
	if _, err := DetectMPI([]string{"no-such-program-iolens"}); err == nil {
		t.Error("program not in PATH: no error")
	}
	// A script is not ELF: no MPI, no error.
	script := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := detect(t, script); got != "" {
		t.Errorf("script: %q, want none", got)
	}
}

func TestClassifyLibrary(t *testing.T) {
	tests := []struct {
		needed, path, want string
	}{
		{"libmpi.so.40", "/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4", FlavorOpenMPI},
		{"libopen-rte.so.40", "", FlavorOpenMPI},
		{"libopen-pal.so.80", "", FlavorOpenMPI},
		{"libmpi_mpifh.so.40", "", FlavorOpenMPI},
		{"libmpi_usempif08.so.40", "", FlavorOpenMPI},
		{"libmpi.so.1", "/opt/openmpi-1.6/lib/libmpi.so.1", FlavorOpenMPI},
		{"libmpi.so.12", "/opt/OpenMPI/1.10/lib/libmpi.so.12", FlavorOpenMPI},
		{"libmpich.so.12", "", FlavorMPICH},
		{"libmpichfort.so.12", "", FlavorMPICH},
		{"libmpi.so.12", "", FlavorMPICH},
		{"libmpi.so.12", "/opt/intel/mpi/lib/libmpi.so.12.0.0", FlavorMPICH},
		{"libmpifort.so.12", "", FlavorMPICH},
		{"libmpi.so", "/opt/mpich-4.1/lib/libmpi.so", FlavorMPICH},
		{"libmpi.so", "/opt/unknown/lib/libmpi.so", ""},
		{"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", ""},
		{"libmpfr.so.6", "", ""},
		{"libhdf5_openmpi.so.103", "/usr/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103", ""},
	}
	for _, tt := range tests {
		if got := classifyLibrary(tt.needed, tt.path); got != tt.want {
			t.Errorf("classifyLibrary(%q, %q) = %q, want %q", tt.needed, tt.path, got, tt.want)
		}
	}
}

func TestLdSoConf(t *testing.T) {
	dir := t.TempDir()
	confd := filepath.Join(dir, "ld.so.conf.d")
	if err := os.Mkdir(confd, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "ld.so.conf"), "include ld.so.conf.d/*.conf\n/opt/top # comment\n")
	write(filepath.Join(confd, "a.conf"), "# a\n/opt/a/lib\n\nrelative/ignored\n")
	write(filepath.Join(confd, "b.conf"), "/opt/b/lib\n")
	got := ldSoConf(filepath.Join(dir, "ld.so.conf"), 0)
	want := []string{"/opt/a/lib", "/opt/b/lib", "/opt/top"}
	if len(got) != len(want) {
		t.Fatalf("ldSoConf = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ldSoConf = %q, want %q", got, want)
		}
	}
}

func TestMPICCFor(t *testing.T) {
	for _, m := range mpiFlavors {
		t.Run(m.flavor, func(t *testing.T) {
			want := needTool(t, m.mpicc)
			t.Setenv("IOLENS_MPICC", "")
			got, err := MPICCFor(m.flavor)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("MPICCFor(%s) = %s, want %s", m.flavor, got, want)
			}
		})
	}
	t.Run("IOLENS_MPICC", func(t *testing.T) {
		t.Setenv("IOLENS_MPICC", "/bin/true")
		if got, err := MPICCFor(FlavorMPICH); err != nil || got != "/bin/true" {
			t.Errorf("MPICCFor = %q, %v; want IOLENS_MPICC", got, err)
		}
		t.Setenv("IOLENS_MPICC", "/no/such/mpicc")
		if _, err := MPICCFor(FlavorMPICH); err == nil {
			t.Error("missing IOLENS_MPICC: no error")
		}
	})
	t.Run("plain mpicc", func(t *testing.T) {
		// Only "mpicc" in PATH: used when it is of the wanted MPI.
		target := needTool(t, "mpicc.openmpi")
		dir := t.TempDir()
		if err := os.Symlink(target, filepath.Join(dir, "mpicc")); err != nil {
			t.Fatal(err)
		}
		t.Setenv("IOLENS_MPICC", "")
		t.Setenv("PATH", dir)
		if got, err := MPICCFor(FlavorOpenMPI); err != nil || got != filepath.Join(dir, "mpicc") {
			t.Errorf("MPICCFor(openmpi) = %q, %v; want %s", got, err, filepath.Join(dir, "mpicc"))
		}
		if got, err := MPICCFor(FlavorMPICH); !errors.Is(err, ErrNoMPICC) {
			t.Errorf("MPICCFor(mpich) = %q, %v; want ErrNoMPICC", got, err)
		}
	})
	if _, err := MPICCFor("lam"); err == nil {
		t.Error("unknown flavor: no error")
	}
}
