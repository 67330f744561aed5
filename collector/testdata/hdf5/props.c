/*
 * Injection workload: prints the file-access properties of an HDF5 file
 * the program creates with the default property list, and the buffer size
 * of a stream it opens. Usage: props DIR. Prints
 *   alignment=T/A sieve=S meta_block=M chunk_cache=C
 *   stdio_buffer=B
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdio_ext.h>

int main(int argc, char **argv)
{
	char path[4096];
	if (argc != 2)
		return 2;
	snprintf(path, sizeof path, "%s/p.h5", argv[1]);
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (f < 0)
		return 1;
	hid_t p = H5Fget_access_plist(f);
	hsize_t thr, align, meta;
	size_t sieve, slots, bytes;
	int mdc;
	double w0;
	H5Pget_alignment(p, &thr, &align);
	H5Pget_sieve_buf_size(p, &sieve);
	H5Pget_meta_block_size(p, &meta);
	H5Pget_cache(p, &mdc, &slots, &bytes, &w0);
	printf("alignment=%llu/%llu sieve=%zu meta_block=%llu chunk_cache=%zu\n", (unsigned long long)thr,
	       (unsigned long long)align, sieve, (unsigned long long)meta, bytes);
	H5Pclose(p);
	H5Fclose(f);
	snprintf(path, sizeof path, "%s/s.txt", argv[1]);
	FILE *s = fopen(path, "w");
	if (!s)
		return 1;
	fputs("x", s);
	printf("stdio_buffer=%zu\n", __fbufsize(s));
	fclose(s);
	return 0;
}
