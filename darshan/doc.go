// Package darshan reads and writes Darshan I/O characterization logs.
//
// A Darshan log holds, for one job, a header, a job record (user, times,
// process count, metadata), the command line and mount table, a table of
// record names, and one compressed region per instrumentation module (POSIX,
// MPI-IO, STDIO, HDF5, PnetCDF, Lustre, DXT traces, heatmaps, ...). Every
// log format version written by Darshan 3.x (3.00, 3.10, 3.20, 3.21, 3.41)
// is read, in either byte order and with zlib, bzip2 or no compression.
// Records of older module versions are converted to the current layout as
// they are read, so callers only ever see the current counter tables
// ([Module.Counters], [Module.FCounters]).
//
// Open a log with [OpenFile] or [Open], then iterate the records of a module
// with [Log.Records]. Only one decompressed module region is held in memory
// by a [RecordReader]; the records it returns are reused between calls to
// [RecordReader.Next] (use [Record.Clone] to keep one).
//
// [Writer] produces logs in the current format (3.41) and [Convert] rewrites
// any log in it. [WriteParserText] and [WriteDXTText] print a log exactly as
// the reference darshan-parser and darshan-dxt-parser tools do, and
// [WriteJSON] prints it as JSON Lines.
package darshan
