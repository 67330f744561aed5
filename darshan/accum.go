package darshan

import "strings"

// Derived figures of darshan-parser's --total, --file and --perf options for
// the modules that have them (POSIX, MPI-IO, STDIO, DFS, DAOS), computed in
// one pass over a module's records.

// counterClass says how --total combines an integer counter across records.
type counterClass uint8

const (
	classSum      counterClass = iota
	classCopy                  // last record wins
	classMax                   // largest value
	classDeferred              // set with the float counters
	classCommon                // part of a "four most common values" group
	classIgnored               // left 0
)

// classify assigns a combination rule to every integer counter of m, from
// the counter names.
func classify(m ModuleID) []counterClass {
	names := modules[m].Counters
	out := make([]counterClass, len(names))
	for i, n := range names {
		switch {
		case strings.HasSuffix(n, "_TIME_SIZE") || strings.Contains(n, "_FASTEST_RANK") || strings.Contains(n, "_SLOWEST_RANK"):
			out[i] = classDeferred
		case strings.Contains(n, "_ACCESS") && (strings.HasSuffix(n, "_ACCESS") || strings.HasSuffix(n, "_COUNT")) ||
			strings.Contains(n, "_STRIDE"):
			out[i] = classCommon
		case strings.Contains(n, "_MAX_BYTE_"):
			out[i] = classMax
		case strings.HasSuffix(n, "_MODE") || strings.HasSuffix(n, "_RENAMED_FROM") || strings.HasSuffix(n, "_ALIGNMENT") ||
			strings.HasSuffix(n, "_CHUNK_SIZE") || strings.HasSuffix(n, "_OTYPE") || strings.HasSuffix(n, "_CELL_SIZE"):
			out[i] = classCopy
		case n == "DAOS_NB_OPS":
			out[i] = classIgnored
		}
	}
	return out
}

// moduleIndexes locates the counters the derived figures need.
type moduleIndexes struct {
	bytesRead, bytesWritten       int
	maxByteRead, maxByteWritten   int // -1 where the module has none
	maxReadSize, maxWriteSize     int
	fastRank, fastBytes           int
	slowRank, slowBytes           int
	commonGroups                  []int // first index of each 8-counter group
	readTime, writeTime, metaTime int
	maxReadTime, maxWriteTime     int
	fastTime, slowTime            int
	clamp                         bool // negative sums become -1
	skipZeroCommon                bool // MPI-IO ignores groups whose first value is 0
	prefix                        string
}

func indexesOf(m ModuleID) moduleIndexes {
	p := map[ModuleID]string{ModPOSIX: "POSIX_", ModMPIIO: "MPIIO_", ModSTDIO: "STDIO_", ModDFS: "DFS_", ModDAOS: "DAOS_"}[m]
	ci := func(n string) int { return m.CounterIndex(p + n) }
	fi := func(n string) int { return m.FCounterIndex(p + "F_" + n) }
	x := moduleIndexes{
		bytesRead: ci("BYTES_READ"), bytesWritten: ci("BYTES_WRITTEN"),
		maxByteRead: ci("MAX_BYTE_READ"), maxByteWritten: ci("MAX_BYTE_WRITTEN"),
		maxReadSize: ci("MAX_READ_TIME_SIZE"), maxWriteSize: ci("MAX_WRITE_TIME_SIZE"),
		fastRank: ci("FASTEST_RANK"), fastBytes: ci("FASTEST_RANK_BYTES"),
		slowRank: ci("SLOWEST_RANK"), slowBytes: ci("SLOWEST_RANK_BYTES"),
		readTime: fi("READ_TIME"), writeTime: fi("WRITE_TIME"), metaTime: fi("META_TIME"),
		maxReadTime: fi("MAX_READ_TIME"), maxWriteTime: fi("MAX_WRITE_TIME"),
		fastTime: fi("FASTEST_RANK_TIME"), slowTime: fi("SLOWEST_RANK_TIME"),
		clamp:          m == ModPOSIX || m == ModDFS || m == ModDAOS,
		skipZeroCommon: m == ModMPIIO,
		prefix:         p,
	}
	for _, g := range []string{"STRIDE1_STRIDE", "ACCESS1_ACCESS"} {
		if i := ci(g); i >= 0 {
			x.commonGroups = append(x.commonGroups, i)
		}
	}
	return x
}

// fileTotals are the per-file sums of --file.
type fileTotals struct {
	read, written, maxOffset, nprocs int64
}

// rankTimes are the per-rank times of --perf.
type rankTimes struct{ io, rw, meta float64 }

// accumulator folds the records of one module into the --total aggregate,
// the --file per-file table and the --perf per-rank times.
type accumulator struct {
	mod     ModuleID
	nprocs  int64
	classes []counterClass
	x       moduleIndexes

	agg   Record
	first bool

	files     map[uint64]*fileTotals
	fileOrder []uint64

	totalBytes int64
	sharedTime float64
	// ranks holds the times of every rank seen, by rank; a map because a
	// corrupt log can hold any rank.
	ranks map[int64]*rankTimes
}

func newAccumulator(m ModuleID, nprocs int64) *accumulator {
	info := &modules[m]
	return &accumulator{
		mod: m, nprocs: nprocs, classes: classify(m), x: indexesOf(m),
		agg:   Record{Module: m, Counters: make([]int64, len(info.Counters)), FCounters: make([]float64, len(info.FCounters))},
		first: true,
		files: make(map[uint64]*fileTotals),
		ranks: make(map[int64]*rankTimes),
	}
}

func (a *accumulator) add(r *Record) {
	a.total(r)
	a.file(r)
	a.perf(r)
	a.first = false
}

// total folds r into the aggregate record of --total.
func (a *accumulator) total(r *Record) {
	x, acc := &a.x, &a.agg
	// The fastest/slowest candidates of r.
	fastRank, fastBytes, fastTime := r.Counters[x.fastRank], r.Counters[x.fastBytes], r.FCounters[x.fastTime]
	slowRank, slowBytes, slowTime := r.Counters[x.slowRank], r.Counters[x.slowBytes], r.FCounters[x.slowTime]
	if r.Rank != -1 {
		bytes := r.Counters[x.bytesRead] + r.Counters[x.bytesWritten]
		t := r.FCounters[x.readTime] + r.FCounters[x.writeTime] + r.FCounters[x.metaTime]
		fastRank, fastBytes, fastTime = r.Rank, bytes, t
		slowRank, slowBytes, slowTime = r.Rank, bytes, t
	}
	if a.first {
		acc.ID, acc.Rank = r.ID, r.Rank
	}
	sameFile := acc.ID == r.ID
	if !sameFile {
		acc.ID = 0
	}
	if acc.Rank != r.Rank {
		acc.Rank = -1
	}
	for i, c := range a.classes {
		v := r.Counters[i]
		switch c {
		case classSum:
			acc.Counters[i] += v
			if x.clamp && acc.Counters[i] < 0 {
				acc.Counters[i] = -1
			}
		case classCopy:
			acc.Counters[i] = v
		case classMax:
			acc.Counters[i] = max(acc.Counters[i], v)
		}
	}
	for _, g := range x.commonGroups {
		mergeCommon(acc.Counters[g:g+8], r.Counters[g:g+8], x.skipZeroCommon)
	}
	names := modules[a.mod].FCounters
	for i, v := range r.FCounters {
		n := names[i]
		switch {
		case i == x.readTime || i == x.writeTime || i == x.metaTime:
			acc.FCounters[i] += v
		case strings.HasSuffix(n, "_START_TIMESTAMP"):
			if v > 0 && (acc.FCounters[i] == 0 || v < acc.FCounters[i]) {
				acc.FCounters[i] = v
			}
		case strings.HasSuffix(n, "_END_TIMESTAMP"):
			acc.FCounters[i] = max(acc.FCounters[i], v)
		case i == x.maxReadTime:
			if v > acc.FCounters[i] {
				acc.FCounters[i], acc.Counters[x.maxReadSize] = v, r.Counters[x.maxReadSize]
			}
		case i == x.maxWriteTime:
			if v > acc.FCounters[i] {
				acc.FCounters[i], acc.Counters[x.maxWriteSize] = v, r.Counters[x.maxWriteSize]
			}
		case i == x.fastTime:
			if !sameFile {
				acc.Counters[x.fastRank], acc.Counters[x.fastBytes], acc.FCounters[i] = -1, -1, 0
			} else if a.first || fastTime < acc.FCounters[i] {
				acc.Counters[x.fastRank], acc.Counters[x.fastBytes], acc.FCounters[i] = fastRank, fastBytes, fastTime
			}
		case i == x.slowTime:
			if !sameFile {
				acc.Counters[x.slowRank], acc.Counters[x.slowBytes], acc.FCounters[i] = -1, -1, 0
			} else if a.first || slowTime > acc.FCounters[i] {
				acc.Counters[x.slowRank], acc.Counters[x.slowBytes], acc.FCounters[i] = slowRank, slowBytes, slowTime
			}
		}
	}
}

// mergeCommon merges a group of four common values and their counts
// (src[0:4] values, src[4:8] counts) into dst, keeping the four largest
// counts, ties broken by the larger value.
func mergeCommon(dst, src []int64, skipZero bool) {
	vals, cnts := dst[:4], dst[4:8]
	if skipZero && src[0] == 0 {
		return
	}
	var merged [4]bool
	for j := 0; j < 4; j++ {
		for k := 0; k < 4; k++ {
			if vals[k] == src[j] {
				cnts[k] += src[4+j]
				merged[j] = true
			}
		}
	}
	for j := 0; j < 4; j++ {
		if merged[j] {
			continue
		}
		v := src[j]
		if v == 0 {
			return
		}
		// The reference keeps the count in a C int.
		c := int64(int32(src[4+j]))
		var nv, nc [4]int64
		n, k := 0, 0
		for ; k < 4 && (cnts[k] > c || (cnts[k] == c && vals[k] > v)); k++ {
			nv[n], nc[n] = vals[k], cnts[k]
			n++
		}
		if n == 4 {
			return
		}
		nv[n], nc[n] = v, c
		n++
		for ; k < 4 && n < 4; k++ {
			if vals[k] == v {
				continue
			}
			nv[n], nc[n] = vals[k], cnts[k]
			n++
		}
		copy(vals, nv[:])
		copy(cnts, nc[:])
	}
}

func (a *accumulator) file(r *Record) {
	x := &a.x
	f := a.files[r.ID]
	if f == nil {
		f = &fileTotals{}
		a.files[r.ID] = f
		a.fileOrder = append(a.fileOrder, r.ID)
	}
	f.read += r.Counters[x.bytesRead]
	f.written += r.Counters[x.bytesWritten]
	off := int64(-1)
	if x.maxByteRead >= 0 {
		off = max(r.Counters[x.maxByteRead], r.Counters[x.maxByteWritten])
	}
	if off == -1 {
		f.maxOffset = -1
	} else {
		f.maxOffset = max(f.maxOffset, off)
	}
	if r.Rank < 0 {
		f.nprocs = -1
	} else {
		f.nprocs++
	}
}

func (a *accumulator) perf(r *Record) {
	x := &a.x
	a.totalBytes += r.Counters[x.bytesRead] + r.Counters[x.bytesWritten]
	if r.Rank < 0 {
		a.sharedTime += r.FCounters[x.slowTime]
		return
	}
	rt := a.ranks[r.Rank]
	if rt == nil {
		rt = new(rankTimes)
		a.ranks[r.Rank] = rt
	}
	meta := r.FCounters[x.metaTime]
	rw := r.FCounters[x.readTime] + r.FCounters[x.writeTime]
	rt.io += meta + rw
	rt.rw += rw
	rt.meta += meta
}

func (a *accumulator) writeTotal(t *textOut) {
	info := &modules[a.mod]
	for i, v := range a.agg.Counters {
		t.s("total_").s(info.Counters[i]).s(": ").i(v).s("\n")
	}
	for i, v := range a.agg.FCounters {
		t.s("total_").s(info.FCounters[i]).s(": ").f(v, 6).s("\n")
	}
}

// fileCategory sums the files of one --file category.
type fileCategory struct{ count, bytes, maxOffset int64 }

func (c *fileCategory) add(f *fileTotals) {
	c.count++
	c.bytes += f.read + f.written
	if f.maxOffset == -1 || c.maxOffset == -1 {
		c.maxOffset = -1
	} else {
		c.maxOffset = max(c.maxOffset, f.maxOffset)
	}
}

const fileHelp = `
# Total file counts
# -----
# <file_type>: type of file access:
#    *read_only: file was only read
#    *write_only: file was only written
#    *read_write: file was read and written
#    *unique: file was opened by a single process only
#    *shared: file was accessed by a group of processes (maybe all processes)
# <file_count> total number of files of this type
# <total_bytes> total number of bytes moved to/from files of this type
# <max_byte_offset> maximum byte offset accessed for a file of this type

# <file_type> <file_count> <total_bytes> <max_byte_offset>
`

func (a *accumulator) writeFiles(t *textOut) {
	var total, ro, wo, rw, unique, shared, partial fileCategory
	for _, id := range a.fileOrder {
		f := a.files[id]
		total.add(f)
		switch {
		case f.read > 0 && f.written == 0:
			ro.add(f)
		case f.written > 0 && f.read == 0:
			wo.add(f)
		case f.read > 0 && f.written > 0:
			rw.add(f)
		}
		switch f.nprocs {
		case 1:
			unique.add(f)
		case -1:
			shared.add(f)
		default:
			partial.add(f)
		}
	}
	// The reference prints shared and partially shared files together, max
	// offsets added.
	shared = fileCategory{shared.count + partial.count, shared.bytes + partial.bytes, shared.maxOffset + partial.maxOffset}
	t.s(fileHelp)
	for _, c := range []struct {
		name string
		c    *fileCategory
	}{{"total", &total}, {"read_only", &ro}, {"write_only", &wo}, {"read_write", &rw}, {"unique", &unique}, {"shared", &shared}} {
		t.s("# ").s(c.name).s(": ").i(c.c.count).s(" ").i(c.c.bytes).s(" ").i(c.c.maxOffset).s("\n")
	}
}

func (a *accumulator) writePerf(t *textOut) {
	// The slowest rank is the lowest-numbered one with the largest time.
	var slow rankTimes
	slowest := int64(0)
	for rank, rt := range a.ranks {
		if rt.io > slow.io || (rt.io == slow.io && rt.io > 0 && rank < slowest) {
			slow, slowest = *rt, rank
		}
	}
	agg := slow.io + a.sharedTime
	perf := 0.0
	if agg != 0 {
		perf = float64(a.totalBytes) / 1048576 / agg
	}
	t.s("\n# performance\n# -----------\n# total_bytes: ").i(a.totalBytes).s("\n#\n")
	t.s("# I/O timing for unique files (seconds):\n# ...........................\n")
	t.s("# unique files: slowest_rank_io_time: ").f(slow.io, 6).s("\n")
	t.s("# unique files: slowest_rank_meta_only_time: ").f(slow.meta, 6).s("\n")
	t.s("# unique files: slowest_rank_rw_only_time: ").f(slow.rw, 6).s("\n")
	t.s("# unique files: slowest_rank: ").i(slowest).s("\n#\n")
	t.s("# I/O timing for shared files (seconds):\n# ...........................\n")
	t.s("# shared files: time_by_slowest: ").f(a.sharedTime, 6).s("\n#\n")
	t.s("# Aggregate performance, including both shared and unique files:\n# ...........................\n")
	t.s("# agg_time_by_slowest: ").f(agg, 6).s(" # seconds\n")
	t.s("# agg_perf_by_slowest: ").f(perf, 6).s(" # MiB/s\n")
}
