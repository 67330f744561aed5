package analysis

// Report is the result of analysing one log: what renderers show.
type Report struct {
	Job      Job       `json:"job"`
	Insights []Insight `json:"insights"`
	Phases   []Phase   `json:"phases"`
	Files    []File    `json:"files"`
	// Ranks is the I/O time of each rank that has records of its own
	// (files it did not share), rank order; empty for a log reduced to
	// shared records only.
	Ranks []RankIO `json:"ranks,omitempty"`
	// Trace is the traced operations (DXT), for the charts of renderers;
	// nil for a report not made by Analyze.
	Trace *Trace `json:"-"`
}

// Job summarises the run a log describes.
type Job struct {
	Log     string   `json:"log"` // path of the log
	Exe     string   `json:"exe"` // command line (untrusted text)
	JobID   int64    `json:"jobid"`
	UID     int64    `json:"uid"`
	NProcs  int64    `json:"nprocs"`
	Start   int64    `json:"start_time"` // seconds since the epoch
	End     int64    `json:"end_time"`
	RunTime float64  `json:"run_time"` // seconds
	LibVer  string   `json:"lib_ver,omitempty"`
	Nodes   int      `json:"nodes,omitempty"` // distinct hosts, when known
	Modules []Module `json:"modules"`
	Hints   []Hint   `json:"hints,omitempty"`   // MPI-IO hints of the job (metadata "h")
	Partial []string `json:"partial,omitempty"` // modules flagged incomplete
	// SmallReads and SmallWrites count the POSIX accesses smaller than the
	// small-access threshold of the analysis (1 MiB by default); MetaTime
	// is the POSIX metadata time (open, stat, seek, sync...), summed over
	// ranks.
	SmallReads  int64   `json:"small_reads"`
	SmallWrites int64   `json:"small_writes"`
	MetaTime    float64 `json:"meta_time"`
	// Prefetch is what iolens prefetched ahead of the job (run --prefetch),
	// nil for a job run without.
	Prefetch *Prefetch `json:"prefetch,omitempty"`
}

// Prefetch sums what the collector's prefetch threads did in a job.
type Prefetch struct {
	Status   string `json:"status"` // "ok", or why the plan was ignored
	Extents  int64  `json:"extents"`
	Bytes    int64  `json:"bytes"`
	HitBytes int64  `json:"hit_bytes"` // prefetched bytes read afterwards
	Right    int64  `json:"predictions_right"`
	Wrong    int64  `json:"predictions_wrong"`
	Matched  int64  `json:"accesses_matched"` // accesses found in the plan
	Unknown  int64  `json:"accesses_unknown"`
}

// Used returns the share of prefetched bytes the job read (0 when nothing
// was prefetched).
func (p *Prefetch) Used() float64 {
	if p.Bytes <= 0 {
		return 0
	}
	return float64(p.HitBytes) / float64(p.Bytes)
}

// Module summarises one instrumented interface of the job.
type Module struct {
	Name         string  `json:"name"` // POSIX, MPI-IO, STDIO, H5F, ...
	Files        int     `json:"files"`
	BytesRead    int64   `json:"bytes_read"`
	BytesWritten int64   `json:"bytes_written"`
	Reads        int64   `json:"reads"`
	Writes       int64   `json:"writes"`
	Time         float64 `json:"time"` // read + write + meta seconds, summed over ranks
}

// Hint is one MPI-IO hint (key=value).
type Hint struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// File summarises the I/O to one file (one record name) over all modules
// and ranks.
type File struct {
	Name         string   `json:"name"`
	Modules      []string `json:"modules"`
	Ranks        int      `json:"ranks"` // ranks that accessed it (nprocs when shared)
	Shared       bool     `json:"shared"`
	BytesRead    int64    `json:"bytes_read"`
	BytesWritten int64    `json:"bytes_written"`
	Reads        int64    `json:"reads"`
	Writes       int64    `json:"writes"`
	Time         float64  `json:"time"`
	// AccessSize is the most common access size (POSIX, else MPI-IO; 0
	// when the log does not tell); SeqOps counts the POSIX reads and writes
	// that started at or after the end of the previous one.
	AccessSize int64 `json:"access_size,omitempty"`
	SeqOps     int64 `json:"seq_ops,omitempty"`
}

// RankIO is the I/O of one rank in the files it did not share: bytes and
// read, write and metadata seconds of its POSIX and STDIO records.
type RankIO struct {
	Rank  int64   `json:"rank"`
	Bytes int64   `json:"bytes"`
	Time  float64 `json:"time"`
}

// Phase is an I/O phase of one interface: operations of all ranks merged
// into one interval of activity (from DXT traces).
type Phase struct {
	Module      string  `json:"module"` // DXT_POSIX or DXT_MPIIO
	Start       float64 `json:"start"`  // seconds since the job start
	End         float64 `json:"end"`
	Bytes       int64   `json:"bytes"`
	Operations  int64   `json:"operations"`
	FastestRank int64   `json:"fastest_rank"`
	FastestTime float64 `json:"fastest_time"` // seconds of I/O of that rank in the phase
	SlowestRank int64   `json:"slowest_rank"`
	SlowestTime float64 `json:"slowest_time"`
}
