package cfront

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time the process has used; with other work on
// the machine it measures throughput better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportLines reports lines per second of wall-clock and of CPU time.
func reportLines(b *testing.B, lines int, cpu time.Duration) {
	total := float64(lines) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "lines/s")
	if cpu > 0 {
		b.ReportMetric(total/cpu.Seconds(), "lines/cpu-s")
	}
}

// generateC returns a C source of about n functions in the style of an
// HPC kernel file: comments, macros, structs, loop nests, branches and I/O
// calls.
func generateC(n int) []byte {
	var b bytes.Buffer
	b.WriteString("#include <stdio.h>\n#include <stdlib.h>\n\n#define NX 128\n#define NY (2 * NX)\n\n")
	b.WriteString("struct field { double *data; int nx, ny; };\n\nstatic FILE *logf;\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `/* kernel_%[1]d: relax the field and checkpoint it. */
static double kernel_%[1]d(struct field *f, int steps, const char *path)
{
	int i, j, step;
	double sum = 0.0, *tmp = malloc(NX * NY * sizeof(double));
	FILE *fp = fopen(path, "wb");

	for (step = 0; step < steps; step++) {
		for (i = 1; i < f->nx - 1; i++) {
			for (j = 1; j < f->ny - 1; j += 1) {
				tmp[i * NY + j] = 0.25 * (f->data[(i - 1) * NY + j] + f->data[(i + 1) * NY + j]);
				sum += tmp[i * NY + j];
			}
		}
		if (step %% 10 == 0) {
			fwrite(tmp, sizeof(double), NX * NY, fp); // checkpoint
			fflush(fp);
		} else if (step > 100) {
			break;
		}
	}
	switch (steps) {
	case 0:
		fprintf(logf, "no steps\n");
		break;
	default:
		fprintf(logf, "%%d steps, sum %%g\n", steps, sum);
	}
	fclose(fp);
	free(tmp);
	return sum;
}

`, i)
	}
	return b.Bytes()
}

// generateCPP returns a C++ source of about n functions in the style of a
// simulation code: a namespace, a class template with stream I/O,
// containers, range loops and lambdas.
func generateCPP(n int) []byte {
	var b bytes.Buffer
	b.WriteString("#include <fstream>\n#include <iostream>\n#include <string>\n#include <vector>\n\nnamespace sim {\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `// Mesh%[1]d holds one block of the mesh and writes snapshots of it.
template <typename T>
class Mesh%[1]d {
public:
	explicit Mesh%[1]d(std::size_t n) : cells_(n, T{}) {}

	T relax(int steps)
	{
		T sum{};
		for (int s = 0; s < steps; ++s) {
			for (std::size_t i = 1; i + 1 < cells_.size(); ++i)
				cells_[i] = (cells_[i - 1] + cells_[i + 1]) / 2;
			for (const T &c : cells_)
				sum += c;
		}
		return sum;
	}

	void save(const std::string &path) const
	{
		std::ofstream out(path, std::ios::binary);
		out.write(reinterpret_cast<const char *>(cells_.data()), cells_.size() * sizeof(T));
		out.flush();
	}

private:
	std::vector<T> cells_;
};

double step%[1]d(const std::string &dir, int steps)
{
	Mesh%[1]d<double> m(1 << 12);
	auto name = [&dir](int s) { return dir + "/mesh%[1]d_" + std::to_string(s) + ".bin"; };
	double sum = 0.0;
	for (int s = 0; s < steps; ++s) {
		sum += m.relax(4);
		if (s %% 10 == 0) {
			m.save(name(s));
			std::cout << "step " << s << " sum " << sum << std::endl;
		}
	}
	return sum;
}

`, i)
	}
	b.WriteString("} // namespace sim\n")
	return b.Bytes()
}

// benchSizes are the generated files of the benchmarks, in functions: a
// typical source file (about 3,300 lines) and a very large one (66,000).
var benchSizes = []int{100, 2000}

// benchParse measures Parse on the sources gen generates for benchSizes,
// in the language of path.
func benchParse(b *testing.B, path string, gen func(n int) []byte) {
	for _, n := range benchSizes {
		src := gen(n)
		lines := countLines(src)
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			cpu := cpuTime()
			for b.Loop() {
				if _, err := Parse(path, src); err != nil {
					b.Fatal(err)
				}
			}
			reportLines(b, lines, cpuTime()-cpu)
		})
	}
}

// BenchmarkParse measures the C front-end on generated C.
func BenchmarkParse(b *testing.B) { benchParse(b, "gen.c", generateC) }

// BenchmarkParseCPP measures the front-end on generated C++.
func BenchmarkParseCPP(b *testing.B) { benchParse(b, "gen.cpp", generateCPP) }

// BenchmarkTreeSitter measures tree-sitter's parse and the flattening
// alone, the floor under BenchmarkParse.
func BenchmarkTreeSitter(b *testing.B) {
	p, err := newParser(false)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range benchSizes {
		src := generateC(n)
		lines := countLines(src)
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			cpu := cpuTime()
			for b.Loop() {
				ft, err := p.parse(src)
				if err != nil {
					b.Fatal(err)
				}
				ft.free()
			}
			reportLines(b, lines, cpuTime()-cpu)
		})
	}
}
