package pdg

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSettingsRecord checks the keys read from the text a program writes:
// "key = value" pairs, several to a namelist line, "key: value", "key
// value" lines, comments, quoted strings, Fortran d exponents, unknown
// and conflicting values.
func TestSettingsRecord(t *testing.T) {
	st := settings{}
	st.record("# grid\nnx = 200\nny=100 # rows\nname: run_a.dat\nsteps 400\nthree words here\n", false)
	st.record("&run\n  dt = 2.5d-3, Nsub = 4, out = 'snap.dat' ! comment\n/\n", true)
	st.record("seed = *\nnx = 200\nny = 101\n", false)
	want := map[string]Value{
		"nx":    IntValue(200, Propagated),
		"ny":    {},
		"name":  StrValue("run_a.dat", Propagated),
		"steps": IntValue(400, Propagated),
		"dt":    FloatValue(2.5e-3, Propagated),
		"nsub":  IntValue(4, Propagated),
		"out":   StrValue("snap.dat", Propagated),
		"seed":  {},
	}
	got := map[string]Value{}
	for k, s := range st {
		got[k] = s.v
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
}

// A C program that writes its configuration with fprintf and parses it
// back with fgets, sscanf and strcmp into a structure.
const configC = `#include <stdio.h>
#include <string.h>
struct params { long nrec; int width; };
static void write_params(const char *path) {
    FILE *f = fopen(path, "w");
    fprintf(f, "# parameters\n");
    fprintf(f, "records = %d\n", 2500);
    fputs("width = 16\n", f);
    fclose(f);
}
static void read_params(const char *path, struct params *p) {
    char line[128], key[32];
    double val;
    FILE *f = fopen(path, "r");
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, " %31[a-z] = %lf", key, &val) != 2) continue;
        if (strcmp(key, "records") == 0) p->nrec = (long)val;
        else if (!strcmp(key, "width")) p->width = (int)val;
    }
    fclose(f);
}
static void dump(const char *path, long n) {
    FILE *f = fopen(path, "w");
    for (long i = 0; i < n; i++) /* dump loop */
        fprintf(f, "%ld\n", i);
    fclose(f);
}
int main(void) {
    struct params p = {0, 0};
    write_params("run.cfg");
    read_params("run.cfg", &p);
    dump("out.txt", p.nrec); /* dump call */
    return 0;
}
`

// TestSettingsParsedBack checks that values a program writes into its own
// text files and parses back bound its loops: C fields and locals set in
// the branch that tests the key (strcmp, a std::string ==), a scan in that
// branch, Fortran namelists written as text or with nml= and read with
// nml=, into module variables and through dummy arguments; a C++ map
// filled with the keys.
func TestSettingsParsedBack(t *testing.T) {
	runPropagation(t, []propagationCase{
		{name: "C fgets, sscanf and strcmp into a member", srcs: []source{{"cfg.c", configC}},
			path: []string{"dump call"}, loop: "dump loop", trip: 2500, source: TripParameter},
		{name: "C fscanf in the branch of the key, into a local", srcs: []source{{"scan.c", `#include <stdio.h>
#include <string.h>
static void dump(long n) {
    for (long i = 0; i < n; i++) /* dump loop */
        printf("%ld\n", i);
}
int main(void) {
    FILE *f = fopen("lu.cfg", "w");
    fprintf(f, "order %d\nseed %lu\n", 1500, 99ul);
    fclose(f);
    char key[64];
    int order = 10;
    unsigned long seed = 1;
    f = fopen("lu.cfg", "r");
    while (fscanf(f, "%63s", key) == 1) {
        if (strcmp(key, "order") == 0 && fscanf(f, "%d", &order) == 1)
            continue;
        else if (strcmp(key, "seed") == 0 && fscanf(f, "%lu", &seed) == 1)
            continue;
        else
            break;
    }
    fclose(f);
    dump(order); /* dump call */
    return 0;
}
`}}, path: []string{"dump call"}, loop: "dump loop", trip: 1500, source: TripParameter},
		{name: "C++ getline, extraction and ==", srcs: []source{{"ini.cpp", `#include <fstream>
#include <sstream>
#include <string>
static void dump(int n) {
    std::ofstream o("out.txt");
    for (int i = 0; i < n; i++) // dump loop
        o << i << "\n";
}
int main() {
    {
        std::ofstream c("run.ini");
        c << "cells = " << 640 << std::endl;
        c << "steps = 12\n";
    }
    int cells = 0, steps = 0;
    std::ifstream in("run.ini");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream is(line);
        std::string key, eq, val;
        is >> key >> eq >> val;
        if (key == "cells") cells = std::stoi(val);
        else if (key == "steps") steps = std::stoi(val);
    }
    dump(cells * steps); // dump call
    return 0;
}
`}}, path: []string{"dump call"}, loop: "dump loop", trip: 7680, source: TripParameter},
		{name: "C++ map of the keys", srcs: []source{{"kv.cpp", `#include <fstream>
#include <map>
#include <string>
static void dump(long n) {
    std::ofstream o("out.txt");
    for (long i = 0; i < n; i++) // dump loop
        o << i << "\n";
}
int main() {
    {
        std::ofstream c("graph.meta");
        c << "# graph\n" << "nodes=" << 5000 << "\n" << "edges=" << 20000 << "\n";
    }
    std::ifstream in("graph.meta");
    std::map<std::string, std::string> kv;
    std::string line;
    while (std::getline(in, line)) {
        auto eq = line.find('=');
        if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
    }
    long n = std::stol(kv.at("nodes"));
    long m = std::stol(kv["edges"]);
    dump(m / n); // dump call
    return 0;
}
`}}, path: []string{"dump call"}, loop: "dump loop", trip: 4, source: TripParameter},
		{name: "C++ members extracted from the value's string stream", srcs: []source{{"cfg.cpp", `#include <fstream>
#include <sstream>
#include <string>
struct Config { int modules = 4; int jobs = 2; };
static void write_config(const std::string &p) {
    std::ofstream o(p);
    o << "# project\n" << "modules = 16\njobs = 6\n";
}
static Config read_config(const std::string &p) {
    std::ifstream in(p);
    Config c;
    std::string line;
    while (std::getline(in, line)) {
        auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        std::string k = line.substr(0, eq), v = line.substr(eq + 1);
        k.erase(k.find_last_not_of(' ') + 1);
        std::istringstream vs(v);
        if (k == "modules") vs >> c.modules;
        else if (k == "jobs") vs >> c.jobs;
    }
    return c;
}
static void work(const Config &c) {
    std::ofstream o("x.txt");
    for (int m = 0; m < c.modules * c.jobs; m++) // work loop
        o << m << "\n";
}
int main() {
    write_config("p.cfg");
    Config cfg = read_config("p.cfg");
    work(cfg); // work call
    return 0;
}
`}}, path: []string{"work call"}, loop: "work loop", trip: 96, source: TripPropagated},
		{name: "Fortran namelist text read into module variables", srcs: []source{f90("nml", `module run
  integer :: nrec = 10, nsub = 2
  namelist /par/ nrec, nsub
contains
  subroutine write_par(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace')
    write(u, '(a)') '&par'
    write(u, '(a)') '  nrec = 4000, nsub = 3 ! sizes'
    write(u, '(a)') '/'
    close(u)
  end subroutine write_par
  subroutine read_par(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='old')
    read(u, nml=par)
    close(u)
  end subroutine read_par
end module run
program main
  use run
  call write_par('run.nml')
  call read_par('run.nml')
  call writer(nrec) ! writer call
end program main
`), f90("writer", writerF90)},
			path: []string{"writer call"}, loop: "writer loop", trip: 4000, source: TripParameter},
		{name: "C++ image header read back by its fields", srcs: []source{{"pgm.cpp", `#include <fstream>
#include <string>
static void dump(long n) {
    std::ofstream o("out.txt");
    for (long i = 0; i < n; i++) // dump loop
        o << i << "\n";
}
int main() {
    {
        std::ofstream o("a.pgm");
        o << "P2\n" << 320 << " " << 200 << "\n255\n";
    }
    std::ifstream in("a.pgm");
    std::string magic;
    int w = 0, h = 0, maxval = 0;
    in >> magic >> w >> h >> maxval;
    dump((long)w * h / maxval); // dump call
    return 0;
}
`}}, path: []string{"dump call"}, loop: "dump loop", trip: 250, source: TripParameter},
		{name: "C header read back by its fields, after a comment line", srcs: []source{{"hdr.c", `#include <stdio.h>
static void dump(long n) {
    FILE *o = fopen("out.txt", "w");
    for (long i = 0; i < n; i++) // dump loop
        fprintf(o, "%ld\n", i);
    fclose(o);
}
int main(void) {
    FILE *f = fopen("grid.txt", "w");
    fprintf(f, "# nx ny\n");
    fprintf(f, "%d %d\n", 120, 90);
    fclose(f);
    int nx = 0, ny = 0;
    char hash[8], a[8], b[8];
    f = fopen("grid.txt", "r");
    if (fscanf(f, "%s %s %s", hash, a, b) != 3 || fscanf(f, "%d %d", &nx, &ny) != 2)
        return 1;
    fclose(f);
    dump(nx * ny); // dump call
    return 0;
}
`}}, path: []string{"dump call"}, loop: "dump loop", trip: 10800, source: TripParameter},
		{name: "Fortran setup lines read back by position", srcs: []source{f90("setup", `module setup
  real(8) :: lo, hi, step
  integer :: nmod, nrec
  real(8) :: temps(8)
contains
  subroutine write_setup(path)
    character(len=*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace', action='write')
    write(u, '(a)') '# lo hi step'
    write(u, '(a)') '5000.0 5400.0 0.001'
    write(u, '(a)') '# models, then their temperatures'
    write(u, *) 3
    write(u, '(a)') '5500.0 5777.0 6100.0'
    write(u, '(a)') '9000'
    close(u)
  end subroutine write_setup
  subroutine read_setup(path)
    character(len=*), intent(in) :: path
    integer :: u
    character(len=128) :: comment
    open(newunit=u, file=path, status='old', action='read')
    read(u, '(a)') comment
    read(u, *) lo, hi, step
    read(u, '(a)') comment
    read(u, *) nmod
    read(u, *) temps(1:nmod)
    read(u, *) nrec
    close(u)
  end subroutine read_setup
end module setup
program main
  use setup
  call write_setup('setup.dat')
  call read_setup('setup.dat')
  call writer(nint((hi - lo) / step) / 100 + nrec * nmod) ! writer call
end program main
`), f90("writer", writerF90)},
			path: []string{"writer call"}, loop: "writer loop", trip: 4000 + 27000, source: TripParameter},
		{name: "Fortran unformatted header read back by position", srcs: []source{f90("hdr", `module snap
  integer, parameter :: nx = 120, ny = 80, nt = 25
  real(8), parameter :: dx = 12.5d0
  character(len=16), parameter :: tag = 'two words'
contains
  subroutine write_snaps(path)
    character(len=*), intent(in) :: path
    integer :: u, k
    real(8) :: grid(nx, ny)
    open(newunit=u, file=path, form='unformatted', access='sequential', status='replace')
    write(u) tag, nx, ny
    write(u) nt, dx
    do k = 1, nt
      grid = k
      write(u) k
      write(u) grid
    end do
    close(u)
  end subroutine write_snaps
  subroutine read_snaps(path)
    character(len=*), intent(in) :: path
    integer :: u, mx, my, mt, k
    real(8) :: ddx
    character(len=16) :: label
    open(newunit=u, file=path, form='unformatted', access='sequential', status='old')
    read(u) label, mx, my
    read(u) mt, ddx
    do k = 1, mt
      read(u)
    end do
    close(u)
    call writer(mx * my + mt + nint(ddx * 2)) ! writer call
  end subroutine read_snaps
end module snap
program main
  use snap
  call write_snaps('s.bin')
  call read_snaps('s.bin')
end program main
`), f90("writer", writerF90)},
			path: []string{"call read_snaps", "writer call"}, loop: "writer loop", trip: 120*80 + 25 + 25, source: TripParameter},
		{name: "Fortran namelist written with nml= and read through dummy arguments", srcs: []source{f90("nml", `subroutine write_par(path)
  character(len=*), intent(in) :: path
  integer :: u, nbatch, nper
  namelist /mc/ nbatch, nper
  nbatch = 40
  nper = 5000
  open(newunit=u, file=path, status='replace')
  write(u, nml=mc)
  close(u)
end subroutine write_par
subroutine read_par(path, nbatch, nper)
  character(len=*), intent(in) :: path
  integer, intent(out) :: nbatch, nper
  integer :: u
  namelist /mc/ nbatch, nper
  nbatch = -1
  nper = -1
  open(newunit=u, file=path, status='old')
  read(u, nml=mc)
  close(u)
end subroutine read_par
program main
  integer :: nbatch, nper
  call write_par('mc.nml')
  call read_par('mc.nml', nbatch, nper)
  call writer(nper) ! writer call
end program main
`), f90("writer", writerF90)},
			path: []string{"writer call"}, loop: "writer loop", trip: 5000, source: TripParameter},
		{name: "Fortran READ skipping a record sets nothing", srcs: []source{f90("skip", `program main
  integer :: u, nrec
  nrec = 10
  open(newunit=u, file='run.txt', status='replace')
  write(u, '(a)') 'nrec = 4000'
  close(u)
  open(newunit=u, file='run.txt', status='old')
  read(u, *)
  close(u)
  call writer(nrec) ! writer call
end program main
`), f90("writer", writerF90)},
			path: []string{"writer call"}, loop: "writer loop", trip: 10, source: TripParameter},
		{name: "a key written with two values", srcs: []source{{"two.c", `#include <stdio.h>
#include <string.h>
static void dump(long n) {
    for (long i = 0; i < n; i++) /* dump loop */
        printf("%ld\n", i);
}
int main(void) {
    FILE *f = fopen("a.cfg", "w");
    fprintf(f, "n %d\n", 300);
    fclose(f);
    f = fopen("b.cfg", "w");
    fprintf(f, "n %d\n", 500);
    fclose(f);
    char key[64];
    long n = 0, v;
    f = fopen("b.cfg", "r");
    while (fscanf(f, "%63s %ld", key, &v) == 2)
        if (strcmp(key, "n") == 0) n = v;
    fclose(f);
    dump(n); /* dump call */
    return 0;
}
`}}, path: []string{"dump call"}, loop: "dump loop", trip: DefaultTrip, source: TripDefault},
	})
}
