package features

import (
	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/pdg"
)

// Buffer sizes of the I/O runtimes, in bytes: a buffered transfer reaches
// the operating system once per buffer filled or drained.
const (
	// StdioBuffer is a glibc stream's buffer: the file system's block
	// size, 4 KiB on most local file systems.
	StdioBuffer = 4 << 10
	// StreamBuffer is a libstdc++ file stream's buffer (BUFSIZ).
	StreamBuffer = 8 << 10
	// FortranFormattedBuffer and FortranUnformattedBuffer are
	// libgfortran's buffers of formatted and unformatted units.
	FortranFormattedBuffer   = 8 << 10
	FortranUnformattedBuffer = 128 << 10
)

// CPU costs of I/O runtimes, in operations (Params.RuntimeOps and
// Params.FormatOps): iosem.StreamCallOps and iosem.FortranStatementOps
// per stream operation and Fortran statement, and the following.
const (
	// DeflateOpsPerByte and InflateOpsPerByte are the work of zlib
	// compressing and decompressing one byte of an HDF5 dataset with a
	// deflate filter, inside H5Dwrite and H5Dread: about 75 MB/s and
	// 300 MB/s on a 3 GHz core.
	DeflateOpsPerByte = 40
	InflateOpsPerByte = 10
	// InterceptOps is the work the collector's wrapper of an intercepted
	// call does outside the time it measures (finding the stream's or
	// descriptor's record, updating its counters): compute, as the
	// function profiles see it. About 15 ns: a loop of fprintf("%u\n")
	// calls spends 18 ns per call outside them, a loop of 8-byte fread
	// and fwrite calls 40 ns per pair.
	InterceptOps = 40
)

// runtimeCost returns the parameters one execution of an I/O call adds to
// the physical estimate: the requests reaching the operating system, the
// intercepted STDIO calls, the work of the Fortran and C++ stream runtimes
// inside a statement, and the conversions of all three (the collector
// times a whole Fortran I/O statement or stream operation as I/O), syncs,
// file creations (opens that create or truncate, appends excepted: those
// usually find the file there) and other changes of directory entries
// (mkdir, unlink, rename), and parallel-I/O calls.
func runtimeCost(io *pdg.IO) Params {
	var p Params
	op := io.Sem.Op
	iface := io.Sem.Interface
	switch iface {
	case iosem.MPIIO, iosem.HDF5, iosem.PnetCDF, iosem.NetCDF:
		if iface == iosem.HDF5 && (op == iosem.Config || op == iosem.Stat) {
			// Property lists, dataspaces, attributes and extents live in
			// memory until the metadata is flushed: the library's layers
			// between the program and the file are not crossed.
			break
		}
		p.Parallel = 1
		if op.IsData() && io.Chunks > 1 {
			p.Parallel = float64(io.Chunks) // a library request per chunk
		}
		if io.Collective || io.Sem.Collective {
			p.Collective = 1
		}
		if op == iosem.Open && io.Parallel {
			p.ParallelOpens, p.ParallelStarts = 1, io.Starts
		}
	}
	if op == iosem.Open && io.File != nil && io.File.Mode&iosem.ModeCreate != 0 && io.File.Mode&iosem.ModeAppend == 0 ||
		iosem.ChangesNamespace(io.Sem.Routine) {
		p.Creates = 1
	}
	if op == iosem.Sync {
		p.Syncs, p.Kernel, p.WriteBack = 1, 1, io.WriteBack
		return p
	}
	if op == iosem.Flush {
		p.Kernel = 1
		if iface == iosem.STDIO {
			p.Buffered = 1
		}
		return p
	}
	if !op.IsData() {
		return p
	}
	items := float64(max(io.Items, 1))
	formatted := !io.Binary
	switch iface {
	case iosem.POSIX:
		p.Kernel = 1
	case iosem.STDIO:
		p.Buffered = 1
		p.Kernel = drained(io, StdioBuffer)
		if io.Sem.Size.Kind == iosem.Format { // printf and scanf families
			p.FormatItems = items
			p.FormatOps = iosem.FormatCost(io.Conversions, items, io.Sem.Op == iosem.Read)
		}
	case iosem.Stream:
		p.Kernel = drained(io, StreamBuffer)
		p.RuntimeOps = iosem.StreamCallOps
		if formatted {
			p.FormatItems = items
			p.FormatOps = iosem.StreamFormatCost(io.Conversions, items, io.Sem.Op == iosem.Read)
		}
	case iosem.Fortran:
		p.RuntimeOps = iosem.FortranStatementOps + float64(io.Elementwise)*iosem.FortranElementOps
		switch {
		case formatted:
			p.Kernel = drained(io, FortranFormattedBuffer)
			p.FormatItems = items
			p.FormatOps = items * iosem.FormatOpsPerItem
			if io.FormatOps > 0 {
				p.FormatOps = io.FormatOps
			}
		case io.Random:
			p.Kernel = 2 // a seek and a transfer per record
		default:
			p.Kernel = drained(io, FortranUnformattedBuffer)
		}
	default: // MPI-IO, HDF5, PnetCDF, NetCDF: a request per call
		p.Kernel = 1
		if io.File != nil && io.File.Filtered {
			perByte := float64(InflateOpsPerByte)
			if op == iosem.Write {
				perByte = DeflateOpsPerByte
			}
			p.RuntimeOps = float64(io.Bytes) * perByte
		}
	}
	return p
}

// unknownDrained is the share of a system call charged to a buffered
// transfer of unknown size (most often a structure): a sixteenth.
const unknownDrained = 1.0 / 16

// textWidth is the bytes of one formatted item whose width is unknown.
const textWidth = 12

// drained is the share of a system call one buffered transfer costs: one
// for unbuffered streams and transfers at least as large as the buffer
// (the stream's own, io.Buffer, or else the library's, buffer), else the
// transfer's share of the buffer (textWidth bytes per item when its size
// is unknown, else unknownDrained of the library's buffer).
func drained(io *pdg.IO, buffer int64) float64 {
	if io.Unbuffered {
		return 1
	}
	own := buffer
	if io.Buffer > 0 {
		own = io.Buffer
	}
	b := max(io.Bytes, 1)
	switch {
	case io.BytesKnown:
	case io.Items > 0:
		b = io.Items * textWidth
	default:
		return min(1, unknownDrained*float64(buffer)/float64(own))
	}
	if b >= own {
		return 1
	}
	return float64(b) / float64(own)
}
