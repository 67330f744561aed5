package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/iolens/iolens/darshan"
)

// Analyze derives the metrics of the log l (read from path, which the
// report names) and the insights they support, with the thresholds of cfg.
// Each module's records are read once. A module that cannot be read is
// reported as an X02 insight rather than failing the analysis; errors are
// returned only for an invalid cfg.
func Analyze(l *darshan.Log, path string, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("analysing %s: %w", path, err)
	}
	m := newMetrics(l, cfg)
	var ids []darshan.ModuleID
	for id := darshan.ModuleID(0); id < darshan.NumKnownModules; id++ {
		if l.Header.Modules[id].Len != 0 || l.Header.Incomplete(id) {
			m.present[id] = true
			// The heatmap repeats, binned in time, the bytes of the
			// modules it covers and no insight uses it: its region,
			// often the largest of a log, is not decompressed.
			if id != darshan.ModHeatmap {
				ids = append(ids, id)
			}
		}
	}
	eachModule(l, ids, func(id darshan.ModuleID, err error) {
		m.unreadable = append(m.unreadable, fmt.Sprintf("%s: %v", id, err))
		if (id == darshan.ModDXTPOSIX || id == darshan.ModDXTMPIIO) && m.traceErr == nil {
			m.traceErr = err
		}
	}, m.add)
	rep := &Report{
		Job:      m.job(path),
		Files:    m.fileList(),
		Ranks:    m.rankList(),
		Insights: []Insight{},
		Phases:   []Phase{},
	}
	st := straggling{cfg.DXTStragglerRatio, cfg.DXTStragglerSeconds}
	for i := range m.traces {
		ts := &m.traces[i]
		ts.result = phasesOf(ts.module.Info().Name, ts.runs, st)
		rep.Phases = append(rep.Phases, ts.result.phases...)
	}
	rep.Insights = m.insights(rep)
	rep.Trace = m.trace()
	return rep, nil
}

// fileStats accumulates everything known about one record name.
type fileStats struct {
	id      uint64
	name    string
	modules uint64 // bit per darshan.ModuleID
	// records per module that are not shared (one per rank), and whether
	// a shared record (rank -1) was seen.
	rankRecs [darshan.NumKnownModules]int
	shared   bool

	// Bytes, operations and time per layer: low = POSIX + STDIO, mpi =
	// MPI-IO, other = remaining modules with such counters.
	low, mpi, other ioTotals

	// POSIX details.
	pMaxByteR, pMaxByteW int64 // highest offset + 1 over records
	posixSums
	pRandomR, pRandomW       int64
	pSeq                     int64
	pRankRecs                int
	pMinR, pMaxR             int64 // over per-rank records
	pMinW, pMaxW             int64
	slowFastBytes            int64 // |slowest − fastest| rank bytes (shared)
	slowFastTime, sharedTime float64
	pNotAligned              int64

	// MPI-IO details.
	mpiSums

	stdioBytes int64
}

// posixSums are POSIX operation and byte counts, kept per file and for
// the job.
type posixSums struct {
	pReads, pWrites, pBytesR, pBytesW, pSmallR, pSmallW int64
}

func (s *posixSums) add(o posixSums) {
	s.pReads += o.pReads
	s.pWrites += o.pWrites
	s.pBytesR += o.pBytesR
	s.pBytesW += o.pBytesW
	s.pSmallR += o.pSmallR
	s.pSmallW += o.pSmallW
}

// mpiSums are MPI-IO independent and collective operation counts, kept per
// file and for the job.
type mpiSums struct {
	indepR, indepW, collR, collW int64
}

func (s *mpiSums) add(o mpiSums) {
	s.indepR += o.indepR
	s.indepW += o.indepW
	s.collR += o.collR
	s.collW += o.collW
}

type ioTotals struct {
	bytesR, bytesW, reads, writes int64
	time                          float64
}

func (t *ioTotals) addTotals(o ioTotals) {
	t.bytesR += o.bytesR
	t.bytesW += o.bytesW
	t.reads += o.reads
	t.writes += o.writes
	t.time += o.time
}

// moduleStats summarises one module.
type moduleStats struct {
	ids map[uint64]struct{}
	ioTotals
}

// counterSet holds the indices of the counters a module's generic totals
// use; -1 marks a counter the module does not have.
type counterSet struct {
	bytesR, bytesW int
	reads, writes  []int
	times          []int
	fileNames      bool // records name files (not datasets, traces...)
}

// genericCounters are the counters of the generic totals of each module,
// found on first use.
var genericCounters = sync.OnceValue(func() *[darshan.NumKnownModules]counterSet {
	var all [darshan.NumKnownModules]counterSet
	prefixes := map[darshan.ModuleID]string{
		darshan.ModPOSIX: "POSIX", darshan.ModMPIIO: "MPIIO", darshan.ModSTDIO: "STDIO",
		darshan.ModH5F: "H5F", darshan.ModH5D: "H5D", darshan.ModPnetCDFFile: "PNETCDF_FILE",
		darshan.ModPnetCDFVar: "PNETCDF_VAR", darshan.ModDFS: "DFS", darshan.ModDAOS: "DAOS",
	}
	for id := darshan.ModuleID(0); id < darshan.NumKnownModules; id++ {
		cs := counterSet{bytesR: -1, bytesW: -1}
		if p, ok := prefixes[id]; ok {
			cs.bytesR = id.CounterIndex(p + "_BYTES_READ")
			cs.bytesW = id.CounterIndex(p + "_BYTES_WRITTEN")
			for _, kind := range []string{"", "INDEP_", "COLL_", "SPLIT_", "NB_", "ARRAY_"} {
				if i := id.CounterIndex(p + "_" + kind + "READS"); i >= 0 {
					cs.reads = append(cs.reads, i)
				}
				if i := id.CounterIndex(p + "_" + kind + "WRITES"); i >= 0 {
					cs.writes = append(cs.writes, i)
				}
			}
			for _, t := range []string{"READ", "WRITE", "META"} {
				if i := id.FCounterIndex(p + "_F_" + t + "_TIME"); i >= 0 {
					cs.times = append(cs.times, i)
				}
			}
		}
		switch id {
		case darshan.ModPOSIX, darshan.ModMPIIO, darshan.ModSTDIO, darshan.ModH5F, darshan.ModPnetCDFFile, darshan.ModDFS:
			cs.fileNames = true
		}
		all[id] = cs
	}
	return &all
})

func (cs *counterSet) totals(r *darshan.Record) ioTotals {
	var t ioTotals
	at := func(i int) int64 {
		if i >= 0 && i < len(r.Counters) && r.Counters[i] > 0 {
			return r.Counters[i]
		}
		return 0
	}
	t.bytesR, t.bytesW = at(cs.bytesR), at(cs.bytesW)
	for _, i := range cs.reads {
		t.reads += at(i)
	}
	for _, i := range cs.writes {
		t.writes += at(i)
	}
	for _, i := range cs.times {
		if i < len(r.FCounters) && r.FCounters[i] > 0 {
			t.time += r.FCounters[i]
		}
	}
	return t
}

// posixIndices are the indices of the POSIX counters the insights use.
type posixIndices struct {
	reads, writes, bytesR, bytesW, maxR, maxW                int
	seqR, seqW, memNA, fileNA, slowB, fastB                  int
	sizeR, sizeW                                             []int // histogram bins, smallest first
	fReadT, fWriteT, fMetaT, fSlowT, fFastT                  int
	mpiIndepR, mpiIndepW, mpiCollR, mpiCollW, mpiNbR, mpiNbW int
	stdioBytesR, stdioBytesW                                 int
}

// posixIdx returns the indices of the POSIX counters the insights use,
// found on first use.
var posixIdx = sync.OnceValue(func() *posixIndices {
	p := darshan.ModPOSIX
	x := &posixIndices{}
	x.reads, x.writes = p.CounterIndex("POSIX_READS"), p.CounterIndex("POSIX_WRITES")
	x.bytesR, x.bytesW = p.CounterIndex("POSIX_BYTES_READ"), p.CounterIndex("POSIX_BYTES_WRITTEN")
	x.maxR, x.maxW = p.CounterIndex("POSIX_MAX_BYTE_READ"), p.CounterIndex("POSIX_MAX_BYTE_WRITTEN")
	x.seqR, x.seqW = p.CounterIndex("POSIX_SEQ_READS"), p.CounterIndex("POSIX_SEQ_WRITES")
	x.memNA, x.fileNA = p.CounterIndex("POSIX_MEM_NOT_ALIGNED"), p.CounterIndex("POSIX_FILE_NOT_ALIGNED")
	x.slowB, x.fastB = p.CounterIndex("POSIX_SLOWEST_RANK_BYTES"), p.CounterIndex("POSIX_FASTEST_RANK_BYTES")
	for _, b := range []string{"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G"} {
		x.sizeR = append(x.sizeR, p.CounterIndex("POSIX_SIZE_READ_"+b))
		x.sizeW = append(x.sizeW, p.CounterIndex("POSIX_SIZE_WRITE_"+b))
	}
	x.fReadT, x.fWriteT, x.fMetaT = p.FCounterIndex("POSIX_F_READ_TIME"), p.FCounterIndex("POSIX_F_WRITE_TIME"), p.FCounterIndex("POSIX_F_META_TIME")
	x.fSlowT, x.fFastT = p.FCounterIndex("POSIX_F_SLOWEST_RANK_TIME"), p.FCounterIndex("POSIX_F_FASTEST_RANK_TIME")
	m := darshan.ModMPIIO
	x.mpiIndepR, x.mpiIndepW = m.CounterIndex("MPIIO_INDEP_READS"), m.CounterIndex("MPIIO_INDEP_WRITES")
	x.mpiCollR, x.mpiCollW = m.CounterIndex("MPIIO_COLL_READS"), m.CounterIndex("MPIIO_COLL_WRITES")
	x.mpiNbR, x.mpiNbW = m.CounterIndex("MPIIO_NB_READS"), m.CounterIndex("MPIIO_NB_WRITES")
	x.stdioBytesR, x.stdioBytesW = darshan.ModSTDIO.CounterIndex("STDIO_BYTES_READ"), darshan.ModSTDIO.CounterIndex("STDIO_BYTES_WRITTEN")
	for _, i := range []int{x.reads, x.writes, x.bytesR, x.bytesW, x.maxR, x.maxW, x.seqR, x.seqW, x.memNA, x.fileNA,
		x.slowB, x.fastB, x.fReadT, x.fWriteT, x.fMetaT, x.fSlowT, x.fFastT, x.mpiIndepR, x.mpiIndepW, x.mpiCollR,
		x.mpiCollW, x.mpiNbR, x.mpiNbW, x.stdioBytesR, x.stdioBytesW} {
		if i < 0 {
			panic("analysis: a counter the insights use is missing from the darshan tables")
		}
	}
	return x
})

// metrics is the state of one pass over a log.
type metrics struct {
	l          *darshan.Log
	cfg        Config
	nSmall     int // histogram bins below cfg.SmallBytes
	present    [darshan.NumKnownModules]bool
	mods       [darshan.NumKnownModules]moduleStats
	files      map[uint64]*fileStats
	unreadable []string

	// POSIX totals.
	posixSums
	pMemNA, pFileNA                       int64
	pSeqR, pSeqW                          int64
	pMeta                                 float64 // POSIX metadata seconds
	shReads, shWrites, shSmallR, shSmallW int64
	metaByRank                            map[int64]float64
	rankIO                                map[int64]RankIO // of non-shared POSIX and STDIO records
	sharedMeta                            float64
	// MPI-IO totals.
	mpiSums
	mNbR, mNbW int64
	// Node discovery.
	dxtHosts   map[string]struct{}
	dxtRanks   map[int64]struct{}
	apmpiNodes map[string]struct{}
	// Traced operations of DXT_POSIX and DXT_MPIIO, and the ids of the
	// files they access (traceFiles: id to index in traceIDs).
	traces      [2]traceSet
	traceFiles  map[uint64]int32
	traceIDs    []uint64
	traceBounds traceBounds
	traceErr    error // of the first DXT module that could not be read
	// HDF5, PnetCDF and Lustre metrics.
	ly layers
}

func newMetrics(l *darshan.Log, cfg Config) *metrics {
	m := &metrics{
		l: l, cfg: cfg,
		files:       make(map[uint64]*fileStats),
		metaByRank:  make(map[int64]float64),
		rankIO:      make(map[int64]RankIO),
		dxtHosts:    make(map[string]struct{}),
		dxtRanks:    make(map[int64]struct{}),
		apmpiNodes:  make(map[string]struct{}),
		traceFiles:  make(map[uint64]int32),
		traceBounds: newTraceBounds(),
		ly:          newLayers(l),
	}
	for i, id := range [2]darshan.ModuleID{darshan.ModDXTPOSIX, darshan.ModDXTMPIIO} {
		m.traces[i] = traceSet{module: id, rankBytes: map[int32]int64{}, rank0Files: map[int32]int64{}}
	}
	m.nSmall = slices.Index(sizeEdges, cfg.SmallBytes) + 1
	return m
}

func (m *metrics) file(id uint64) *fileStats {
	f := m.files[id]
	if f == nil {
		f = &fileStats{id: id, pMinR: -1, pMinW: -1}
		if name, ok := m.l.RecordName(id); ok {
			f.name = name
		} else {
			f.name = "<" + strconv.FormatUint(id, 10) + ">"
		}
		m.files[id] = f
	}
	return f
}

func cnt(r *darshan.Record, i int) int64 {
	if i >= 0 && i < len(r.Counters) && r.Counters[i] > 0 {
		return r.Counters[i]
	}
	return 0
}

func fcnt(r *darshan.Record, i int) float64 {
	if i >= 0 && i < len(r.FCounters) && r.FCounters[i] > 0 {
		return r.FCounters[i]
	}
	return 0
}

// add accumulates one record.
func (m *metrics) add(r *darshan.Record) error {
	id := r.Module
	ms := &m.mods[id]
	if ms.ids == nil {
		ms.ids = make(map[uint64]struct{})
	}
	ms.ids[r.ID] = struct{}{}
	if r.Header {
		return nil
	}
	cs := &genericCounters()[id]
	t := cs.totals(r)
	ms.addTotals(t)

	switch id {
	case darshan.ModDXTPOSIX, darshan.ModDXTMPIIO:
		if r.DXT != nil && r.DXT.Hostname != "" {
			m.dxtHosts[r.DXT.Hostname] = struct{}{}
			m.dxtRanks[r.Rank] = struct{}{}
		}
		if r.DXT != nil {
			m.addTrace(id, r)
		}
		return nil
	case darshan.ModAPMPI:
		if r.NodeName != "" {
			m.apmpiNodes[r.NodeName] = struct{}{}
		}
		return nil
	case darshan.ModH5F, darshan.ModH5D, darshan.ModPnetCDFFile, darshan.ModPnetCDFVar, darshan.ModLustre:
		m.addLayer(r)
	case darshan.ModPOSIX, darshan.ModMPIIO:
		m.addAccess(r)
	}
	if !cs.fileNames {
		return nil
	}
	f := m.file(r.ID)
	f.modules |= 1 << uint(id)
	if r.Rank < 0 {
		f.shared = true
	} else {
		f.rankRecs[id]++
	}
	switch id {
	case darshan.ModPOSIX, darshan.ModSTDIO:
		f.low.addTotals(t)
		if r.Rank >= 0 {
			ri := m.rankIO[r.Rank]
			ri.Bytes += t.bytesR + t.bytesW
			ri.Time += t.time
			m.rankIO[r.Rank] = ri
		}
	case darshan.ModMPIIO:
		f.mpi.addTotals(t)
	default:
		f.other.addTotals(t)
	}
	switch id {
	case darshan.ModSTDIO:
		f.stdioBytes += t.bytesR + t.bytesW
	case darshan.ModPOSIX:
		m.addPOSIX(r, f)
	case darshan.ModMPIIO:
		x := posixIdx()
		ir, iw := cnt(r, x.mpiIndepR), cnt(r, x.mpiIndepW)
		cr, cw := cnt(r, x.mpiCollR), cnt(r, x.mpiCollW)
		ops := mpiSums{ir, iw, cr, cw}
		f.mpiSums.add(ops)
		m.mpiSums.add(ops)
		m.mNbR += cnt(r, x.mpiNbR)
		m.mNbW += cnt(r, x.mpiNbW)
	}
	return nil
}

func (m *metrics) addPOSIX(r *darshan.Record, f *fileStats) {
	x := posixIdx()
	reads, writes := cnt(r, x.reads), cnt(r, x.writes)
	br, bw := cnt(r, x.bytesR), cnt(r, x.bytesW)
	var smallR, smallW int64
	for i := 0; i < m.nSmall; i++ {
		smallR += cnt(r, x.sizeR[i])
		smallW += cnt(r, x.sizeW[i])
	}
	sums := posixSums{reads, writes, br, bw, smallR, smallW}
	m.posixSums.add(sums)
	f.posixSums.add(sums)
	m.pMemNA += cnt(r, x.memNA)
	fna := cnt(r, x.fileNA)
	m.pFileNA += fna
	seqR, seqW := min(cnt(r, x.seqR), reads), min(cnt(r, x.seqW), writes)
	m.pSeqR += seqR
	m.pSeqW += seqW

	f.pRandomR += reads - seqR
	f.pRandomW += writes - seqW
	f.pSeq += seqR + seqW
	f.pNotAligned += fna
	if br > 0 {
		f.pMaxByteR = max(f.pMaxByteR, r.Counters[x.maxR]+1)
	}
	if bw > 0 {
		f.pMaxByteW = max(f.pMaxByteW, r.Counters[x.maxW]+1)
	}
	meta := fcnt(r, x.fMetaT)
	m.pMeta += meta
	if r.Rank < 0 {
		m.shReads += reads
		m.shWrites += writes
		m.shSmallR += smallR
		m.shSmallW += smallW
		m.sharedMeta += meta
		d := cnt(r, x.slowB) - cnt(r, x.fastB)
		f.slowFastBytes = max(f.slowFastBytes, d, -d)
		dt := fcnt(r, x.fSlowT) - fcnt(r, x.fFastT)
		f.slowFastTime = max(f.slowFastTime, dt, -dt)
		f.sharedTime += fcnt(r, x.fReadT) + fcnt(r, x.fWriteT) + meta
		return
	}
	m.metaByRank[r.Rank] += meta
	f.pRankRecs++
	if f.pMinR < 0 || br < f.pMinR {
		f.pMinR = br
	}
	if f.pMinW < 0 || bw < f.pMinW {
		f.pMinW = bw
	}
	f.pMaxR = max(f.pMaxR, br)
	f.pMaxW = max(f.pMaxW, bw)
}

// rankList returns the I/O of every rank that has records of its own, in
// rank order.
func (m *metrics) rankList() []RankIO {
	out := make([]RankIO, 0, len(m.rankIO))
	for r, io := range m.rankIO {
		io.Rank = r
		out = append(out, io)
	}
	slices.SortFunc(out, func(a, b RankIO) int { return cmp.Compare(a.Rank, b.Rank) })
	return out
}

// job summarises the job and its modules.
func (m *metrics) job(path string) Job {
	l := m.l
	j := Job{
		Log: path, Exe: l.Exe, JobID: l.Job.JobID, UID: l.Job.UID, NProcs: l.Job.NProcs,
		Start: l.Job.StartTime, End: l.Job.EndTime, RunTime: l.RunTime(),
		Modules:    []Module{},
		SmallReads: m.pSmallR, SmallWrites: m.pSmallW, MetaTime: m.pMeta,
	}
	for _, p := range l.Job.MetadataPairs() {
		switch p.Key {
		case "lib_ver":
			j.LibVer = p.Value
		case "h":
			j.Hints = parseHints(p.Value)
		case "prefetch_status":
			j.prefetch().Status = p.Value
		case "prefetch_extents", "prefetch_bytes", "prefetch_hit_bytes", "prefetch_right",
			"prefetch_wrong", "prefetch_matched", "prefetch_unknown":
			v, err := strconv.ParseInt(p.Value, 10, 64)
			if err != nil {
				continue
			}
			pf := j.prefetch()
			switch p.Key {
			case "prefetch_extents":
				pf.Extents = v
			case "prefetch_bytes":
				pf.Bytes = v
			case "prefetch_hit_bytes":
				pf.HitBytes = v
			case "prefetch_right":
				pf.Right = v
			case "prefetch_wrong":
				pf.Wrong = v
			case "prefetch_matched":
				pf.Matched = v
			case "prefetch_unknown":
				pf.Unknown = v
			}
		}
	}
	j.Nodes = m.nodes()
	for id := darshan.ModuleID(0); id < darshan.NumKnownModules; id++ {
		if l.Header.Incomplete(id) {
			j.Partial = append(j.Partial, id.String())
		}
		if !m.present[id] || id == darshan.ModHeatmap {
			continue
		}
		ms := &m.mods[id]
		j.Modules = append(j.Modules, Module{
			Name: id.String(), Files: len(ms.ids),
			BytesRead: ms.bytesR, BytesWritten: ms.bytesW, Reads: ms.reads, Writes: ms.writes, Time: ms.time,
		})
	}
	return j
}

// prefetch returns j.Prefetch, allocating it.
func (j *Job) prefetch() *Prefetch {
	if j.Prefetch == nil {
		j.Prefetch = &Prefetch{}
	}
	return j.Prefetch
}

// parseHints splits the MPI-IO hints of the job metadata ("k=v;k=v").
// Darshan writes "no" when there are none; empty entries are skipped and
// an entry without '=' is a key with an empty value.
func parseHints(s string) []Hint {
	s = strings.TrimSpace(s)
	if s == "" || s == "no" {
		return nil
	}
	var out []Hint
	for _, e := range strings.Split(s, ";") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		k, v, _ := strings.Cut(e, "=")
		out = append(out, Hint{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return out
}

// nodes returns the number of distinct hosts of the job, or 0 when the log
// does not tell: from a "hostnames" metadata entry, else from the host
// names of DXT traces when every rank has one, else from APMPI node
// names, else 1 for a single process.
func (m *metrics) nodes() int {
	for _, p := range m.l.Job.MetadataPairs() {
		if p.Key != "hostnames" {
			continue
		}
		seen := map[string]struct{}{}
		for _, h := range strings.FieldsFunc(p.Value, func(r rune) bool {
			return r == ',' || r == ';' || r == ' ' || r == '\t'
		}) {
			seen[h] = struct{}{}
		}
		if len(seen) > 0 {
			return len(seen)
		}
	}
	if n := m.l.Job.NProcs; n > 0 && int64(len(m.dxtRanks)) == n && len(m.dxtHosts) > 0 {
		return len(m.dxtHosts)
	}
	if len(m.apmpiNodes) > 0 {
		return len(m.apmpiNodes)
	}
	if m.l.Job.NProcs == 1 {
		return 1
	}
	return 0
}

// totals returns the bytes, operations and time of the lowest layer that saw the file.
func (f *fileStats) totals() ioTotals {
	switch {
	case f.low != (ioTotals{}):
		return f.low
	case f.mpi != (ioTotals{}):
		return f.mpi
	}
	return f.other
}

func (m *metrics) fileList() []File {
	out := make([]File, 0, len(m.files))
	nprocs := int(m.l.Job.NProcs)
	for _, f := range m.files {
		t := f.totals()
		ff := File{
			Name: f.name, Shared: f.shared,
			BytesRead: t.bytesR, BytesWritten: t.bytesW, Reads: t.reads, Writes: t.writes, Time: t.time,
			AccessSize: m.ly.commonAccess(f.id).size, SeqOps: f.pSeq,
		}
		for id := darshan.ModuleID(0); id < darshan.NumKnownModules; id++ {
			if f.modules&(1<<uint(id)) != 0 {
				ff.Modules = append(ff.Modules, id.String())
				ff.Ranks = max(ff.Ranks, f.rankRecs[id])
			}
		}
		if f.shared {
			ff.Ranks = max(ff.Ranks, nprocs)
		}
		out = append(out, ff)
	}
	slices.SortFunc(out, func(a, b File) int {
		if c := cmp.Compare(b.BytesRead+b.BytesWritten, a.BytesRead+a.BytesWritten); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}
