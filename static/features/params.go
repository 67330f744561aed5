// Package features turns the decorated program dependency graph into the
// per-block parameters of the CIOC model.
package features

// Params are the raw, unnormalised parameters P1–P15 of one code block
// (a call, a loop, a function or a file), plus the work estimate the model
// weighs them against. Counts are dynamic: a call inside a loop of 100
// iterations counts 100 times. A parent's Params are the sums of its
// children's (maxima for P8 and P10–P11, as documented per field), computed
// bottom-up.
type Params struct {
	LoopIO      float64 `json:"p1_loop_io"`     // P1: iterations of loops that contain I/O
	Calls       float64 `json:"p2_io_calls"`    // P2: I/O calls
	Bytes       float64 `json:"p3_bytes"`       // P3: bytes read and written
	Sync        float64 `json:"p4_sync"`        // P4: synchronous I/O calls
	Conditional float64 `json:"p5_conditional"` // P5: I/O calls under a branch
	Binary      float64 `json:"p6_binary"`      // P6: calls moving binary (unformatted) data
	Flushes     float64 `json:"p7_flushes"`     // P7: flush and sync calls
	FileSize    float64 `json:"p8_file_size"`   // P8: largest file extent written or read (max)
	Files       float64 `json:"p9_files"`       // P9: distinct files opened
	Space       float64 `json:"p10_space"`      // P10: bytes of arrays and buffers allocated (max)
	Stack       float64 `json:"p11_stack"`      // P11: bytes of local variables (max)
	Random      float64 `json:"p12_random"`     // P12: accesses after a seek or at computed offsets
	Small       float64 `json:"p13_small"`      // P13: accesses smaller than the small-access threshold
	Procs       float64 `json:"p14_procs"`      // P14: processes per storage target (system side)
	Storage     float64 `json:"p15_storage"`    // P15: storage class score (system side)
	Metadata    float64 `json:"metadata"`       // open, close, stat, seek, inquire calls
	Work        float64 `json:"work"`           // estimated non-I/O operations (compute)

	// The inputs of the physical time estimate (model.EstimateTimes)
	// beyond P1–P15, all dynamic counts.
	Kernel      float64 `json:"kernel_calls"`     // requests reaching the operating system, buffer flushes included
	Buffered    float64 `json:"buffered_calls"`   // intercepted STDIO calls served from the stream's buffer
	FormatItems float64 `json:"format_items"`     // values converted to or from text inside intercepted calls
	FormatOps   float64 `json:"format_ops"`       // operations of those conversions (see FormatCost)
	RuntimeOps  float64 `json:"runtime_ops"`      // operations of I/O runtimes inside timed statements (Fortran, C++ streams)
	Syncs       float64 `json:"syncs"`            // requests forcing data to storage (fsync, MPI_File_sync...)
	Written     float64 `json:"bytes_written"`    // bytes written (among P3)
	WriteBack   float64 `json:"write_back"`       // bytes the syncs write back to storage, where the program's writes tell
	Creates     float64 `json:"creates"`          // opens that create or truncate a file, and other changes of directory entries (among the metadata calls)
	Parallel    float64 `json:"parallel_calls"`   // MPI-IO, HDF5, PnetCDF and NetCDF calls
	Collective  float64 `json:"collective_calls"` // collective calls among them
	// ParallelOpens are the opens among them that go through MPI-IO,
	// and ParallelStarts the first of a run, which starts the library's
	// I/O components (pdg.IO.Starts).
	ParallelOpens  float64 `json:"parallel_opens"`
	ParallelStarts float64 `json:"parallel_starts"`
}

// Add adds the parameters of a child block to p: sums for the counts,
// maxima for FileSize, Space and Stack, and the system-side P14 and P15
// carried over unchanged.
func (p *Params) Add(c Params) {
	p.LoopIO += c.LoopIO
	p.Calls += c.Calls
	p.Bytes += c.Bytes
	p.Sync += c.Sync
	p.Conditional += c.Conditional
	p.Binary += c.Binary
	p.Flushes += c.Flushes
	p.FileSize = max(p.FileSize, c.FileSize)
	p.Files += c.Files
	p.Space = max(p.Space, c.Space)
	p.Stack = max(p.Stack, c.Stack)
	p.Random += c.Random
	p.Small += c.Small
	p.Procs = max(p.Procs, c.Procs)
	p.Storage = max(p.Storage, c.Storage)
	p.Metadata += c.Metadata
	p.Work += c.Work
	p.Kernel += c.Kernel
	p.Buffered += c.Buffered
	p.FormatItems += c.FormatItems
	p.FormatOps += c.FormatOps
	p.RuntimeOps += c.RuntimeOps
	p.Syncs += c.Syncs
	p.Written += c.Written
	p.WriteBack += c.WriteBack
	p.Creates += c.Creates
	p.Parallel += c.Parallel
	p.Collective += c.Collective
	p.ParallelOpens += c.ParallelOpens
	p.ParallelStarts += c.ParallelStarts
}

// Scale multiplies the dynamic counts of p by n (a loop's trip count);
// sizes and system-side values are unchanged.
func (p *Params) Scale(n float64) {
	p.LoopIO *= n
	p.Calls *= n
	p.Bytes *= n
	p.Sync *= n
	p.Conditional *= n
	p.Binary *= n
	p.Flushes *= n
	p.Random *= n
	p.Small *= n
	p.Metadata *= n
	p.Work *= n
	p.Kernel *= n
	p.Buffered *= n
	p.FormatItems *= n
	p.FormatOps *= n
	p.RuntimeOps *= n
	p.Syncs *= n
	p.Written *= n
	p.WriteBack *= n
	p.Creates *= n
	p.Parallel *= n
	p.Collective *= n
	p.ParallelOpens *= n
	p.ParallelStarts *= n
}

// HasIO reports whether the block does any I/O.
func (p Params) HasIO() bool { return p.Calls > 0 || p.Metadata > 0 }
