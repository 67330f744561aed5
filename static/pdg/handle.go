package pdg

import (
	"fmt"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// HandleKind is the kind of object a handle refers to.
type HandleKind string

// The kinds of handles.
const (
	FileHandle      HandleKind = "file"      // fd, FILE*, MPI_File, stream, ncid, HDF5 file, Fortran unit
	DatasetHandle   HandleKind = "dataset"   // HDF5 dataset or group inside a file
	DataspaceHandle HandleKind = "dataspace" // HDF5 dataspace
	PlistHandle     HandleKind = "plist"     // HDF5 property list
	StdHandle       HandleKind = "std"       // standard input or output
)

// Handle is something a program opened: a file through one of the
// interfaces, or an HDF5 object. The builder tracks handles through
// variables, parameters and Fortran unit numbers, so that a call on a
// handle knows the file's name and mode.
type Handle struct {
	ID        int
	Kind      HandleKind
	Interface iosem.Interface
	// Name is the file name when it is a compile-time string, else "".
	Name string
	// NameVar is the variable holding the file name when it is not a
	// constant (sprintf'd names), else "".
	NameVar string
	// Path is the name the program builds for the file as it runs (see
	// Value.Built), with Wildcard for the parts not known, else "".
	Path string
	Mode iosem.Mode
	Pos  ir.Pos // where it was opened
	// Fortran OPEN: FORM='unformatted', ACCESS='direct' or 'stream',
	// ASYNCHRONOUS='yes'.
	Unformatted, Direct, StreamAccess, Async bool
	// Unbuffered is set by setvbuf(f, NULL, _IONBF, 0).
	Unbuffered bool
	// Buffer is the size of the stdio buffer setvbuf gives a stream (1
	// for line buffering, _IOLBF); 0 means the library's default.
	Buffer int64
	// Collective is set on transfer property lists and NetCDF files
	// switched to collective mode.
	Collective bool
	// Filtered is set on HDF5 dataset creation lists given a compression
	// filter (H5Pset_deflate...) and on the datasets created with them:
	// their transfers compress or decompress inside the call.
	Filtered bool
	// MPI marks files accessed through MPI (MPI-IO, PnetCDF, HDF5 with
	// the MPI-IO driver, parallel NetCDF) and access lists that select it.
	MPI bool
	// Elems is the number of selected elements of a dataspace (or of a
	// dataset's dataspace), or -1 when unknown.
	Elems int64
	// Chunk is the chunk of a dataset creation list given one
	// (H5Pset_chunk) and of the datasets created with it, per dimension;
	// nil when unknown or contiguous.
	Chunk []int64
	// Count is the selection of a dataspace's hyperslab, in elements per
	// dimension; nil when unknown or none.
	Count []int64
	// Parent is the file a dataset belongs to.
	Parent *Handle

	// openedIn is the function instance whose walk opened the file, and
	// openScale the number of scale factors around the open (see
	// walker.wrote); base is what the file held when opened, and written
	// what the program wrote into it since; synced is the bytes of
	// written at the last sync.
	openedIn      *Node
	openScale     int
	base, written extent
	synced        float64
	// spread is the number of files the handle stands for when it is
	// the element of a container of streams the program opens one after
	// the other (logs[m].open(...)): what is written through any element
	// is shared among them.
	spread int64
	// atEnd is set by a seek to the end of the file, and reset by other
	// seeks: ftell then returns the file's size.
	atEnd bool
	// recordsRead counts the lines read through the handle in order, or
	// is -1 once a read in a loop lost the count (see
	// records).
	recordsRead int
}

// setName names the file of h from the value v of the name expression x:
// Name for a name written in the program, NameVar and Path for one it
// builds, NameVar alone for one not known.
func (h *Handle) setName(v Value, x ir.Expr) {
	switch {
	case v.Kind == Str && !v.Built:
		h.Name = v.S
	case v.Kind == Str:
		h.NameVar, h.Path = baseName(x), v.S
	default:
		h.NameVar = baseName(x)
	}
}

// sizeKey identifies the file for what the program wrote into it: its
// name, written or built, else Key.
func (h *Handle) sizeKey() string {
	f := h.File()
	switch {
	case f.Name != "":
		return "file:" + f.Name
	case f.Path != "":
		return "file:" + f.Path
	}
	return f.Key()
}

// File returns the file h belongs to: h itself, or the file of a dataset.
func (h *Handle) File() *Handle {
	for h.Parent != nil {
		h = h.Parent
	}
	return h
}

// Key identifies the file for counting distinct files: its name when known,
// else the place it was opened.
func (h *Handle) Key() string {
	f := h.File()
	switch {
	case f.Name != "":
		return "file:" + f.Name
	case f.NameVar != "":
		return fmt.Sprintf("var:%s@%s:%d", f.NameVar, f.Pos.File, f.Pos.Line)
	}
	return fmt.Sprintf("open@%s:%d#%d", f.Pos.File, f.Pos.Line, f.ID)
}

// Label names the file for people: its name, the variable holding it, or
// where it was opened.
func (h *Handle) Label() string {
	f := h.File()
	switch {
	case f.Name != "":
		return f.Name
	case f.Path != "":
		return f.Path
	case f.NameVar != "":
		return "<" + f.NameVar + ">"
	}
	return fmt.Sprintf("<opened at %s:%d>", f.Pos.File, f.Pos.Line)
}

// IO decorates a library I/O call or Fortran I/O statement.
type IO struct {
	Sem     iosem.Semantics
	Routine string // as called: "fwrite", "MPI_File_write_at", "WRITE"
	// Bytes is the data one execution moves, when BytesKnown; for
	// formatted transfers an estimate of the text (see iosem.TextWidth).
	Bytes      int64
	BytesKnown bool
	// Extent is what the file holds when a read runs, in bytes, when
	// the program wrote it (see Handle.contents), else 0: however often
	// the program reads it again, no more than that passes through the
	// page cache.
	Extent float64
	// WriteBack is, for a sync (fsync, MPI_File_sync, H5Fflush), the
	// bytes it writes back to storage each time it runs: what the
	// program wrote into the file since the sync before (see
	// walker.writeBack), or 0 when unknown.
	WriteBack float64
	// Items is the number of data items one execution transfers (array
	// elements, format conversions), or 0 when unknown.
	Items int64
	// Records is the number of records one execution of a write ends:
	// the newlines of a formatted C or C++ write whose text is known, one
	// for a Fortran WRITE; else 0.
	Records int64
	// Conversions are the conversion characters of a printf or scanf
	// format whose text is known ("df" for "%ld %.12f\n"), or of the
	// operands of a C++ stream insertion or extraction by their types
	// (see iosem.ConversionOf), else "".
	Conversions string
	// File is the handle the call works on, or nil when it cannot be
	// traced (a handle from an unknown function, a parameter of a root).
	File       *Handle
	Binary     bool // moves unformatted data
	Random     bool // at an explicit offset, or after a seek on the handle
	SeekedBy   string
	Async      bool // asynchronous (non-blocking) transfer
	Collective bool
	// Parallel marks accesses to files opened through MPI: with
	// Collective false they are independent accesses.
	Parallel bool
	// Starts is, on the first open through MPI-IO of a run (in the order
	// of the walk from the entry), one over the loop trips and branch
	// odds around it in its function: the library loads and starts its
	// I/O components once, on that open.
	Starts float64
	// Unbuffered marks transfers that reach the kernel per call: POSIX
	// read/write and unbuffered STDIO streams.
	Unbuffered bool
	// Buffer is the stdio buffer of the stream (Handle.Buffer); 0 means
	// the library's default.
	Buffer int64
	// Flushes is set on stream insertions of std::endl or std::flush.
	Flushes bool
	// FormatOps is the cost, in operations, of the text conversions of
	// a formatted Fortran transfer whose items' types are all known (see
	// iosem.FortranItemOps), else 0.
	FormatOps float64
	// Elementwise is the number of elements an unformatted Fortran
	// transfer moves one runtime call each, when known (else 0): those
	// of an array expression (real(a(:, k), sp), 2 * a) or of a section
	// whose elements are not adjacent in memory (a row a(i, :), a
	// stride).
	Elementwise int64
	// Chunks is the number of chunks of a chunked HDF5 dataset one
	// transfer touches, when known (else 0): the library looks up, reads
	// or writes each.
	Chunks int64
}

// Sync reports whether the call completes before returning.
func (io *IO) Sync() bool { return !io.Async }

// Small reports whether the call moves fewer than threshold bytes (known
// sizes only).
func (io *IO) Small(threshold int64) bool {
	return io.Sem.Op.IsData() && io.BytesKnown && io.Bytes < threshold
}

// FileLabel names the call's file, or "" when unknown.
func (io *IO) FileLabel() string {
	if io.File == nil {
		return ""
	}
	return io.File.Label()
}
