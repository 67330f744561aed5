package pdg

import (
	"testing"

	"github.com/iolens/iolens/static/iosem"
)

// The dimensions of a dataspace or a hyperslab given in a local array
// initialised with a list size the HDF5 transfers; when the function
// stores into the array, the transfer fills its buffer.
func TestDataspaceDimensionLists(t *testing.T) {
	src := []source{cSrc(`#include <hdf5.h>
#define NT 200
#define NY 64
#define NX 32
int main(void) {
    static double plane[2 * NT * NY];
    hid_t file = H5Fopen("f.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dset = H5Dopen2(file, "u", H5P_DEFAULT);
    hid_t fspace = H5Dget_space(dset);
    hsize_t mdims[2] = {NT, NY};
    hid_t mspace = H5Screate_simple(2, mdims, NULL);
    for (int i = 0; i < NX; i++) {
        hsize_t start[3] = {0, 0, (hsize_t)i}, count[3] = {NT, NY, 1};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, fspace, H5P_DEFAULT, plane); /* slab read */
        H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, plane); /* memory read */
    }
    hsize_t rows[2] = {NT, NY};
    rows[0] = NT / 2;
    hid_t half = H5Screate_simple(2, rows, NULL);
    hid_t other = H5Dopen2(file, "v", H5P_DEFAULT);
    H5Dread(other, H5T_NATIVE_DOUBLE, half, half, H5P_DEFAULT, plane); /* stored read */
    H5Fclose(file);
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		marker string
		bytes  int64
	}{
		{"slab read", 200 * 64 * 8},
		{"memory read", 200 * 64 * 8},
		{"stored read", 2 * 200 * 64 * 8}, // the buffer's size
	} {
		file, line := lineOf(t, c.marker, src)
		n := nodeAt(g.Entry, IONode, file, line)
		if n == nil {
			t.Fatalf("no I/O node at %q", c.marker)
		}
		if n.IO.Bytes != c.bytes {
			t.Errorf("%s: %d bytes, want %d", c.marker, n.IO.Bytes, c.bytes)
		}
	}
}

// A loop that repeats a write until the request is complete moves the
// whole request in its one pass: n - done with done 0.
func TestTransferLoopBytes(t *testing.T) {
	src := []source{cSrc(`#include <unistd.h>
static int write_all(int fd, const char *p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(fd, p + done, n - done); /* the write */
        if (k < 0) return -1;
        done += (size_t)k;
    }
    return 0;
}
int main(void) {
    static char buf[1 << 20];
    write_all(1, buf, sizeof buf); /* the call */
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	file, line := lineOf(t, "the call", src)
	c := nodeAt(g.Entry, CallNode, file, line)
	if c == nil || c.Target == nil {
		t.Fatal("no call of write_all")
	}
	file, line = lineOf(t, "the write", src)
	if w := nodeAt(c.Target, IONode, file, line); w == nil || w.IO.Bytes != 1<<20 {
		t.Errorf("write %+v, want %d bytes", w, 1<<20)
	}
}

// A function's result is the value of the return that ends its body
// (earlier ones are most often error paths), unless it is negative (an
// error code); after a loop that completes a transfer, the count of bytes
// moved is the request.
func TestFunctionResults(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <unistd.h>
#define CHUNK 65536
static long read_full(int fd, char *p, long n) {
    long got = 0;
    while (got < n) {
        long k = read(fd, p + got, n - got);
        if (k < 0) return -1;
        if (k == 0) break;
        got += k;
    }
    return got;
}
static int rows(void) { return 250; }
static int guess(int fd) {
    char c;
    if (read(fd, &c, 1) == 1) return c;
    return -1;
}
int main(void) {
    static char buf[CHUNK];
    long n = read_full(0, buf, CHUNK);
    long sum = 0;
    for (long i = 0; i < n; i++) sum += buf[i]; /* chunk loop */
    int nr = rows();
    for (int r = 0; r < nr; r++) fputc('r', stdout); /* rows loop */
    int g = guess(0);
    for (int k = 0; k < g; k++) fputc('g', stdout); /* guess loop */
    return (int)sum;
}
`)}
	runPropagation(t, []propagationCase{
		{name: "bytes of a complete read", srcs: src, loop: "chunk loop", trip: 65536, source: TripParameter},
		{name: "a constant result", srcs: src, loop: "rows loop", trip: 250, source: TripPropagated},
		{name: "an error code last", srcs: src, loop: "guess loop", trip: DefaultTrip, source: TripDefault},
	})
}

// A Fortran transfer item converting an array or section (real(c(:, :,
// k), sp), dble(v), int(m, 8)) or an element moves its elements at the
// converted kind.
func TestConvertedItems(t *testing.T) {
	src := []source{{"prog.f90", `program converted
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0), nx = 120, ny = 40
  real(dp) :: c(nx, ny, 3)
  real :: v(50)
  integer :: m(10), u, k
  c = 1.0_dp
  v = 2.0
  m = 3
  open(newunit=u, file='dump.bin', form='unformatted', status='replace')
  do k = 1, 3
    write(u) real(c(:, :, k), sp) ! single
  end do
  write(u) dble(v) ! double
  write(u) int(m, 8) ! long
  write(u) real(c(1, 1, 1)) ! scalar
  close(u)
end program converted
`}}
	g := buildSources(t, Options{}, src...)
	checkBytes(t, g, src, []bytesWant{{"single", 120 * 40 * 4}, {"double", 50 * 8}, {"long", 10 * 8}, {"scalar", 4}})
}

// TestElementwiseItems: an unformatted transfer of an array expression,
// or of a section whose elements are not adjacent, moves its elements one
// runtime call each; whole arrays, columns and elements do not.
func TestElementwiseItems(t *testing.T) {
	src := []source{{"prog.f90", `program scattered
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0), nx = 120, ny = 40
  real(dp) :: c(nx, ny, 3)
  integer :: u, i
  c = 1.0_dp
  open(newunit=u, file='dump.bin', form='unformatted', status='replace')
  write(u) real(c(:, :, 2), sp) ! converted
  write(u) c(7, :, 1) ! binary row
  write(u) c(:, 5, 1), c(3, 4, 1) ! column
  write(u) c ! whole
  write(u) c(1:nx:2, 1, 1) ! strided
  write(u) (c(i, 1, 1), i = 1, nx) ! implied
  close(u)
  open(newunit=u, file='dump.txt', status='replace')
  write(u, *) c(7, :, 1) ! text row
  close(u)
end program scattered
`}}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		marker string
		want   int64
	}{
		{"converted", 120 * 40}, {"binary row", 40}, {"column", 0}, {"whole", 0},
		{"strided", 0}, // a triplet's extent is unknown
		{"implied", 0}, {"text row", 0},
	} {
		n := entryNode(t, g, src, IONode, tc.marker)
		if n.IO.Elementwise != tc.want {
			t.Errorf("%s: %d elements one call each, want %d", tc.marker, n.IO.Elementwise, tc.want)
		}
	}
}

// TestTextOps: the conversions of a formatted Fortran transfer cost by
// the types of its items: integers and characters far less than reals,
// reals less read than written, and written in exponent form more than
// in fixed form, when the format (a literal or a named constant) tells;
// an item of unknown type costs iosem.FormatOpsPerItem.
func TestTextOps(t *testing.T) {
	src := []source{{"prog.f90", `program text
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp) :: x(6)
  integer :: u, n, i
  character(len=12) :: name
  character(len=*), parameter :: fixed = '(6f10.3)'
  logical :: ok
  x = 1.0_dp
  n = 3
  name = 'gauge'
  ok = .true.
  open(newunit=u, file='t.txt', status='replace')
  write(u, '(i8,1x,a,1x,l1,6es15.7)') n, name, ok, x ! mixed
  write(u, *) (i, x(i), i = 1, 6) ! implied
  write(u, fixed) x ! F edits
  write(u, *) unknown_thing ! unknown
  rewind(u)
  read(u, *) x ! reals read
  close(u)
end program text
`}}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		marker string
		want   float64
	}{
		{"mixed", 2*iosem.FortranIntOps + iosem.FortranCharOps + 6*iosem.FortranExponentWriteOps},
		{"implied", 6 * (iosem.FortranIntOps + iosem.FortranRealWriteOps)},
		{"F edits", 6 * iosem.FortranFixedWriteOps},
		{"unknown", iosem.FormatOpsPerItem},
		{"reals read", 6 * iosem.FortranRealReadOps},
	} {
		n := entryNode(t, g, src, IONode, tc.marker)
		if n.IO.FormatOps != tc.want {
			t.Errorf("%s: %v operations, want %v", tc.marker, n.IO.FormatOps, tc.want)
		}
	}
}
