package pdg

import "testing"

// TestSyncWriteBack checks the bytes a sync writes back: what the program
// wrote into its file since the sync before, per execution of the sync.
func TestSyncWriteBack(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want float64
	}{
		{"an fsync after each step", `#include <unistd.h>
#include <fcntl.h>
int main(void) {
  char buf[4096];
  int fd = open("log", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  for (int step = 0; step < 50; step++) {
    for (int k = 0; k < 8; k++) write(fd, buf, sizeof buf);
    fsync(fd); /* sync */
  }
  close(fd);
  return 0;
}`, 8 * 4096},
		{"one fsync after writes in callees", `#include <unistd.h>
#include <fcntl.h>
static void put(int fd, const char *b, int n) { for (int i = 0; i < n; i++) write(fd, b, 1000); }
int main(void) {
  char buf[1000];
  int fd = open("log", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  put(fd, buf, 300);
  put(fd, buf, 200);
  fsync(fd); /* sync */
  close(fd);
  return 0;
}`, 500 * 1000},
		{"an H5Fflush of datasets held in a structure", `#include <hdf5.h>
typedef struct { hid_t file, temp; } archive_t;
static archive_t open_archive(const char *path) {
  archive_t a;
  a.file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[2] = {100, 64};
  hid_t sp = H5Screate_simple(2, dims, NULL);
  a.temp = H5Dcreate2(a.file, "t", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose(sp);
  return a;
}
static void write_row(hid_t d, hsize_t row, const double *buf) {
  hid_t fs = H5Dget_space(d);
  hsize_t start[2] = {row, 0}, count[2] = {1, 64};
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t ms = H5Screate_simple(2, count, NULL);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
  H5Sclose(ms);
  H5Sclose(fs);
}
int main(void) {
  double buf[64] = {0};
  archive_t a = open_archive("a.h5");
  for (int r = 0; r < 100; r++) write_row(a.temp, r, buf);
  H5Fflush(a.file, H5F_SCOPE_GLOBAL); /* sync */
  H5Dclose(a.temp);
  H5Fclose(a.file);
  return 0;
}`, 100 * 64 * 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := []source{cSrc(tc.src)}
			g := buildSources(t, Options{}, src...)
			n := entryNode(t, g, src, IONode, "sync")
			if n.IO.WriteBack != tc.want {
				t.Errorf("write-back %g bytes, want %g", n.IO.WriteBack, tc.want)
			}
		})
	}
}

// TestArraySizedByInitialiser checks loops bounded by the element count of
// arrays declared without their dimension: sizeof a / sizeof a[0] and
// sizeof a / sizeof *a.
func TestArraySizedByInitialiser(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
struct probe { int level; double weight; };
static const struct probe probes[] = { {0, 0.5}, {12, 0.25}, {40, 0.25} };
static void read_levels(FILE *f, int n) {
  char b[64];
  for (int i = 0; i < n; i++) fread(b, 1, sizeof b, f);
}
int main(void) {
  int levels[] = { 0, 12, 25, 40, 60 };
  FILE *f = fopen("x.bin", "rb");
  read_levels(f, (int)(sizeof levels / sizeof levels[0])); /* by levels */
  read_levels(f, (int)(sizeof probes / sizeof probes[0])); /* by probes */
  for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) fread(levels, 4, 1, f); /* deref */
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"deref", 3}})
	for _, c := range []struct {
		call string
		trip int64
	}{{"by levels", 5}, {"by probes", 3}} {
		if l := loopVia(t, g, src, []string{c.call}, "i < n"); l.Trip != c.trip {
			t.Errorf("%s: trip %d (%s), want %d", c.call, l.Trip, l.TripSource, c.trip)
		}
	}
}

// TestReadIntoCastAddress checks that a read into a variable through a
// cast of its address ((char *)&n, reinterpret_cast<char *>(&n)) makes
// the variable unknown: the loop it bounds is not counted from the value
// the variable held before.
func TestReadIntoCastAddress(t *testing.T) {
	for _, src := range []source{cppSrc(`#include <fstream>
#include <cstdint>
int main() {
  std::ifstream in("g.bin", std::ios::binary);
  uint64_t n = 0;
  in.read(reinterpret_cast<char *>(&n), sizeof n);
  long s = 0;
  for (uint64_t i = 0; i < n; ++i) s += i; // rows
  return (int)s;
}`), cSrc(`#include <stdio.h>
int main(void) {
  FILE *f = fopen("g.bin", "rb");
  long n = 0, s = 0;
  fread((char *)&n, sizeof n, 1, f);
  for (long i = 0; i < n; ++i) s += i; // rows
  return (int)s;
}`)} {
		srcs := []source{src}
		g := buildSources(t, Options{}, srcs...)
		if l := entryLoop(t, g, srcs, "rows"); l.Trip != DefaultTrip || l.TripSource != TripDefault {
			t.Errorf("%s: trip %d (%s), want %d (default)", src.name, l.Trip, l.TripSource, DefaultTrip)
		}
	}
}
