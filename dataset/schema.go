package dataset

import "time"

// The tables of a dataset, each a directory of the dataset holding one
// subdirectory per month partition ("month=2026-11").
const (
	TableJobs     = "jobs"
	TableFiles    = "files"
	TableInsights = "insights"
	TableRanks    = "ranks"
	TableErrors   = "errors"
)

// Tables lists the tables, the jobs table last: a batch renames its files
// into place in this order, so that a job is visible only once the rows of
// its files, insights and ranks are.
var tableOrder = [...]string{TableFiles, TableInsights, TableRanks, TableErrors, TableJobs}

// Tables returns the names of the tables of a dataset.
func Tables() []string { return tableOrder[:] }

// Job is a row of the jobs table: one log. Times are in seconds; I/O times
// are summed over ranks. The partition is the month (UTC) the job started,
// that of the job's rows in the other tables too.
type Job struct {
	// ID identifies the log in the dataset: the first 16 hexadecimal
	// digits of Checksum.
	ID string `parquet:"id"`
	// Checksum is the SHA-256 of the log file, in hexadecimal.
	Checksum string `parquet:"checksum"`
	JobID    int64  `parquet:"job_id"`
	UID      int64  `parquet:"uid"`
	// User is the name of UID on the machine that ingested the log, or
	// empty when it has none.
	User string `parquet:"user,dict"`
	// App is the application: the base name of the executable, or of the
	// script an interpreter ran (python3 run.py: run.py).
	App string `parquet:"app,dict"`
	// Exe is the command line (untrusted text).
	Exe     string    `parquet:"exe"`
	Start   time.Time `parquet:"start_time,timestamp(microsecond)"`
	End     time.Time `parquet:"end_time,timestamp(microsecond)"`
	RunTime float64   `parquet:"run_time"`
	NProcs  int64     `parquet:"nprocs"`
	// Nodes is the number of distinct hosts, 0 when the log does not tell.
	Nodes int64 `parquet:"nodes"`
	// Version is the runtime library that wrote the log (lib_ver:
	// "3.4.6", "iolens-1.2.0"); Format is the log format version ("3.41").
	Version string `parquet:"version,dict"`
	Format  string `parquet:"format,dict"`
	// Modules are the modules with records; Partial those flagged
	// incomplete.
	Modules []string `parquet:"modules,list"`
	Partial []string `parquet:"partial,list"`
	// Files counts the files (record names) with I/O counters.
	Files        int64 `parquet:"files"`
	BytesRead    int64 `parquet:"bytes_read"`
	BytesWritten int64 `parquet:"bytes_written"`
	Reads        int64 `parquet:"reads"`
	Writes       int64 `parquet:"writes"`
	// SmallReads and SmallWrites count POSIX accesses below 1 MiB.
	SmallReads  int64 `parquet:"small_reads"`
	SmallWrites int64 `parquet:"small_writes"`
	// IOTime is the job's I/O time: that of the lowest layer (POSIX and
	// STDIO) or, when a higher layer saw more, that layer's.
	IOTime      float64 `parquet:"io_time"`
	POSIXTime   float64 `parquet:"posix_time"`
	MPIIOTime   float64 `parquet:"mpiio_time"`
	STDIOTime   float64 `parquet:"stdio_time"`
	HDF5Time    float64 `parquet:"hdf5_time"`
	PnetCDFTime float64 `parquet:"pnetcdf_time"`
	// MetaTime is the POSIX metadata time (open, stat, seek, sync...).
	MetaTime float64 `parquet:"meta_time"`
	// High and Warn count the job's insights of those levels.
	High int64 `parquet:"insights_high"`
	Warn int64 `parquet:"insights_warn"`
	// InsightCodes are the codes of the job's insights, sorted and each
	// once, and InsightLevels their levels in the same order (the most
	// severe when a code was found twice): the insights table in short,
	// which questions over many jobs read instead of joining it.
	InsightCodes  []string `parquet:"insight_codes,list"`
	InsightLevels []string `parquet:"insight_levels,list"`
	// Log is the path the log was ingested from, LogSize its size.
	Log      string    `parquet:"log"`
	LogSize  int64     `parquet:"log_size"`
	Ingested time.Time `parquet:"ingested,timestamp(microsecond)"`
}

// File is a row of the files table: the I/O of one job to one file, over
// all its interfaces and ranks.
type File struct {
	// Job is the ID of the job.
	Job  string `parquet:"job"`
	Name string `parquet:"name"`
	// Modules are the interfaces that accessed the file.
	Modules []string `parquet:"modules,list"`
	// Ranks is the number of ranks that accessed the file (the job's
	// process count when Shared).
	Ranks        int64   `parquet:"ranks"`
	Shared       bool    `parquet:"shared"`
	BytesRead    int64   `parquet:"bytes_read"`
	BytesWritten int64   `parquet:"bytes_written"`
	Reads        int64   `parquet:"reads"`
	Writes       int64   `parquet:"writes"`
	Time         float64 `parquet:"time"`
	// AccessSize is the most common access size, 0 when unknown.
	AccessSize int64 `parquet:"access_size"`
	// Sequential is the share of the POSIX reads and writes that were
	// sequential (0 to 1; 0 without POSIX operations).
	Sequential float64 `parquet:"sequential"`
}

// Insight is a row of the insights table: one finding of the analysis of
// a job (the codes of `iolens report`).
type Insight struct {
	Job     string   `parquet:"job"`
	Code    string   `parquet:"code,dict"`
	Level   string   `parquet:"level,dict"` // OK, INFO, WARN or HIGH
	Message string   `parquet:"message"`
	Details []string `parquet:"details,list"`
	// Subject is the file (or "rank N") most responsible, Value and Unit
	// its share of the problem; empty when the insight names none.
	Subject string  `parquet:"subject"`
	Value   float64 `parquet:"value"`
	Unit    string  `parquet:"unit,dict"`
}

// Rank is a row of the ranks table: the I/O of one rank of a job in the
// files it did not share (logs reduced to shared records have none).
type Rank struct {
	Job   string  `parquet:"job"`
	Rank  int64   `parquet:"rank"`
	Bytes int64   `parquet:"bytes"`
	Time  float64 `parquet:"time"`
}

// Error is a row of the errors table: a log that could not be ingested, or
// only in part. Its partition is the month (UTC) of the ingest.
type Error struct {
	Log      string    `parquet:"log"`
	Checksum string    `parquet:"checksum"`
	Size     int64     `parquet:"size"`
	Error    string    `parquet:"error"`
	Ingested time.Time `parquet:"ingested,timestamp(microsecond)"`
}
