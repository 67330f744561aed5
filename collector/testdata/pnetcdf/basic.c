/*
 * PnetCDF workload with exactly known I/O, for 2 MPI ranks (every rank
 * records the same counters). Usage: mpiexec -n 2 basic DIR
 *
 * DIR/basic.nc is created with dimensions time (unlimited), x = 100,
 * y = 2, z = 1000 and variables
 *   rec   float (time, x)   a record variable
 *   fix   double (y, z)     a fixed-size variable
 *   misc  int (y, x)        a fixed-size variable
 * then, on each rank r:
 *   put_vara_double_all  fix [r][0..999]                       8000 bytes
 *   iput_vara_float x2   rec [0][50r..50r+49], [1][50r..]      200 bytes each
 *   wait_all, sync
 *   independent mode:
 *     get_vara_float     rec [0..1][0..99]                     800 bytes
 *     iget_vara_double   fix [1-r][0..999], wait               8000 bytes
 *   put_vars_double_all  fix [r][0, 2, ..., 998]               4000 bytes
 *   put_var1_int_all     misc [r][0]                           4 bytes
 *   put_varn_int_all     misc [r][10..14] and [r][20..22]      32 bytes
 *   put_varm_int_all     misc [r][40..49] (no stride)          40 bytes
 *   bput_vara_int        misc [r][60..79], wait_all            80 bytes
 *   get_vard_all         misc row r as an MPI subarray type    400 bytes
 *   redef, a global attribute, enddef, close
 * The file is then opened read-only, rec found with inq_varid and read
 * whole with get_var_float_all (2 records: 800 bytes), and closed.
 *
 * Each rank prints "put=P get=G": the sums over both opens of what
 * ncmpi_inq_put_size and ncmpi_inq_get_size report just before closing.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                         \
	do {                                                                             \
		int err_ = (x);                                                          \
		if (err_ != NC_NOERR) {                                                  \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,      \
				ncmpi_strerror(err_));                                   \
			MPI_Abort(MPI_COMM_WORLD, 1);                                    \
		}                                                                        \
	} while (0)

static MPI_Offset total_put, total_get;

static void close_file(int ncid)
{
	MPI_Offset put, get;
	CHECK(ncmpi_inq_put_size(ncid, &put));
	CHECK(ncmpi_inq_get_size(ncid, &get));
	total_put += put;
	total_get += get;
	CHECK(ncmpi_close(ncid));
}

int main(int argc, char **argv)
{
	int rank, size, ncid, time, x, y, z, rec, fix, misc, req[2], st[2];
	char path[4096];
	static float fbuf[200];
	static double dbuf[2000];
	static int ibuf[100];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2 || size != 2) {
		fprintf(stderr, "usage: mpiexec -n 2 basic DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	snprintf(path, sizeof path, "%s/basic.nc", argv[1]);
	for (int i = 0; i < 200; i++)
		fbuf[i] = (float)(rank * 1000 + i);
	for (int i = 0; i < 2000; i++)
		dbuf[i] = rank * 1e6 + i;

	CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
	CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &time));
	CHECK(ncmpi_def_dim(ncid, "x", 100, &x));
	CHECK(ncmpi_def_dim(ncid, "y", 2, &y));
	CHECK(ncmpi_def_dim(ncid, "z", 1000, &z));
	int rdims[2] = {time, x}, fdims[2] = {y, z};
	CHECK(ncmpi_def_var(ncid, "rec", NC_FLOAT, 2, rdims, &rec));
	CHECK(ncmpi_def_var(ncid, "fix", NC_DOUBLE, 2, fdims, &fix));
	int mdims[2] = {y, x};
	CHECK(ncmpi_def_var(ncid, "misc", NC_INT, 2, mdims, &misc));
	CHECK(ncmpi_enddef(ncid));

	MPI_Offset start[2] = {rank, 0}, count[2] = {1, 1000};
	CHECK(ncmpi_put_vara_double_all(ncid, fix, start, count, dbuf));

	MPI_Offset rstart[2] = {0, 50 * rank}, rcount[2] = {1, 50};
	CHECK(ncmpi_iput_vara_float(ncid, rec, rstart, rcount, fbuf, &req[0]));
	rstart[0] = 1;
	CHECK(ncmpi_iput_vara_float(ncid, rec, rstart, rcount, fbuf + 50, &req[1]));
	CHECK(ncmpi_wait_all(ncid, 2, req, st));
	CHECK(st[0]);
	CHECK(st[1]);
	CHECK(ncmpi_sync(ncid));

	CHECK(ncmpi_begin_indep_data(ncid));
	MPI_Offset all_start[2] = {0, 0}, all_count[2] = {2, 100};
	CHECK(ncmpi_get_vara_float(ncid, rec, all_start, all_count, fbuf));
	MPI_Offset other[2] = {1 - rank, 0};
	CHECK(ncmpi_iget_vara_double(ncid, fix, other, count, dbuf, &req[0]));
	CHECK(ncmpi_wait(ncid, 1, req, st));
	CHECK(st[0]);
	CHECK(ncmpi_end_indep_data(ncid));

	MPI_Offset scount[2] = {1, 500}, stride[2] = {1, 2};
	CHECK(ncmpi_put_vars_double_all(ncid, fix, start, scount, stride, dbuf));

	MPI_Offset one[2] = {rank, 0};
	CHECK(ncmpi_put_var1_int_all(ncid, misc, one, ibuf));
	MPI_Offset s0[2] = {rank, 10}, s1[2] = {rank, 20}, c0[2] = {1, 5}, c1[2] = {1, 3};
	MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
	CHECK(ncmpi_put_varn_int_all(ncid, misc, 2, starts, counts, ibuf));
	MPI_Offset mstart[2] = {rank, 40}, mcount[2] = {1, 10}, imap[2] = {10, 1};
	CHECK(ncmpi_put_varm_int_all(ncid, misc, mstart, mcount, NULL, imap, ibuf));
	CHECK(ncmpi_buffer_attach(ncid, 1024));
	MPI_Offset bstart[2] = {rank, 60}, bcount[2] = {1, 20};
	CHECK(ncmpi_bput_vara_int(ncid, misc, bstart, bcount, ibuf, &req[0]));
	CHECK(ncmpi_wait_all(ncid, 1, req, st));
	CHECK(st[0]);
	CHECK(ncmpi_buffer_detach(ncid));
	int sizes[2] = {2, 100}, subsizes[2] = {1, 100}, starts_[2] = {rank, 0};
	MPI_Datatype row;
	MPI_Type_create_subarray(2, sizes, subsizes, starts_, MPI_ORDER_C, MPI_INT, &row);
	MPI_Type_commit(&row);
	CHECK(ncmpi_get_vard_all(ncid, misc, row, ibuf, 100, MPI_INT));
	MPI_Type_free(&row);

	CHECK(ncmpi_redef(ncid));
	CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 6, "iolens"));
	CHECK(ncmpi_enddef(ncid));
	close_file(ncid);

	CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
	CHECK(ncmpi_inq_varid(ncid, "rec", &rec));
	CHECK(ncmpi_get_var_float_all(ncid, rec, fbuf));
	close_file(ncid);

	printf("put=%lld get=%lld\n", (long long)total_put, (long long)total_get);
	MPI_Finalize();
	return 0;
}
