/*
 * HDF5 workload without MPI, with exactly known I/O. Usage: serial DIR
 *
 * File DIR/serial.h5 (default file access), group "/g", dataset "d" in it:
 * 1000 ints created with the deprecated H5Dcreate1 and written whole
 * (H5S_ALL); the dataset is flushed, then the file through the dataset id;
 * closed. The file
 * is reopened read-only, "d" opened with the deprecated H5Dopen1 and
 * elements 10..109 read (a regular 1-D hyperslab); the group is opened as
 * an object (no dataset record); everything closed.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                              \
	do {                                                                  \
		if ((x) < 0) {                                                \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
			exit(1);                                              \
		}                                                             \
	} while (0)

int main(int argc, char **argv)
{
	char path[4096];
	int buf[1000];
	if (argc != 2) {
		fprintf(stderr, "usage: serial DIR\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/serial.h5", argv[1]);
	for (int i = 0; i < 1000; i++)
		buf[i] = i;

	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	CHECK(file);
	hid_t g = H5Gcreate2(file, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	CHECK(g);
	hsize_t n = 1000;
	hid_t space = H5Screate_simple(1, &n, NULL);
	hid_t d = H5Dcreate1(g, "d", H5T_NATIVE_INT, space, H5P_DEFAULT);
	CHECK(d);
	CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
	CHECK(H5Dflush(d));
	CHECK(H5Fflush(d, H5F_SCOPE_LOCAL));
	CHECK(H5Dclose(d));
	CHECK(H5Gclose(g));
	CHECK(H5Sclose(space));
	CHECK(H5Fclose(file));

	file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	CHECK(file);
	g = H5Gopen2(file, "g", H5P_DEFAULT);
	CHECK(g);
	d = H5Dopen1(g, "d");
	CHECK(d);
	hid_t fsel = H5Dget_space(d);
	hsize_t start = 10, count = 100;
	CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, &start, NULL, &count, NULL));
	hid_t mem = H5Screate_simple(1, &count, NULL);
	CHECK(H5Dread(d, H5T_NATIVE_INT, mem, fsel, H5P_DEFAULT, buf));
	CHECK(H5Sclose(mem));
	CHECK(H5Sclose(fsel));
	CHECK(H5Dclose(d));
	hid_t obj = H5Oopen(file, "g", H5P_DEFAULT);
	CHECK(obj);
	CHECK(H5Oclose(obj));
	CHECK(H5Gclose(g));
	CHECK(H5Fclose(file));
	return 0;
}
