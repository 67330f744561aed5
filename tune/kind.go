package tune

import (
	"fmt"
	"strings"
)

// Kind is how the value of a parameter is applied to a run.
type Kind int

const (
	// MPIIOHint is an MPI-IO hint (Param.Key is the hint's name, such as
	// "cb_nodes") set in the info of every MPI_File_open.
	MPIIOHint Kind = iota + 1
	// HDF5 is an HDF5 file-access property (Param.Key is one of
	// HDF5Keys) set at every H5Fcreate and H5Fopen.
	HDF5
	// Stdio is a property of the streams of the C library (Param.Key is
	// "buffer_size": the size of the buffer of every stream).
	Stdio
	// Env is an environment variable of the run (Param.Key is its name).
	Env
	// Arg is a value substituted into the command line wherever
	// "{key}" appears (Param.Key is the placeholder's name).
	Arg
	// Ranks is the number of MPI ranks of the run.
	Ranks
)

// kindNames are the names of the kinds in space files, by Kind.
var kindNames = [...]string{MPIIOHint: "mpiio", HDF5: "hdf5", Stdio: "stdio", Env: "env", Arg: "arg", Ranks: "ranks"}

// hdf5Keys are the keys of HDF5 parameters: the file-access properties an
// HDF5 parameter can set. alignment and alignment_threshold are the two
// arguments of H5Pset_alignment, sieve_buf_size and meta_block_size are
// sizes in bytes, chunk_cache_bytes is the size of the raw-data chunk
// cache, and coll_metadata_read and coll_metadata_write are booleans. They
// are the properties the collector injects (collector.HDF5Properties).
var hdf5Keys = []string{"alignment_threshold", "alignment", "sieve_buf_size", "meta_block_size",
	"chunk_cache_bytes", "coll_metadata_read", "coll_metadata_write"}

// HDF5Keys returns the keys an HDF5 parameter accepts (a new slice).
func HDF5Keys() []string { return append([]string(nil), hdf5Keys...) }

// StdioBufferKey is the key of the Stdio parameter, the only one stdio has.
const StdioBufferKey = "buffer_size"

// String returns the name of the kind in space files ("mpiio", "hdf5",
// "stdio", "env", "arg" or "ranks").
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind returns the kind named s in a space file (case-insensitive).
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if k > 0 && strings.EqualFold(s, name) {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown kind %q (known: %s)", s, strings.Join(kindNames[1:], ", "))
}

// valid reports whether k is one of the kinds.
func (k Kind) valid() bool { return k > 0 && int(k) < len(kindNames) }
