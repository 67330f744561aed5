package iosem

import (
	"strings"
)

// Interface is an I/O library interface.
type Interface string

// The interfaces the table covers.
const (
	POSIX   Interface = "POSIX"
	STDIO   Interface = "STDIO"
	Stream  Interface = "C++ stream"
	MPIIO   Interface = "MPI-IO"
	HDF5    Interface = "HDF5"
	PnetCDF Interface = "PnetCDF"
	NetCDF  Interface = "NetCDF"
	Fortran Interface = "Fortran"
)

// Op is the operation a routine performs.
type Op string

// The operations.
const (
	Open   Op = "open"   // opens or creates a file (or a dataset, a stream)
	Close  Op = "close"  // closes it
	Read   Op = "read"   // moves data from the file
	Write  Op = "write"  // moves data to the file
	Seek   Op = "seek"   // moves or queries the file position
	Flush  Op = "flush"  // empties user-space buffers (fflush, std::flush)
	Sync   Op = "sync"   // forces data to storage (fsync, MPI_File_sync)
	Stat   Op = "stat"   // file metadata: stat, unlink, inquire, set_view, define mode
	Config Op = "config" // in-memory set-up without I/O (setvbuf, H5P*, H5S*)
	Wait   Op = "wait"   // completes asynchronous operations
)

// IsData reports whether op transfers data.
func (op Op) IsData() bool { return op == Read || op == Write }

// IsFlush reports whether op flushes or syncs.
func (op Op) IsFlush() bool { return op == Flush || op == Sync }

// IsMetadata reports whether op is a metadata operation (open, close,
// seek, stat).
func (op Op) IsMetadata() bool { return op == Open || op == Close || op == Seek || op == Stat }

// SizeKind tells how the bytes a call moves are computed from its
// arguments.
type SizeKind int

// The ways of finding a call's byte count.
const (
	NoSize    SizeKind = iota // the call moves no data, or the amount is unknowable
	Bytes                     // Args[Count] bytes, times Args[Count2] when Count2 ≥ 0 (fwrite size*nmemb)
	Elements                  // Args[Count] elements (1 when Count < 0) of Elem bytes, or of the datatype Args[Type]
	Dataspace                 // HDF5: the selection of the dataspace arguments times the memory type Args[Type]
	Format                    // printf family: estimated from the format string Args[Count] and the values after it
	Text                      // fputs family: the length of the string Args[Count]
	Char                      // one character
	Items                     // Fortran transfers and stream insertions: the sizes of the items
	WholeVar                  // a whole variable: known only through the buffer Args[Buf]
)

// Size locates the byte count of a data transfer among the arguments.
// Indices are argument positions; -1 means "none". When the count cannot be
// evaluated, the declared size of the buffer Args[Buf] (an array) is used.
type Size struct {
	Kind   SizeKind
	Count  int
	Count2 int
	Type   int
	Elem   int64
	Buf    int
}

// FileKind tells how a call designates its file.
type FileKind int

// The ways of designating a file.
const (
	NoFile    FileKind = iota
	NameArg            // Args[Arg] is the file name (open, fopen, stat, H5Fcreate)
	HandleArg          // Args[Arg] is a handle: fd, FILE*, MPI_File, hid_t, ncid, Fortran unit
	Receiver           // the receiver of a C++ member call is the stream
	Stdout             // standard output (printf, puts, Fortran PRINT)
	Stdin              // standard input (scanf, getchar)
)

// FileRef says where a call's file is and, for opens, where the new handle
// goes.
type FileRef struct {
	Kind FileKind
	Arg  int
	// Out is the argument that receives the new handle of an open through
	// a pointer (MPI_File_open's &fh, ncmpi_create's &ncid), or -1 when
	// the handle is the call's result.
	Out int
	// Mode is the argument with the open flags or mode string, or -1.
	Mode int
}

// Semantics describes one I/O routine.
type Semantics struct {
	Routine   string // canonical spelling, e.g. "MPI_File_write_at_all"
	Interface Interface
	Op        Op
	Size      Size
	File      FileRef
	// Offset is the argument holding an explicit file offset (pread,
	// MPI_File_write_at), or -1. Calls with one are random accesses.
	Offset int
	// ExplicitOffset marks accesses at an explicit position: Offset ≥ 0,
	// or a Fortran REC= or POS= specifier. They are random accesses.
	ExplicitOffset bool
	// Whence is the argument of a seek's origin (SEEK_SET...), or -1.
	Whence int
	// DefaultMode is the access mode of an open whose mode argument does
	// not say (creat: write; H5Fcreate: read-write).
	DefaultMode Mode
	Async       bool // returns before the transfer completes
	Collective  bool // all processes of the communicator take part
	Formatted   bool // converts data to or from text
	// Dataset marks HDF5/NetCDF opens of an object inside a file (a
	// dataset, a variable) rather than of a file: Args[File.Arg] is the
	// parent handle.
	Dataset bool
	// Space is the dataspace argument of an HDF5 dataset creation, or -1.
	Space int
	// Plist is the property list argument of an HDF5 call, or -1: the
	// transfer list of a read or write (collective when set by
	// H5Pset_dxpl_mpio), the file access list of a file open (parallel
	// when set by H5Pset_fapl_mpio).
	Plist int
	// Effect is what a configuration routine changes, read from
	// Args[EffectArg].
	Effect    Effect
	EffectArg int
}

// Effect is the state a configuration routine changes on its handle.
type Effect int

// The effects.
const (
	NoEffect Effect = iota
	// SetCollective sets a transfer mode: collective when Args[EffectArg]
	// names a collective mode (H5FD_MPIO_COLLECTIVE, NC_COLLECTIVE).
	SetCollective
	// SetMPIDriver makes files opened with the property list use MPI-IO
	// (H5Pset_fapl_mpio).
	SetMPIDriver
	// SetBuffering sets a stream's buffering: unbuffered when
	// Args[EffectArg] is _IONBF (setvbuf), or a NULL buffer (setbuf).
	SetBuffering
	// MakeDataspace creates a dataspace of the dimensions Args[EffectArg]
	// (H5Screate_simple); its rank is Args[0].
	MakeDataspace
	// SelectDataspace selects Args[EffectArg] elements per dimension of a
	// dataspace (H5Sselect_hyperslab's count).
	SelectDataspace
	// CopyDataspace creates a copy of the dataspace of the dataset
	// Args[EffectArg] (H5Dget_space).
	CopyDataspace
	// SetFilter adds a compression filter to a dataset creation list
	// (H5Pset_deflate, H5Pset_szip, H5Pset_filter).
	SetFilter
	// SetChunk gives a dataset creation list chunks of the dimensions
	// Args[EffectArg] (H5Pset_chunk); their rank is Args[1].
	SetChunk
	// CopyPlist creates a copy of the property list Args[EffectArg], with
	// its filters and chunks (H5Pcopy).
	CopyPlist
)

// Binary reports whether a data transfer moves unformatted bytes.
func (s Semantics) Binary() bool { return s.Op.IsData() && !s.Formatted }

// Lookup returns the semantics of the library routine name, and false when
// name is not an I/O routine the table knows.
func Lookup(name string) (Semantics, bool) {
	s, ok := table()[normalize(name)]
	return s, ok
}

// normalize lower-cases name and strips a std:: or :: qualifier.
func normalize(name string) string {
	name = strings.TrimPrefix(name, "::")
	name = strings.TrimPrefix(name, "std::")
	return strings.ToLower(name)
}
