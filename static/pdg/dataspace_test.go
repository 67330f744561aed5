package pdg

import "testing"

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
