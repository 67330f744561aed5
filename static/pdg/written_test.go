package pdg

import (
	"testing"
)

// TestBuiltNames checks the names files are opened under when the
// program builds them: sprintf, strcpy and strcat into a buffer, a
// std::string sum and its c_str, Fortran concatenation with TRIM, and
// unknown parts as Wildcard.
func TestBuiltNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  source
		want string
	}{
		{"snprintf", cSrc(`#include <stdio.h>
int main(int argc, char **argv) {
  char p[256];
  snprintf(p, sizeof p, "%s/step_%04d.%s", argv[1], 7, "bin");
  FILE *f = fopen(p, "wb");
  fclose(f);
  return 0;
}`), "fopen(out/step_0007.bin) fclose(out/step_0007.bin)"},
		{"wildcard", cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  char p[256];
  sprintf(p, "%s/part%d.dat", argv[1], rand());
  FILE *f = fopen(p, "wb");
  fclose(f);
  return 0;
}`), "fopen(out/part*.dat) fclose(out/part*.dat)"},
		{"strcat", cSrc(`#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  char p[256];
  strcpy(p, argv[1]);
  strcat(p, "/log.txt");
  FILE *f = fopen(p, "w");
  fclose(f);
  return 0;
}`), "fopen(out/log.txt) fclose(out/log.txt)"},
		{"std::string", cppSrc(`#include <cstdio>
#include <string>
int main(int argc, char **argv) {
  std::string dir = argv[1];
  std::string p = dir + "/a.bin";
  FILE *f = fopen(p.c_str(), "wb");
  fclose(f);
  return 0;
}`), "fopen(out/a.bin) fclose(out/a.bin)"},
		{"fortran", f90("names", `program p
  character(len=256) :: dir
  integer :: u
  call get_command_argument(1, dir)
  open(newunit=u, file=trim(dir)//'/x.txt', status='replace')
  close(u)
end program p
`), "OPEN(out/x.txt) CLOSE(out/x.txt)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ioNodesWith(t, Options{Args: []string{"out"}}, []source{tc.src}); got != tc.want {
				t.Errorf("I/O nodes %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWrittenFileTrips checks the trip counts of loops that read to its
// end a file the program wrote: records or lines for text and Fortran
// sequential files, bytes over the request for binary reads, whatever
// function wrote them and however many times it was called, and per
// opening when the file is rewritten.
func TestWrittenFileTrips(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  source
		want int64
	}{
		{"fread", cSrc(`#include <stdio.h>
static void save(const char *p) {
  double x[100] = {0};
  FILE *f = fopen(p, "wb");
  for (int i = 0; i < 50; i++) fwrite(x, sizeof x, 1, f);
  fclose(f);
}
int main(int argc, char **argv) {
  char p[256];
  double x[100];
  snprintf(p, sizeof p, "%s/heap.bin", argv[1]);
  save(p);
  FILE *f = fopen(p, "rb");
  while (fread(x, sizeof x, 1, f) == 1) x[0]++; // read loop
  fclose(f);
  return 0;
}`), 50},
		{"POSIX blocks through a helper called twice", cSrc(`#include <fcntl.h>
#include <unistd.h>
static char buf[4096];
static void block(int fd, int k) {
  for (int i = 0; i < k; i++) write(fd, buf, 4096);
}
int main(int argc, char **argv) {
  int fd = open("data.bin", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  block(fd, 30);
  block(fd, 10);
  close(fd);
  fd = open("data.bin", O_RDONLY);
  long n, s = 0;
  while ((n = read(fd, buf, 1024)) > 0) s += n; // read loop
  close(fd);
  return 0;
}`), 160},
		{"lines", cSrc(`#include <stdio.h>
int main(void) {
  FILE *f = fopen("t.csv", "w");
  for (int i = 0; i < 700; i++) fprintf(f, "%d,%d\n", i, i * i);
  fclose(f);
  char line[128];
  long s = 0;
  f = fopen("t.csv", "r");
  while (fgets(line, sizeof line, f)) s++; // read loop
  fclose(f);
  return 0;
}`), 700},
		{"lines with an error exit", cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  FILE *f = fopen("t.csv", "w");
  for (int i = 0; i < 700; i++) fprintf(f, "%d,%d\n", i, i * i);
  fclose(f);
  char line[128];
  int a, b;
  long s = 0;
  f = fopen("t.csv", "r");
  while (fgets(line, sizeof line, f)) { // read loop
    if (sscanf(line, "%d,%d", &a, &b) != 2) {
      fprintf(stderr, "bad line\n");
      exit(1);
    }
    s += a;
  }
  fclose(f);
  return 0;
}`), 700},
		{"lines with guards", cSrc(`#include <stdio.h>
int main(void) {
  FILE *f = fopen("t.csv", "w");
  for (int i = 0; i < 700; i++) fprintf(f, "%d,%d\n", i, i * i);
  fclose(f);
  char line[128];
  int a, b, n = 0, rows[1000];
  f = fopen("t.csv", "r");
  while (fgets(line, sizeof line, f)) { // read loop
    if (sscanf(line, "%d,%d", &a, &b) < 2) break;
    if (n >= 1000) break;
    rows[n++] = a + b;
  }
  fclose(f);
  return 0;
}`), 700},
		{"lines ended by fputc", cSrc(`#include <stdio.h>
int main(void) {
  FILE *f = fopen("t.csv", "w");
  fputs("id,a,b\n", f);
  for (int i = 0; i < 250; i++) {
    for (int k = 0; k < 3; k++) fprintf(f, ",%d", i * k);
    if (fputc('\n', f) == EOF) return 1;
  }
  fclose(f);
  char line[128];
  f = fopen("t.csv", "r");
  long s = 0;
  while (fgets(line, sizeof line, f)) s += line[0]; // read loop
  fclose(f);
  return 0;
}`), 251},
		{"C++ lines ended by put", cppSrc(`#include <fstream>
#include <string>
int main() {
  {
    std::ofstream log("steps.log");
    for (int i = 0; i < 120; i++) { log << i; log.put('\n'); }
  }
  std::ifstream back("steps.log");
  std::string text;
  for (int n = 0; std::getline(back, text); n++) {} // read loop
  return 0;
}`), 120},
		{"POSIX blocks in an endless loop", cSrc(`#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
static char buf[4096];
int main(void) {
  int fd = open("data.bin", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  for (int i = 0; i < 40; i++) write(fd, buf, 4096);
  close(fd);
  fd = open("data.bin", O_RDONLY);
  long s = 0;
  while (1) { // read loop
    ssize_t n = read(fd, buf, 1024);
    if (n < 0) exit(1);
    if (n == 0) break;
    s += n;
  }
  close(fd);
  return 0;
}`), 160},
		{"rewritten per step", cSrc(`#include <stdio.h>
int main(void) {
  double x[10] = {0};
  for (int step = 0; step < 5; step++) {
    FILE *f = fopen("ckpt.bin", "wb");
    for (int i = 0; i < 100; i++) fwrite(x, sizeof x, 1, f);
    fclose(f);
  }
  FILE *f = fopen("ckpt.bin", "rb");
  while (fread(x, sizeof x, 1, f) == 1) x[0]++; // read loop
  fclose(f);
  return 0;
}`), 100},
		{"half the steps", cSrc(`#include <stdio.h>
int main(void) {
  FILE *f = fopen("log.txt", "w");
  for (int step = 0; step < 400; step++)
    if (step % 4 == 0) fprintf(f, "%d\n", step);
  fclose(f);
  char line[64];
  f = fopen("log.txt", "r");
  while (fgets(line, sizeof line, f)) line[0] = 0; // read loop
  fclose(f);
  return 0;
}`), 100},
		{"C++ lines", cppSrc(`#include <fstream>
#include <string>
int main(int argc, char **argv) {
  std::string p = std::string(argv[1]) + "/d.txt";
  std::ofstream o(p);
  for (int i = 0; i < 300; i++) o << i << ' ' << 2 * i << "\n";
  o.close();
  std::ifstream in(p);
  std::string line;
  long s = 0;
  while (std::getline(in, line)) s += line.size(); // read loop
  return 0;
}`), 300},
		{"C++ lines with strings", cppSrc(`#include <fstream>
#include <string>
static std::string label(int i) { return "st" + std::to_string(i % 7); }
int main(int argc, char **argv) {
  std::string p = std::string(argv[1]) + "/d.csv";
  std::ofstream o(p);
  for (int i = 0; i < 300; i++) {
    std::string name = label(i);
    o << i << ',' << name << '\n';
  }
  o.close();
  std::ifstream in(p);
  std::string line;
  long s = 0;
  while (std::getline(in, line)) s += line.size(); // read loop
  return 0;
}`), 300},
		{"Fortran records", f90("rec", `program p
  integer :: u, i, ios, x, s
  open(newunit=u, file='x.txt', status='replace')
  do i = 1, 500
    write(u, '(i8)') i
  end do
  close(u)
  s = 0
  open(newunit=u, file='x.txt', status='old')
  do ! read loop
    read(u, *, iostat=ios) x
    if (ios /= 0) exit
    s = s + x
  end do
  close(u)
end program p
`), 500},
		// A function called once per match writes a file of its own
		// through a helper that opens it: one match's 50 records.
		{"file opened by a helper, one per call", cSrc(`#include <stdio.h>
static FILE *open_file(const char *name, const char *mode) {
  FILE *f = fopen(name, mode);
  return f;
}
static void write_match(int m) {
  double rec[8] = {0};
  char name[64];
  snprintf(name, sizeof name, "scans_m%02d.bin", m);
  FILE *f = open_file(name, "wb");
  for (int k = 0; k < 50; k++) fwrite(rec, sizeof rec, 1, f);
  fclose(f);
}
int main(void) {
  double rec[8];
  for (int m = 0; m < 24; m++) write_match(m);
  for (int m = 0; m < 24; m++) {
    char name[64];
    snprintf(name, sizeof name, "scans_m%02d.bin", m);
    FILE *f = open_file(name, "rb");
    while (fread(rec, sizeof rec, 1, f) == 1) rec[0]++; // read loop
    fclose(f);
  }
  return 0;
}`), 50},
		{"Fortran unit opened by a subroutine", f90("out", `module logs
contains
  subroutine open_log(u)
    integer, intent(out) :: u
    open(newunit=u, file='x.txt', status='replace', action='write')
  end subroutine
`+fortranPut+`end module
program p
  use logs
  integer :: u, step, ios, a, b
  call open_log(u)
  do step = 1, 30
    call put(u, step)
  end do
  close(u)
  open(newunit=u, file='x.txt', status='old')
  do ! read loop
    read(u, *, iostat=ios) a, b
    if (ios /= 0) exit
  end do
  close(u)
end program p
`), 300},
		// Each of four files opened by a subroutine into an array of
		// units: its header and a quarter of 40 × 4 × 10 lines.
		{"Fortran array of units", f90("arr", `module logs
  integer, parameter :: nl = 4
contains
  subroutine open_logs(units)
    integer, intent(out) :: units(nl)
    integer :: i
    character(len=32) :: name
    do i = 1, nl
      write(name, '(a,i2.2,a)') 'p_', i, '.txt'
      open(newunit=units(i), file=trim(name), status='replace', action='write')
      write(units(i), '(a,i3)') '# loaf ', i
    end do
  end subroutine
`+fortranPut+`end module
program p
  use logs
  integer :: units(nl), step, i, ios, u
  character(len=32) :: name, line
  call open_logs(units)
  do step = 1, 40
    do i = 1, nl
      call put(units(i), step)
    end do
  end do
  do i = 1, nl
    close(units(i))
  end do
  do i = 1, nl
    write(name, '(a,i2.2,a)') 'p_', i, '.txt'
    open(newunit=u, file=trim(name), status='old')
    do ! read loop
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
    end do
    close(u)
  end do
end program p
`), 401},
		// A fifth of 1,000 lines in each of five files opened into an
		// array of streams.
		{"C array of streams", cSrc(`#include <stdio.h>
#define NB 5
int main(void) {
  FILE *out[NB];
  char name[32], line[64];
  for (int b = 0; b < NB; b++) {
    snprintf(name, sizeof name, "band%d.csv", b);
    out[b] = fopen(name, "w");
  }
  for (int i = 0; i < 1000; i++) fprintf(out[i % NB], "%d\n", i);
  for (int b = 0; b < NB; b++) fclose(out[b]);
  long s = 0;
  for (int b = 0; b < NB; b++) {
    snprintf(name, sizeof name, "band%d.csv", b);
    FILE *f = fopen(name, "r");
    while (fgets(line, sizeof line, f)) s++; // read loop
    fclose(f);
  }
  return 0;
}`), 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs := []source{tc.src}
			g := buildSources(t, Options{Args: []string{"out"}}, srcs...)
			l := entryLoop(t, g, srcs, "read loop")
			if l.Trip != tc.want || l.TripSource != TripWritten {
				t.Errorf("read loop runs %d times (%s), want %d (%s)", l.Trip, l.TripSource, tc.want, TripWritten)
			}
		})
	}
}

// fortranPut is a subroutine writing 10 lines into the unit it is given.
const fortranPut = `  subroutine put(u, step)
    integer, intent(in) :: u, step
    integer :: k
    do k = 1, 10
      write(u, '(2i6)') step, k
    end do
  end subroutine
`

// TestWrittenFileSizes checks that the routines asking a file's size
// return what the program wrote into it, so that the reads sized by them
// and the loops over their records know their counts.
func TestWrittenFileSizes(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  source
		want int64
	}{
		{"ftell", cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  double x[64] = {0};
  FILE *f = fopen("a.bin", "wb");
  for (int i = 0; i < 25; i++) fwrite(x, sizeof x, 1, f);
  fclose(f);
  f = fopen("a.bin", "rb");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  long n = size / 8;
  double *v = malloc(size);
  fread(v, 8, n, f);
  for (long i = 0; i < n; i++) v[i] += 1; // size loop
  fclose(f);
  return 0;
}`), 1600},
		{"fstat", cSrc(`#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
static char buf[1000];
int main(void) {
  int fd = open("r.dat", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  for (int i = 0; i < 12; i++) write(fd, buf, 1000);
  close(fd);
  struct stat st;
  fd = open("r.dat", O_RDONLY);
  fstat(fd, &st);
  for (long off = 0; off < st.st_size; off += 100) pread(fd, buf, 100, off); // size loop
  close(fd);
  return 0;
}`), 120},
		{"lseek", cSrc(`#include <fcntl.h>
#include <unistd.h>
static int buf[256];
int main(void) {
  int fd = open("q.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
  for (int i = 0; i < 40; i++) write(fd, buf, sizeof buf);
  off_t end = lseek(fd, 0, SEEK_END);
  for (off_t p = 0; p < end; p += 512) pread(fd, buf, 512, p); // size loop
  close(fd);
  return 0;
}`), 80},
		{"Fortran INQUIRE", f90("inq", `program p
  integer :: u, i, sz
  real(8) :: a(100)
  a = 0
  open(newunit=u, file='s.bin', access='stream', form='unformatted', status='replace')
  do i = 1, 30
    write(u) a
  end do
  close(u)
  inquire(file='s.bin', size=sz)
  open(newunit=u, file='s.bin', access='stream', form='unformatted', status='old')
  do i = 1, sz / 800 ! size loop
    read(u) a
  end do
  close(u)
end program p
`), 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs := []source{tc.src}
			g := buildSources(t, Options{}, srcs...)
			l := entryLoop(t, g, srcs, "size loop")
			if l.Trip != tc.want {
				t.Errorf("loop runs %d times (%s), want %d", l.Trip, l.TripSource, tc.want)
			}
		})
	}
}

// TestSearchLoopsKeepDefaults checks that loops that may stop before the
// end of a file the program wrote (a return, a second test in the
// condition, a nested loop over the same file) keep the default counts.
func TestSearchLoopsKeepDefaults(t *testing.T) {
	srcs := []source{cSrc(`#include <stdio.h>
static char buf[1 << 20];
static void skip_blanks(FILE *f) {
  int c;
  while ((c = fgetc(f)) != EOF) { // search loop
    if (c == '#') {
      while ((c = fgetc(f)) != EOF && c != '\n') // comment loop
        ;
    } else if (c != ' ') {
      ungetc(c, f);
      return;
    }
  }
}
int main(void) {
  FILE *f = fopen("img.pgm", "wb");
  fprintf(f, "P5\n# made here\n512 512\n65535\n");
  fwrite(buf, 1, sizeof buf, f);
  fclose(f);
  f = fopen("img.pgm", "rb");
  skip_blanks(f); // call
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, srcs...)
	for _, m := range []string{"search loop", "comment loop"} {
		l := loopVia(t, g, srcs, []string{"// call"}, m)
		if l.TripSource != TripDefault {
			t.Errorf("%s runs %d times (%s), want the default", m, l.Trip, l.TripSource)
		}
	}
}

// TestHeaderAndDataLoops checks that a loop reading a file the program
// wrote, a header and then the data it announces per iteration, keeps the
// default count: its first read alone does not tell how much one
// iteration takes.
func TestHeaderAndDataLoops(t *testing.T) {
	srcs := []source{cSrc(`#include <stdio.h>
static char buf[1 << 16];
int main(void) {
  FILE *f = fopen("rec.bin", "wb");
  for (int i = 0; i < 300; i++) {
    int len = 100 + i;
    fwrite(&len, sizeof len, 1, f);
    fwrite(buf, 1, len, f);
  }
  fclose(f);
  f = fopen("rec.bin", "rb");
  for (;;) { // record loop
    int len;
    if (fread(&len, sizeof len, 1, f) != 1) break;
    fread(buf, 1, len, f);
  }
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, srcs...)
	if l := entryLoop(t, g, srcs, "record loop"); l.TripSource != TripDefault {
		t.Errorf("record loop runs %d times (%s), want the default", l.Trip, l.TripSource)
	}
}

// TestRowRangeLoops checks the default count of loops over one row of a
// compressed sparse matrix, and that other loops over unknown bounds keep
// theirs.
func TestRowRangeLoops(t *testing.T) {
	srcs := []source{cSrc(`#include <stdlib.h>
int main(void) {
  int n = rand();
  int *rowptr = malloc(sizeof(int) * (n + 1)), *col = malloc(sizeof(int) * 64);
  double *x = malloc(sizeof(double) * 64), s = 0;
  for (int i = 0; i < 1000; i++)
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++) s += x[col[k]]; // row loop
  for (int k = rowptr[3]; k < rowptr[n]; k++) s += x[k]; // span loop
  for (int v = 0; v < 50; v++) {
    int b = rowptr[v], e = rowptr[v + 1];
    for (int k = b; k < e; k++) s -= x[col[k]]; // loop by locals
  }
  return s > 0;
}`)}
	g := buildSources(t, Options{}, srcs...)
	if l := entryLoop(t, g, srcs, "row loop"); l.Trip != DefaultRowTrip || l.TripSource != TripDefault {
		t.Errorf("row loop runs %d times (%s), want %d (%s)", l.Trip, l.TripSource, DefaultRowTrip, TripDefault)
	}
	if l := entryLoop(t, g, srcs, "loop by locals"); l.Trip != DefaultRowTrip {
		t.Errorf("row loop by locals runs %d times, want %d", l.Trip, DefaultRowTrip)
	}
	if l := entryLoop(t, g, srcs, "span loop"); l.Trip != DefaultTrip {
		t.Errorf("span loop runs %d times, want %d", l.Trip, DefaultTrip)
	}
}

// TestUnknownStreamReadLoops checks that loops reading a stream whose file
// is not known (a parameter of a function analysed as a root) keep the
// default counts.
func TestUnknownStreamReadLoops(t *testing.T) {
	srcs := []source{cppSrc(`#include <fstream>
#include <string>
long count(std::istream &in) {
  std::string l;
  long n = 0;
  while (std::getline(in, l)) n++; // line loop
  double x;
  while (in >> x) n++; // number loop
  return n;
}`)}
	g := buildSources(t, Options{Entry: "count"}, srcs...)
	for _, m := range []string{"line loop", "number loop"} {
		if l := entryLoop(t, g, srcs, m); l.TripSource != TripDefault {
			t.Errorf("%s runs %d times (%s), want the default", m, l.Trip, l.TripSource)
		}
	}
}

// TestRestOfFile checks that a binary read of unknown size, outside a
// loop, from a file the program wrote takes the whole file: the payload
// after a header that gave its dimensions, in C and Fortran. In a loop,
// or from a file the program did not write, the size stays unknown.
func TestRestOfFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		src    source
		marker string
		bytes  int64
		known  bool
	}{
		{"fread after a header", ppmReader(`char line[64];
  if (!fgets(line, sizeof line, f) || !fgets(line, sizeof line, f)) return 1;
  if (sscanf(line, "%d %d", &w, &h) != 2) return 1;`), "payload", 921600 + 25, true}, // the header: 9 characters and two %d of 8
		{"fread after a header read by its fields", ppmReader(`if (fscanf(f, "P6 %d %d 255", &w, &h) != 2) return 1;`), "payload", 921600, true},
		{"in a loop", cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  static double x[1000];
  FILE *f = fopen("a.bin", "wb");
  fwrite(x, sizeof x, 1, f);
  fclose(f);
  int n = rand();
  double *p = malloc(8 * (size_t)n);
  f = fopen("a.bin", "rb");
  for (int i = 0; i < 4; i++)
    fread(p, 8, n, f); // payload
  fclose(f);
  return 0;
}`), "payload", 0, false},
		{"a file the program did not write", cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = rand();
  double *p = malloc(8 * (size_t)n);
  FILE *f = fopen("given.bin", "rb");
  fread(p, 8, n, f); // payload
  fclose(f);
  return 0;
}`), "payload", 0, false},
		{"Fortran unformatted", f90("rest", `program p
  integer :: u, n
  real(8) :: x(5000)
  real(8), allocatable :: y(:)
  x = 0
  open(newunit=u, file='f.bin', form='unformatted', access='stream', status='replace')
  write(u) 5000
  write(u) x
  close(u)
  open(newunit=u, file='f.bin', form='unformatted', access='stream', status='old')
  read(u) n
  allocate(y(n))
  read(u) y ! payload
  close(u)
end program p
`), "payload", 40004, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs := []source{tc.src}
			g := buildSources(t, Options{}, srcs...)
			n := entryNode(t, g, srcs, IONode, tc.marker)
			if n.IO.Bytes != tc.bytes || n.IO.BytesKnown != tc.known {
				t.Errorf("read of %d bytes (known %v), want %d (known %v)", n.IO.Bytes, n.IO.BytesKnown, tc.bytes, tc.known)
			}
		})
	}
}

// ppmReader is a C program that writes a 640×480 PPM image and reads its
// payload back after parsing the header with parse.
func ppmReader(parse string) source {
	return cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  static unsigned char img[3 * 640 * 480];
  FILE *f = fopen("a.ppm", "wb");
  fprintf(f, "P6\n%d %d\n255\n", 640, 480);
  fwrite(img, 3, 640 * 480, f);
  fclose(f);
  int w, h;
  f = fopen("a.ppm", "rb");
  ` + parse + `
  unsigned char *p = malloc(3 * (size_t)w * h);
  fread(p, 3, (size_t)w * h, f); // payload
  fclose(f);
  return 0;
}`)
}

// TestReadShareOfWrittenFile checks that a read of unknown size repeated
// to the end of a file the program wrote takes its share of the file.
func TestReadShareOfWrittenFile(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  FILE *f = fopen("t.csv", "w");
  for (int i = 0; i < 700; i++) fprintf(f, "%d,%d\n", i, i * i);
  fclose(f);
  char *line = NULL;
  size_t cap = 0;
  long s = 0;
  f = fopen("t.csv", "r");
  while (getline(&line, &cap, f) > 0) s += atol(line); /* line read */
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkBytes(t, g, src, []bytesWant{{"line read", 18}}) // "%d,%d\n": two 8-digit integers and 2 characters
}

// TestCarriedRemainder checks the records decoded per chunk by loops that
// read a file the program wrote in chunks, carrying the part of a record
// a chunk cuts to the next read.
func TestCarriedRemainder(t *testing.T) {
	const write = `#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
typedef struct { int id; float v; double t; } rec_t;
static void write_recs(const char *path) {
  rec_t r = {0};
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  for (int i = 0; i < 100000; i++) write(fd, &r, sizeof r);
  close(fd);
}
`
	cases := []struct {
		name, src string
	}{
		{"a remainder of the records decoded", write + `int main(void) {
  write_recs("r.bin");
  int fd = open("r.bin", O_RDONLY);
  char *buf = malloc(8000);
  size_t carry = 0, n = 0;
  ssize_t got;
  while ((got = read(fd, buf + carry, 8000 - carry)) > 0) {
    size_t avail = carry + (size_t)got;
    size_t whole = avail / sizeof(rec_t);
    for (size_t i = 0; i < whole; i++) n += buf[i * sizeof(rec_t)]; /* decode */
    carry = avail - whole * sizeof(rec_t);
    memmove(buf, buf + whole * sizeof(rec_t), carry);
  }
  close(fd);
  return (int)n;
}`},
		{"a fill level added to and reset", write + `int main(void) {
  write_recs("r.bin");
  int fd = open("r.bin", O_RDONLY);
  unsigned char buf[8000];
  size_t have = 0, n = 0;
  for (;;) {
    ssize_t r = read(fd, buf + have, sizeof buf - have);
    if (r == 0) break;
    have += (size_t)r;
    size_t nrec = have / sizeof(rec_t);
    for (size_t k = 0; k < nrec; k++) n += buf[k * sizeof(rec_t)]; /* decode */
    size_t rem = have % sizeof(rec_t);
    memmove(buf, buf + nrec * sizeof(rec_t), rem);
    have = rem;
  }
  close(fd);
  return (int)n;
}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := []source{cSrc(tc.src)}
			g := buildSources(t, Options{}, src...)
			checkTrips(t, g, src, []tripWant{{"decode", 8000 / 16}})
		})
	}
}

// TestLineReads checks std::getline: a header line read once is a line of
// unknown size, not the rest of the file, and the lines a loop reads to
// the end of a file the program wrote share its bytes; a line is copied,
// not converted.
func TestLineReads(t *testing.T) {
	src := []source{cppSrc(`#include <fstream>
#include <string>
int main() {
  {
    std::ofstream out("feed.csv");
    out << "t,value\n";
    for (int i = 0; i < 500; i++) out << i << ',' << i * 2 << '\n';
  }
  std::ifstream in("feed.csv");
  std::string line;
  std::getline(in, line); // header
  long s = 0;
  while (std::getline(in, line)) s += line.size(); // each line
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	header := entryNode(t, g, src, IONode, "header")
	if header.IO.BytesKnown || header.IO.Conversions != "s" {
		t.Errorf("header: %d bytes (known %v), conversions %q; want unknown, \"s\"", header.IO.Bytes, header.IO.BytesKnown, header.IO.Conversions)
	}
	// The file's 8 + 500 × 26 bytes over its 501 lines; a line written
	// is an int (8 characters), a character, an expression of unknown
	// type (16) and a newline.
	line := entryNode(t, g, src, IONode, "each line")
	if !line.IO.BytesKnown || line.IO.Bytes != 25 || line.IO.Conversions != "s" {
		t.Errorf("line: %d bytes (known %v), conversions %q; want 25, \"s\"", line.IO.Bytes, line.IO.BytesKnown, line.IO.Conversions)
	}
}
