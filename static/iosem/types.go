package iosem

import (
	"strconv"
	"strings"
	"sync"
)

// datatypeSizes maps lower-cased MPI, HDF5 and NetCDF datatype names (and
// Fortran kind spellings) to their sizes in bytes.
var datatypeSizes = sync.OnceValue(func() map[string]int64 {
	return map[string]int64{
		// MPI, C and Fortran.
		"mpi_char": 1, "mpi_signed_char": 1, "mpi_unsigned_char": 1, "mpi_byte": 1, "mpi_c_bool": 1,
		"mpi_short": 2, "mpi_unsigned_short": 2,
		"mpi_int": 4, "mpi_unsigned": 4, "mpi_float": 4,
		"mpi_long": 8, "mpi_unsigned_long": 8, "mpi_long_long": 8, "mpi_long_long_int": 8,
		"mpi_unsigned_long_long": 8, "mpi_double": 8, "mpi_long_double": 16,
		"mpi_int8_t": 1, "mpi_uint8_t": 1, "mpi_int16_t": 2, "mpi_uint16_t": 2,
		"mpi_int32_t": 4, "mpi_uint32_t": 4, "mpi_int64_t": 8, "mpi_uint64_t": 8,
		"mpi_offset": 8, "mpi_aint": 8, "mpi_c_float_complex": 8, "mpi_c_double_complex": 16,
		"mpi_character": 1, "mpi_logical": 4, "mpi_integer": 4, "mpi_real": 4,
		"mpi_double_precision": 8, "mpi_complex": 8, "mpi_double_complex": 16,
		"mpi_integer1": 1, "mpi_integer2": 2, "mpi_integer4": 4, "mpi_integer8": 8,
		"mpi_real4": 4, "mpi_real8": 8, "mpi_real16": 16,
		// HDF5 native types (C and Fortran).
		"h5t_native_char": 1, "h5t_native_schar": 1, "h5t_native_uchar": 1, "h5t_native_short": 2,
		"h5t_native_ushort": 2, "h5t_native_int": 4, "h5t_native_uint": 4, "h5t_native_long": 8,
		"h5t_native_ulong": 8, "h5t_native_llong": 8, "h5t_native_ullong": 8, "h5t_native_float": 4,
		"h5t_native_double": 8, "h5t_native_ldouble": 16, "h5t_native_hsize": 8, "h5t_native_hbool": 1,
		"h5t_native_integer": 4, "h5t_native_real": 4, "h5t_native_character": 1,
		// NetCDF external types.
		"nc_byte": 1, "nc_char": 1, "nc_ubyte": 1, "nc_short": 2, "nc_ushort": 2, "nc_int": 4,
		"nc_uint": 4, "nc_float": 4, "nc_double": 8, "nc_int64": 8, "nc_uint64": 8,
	}
})

// DatatypeSize returns the size in bytes of one element of the named MPI,
// HDF5 or NetCDF datatype (MPI_DOUBLE, H5T_NATIVE_INT, H5T_IEEE_F64LE,
// H5T_STD_I32BE, NC_FLOAT; any case), and false when it is not known.
func DatatypeSize(name string) (int64, bool) {
	n := strings.ToLower(name)
	if s, ok := datatypeSizes()[n]; ok {
		return s, true
	}
	// HDF5 standard and IEEE types spell their width in bits:
	// H5T_STD_I32LE, H5T_STD_U8BE, H5T_IEEE_F64LE, H5T_NATIVE_INT16.
	for _, p := range []string{"h5t_std_i", "h5t_std_u", "h5t_ieee_f", "h5t_native_int", "h5t_native_uint"} {
		if rest, ok := strings.CutPrefix(n, p); ok {
			rest = strings.TrimSuffix(strings.TrimSuffix(rest, "le"), "be")
			if bits, err := strconv.Atoi(rest); err == nil && bits%8 == 0 && bits > 0 {
				return int64(bits / 8), true
			}
		}
	}
	return 0, false
}

// IsCollectiveMode reports whether name names a collective transfer mode
// (H5FD_MPIO_COLLECTIVE, NC_COLLECTIVE, NF90_COLLECTIVE).
func IsCollectiveMode(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, "collective") && !strings.Contains(n, "independent")
}

// IsUnbuffered reports whether name is the unbuffered mode of setvbuf
// (_IONBF).
func IsUnbuffered(name string) bool { return name == "_IONBF" }

// ChangesNamespace reports whether the routine name adds, removes or
// renames a directory entry (mkdir, unlink, rename and their kin): like
// the creation of a file, it updates a directory, a journal or a metadata
// server, not only the inode cache a stat reads.
func ChangesNamespace(name string) bool {
	switch normalize(name) {
	case "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "remove",
		"filesystem::create_directory", "filesystem::create_directories", "filesystem::remove",
		"filesystem::remove_all", "filesystem::rename":
		return true
	}
	return false
}
