package iosem

import (
	"strings"
	"sync"
)

// family is one entry of the table: routines sharing their semantics.
type family struct {
	names string // space-separated canonical spellings
	sem   Semantics
}

// families lists the routines that are not generated from a naming
// grammar, one entry per family.
func families() []family {
	return []family{
		// POSIX.
		{"open open64", sem(POSIX, Open, name(0), mode(1), defMode(ModeRead))},
		{"openat openat64", sem(POSIX, Open, name(1), mode(2), defMode(ModeRead))},
		{"creat creat64", sem(POSIX, Open, name(0), defMode(ModeWrite|ModeCreate))},
		{"close", sem(POSIX, Close, handle(0))},
		{"read", sem(POSIX, Read, handle(0), bytes(2, -1, 1))},
		{"write", sem(POSIX, Write, handle(0), bytes(2, -1, 1))},
		{"pread pread64", sem(POSIX, Read, handle(0), bytes(2, -1, 1), offset(3))},
		{"pwrite pwrite64", sem(POSIX, Write, handle(0), bytes(2, -1, 1), offset(3))},
		{"readv", sem(POSIX, Read, handle(0))},
		{"writev", sem(POSIX, Write, handle(0))},
		{"preadv preadv2", sem(POSIX, Read, handle(0), offset(3))},
		{"pwritev pwritev2", sem(POSIX, Write, handle(0), offset(3))},
		{"lseek lseek64", sem(POSIX, Seek, handle(0), offset(1), whence(2))},
		{"fsync fdatasync", sem(POSIX, Sync, handle(0))},
		{"sync syncfs", sem(POSIX, Sync)},
		{"msync", sem(POSIX, Sync)},
		{"stat stat64 lstat lstat64 access unlink truncate mkdir rmdir rename", sem(POSIX, Stat, name(0))},
		// C++17 std::filesystem: the system calls under them (mkdir,
		// stat, unlink, rename, truncate) are what the collector times.
		{"filesystem::create_directory filesystem::create_directories filesystem::remove filesystem::remove_all " +
			"filesystem::rename filesystem::resize_file filesystem::file_size filesystem::exists " +
			"filesystem::is_regular_file filesystem::is_directory filesystem::status filesystem::symlink_status " +
			"filesystem::last_write_time filesystem::copy_file filesystem::equivalent", sem(POSIX, Stat, name(0))},
		{"fstat fstat64 ftruncate fallocate posix_fallocate", sem(POSIX, Stat, handle(0))},
		// mmap only maps the file: the reads and writes are the program's
		// loads and stores into the mapping, compute as the collector
		// measures it (page faults included).
		{"mmap mmap64", sem(POSIX, Stat, handle(4))},
		{"posix_fadvise posix_fadvise64", sem(POSIX, Config, handle(0))},
		{"aio_read aio_read64", sem(POSIX, Read, async)},
		{"aio_write aio_write64", sem(POSIX, Write, async)},
		{"aio_fsync", sem(POSIX, Sync, async)},
		{"lio_listio", sem(POSIX, Write, async)},
		{"aio_suspend aio_return aio_error", sem(POSIX, Wait)},
		{"dprintf", sem(POSIX, Write, handle(0), format(1), formatted)},

		// STDIO.
		{"fopen fopen64 freopen", sem(STDIO, Open, name(0), mode(1), defMode(ModeRead))},
		{"fdopen", sem(STDIO, Open, handle(0), mode(1), defMode(ModeRead))},
		{"fclose", sem(STDIO, Close, handle(0))},
		{"fread fread_unlocked", sem(STDIO, Read, handle(3), bytes(1, 2, 0))},
		{"fwrite fwrite_unlocked", sem(STDIO, Write, handle(3), bytes(1, 2, 0))},
		{"fprintf vfprintf", sem(STDIO, Write, handle(0), format(1), formatted)},
		{"printf vprintf", sem(STDIO, Write, stdout, format(0), formatted)},
		{"fputs fputs_unlocked", sem(STDIO, Write, handle(1), text(0), formatted)},
		{"puts", sem(STDIO, Write, stdout, text(0), formatted)},
		{"fputc putc fputc_unlocked putc_unlocked", sem(STDIO, Write, handle(1), char, formatted)},
		{"putchar", sem(STDIO, Write, stdout, char, formatted)},
		{"fgets", sem(STDIO, Read, handle(2), bytes(1, -1, 0), formatted)},
		{"fgetc getc getc_unlocked", sem(STDIO, Read, handle(0), char, formatted)},
		{"getchar", sem(STDIO, Read, stdin, char, formatted)},
		{"fscanf vfscanf", sem(STDIO, Read, handle(0), format(1), formatted)},
		{"scanf vscanf", sem(STDIO, Read, stdin, format(0), formatted)},
		{"getline getdelim", sem(STDIO, Read, handle(2), formatted)},
		{"fseek fseeko fseeko64", sem(STDIO, Seek, handle(0), offset(1), whence(2))},
		{"ftell ftello ftello64 rewind fgetpos fsetpos", sem(STDIO, Seek, handle(0))},
		{"fflush", sem(STDIO, Flush, handle(0))},
		{"setvbuf", sem(STDIO, Config, handle(0), effect(SetBuffering, 2))},
		{"setbuf", sem(STDIO, Config, handle(0), effect(SetBuffering, 1))},
		{"remove", sem(STDIO, Stat, name(0))},

		// MPI-IO, besides the data access routines of mpiioAccess.
		{"MPI_File_open", sem(MPIIO, Open, name(1), mode(2), out(4), defMode(ModeRead), collective)},
		{"MPI_File_close", sem(MPIIO, Close, handle(0), collective)},
		{"MPI_File_sync", sem(MPIIO, Sync, handle(0), collective)},
		{"MPI_File_set_view MPI_File_set_size MPI_File_preallocate MPI_File_set_atomicity MPI_File_seek_shared",
			sem(MPIIO, Stat, handle(0), collective)},
		{"MPI_File_seek", sem(MPIIO, Seek, handle(0), offset(1), whence(2))},
		{"MPI_File_get_size MPI_File_get_position MPI_File_get_position_shared MPI_File_get_view MPI_File_get_byte_offset",
			sem(MPIIO, Stat, handle(0))},
		{"MPI_File_delete", sem(MPIIO, Stat, name(0))},
		{"MPI_File_set_info MPI_File_get_info", sem(MPIIO, Config, handle(0))},

		// HDF5, C and Fortran bindings.
		{"H5Fcreate", sem(HDF5, Open, name(0), plist(3), defMode(ModeReadWrite|ModeCreate))},
		{"H5Fopen", sem(HDF5, Open, name(0), mode(1), plist(2), defMode(ModeRead))},
		{"h5fcreate_f", sem(HDF5, Open, name(0), out(2), plist(5), defMode(ModeReadWrite|ModeCreate))},
		{"h5fopen_f", sem(HDF5, Open, name(0), mode(1), out(2), plist(4), defMode(ModeRead))},
		{"H5Fclose h5fclose_f", sem(HDF5, Close, handle(0))},
		{"H5Fflush h5fflush_f", sem(HDF5, Sync, handle(0))},
		{"H5Dcreate H5Dcreate2", sem(HDF5, Open, handle(0), space(3), plist(5), dataset)},
		{"H5Dcreate1", sem(HDF5, Open, handle(0), space(3), plist(4), dataset)},
		{"h5dcreate_f", sem(HDF5, Open, handle(0), space(3), out(4), dataset)},
		{"H5Dopen H5Dopen1 H5Dopen2 H5Gcreate H5Gcreate1 H5Gcreate2 H5Gopen H5Gopen1 H5Gopen2",
			sem(HDF5, Open, handle(0), dataset)},
		{"h5dopen_f h5gcreate_f h5gopen_f", sem(HDF5, Open, handle(0), out(2), dataset)},
		{"H5Dclose H5Gclose h5dclose_f h5gclose_f", sem(HDF5, Close, handle(0))},
		{"H5Dwrite", sem(HDF5, Write, handle(0), dataspace(1, 2, 3, 5), plist(4))},
		{"H5Dread", sem(HDF5, Read, handle(0), dataspace(1, 2, 3, 5), plist(4))},
		{"h5dwrite_f", sem(HDF5, Write, handle(0), dataspace(1, 5, 6, 2), plist(7))},
		{"h5dread_f", sem(HDF5, Read, handle(0), dataspace(1, 5, 6, 2), plist(7))},
		// Attributes live in object headers, which reach the file with the
		// rest of the metadata when it is flushed or closed: writing or
		// reading one moves no data by itself, and the collector, like
		// Darshan, does not time these calls.
		{"H5Awrite h5awrite_f H5Aread h5aread_f", sem(HDF5, Config, handle(0))},
		{"H5Dset_extent H5Dextend h5dset_extent_f", sem(HDF5, Stat, handle(0))},
		{"H5Pset_dxpl_mpio h5pset_dxpl_mpio_f", sem(HDF5, Config, handle(0), effect(SetCollective, 1))},
		{"H5Pset_deflate H5Pset_szip H5Pset_filter h5pset_deflate_f h5pset_szip_f", sem(HDF5, Config, handle(0), effect(SetFilter, 0))},
		{"H5Pset_fapl_mpio h5pset_fapl_mpio_f", sem(HDF5, Config, handle(0), effect(SetMPIDriver, 1))},
		{"H5Screate_simple", sem(HDF5, Config, effect(MakeDataspace, 1))},
		{"h5screate_simple_f", sem(HDF5, Config, out(2), effect(MakeDataspace, 1))},
		{"H5Sselect_hyperslab", sem(HDF5, Config, handle(0), effect(SelectDataspace, 4))},
		{"H5Dget_space", sem(HDF5, Config, effect(CopyDataspace, 0))},
		{"h5dget_space_f", sem(HDF5, Config, out(1), effect(CopyDataspace, 0))},
		{"h5sselect_hyperslab_f", sem(HDF5, Config, handle(0), effect(SelectDataspace, 3))},
		{"H5Pset_chunk h5pset_chunk_f", sem(HDF5, Config, handle(0), effect(SetChunk, 2))},
		{"H5Pcopy", sem(HDF5, Config, effect(CopyPlist, 0))},
		{"h5pcopy_f", sem(HDF5, Config, out(1), effect(CopyPlist, 0))},
		{"H5Scopy", sem(HDF5, Config, effect(CopyDataspace, 0))},
		{"h5scopy_f", sem(HDF5, Config, out(1), effect(CopyDataspace, 0))},
		{"H5Pcreate H5Pclose H5Pset_alignment H5Pset_fapl_core H5Pset_fapl_sec2 H5Pset_meta_block_size " +
			"H5Pset_sieve_buf_size H5Pset_cache H5Pset_all_coll_metadata_ops H5Pset_coll_metadata_write " +
			"H5Screate H5Sclose H5Sselect_all H5Sselect_none H5Tcopy H5Tclose " +
			"h5pcreate_f h5pclose_f h5pset_alignment_f h5sclose_f", sem(HDF5, Config)},

		// PnetCDF, besides the data access routines of pnetcdfAccess.
		{"ncmpi_create", sem(PnetCDF, Open, name(1), mode(2), out(4), defMode(ModeWrite|ModeCreate), collective)},
		{"ncmpi_open", sem(PnetCDF, Open, name(1), mode(2), out(4), defMode(ModeRead), collective)},
		{"ncmpi_close", sem(PnetCDF, Close, handle(0), collective)},
		{"ncmpi_sync", sem(PnetCDF, Sync, handle(0), collective)},
		{"ncmpi_enddef ncmpi_redef", sem(PnetCDF, Stat, handle(0), collective)},
		{"ncmpi_wait_all", sem(PnetCDF, Wait, handle(0), collective)},
		{"ncmpi_wait", sem(PnetCDF, Wait, handle(0))},
		{"ncmpi_def_dim ncmpi_def_var ncmpi_put_att ncmpi_put_att_text ncmpi_begin_indep_data ncmpi_end_indep_data",
			sem(PnetCDF, Config, handle(0))},

		// NetCDF (C and the Fortran 90 module), besides netcdfAccess.
		{"nc_create", sem(NetCDF, Open, name(0), mode(1), out(2), defMode(ModeWrite|ModeCreate))},
		{"nc_open", sem(NetCDF, Open, name(0), mode(1), out(2), defMode(ModeRead))},
		{"nc_create_par", sem(NetCDF, Open, name(0), mode(1), out(4), defMode(ModeWrite|ModeCreate), collective)},
		{"nc_open_par", sem(NetCDF, Open, name(0), mode(1), out(4), defMode(ModeRead), collective)},
		{"nf90_create", sem(NetCDF, Open, name(0), mode(1), out(2), defMode(ModeWrite|ModeCreate))},
		{"nf90_open", sem(NetCDF, Open, name(0), mode(1), out(2), defMode(ModeRead))},
		{"nc_close nf90_close", sem(NetCDF, Close, handle(0))},
		{"nc_sync nf90_sync", sem(NetCDF, Sync, handle(0))},
		{"nc_enddef nc_redef nf90_enddef nf90_redef", sem(NetCDF, Stat, handle(0))},
		{"nc_def_dim nc_def_var nf90_def_dim nf90_def_var", sem(NetCDF, Config, handle(0))},
		{"nc_var_par_access nf90_var_par_access", sem(NetCDF, Config, handle(0), effect(SetCollective, 2))},
		{"nf90_put_var", sem(NetCDF, Write, handle(0), whole(0, 2))},
		{"nf90_get_var", sem(NetCDF, Read, handle(0), whole(0, 2))},

		// Fortran's FLUSH subroutine (GNU and most compilers): call flush(unit).
		{"flush", sem(Fortran, Flush, handle(0))},
	}
}

// table maps the normalised name of every known routine to its semantics.
// It is built on first use and only read afterwards.
var table = sync.OnceValue(buildTable)

func buildTable() map[string]Semantics {
	t := make(map[string]Semantics)
	add := func(s Semantics) { t[normalize(s.Routine)] = s }
	for _, f := range families() {
		for _, n := range strings.Fields(f.names) {
			s := f.sem
			s.Routine = n
			add(s)
		}
	}
	for _, gen := range []func() []Semantics{mpiioAccess, pnetcdfAccess, netcdfAccess} {
		for _, s := range gen() {
			add(s)
		}
	}
	return t
}
