package static

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iolens/iolens/static/sysprof"
)

// benchUnits is how many translation units of each language the generated
// program of BenchmarkAnalyze has, and benchRoutines how many routines
// each holds: about 54,000 lines of C, 37,000 of C++ and 20,000 of Fortran.
const (
	benchUnits    = 8
	benchRoutines = 60
)

// cUnit is the template of one C file of the generated program: a kernel
// of an HPC code with macros, a struct, stdio and POSIX I/O, loop nests,
// branches and a call into the next file. %[1]d is the file, %[2]d the
// routine, %[3]s the driver's return value.
const cUnit = `/* ---------------------------------------------------------------
 * kernel %[1]d.%[2]d: relax a block of the grid, reduce it and write a
 * checkpoint every CKPT_EVERY steps.
 * --------------------------------------------------------------- */
#define BLOCK_%[1]d_%[2]d (NX / 4)
#ifdef USE_DOUBLE
#define REAL_%[1]d_%[2]d double
#else
#define REAL_%[1]d_%[2]d float
#endif

struct state_%[1]d_%[2]d {
	double *cur, *next;
	int nx, ny;
	long step;
	char path[256];
};

static double reduce_%[1]d_%[2]d(const struct state_%[1]d_%[2]d *s)
{
	double sum = 0.0;
	for (int j = 1; j < s->ny - 1; j++)
		for (int i = 1; i < s->nx - 1; i++)
			sum += s->cur[j * s->nx + i] * s->cur[j * s->nx + i];
	return sum;
}

static void relax_%[1]d_%[2]d(struct state_%[1]d_%[2]d *s)
{
	int i, j;
	for (j = 1; j < s->ny - 1; j++) {
		for (i = 1; i < s->nx - 1; i++) {
			double c = s->cur[j * s->nx + i];
			double n = s->cur[(j - 1) * s->nx + i], so = s->cur[(j + 1) * s->nx + i];
			s->next[j * s->nx + i] = 0.2 * (c + n + so + s->cur[j * s->nx + i - 1] + s->cur[j * s->nx + i + 1]);
		}
	}
	double *tmp = s->cur;
	s->cur = s->next;
	s->next = tmp;
}

static int checkpoint_%[1]d_%[2]d(const struct state_%[1]d_%[2]d *s)
{
	char name[512];
	snprintf(name, sizeof name, "%%s/ckpt_%[1]d_%[2]d_%%06ld.bin", s->path, s->step);
	FILE *fp = fopen(name, "wb");
	if (fp == NULL) {
		perror(name);
		return -1;
	}
	struct header hdr = { .magic = MAGIC, .nx = s->nx, .ny = s->ny, .step = s->step };
	fwrite(&hdr, sizeof hdr, 1, fp);
	for (int j = 0; j < s->ny; j++)
		fwrite(s->cur + (size_t)j * s->nx, sizeof(double), s->nx, fp);
	fflush(fp);
	return fclose(fp);
}

static long restart_%[1]d_%[2]d(struct state_%[1]d_%[2]d *s, const char *name)
{
	int fd = open(name, O_RDONLY);
	if (fd < 0)
		return -1;
	struct header hdr;
	if (read(fd, &hdr, sizeof hdr) != sizeof hdr || hdr.magic != MAGIC) {
		close(fd);
		return -1;
	}
	off_t off = sizeof hdr;
	for (int j = 0; j < s->ny; j++) {
		pread(fd, s->cur + (size_t)j * s->nx, s->nx * sizeof(double), off);
		off += s->nx * sizeof(double);
	}
	close(fd);
	return hdr.step;
}

double drive_%[1]d_%[2]d(const char *dir, int steps)
{
	struct state_%[1]d_%[2]d s = { .nx = NX, .ny = NY, .step = 0 };
	s.cur = calloc((size_t)NX * NY, sizeof(double));
	s.next = calloc((size_t)NX * NY, sizeof(double));
	strncpy(s.path, dir, sizeof s.path - 1);
	double norm = 0.0;
	switch (steps %% 3) {
	case 0:
		s.step = restart_%[1]d_%[2]d(&s, "restart.bin");
		break;
	case 1:
		memset(s.cur, 0, (size_t)NX * NY * sizeof(double));
		break;
	default:
		break;
	}
	for (; s.step < steps; s.step++) {
		relax_%[1]d_%[2]d(&s);
		if (s.step %% CKPT_EVERY == 0) {
			norm = reduce_%[1]d_%[2]d(&s);
			fprintf(stderr, "step %%ld norm %%g\n", s.step, norm);
			if (checkpoint_%[1]d_%[2]d(&s) != 0)
				break;
		} else if (norm > 1e30) {
			break;
		}
	}
	free(s.cur);
	free(s.next);
	return %[3]s;
}

`

// cHeader is the header every C file includes.
const cHeader = `#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NX 512
#define NY 512
#define CKPT_EVERY 10
#define MAGIC 0x494f4c4e

struct header {
	unsigned magic;
	int nx, ny;
	long step;
};
`

// cppUnit is the template of one C++ file: a class with stream I/O,
// containers, templates and lambdas.
const cppUnit = `// Solver %[1]d.%[2]d: particles advanced in time, written as text and
// binary snapshots.
namespace solver%[1]d {

template <typename T>
T dot%[2]d(const std::vector<T> &a, const std::vector<T> &b)
{
	T sum{};
	for (std::size_t i = 0; i < a.size(); ++i)
		sum += a[i] * b[i];
	return sum;
}

class Particles%[2]d {
public:
	explicit Particles%[2]d(std::size_t n) : x_(n), v_(n, 1.0) {}

	void advance(double dt)
	{
		for (std::size_t i = 0; i < x_.size(); ++i) {
			x_[i] += dt * v_[i];
			if (x_[i] > 1.0 || x_[i] < 0.0)
				v_[i] = -v_[i];
		}
	}

	void writeText(const std::string &path) const
	{
		std::ofstream out(path);
		for (std::size_t i = 0; i < x_.size(); ++i)
			out << i << ' ' << x_[i] << ' ' << v_[i] << '\n';
	}

	void writeBinary(const std::string &path) const
	{
		std::ofstream out(path, std::ios::binary);
		out.write(reinterpret_cast<const char *>(x_.data()), x_.size() * sizeof(double));
		out.flush();
	}

	std::size_t readBinary(const std::string &path)
	{
		std::ifstream in(path, std::ios::binary);
		if (!in)
			return 0;
		in.read(reinterpret_cast<char *>(x_.data()), x_.size() * sizeof(double));
		return static_cast<std::size_t>(in.gcount()) / sizeof(double);
	}

	double energy() const { return 0.5 * dot%[2]d(v_, v_); }

private:
	std::vector<double> x_;
	std::vector<double> v_;
};

double run%[2]d(const std::string &dir, int steps)
{
	Particles%[2]d p(4096);
	p.readBinary(dir + "/restart.bin");
	double e = 0.0;
	for (int step = 0; step < steps; ++step) {
		p.advance(1e-3);
		if (step %% 50 == 0) {
			p.writeText(dir + "/particles_" + std::to_string(step) + ".txt");
			p.writeBinary(dir + "/particles_" + std::to_string(step) + ".bin");
			e = p.energy();
			std::cout << "step " << step << " energy " << e << std::endl;
		}
	}
	auto scale = [e](double f) { return e * f; };
	return scale(0.5);
}

} // namespace solver%[1]d

`

// cppHeader opens every C++ file.
const cppHeader = `#include <cstddef>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

`

// fortranUnit is the template of one subroutine of a Fortran module:
// array loops, formatted and unformatted I/O, branches.
const fortranUnit = `  ! step%[2]d: relax the field, write a snapshot now and then.
  subroutine step%[2]d(u, m, nsteps, dir)
    integer, intent(in) :: m, nsteps
    real(dp), intent(inout) :: u(m, m)
    character(len=*), intent(in) :: dir
    real(dp), allocatable :: w(:, :)
    integer :: i, j, it, unit, ios
    character(len=256) :: fname
    real(dp) :: norm

    allocate(w(m, m))
    norm = 0.0_dp
    do it = 1, nsteps
      do j = 2, m - 1
        do i = 2, m - 1
          w(i, j) = 0.25_dp * (u(i-1, j) + u(i+1, j) + &
                    u(i, j-1) + u(i, j+1))
        end do
      end do
      u(2:m-1, 2:m-1) = w(2:m-1, 2:m-1)
      if (mod(it, 25) == 0) then
        write(fname, '(a, "/snap%[1]d_%[2]d_", i0, ".bin")') trim(dir), it
        open(newunit=unit, file=trim(fname), form='unformatted', &
             access='stream', status='replace', iostat=ios)
        if (ios /= 0) then
          print *, 'cannot open ', trim(fname)
          exit
        end if
        write(unit) u
        close(unit)
        norm = sqrt(sum(u**2))
        write(*, '(a, i6, es12.4)') 'step', it, norm
      else if (norm > 1.0e30_dp) then
        exit
      end if
    end do
    open(newunit=unit, file=trim(dir)//'/norms%[1]d.txt', position='append', action='write')
    write(unit, *) %[2]d, norm
    close(unit)
    deallocate(w)
  end subroutine step%[2]d

`

// benchSource is one generated file.
type benchSource struct {
	name, lang, text string
}

// generateProgram returns the sources of a program of units translation
// units per language, routines routines each: C kernels that call each
// other across files, C++ solvers and Fortran modules, and a C main.
func generateProgram(units, routines int) []benchSource {
	srcs := []benchSource{{name: "common.h", lang: "c", text: cHeader}}
	var main strings.Builder
	main.WriteString("#include \"common.h\"\n\n")
	for u := 0; u < units; u++ {
		var c, cpp, f strings.Builder
		c.WriteString("#include \"common.h\"\n\n")
		cpp.WriteString(cppHeader)
		fmt.Fprintf(&f, "module field%d\n  implicit none\n  integer, parameter :: dp = kind(1.0d0)\ncontains\n\n", u)
		for r := 0; r < routines; r++ {
			// Each driver but the last file's calls the same routine of
			// the next file.
			ret := "norm"
			if u+1 < units {
				fmt.Fprintf(&c, "double drive_%d_%d(const char *dir, int steps);\n", u+1, r)
				ret = fmt.Sprintf("norm + drive_%d_%d(dir, steps / 2)", u+1, r)
			}
			fmt.Fprintf(&c, cUnit, u, r, ret)
			fmt.Fprintf(&cpp, cppUnit, u, r)
			fmt.Fprintf(&f, fortranUnit, u, r)
			fmt.Fprintf(&main, "double drive_%d_%d(const char *dir, int steps);\n", u, r)
		}
		fmt.Fprintf(&f, "end module field%d\n", u)
		srcs = append(srcs,
			benchSource{fmt.Sprintf("kernels%d.c", u), "c", c.String()},
			benchSource{fmt.Sprintf("solver%d.cpp", u), "c++", cpp.String()},
			benchSource{fmt.Sprintf("field%d.f90", u), "fortran", f.String()})
	}
	main.WriteString("\nint main(int argc, char **argv)\n{\n\tconst char *dir = argc > 1 ? argv[1] : \".\";\n\tdouble sum = 0.0;\n")
	for u := 0; u < units; u++ {
		fmt.Fprintf(&main, "\tsum += drive_%d_0(dir, 100);\n", u)
	}
	main.WriteString("\tprintf(\"%g\\n\", sum);\n\treturn 0;\n}\n")
	return append(srcs, benchSource{"main.c", "c", main.String()})
}

// writeProgram writes srcs into dir and returns the paths of the sources
// of each language and of all ("all"), with their numbers of lines.
func writeProgram(tb testing.TB, dir string, srcs []benchSource) (paths map[string][]string, lines map[string]int) {
	tb.Helper()
	paths, lines = map[string][]string{}, map[string]int{}
	for _, s := range srcs {
		p := filepath.Join(dir, s.name)
		if err := os.WriteFile(p, []byte(s.text), 0o644); err != nil {
			tb.Fatal(err)
		}
		n := strings.Count(s.text, "\n")
		for _, set := range []string{s.lang, "all"} {
			paths[set] = append(paths[set], p)
			lines[set] += n
		}
	}
	return paths, lines
}

// cpuTime returns the CPU time the process has used, which measures the
// throughput per core better than the wall clock when the front-ends run
// concurrently or other work shares the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAnalyze runs the whole static analysis (parsing, program
// dependency graph, features, model) over a generated program of about
// 111,000 lines of C, C++ and Fortran on the reference machine profile (no
// probe runs), and over each language's files alone. It reports lines/s
// of wall-clock time and lines/cpu-s of CPU time: run it with -cpu 1 for
// the throughput of one core.
func BenchmarkAnalyze(b *testing.B) {
	paths, lines := writeProgram(b, b.TempDir(), generateProgram(benchUnits, benchRoutines))
	opts := Options{System: sysprof.Default()}
	for _, set := range []string{"all", "c", "c++", "fortran"} {
		b.Run("lang="+set, func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				res, err := Analyze(context.Background(), paths[set], opts)
				if err != nil {
					b.Fatal(err)
				}
				if res.Lines != lines[set] {
					b.Fatalf("analysed %d lines, want %d", res.Lines, lines[set])
				}
			}
			total := float64(lines[set]) * float64(b.N)
			b.ReportMetric(total/b.Elapsed().Seconds(), "lines/s")
			if cpu := cpuTime() - cpu; cpu > 0 {
				b.ReportMetric(total/cpu.Seconds(), "lines/cpu-s")
			}
		})
	}
}

// TestGeneratedProgram checks that the program BenchmarkAnalyze measures
// parses without errors in every language, so that the benchmark measures
// the analysis of real code rather than error recovery.
func TestGeneratedProgram(t *testing.T) {
	paths, lines := writeProgram(t, t.TempDir(), generateProgram(2, 2))
	res, err := Analyze(context.Background(), paths["all"], Options{System: sysprof.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Entry != "main" || res.Lines != lines["all"] {
		t.Errorf("entry %q, %d lines; want main, %d", res.Entry, res.Lines, lines["all"])
	}
	for _, f := range res.Files {
		if len(f.Errors) > 0 {
			t.Errorf("%s: %s", filepath.Base(f.Path), strings.Join(f.Errors, "\n"))
		}
	}
}
