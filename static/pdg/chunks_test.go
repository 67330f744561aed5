package pdg

import (
	"testing"
)

// TestChunkedReads: a hyperslab read from a chunked dataset moves the
// whole chunks it touches (and counts them) when they do not fit in the
// chunk cache, also
// when the dataset is opened again by its path; a read whose chunks fit,
// or of a contiguous dataset, moves what it selects.
func TestChunkedReads(t *testing.T) {
	src := []source{cSrc(`#include <hdf5.h>
#define NT 64
#define NY 128
#define NX 160
static double plane[NT * NY];
static void create(hid_t file) {
    hsize_t dims[3] = {NT, NY, NX}, chunk[3] = {8, 32, 40};
    hid_t space = H5Screate_simple(3, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 3, chunk);
    hid_t g = H5Gcreate2(file, "wave", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t d = H5Dcreate2(g, "u", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t c = H5Dcreate2(g, "flat", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(c);
    H5Dclose(d);
}
static void column(hid_t d) {
    hid_t fs = H5Dget_space(d);
    hsize_t start[3] = {0, 0, 5}, count[3] = {NT, NY, 1}, mdims[1] = {NT * NY};
    hid_t ms = H5Screate_simple(1, mdims, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, plane); /* column read */
}
static void tile(hid_t d) {
    hid_t fs = H5Dget_space(d);
    hsize_t start[3] = {0, 0, 0}, count[3] = {8, 32, 40}, mdims[1] = {8 * 32 * 40};
    hid_t ms = H5Screate_simple(1, mdims, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, plane); /* tile read */
}
int main(void) {
    hid_t file = H5Fcreate("w.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    create(file);
    hid_t u = H5Dopen2(file, "/wave/u", H5P_DEFAULT);
    hid_t flat = H5Dopen2(file, "/wave/flat", H5P_DEFAULT);
    column(u);  /* chunked column */
    column(flat);  /* contiguous column */
    tile(u);
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		via, read    string
		want, chunks int64
	}{
		// 8 chunks along t, 4 along y, 1 along x: 32 chunks of 8*32*40
		// doubles, 2.6 MB.
		{"chunked column", "column read", 32 * 8 * 32 * 40 * 8, 32},
		{"contiguous column", "column read", 64 * 128 * 8, 0},
		{"tile(u)", "tile read", 8 * 32 * 40 * 8, 1},
	} {
		file, line := lineOf(t, c.via, src)
		call := nodeAt(g.Entry, CallNode, file, line)
		if call == nil || call.Target == nil {
			t.Fatalf("%s: no call", c.via)
		}
		_, line = lineOf(t, c.read, src)
		r := nodeAt(call.Target, IONode, file, line)
		if r == nil {
			t.Fatalf("%s: no read at line %d", c.via, line)
		}
		if r.IO.Bytes != c.want || r.IO.Chunks != c.chunks {
			t.Errorf("%s: %d bytes in %d chunks, want %d in %d", c.via, r.IO.Bytes, r.IO.Chunks, c.want, c.chunks)
		}
	}
}

// TestCopiedChunks: a dataset created with a copy of a creation list
// (H5Pcopy) has the chunks set on the copy, also when a branch not taken
// for this call would have changed their extents.
func TestCopiedChunks(t *testing.T) {
	src := []source{cSrc(`#include <hdf5.h>
#define NT 3600
#define NB 480
static float block[NT * 48];
static hid_t base;
static hid_t series(hid_t g, const char *name, int ncol) {
    hsize_t dims[2] = {NT, (hsize_t)ncol}, chunk[2] = {30, (hsize_t)ncol};
    if (ncol == 0) chunk[0] = 240;
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcopy(base);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t d = H5Dcreate2(g, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    return d;
}
int main(void) {
    base = H5Pcreate(H5P_DATASET_CREATE);
    hid_t file = H5Fcreate("s.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(file, "pmu", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(series(g, "frequency", NB));
    hid_t d = H5Dopen2(file, "/pmu/frequency", H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    hsize_t start[2] = {0, 48}, count[2] = {NT, 48};
    hid_t ms = H5Screate_simple(2, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, block); /* block read */
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	// 120 chunks of 30 x 480 floats, 6.9 MB, for 48 of the 480 columns.
	checkBytes(t, g, src, []bytesWant{{"block read", 3600 * 480 * 4}})
}

// TestReadToEnd: a loop reading a file to its end by requests of known
// size runs DefaultReadBytes / request times, at most DefaultReadTrip; a
// line or a record at a time stays at DefaultReadTrip.
func TestReadToEnd(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <unistd.h>
#define BLOCK (64 * 1024)
static unsigned char buf[BLOCK];
int main(int argc, char **argv) {
    FILE *fp = fopen(argv[1], "rb");
    size_t n;
    long got = 0;
    while ((n = fread(buf, 1, BLOCK, fp)) > 0)  /* block loop */
        for (size_t i = 0; i < n; i++) got += buf[i];  /* bytes loop */
    char line[256];
    while (fgets(line, sizeof line, fp)) got++; /* line loop */
    double x;
    while (fread(&x, sizeof x, 1, fp) == 1) got++; /* record loop */
    ssize_t k;
    while ((k = read(3, buf, 4 * BLOCK)) > 0) got += k; /* posix loop */
    return (int)got;
}
`)}
	checkTrips(t, buildSources(t, Options{}, src...), src, []tripWant{
		{"block loop", DefaultReadBytes / (64 << 10)},
		{"bytes loop", 64 << 10}, // fread returns the elements asked for
		{"line loop", DefaultReadTrip},
		{"record loop", DefaultReadTrip},
		{"posix loop", DefaultReadBytes / (256 << 10)},
	})
}

// TestReturnedHandle: a dataset a helper creates and returns keeps what
// the helper knew of it (its chunks), for the reads through the handle the
// caller got.
func TestReturnedHandle(t *testing.T) {
	src := []source{cSrc(`#include <hdf5.h>
#define NT 4096
#define NS 40
static double col[NT];
static hid_t create(hid_t file) {
    hsize_t dims[2] = {NT, NS}, chunk[2] = {128, NS};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t ds = H5Dcreate2(file, "series", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    return ds;
}
int main(void) {
    hid_t file = H5Fcreate("s.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t ds = create(file);
    hid_t fs = H5Dget_space(ds);
    hsize_t start[2] = {0, 3}, count[2] = {NT, 1}, m = NT;
    hid_t ms = H5Screate_simple(1, &m, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, col); /* column read */
    return 0;
}
`)}
	r := entryNode(t, buildSources(t, Options{}, src...), src, IONode, "column read")
	// 32 chunks of 128 x 40 doubles: 1.3 MB, more than the chunk cache.
	if want := int64(32 * 128 * 40 * 8); r.IO.Bytes != want {
		t.Errorf("column read: %d bytes, want %d", r.IO.Bytes, want)
	}
}

// TestImpliedByEquality: in the side of a branch where "fill == CHUNK"
// holds, fill is CHUNK, so a write of fill records has a known size.
func TestImpliedByEquality(t *testing.T) {
	src := []source{cSrc(`#include <unistd.h>
#define CHUNK 4096
#define RECSZ 64
static unsigned char buf[CHUNK * RECSZ];
int main(void) {
    size_t fill = 0;
    for (int i = 0; i < 100000; i++) {
        if (++fill == CHUNK) {
            write(3, buf, fill * RECSZ); /* batch write */
            fill = 0;
        }
    }
    return 0;
}
`)}
	wr := entryNode(t, buildSources(t, Options{}, src...), src, IONode, "batch write")
	if !wr.IO.BytesKnown || wr.IO.Bytes != 4096*64 {
		t.Errorf("batch write: %d bytes (known %v), want %d", wr.IO.Bytes, wr.IO.BytesKnown, 4096*64)
	}
}
