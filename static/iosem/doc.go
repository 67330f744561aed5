// Package iosem is the I/O decorator's knowledge: what each library I/O
// routine does, described as data.
//
// A Semantics value tells, for one routine, its interface (POSIX, STDIO,
// C++ streams, MPI-IO, HDF5, PnetCDF, NetCDF, Fortran), its operation (open,
// read, write, seek, flush, ...), which argument carries the byte count and
// how to compute it, which argument names the file or its handle, and
// whether the routine is asynchronous, collective, formatted or at an
// explicit offset. The table holds one entry per routine family; families
// with systematic names (MPI-IO, PnetCDF, NetCDF) are expanded from their
// naming grammar.
//
// Look-ups are case-insensitive, so Fortran bindings (whose names the
// front-end lower-cases, e.g. mpi_file_write_at) share the C entries; a
// leading "std::" or "::" qualifier is ignored.
//
// Shapes the C++ front-end is expected to produce for streams (see Method):
// member calls have Receiver set ("out.write(b, n)": Callee "write"); the
// insertion and extraction operators are calls named "operator<<" or
// "operator>>" (or "<<", ">>") whose receiver is the stream, or whose first
// argument is the stream when Receiver is nil.
package iosem
