/*
 * Injection workload: prints the MPI-IO hints a file opened by the program
 * gets. Usage: hints DIR. Rank 0 prints, for DIR/a.dat opened with
 * MPI_INFO_NULL and DIR/b.dat opened with its own cb_buffer_size=1048576:
 *   a cb_buffer_size=V romio_ds_write=V
 *   b cb_buffer_size=V romio_ds_write=V
 * (V is "-" for a hint the file does not have).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void show(const char *tag, MPI_File fh)
{
	MPI_Info info;
	char v[2][MPI_MAX_INFO_VAL + 1];
	const char *keys[2] = {"cb_buffer_size", "romio_ds_write"};
	int flag;
	MPI_File_get_info(fh, &info);
	for (int i = 0; i < 2; i++) {
		MPI_Info_get(info, keys[i], MPI_MAX_INFO_VAL, v[i], &flag);
		if (!flag)
			strcpy(v[i], "-");
	}
	printf("%s cb_buffer_size=%s romio_ds_write=%s\n", tag, v[0], v[1]);
	MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
	int rank;
	char path[4096];
	MPI_File fh;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	snprintf(path, sizeof path, "%s/a.dat", argv[1]);
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
	if (rank == 0)
		show("a", fh);
	MPI_File_close(&fh);
	MPI_Info own;
	MPI_Info_create(&own);
	MPI_Info_set(own, "cb_buffer_size", "1048576");
	snprintf(path, sizeof path, "%s/b.dat", argv[1]);
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, own, &fh);
	if (rank == 0)
		show("b", fh);
	MPI_File_close(&fh);
	MPI_Info_free(&own);
	MPI_Finalize();
	return 0;
}
