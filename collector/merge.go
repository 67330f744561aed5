package collector

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/iolens/iolens/darshan"
)

// ErrNoData: none of the stores given to MergeDirs belongs to an MPI job
// or holds I/O of a non-MPI process, so there is no log to write.
var ErrNoData = errors.New("no store with data")

// Group is a set of stores written as one Darshan log: the ranks of one
// MPI job (MPI set), or the non-MPI processes that did I/O.
type Group struct {
	MPI    bool
	Stores []*Store
}

// Groups splits stores into logs: one group per MPI job (stores with the
// same non-zero MPIJob, ordered by rank), in order of their earliest start
// time, then one group of all non-MPI processes (MPIJob 0) that did I/O (a
// record updated at least once with a non-zero counter or fcounter),
// ordered by start time and pid, if there is any.
func Groups(stores []*Store) []Group {
	jobs := make(map[uint64][]*Store)
	var solo []*Store
	for _, s := range stores {
		switch {
		case s.Header.MPIJob != 0:
			jobs[s.Header.MPIJob] = append(jobs[s.Header.MPIJob], s)
		case hasIO(s):
			solo = append(solo, s)
		}
	}
	var out []Group
	for _, ss := range jobs {
		slices.SortStableFunc(ss, func(a, b *Store) int {
			return cmp.Or(cmp.Compare(a.Header.MPIRank, b.Header.MPIRank), byStart(a, b))
		})
		out = append(out, Group{MPI: true, Stores: ss})
	}
	slices.SortFunc(out, func(a, b Group) int {
		return cmp.Or(groupStart(a).Compare(groupStart(b)),
			cmp.Compare(a.Stores[0].Header.MPIJob, b.Stores[0].Header.MPIJob))
	})
	if len(solo) > 0 {
		slices.SortStableFunc(solo, byStart)
		out = append(out, Group{Stores: solo})
	}
	return out
}

// byStart orders stores by start time, then pid, then path.
func byStart(a, b *Store) int {
	return cmp.Or(a.Start().Compare(b.Start()), cmp.Compare(a.Header.PID, b.Header.PID), cmp.Compare(a.Path, b.Path))
}

func groupStart(g Group) time.Time {
	t := g.Stores[0].Start()
	for _, s := range g.Stores[1:] {
		if s.Start().Before(t) {
			t = s.Start()
		}
	}
	return t
}

// hasIO reports whether s has a record that was updated and has a non-zero
// counter.
func hasIO(s *Store) bool {
	return slices.ContainsFunc(s.Records, func(r *StoreRecord) bool { return r.Events > 0 && !zeroRecord(&r.Record) })
}

// kept reports whether a store record goes into the log: it must have a
// non-zero counter and have been updated, except for the STDIO records of
// the standard streams, which the library creates without an update (as
// opened at time 0) and which take part in the shared-record reduction
// before the STDIO filter drops the unused ones.
func kept(r *StoreRecord) bool {
	if zeroRecord(&r.Record) {
		return false
	}
	return r.Events > 0 || r.Module == darshan.ModSTDIO && stdStreams()[r.ID]
}

// zeroRecord reports whether every counter and fcounter of r is zero.
func zeroRecord(r *darshan.Record) bool {
	return !slices.ContainsFunc(r.Counters, func(v int64) bool { return v != 0 }) &&
		!slices.ContainsFunc(r.FCounters, func(v float64) bool { return v != 0 })
}

// LogOptions configures the logs written by WriteLog and MergeDirs.
type LogOptions struct {
	// Version is the iolens version recorded in the job metadata
	// (lib_ver=iolens-<Version>); "dev" when empty.
	Version string
	// Compression of the log regions.
	Compression darshan.Compression
	// Mounts is the mount table, in /proc/self/mounts order; nil reads
	// /proc/self/mounts.
	Mounts []darshan.Mount
	// DXTThreads keeps the id of the calling thread in DXT segments
	// (darshan.WriterOptions.DXTThreads): such logs are read only by
	// Darshan newer than 3.5.0.
	DXTThreads bool
	// Set labels the injected configuration in the job metadata
	// (iolens_set=...), with the number of opens that got it.
	Set string
	// Progress, when not nil, is called as MergeDirs advances, with the
	// steps done and their total: reading a store is one step, merging it
	// into its log another.
	Progress func(done, total int64)
}

// mergeProc is one process of a group being merged.
type mergeProc struct {
	s      *Store
	rank   int64
	offset float64 // seconds from the job start to the process start
}

// WriteLog writes the stores of g as one Darshan log (format 3.41) to w,
// which should be empty.
//
// Job record: the uid of the first process (rank 0 of an MPI job), the
// earliest start and latest end of the processes, nprocs (the MPI job size,
// or the number of non-MPI processes, which get ranks 0..n−1 in group
// order), the job id of the first process (its pid when it has none), its
// command line, and the metadata lib_ver=iolens-<Version> and
// hostnames=<the distinct host names in rank order>. Ranks missing from an
// MPI job (a crash) are simply absent; a rank present twice is an error.
//
// Times: record time stamps and DXT segment times are seconds since the job
// start (a time stamp of 0 stays 0: never); durations are seconds.
//
// Records whose counters are all zero, and records never updated (Events
// 0) other than the STDIO standard streams, are dropped. In a complete MPI
// job, records present in every rank are reduced to one record of rank -1
// (see the reduction rules in reduce.go); otherwise every process keeps
// its records: a rank −1 record stands for every rank of the job, so a job
// with missing ranks has none. Standard-stream STDIO records without reads and writes are
// dropped. Each process's heatmaps and DXT traces become records of its
// rank. Partial flags are the union of the stores'. The name table holds
// the names of the written records.
func WriteLog(w io.WriterAt, g Group, opts LogOptions) error {
	if err := writeLog(w, g, opts); err != nil {
		return fmt.Errorf("writing the log of %s: %w", groupName(g), err)
	}
	return nil
}

// groupName names a group in errors.
func groupName(g Group) string {
	switch {
	case len(g.Stores) == 0:
		return "an empty group"
	case g.MPI:
		return fmt.Sprintf("MPI job %#x (%d stores, first %s)", g.Stores[0].Header.MPIJob, len(g.Stores), g.Stores[0].Path)
	default:
		return fmt.Sprintf("%d non-MPI processes (first %s)", len(g.Stores), g.Stores[0].Path)
	}
}

func writeLog(w io.WriterAt, g Group, opts LogOptions) error {
	procs, nprocs, complete, err := groupProcesses(g)
	if err != nil {
		return err
	}
	first := procs[0].s
	start, end := first.Start(), first.End()
	for _, p := range procs[1:] {
		if p.s.Start().Before(start) {
			start = p.s.Start()
		}
		if p.s.End().After(end) {
			end = p.s.End()
		}
	}
	for _, p := range procs {
		p.offset = p.s.Start().Sub(start).Seconds()
	}

	job := darshan.Job{
		UID:       first.Header.UID,
		StartTime: start.Unix(),
		StartNsec: int64(start.Nanosecond()),
		EndTime:   end.Unix(),
		EndNsec:   int64(end.Nanosecond()),
		NProcs:    nprocs,
		JobID:     first.Header.JobID,
		Metadata:  jobMetadata(opts.Version, opts.Set, procs),
	}
	if job.JobID < 0 {
		job.JobID = first.Header.PID
	}
	mounts := opts.Mounts
	if mounts == nil {
		mounts = readMounts("/proc/self/mounts")
	}
	mounts = mountTable(mounts)
	slices.Reverse(mounts) // the writer stores them in reverse

	mods := make([][]*darshan.Record, darshan.NumKnownModules)
	for m := range darshan.ModuleID(darshan.NumKnownModules) {
		byRank := make([][]*darshan.Record, len(procs))
		found := false
		for i, p := range procs {
			byRank[i] = p.records(m)
			found = found || len(byRank[i]) > 0
		}
		if found {
			mods[m] = orderModule(m, byRank, g.MPI && complete)
		}
	}
	mods[darshan.ModSTDIO] = filterSTDIO(mods[darshan.ModSTDIO])
	mods[darshan.ModDXTPOSIX], mods[darshan.ModDXTMPIIO] = dxtRecords(procs)
	mods[darshan.ModHeatmap] = heatmapRecords(procs, g.MPI)
	seqs := accessSequences(procs)

	wr := darshan.NewWriter(w, darshan.WriterOptions{Compression: opts.Compression, Fast: true, DXTThreads: opts.DXTThreads})
	if err := wr.WriteJob(job, jobCommandLine(first.Header.Cmdline), mounts); err != nil {
		return err
	}
	if err := wr.WriteNames(nameTable(procs, mods, seqs)); err != nil {
		return err
	}
	for m, recs := range mods {
		if len(recs) == 0 {
			continue
		}
		if err := wr.BeginModule(darshan.ModuleID(m)); err != nil {
			return err
		}
		for _, r := range recs {
			if err := wr.WriteRecord(r); err != nil {
				return err
			}
		}
	}
	if err := wr.WriteExtension(darshan.ModAccess, darshan.AccessVersion, accessRegion(seqs)); err != nil {
		return err
	}
	var partial uint64
	for _, p := range procs {
		partial |= p.s.Header.Partial
	}
	for m := range darshan.ModuleID(darshan.MaxModules) {
		if partial&(1<<uint(m)) != 0 {
			wr.SetPartial(m)
		}
	}
	return wr.Close()
}

// groupProcesses returns the processes of g in rank order, the job's process
// count and whether every rank of an MPI job is present.
func groupProcesses(g Group) ([]*mergeProc, int64, bool, error) {
	if len(g.Stores) == 0 {
		return nil, 0, false, errors.New("no store")
	}
	procs := make([]*mergeProc, len(g.Stores))
	for i, s := range g.Stores {
		procs[i] = &mergeProc{s: s, rank: int64(i)}
	}
	if !g.MPI {
		slices.SortStableFunc(procs, func(a, b *mergeProc) int { return byStart(a.s, b.s) })
		for i, p := range procs {
			p.rank = int64(i)
		}
		return procs, int64(len(procs)), false, nil
	}
	size := g.Stores[0].Header.MPISize
	job := g.Stores[0].Header.MPIJob
	for _, p := range procs {
		h := &p.s.Header
		switch {
		case h.MPIJob != job:
			return nil, 0, false, fmt.Errorf("store %s belongs to MPI job %#x, not %#x", p.s.Path, h.MPIJob, job)
		case h.MPISize != size:
			return nil, 0, false, fmt.Errorf("store %s has MPI size %d, store %s has %d", p.s.Path, h.MPISize, g.Stores[0].Path, size)
		case h.MPISize <= 0 || h.MPIRank < 0 || h.MPIRank >= h.MPISize:
			return nil, 0, false, fmt.Errorf("store %s has MPI rank %d of %d", p.s.Path, h.MPIRank, h.MPISize)
		}
		p.rank = h.MPIRank
	}
	slices.SortStableFunc(procs, func(a, b *mergeProc) int { return cmp.Compare(a.rank, b.rank) })
	for i := 1; i < len(procs); i++ {
		if procs[i].rank == procs[i-1].rank {
			return nil, 0, false, fmt.Errorf("stores %s and %s are both rank %d", procs[i-1].s.Path, procs[i].s.Path, procs[i].rank)
		}
	}
	return procs, size, int64(len(procs)) == size, nil
}

// records returns copies of the process's non-zero records of module m in
// store order, with the process's rank and time stamps relative to the job
// start.
func (p *mergeProc) records(m darshan.ModuleID) []*darshan.Record {
	var out []*darshan.Record
	kinds := fcounterKinds(m)
	for _, r := range p.s.Records {
		if r.Module != m || !kept(r) {
			continue
		}
		c := r.Record.Clone()
		c.Rank = p.rank
		for i, v := range c.FCounters {
			if kinds[i] == fTimestamp && v != 0 {
				c.FCounters[i] = p.offset + v
			}
		}
		out = append(out, c)
	}
	return out
}

// dxtRecords returns the DXT_POSIX and DXT_MPIIO records of the processes: per
// process in rank order, one record per traced file in order of first
// appearance, write segments then read segments in store order.
func dxtRecords(procs []*mergeProc) (posix, mpiio []*darshan.Record) {
	for _, p := range procs {
		type key struct {
			m  darshan.ModuleID
			id uint64
		}
		recs := make(map[key]*darshan.Record)
		var order []*darshan.Record
		for _, g := range p.s.Segments {
			var m darshan.ModuleID
			switch g.Module {
			case darshan.ModPOSIX:
				m = darshan.ModDXTPOSIX
			case darshan.ModMPIIO:
				m = darshan.ModDXTMPIIO
			default:
				continue
			}
			if g.Op != OpWrite && g.Op != OpRead {
				continue
			}
			k := key{m, g.ID}
			r := recs[k]
			if r == nil {
				r = &darshan.Record{Module: m, ID: g.ID, Rank: p.rank,
					DXT: &darshan.Trace{Hostname: dxtHostname(p.s.Header.Hostname), ThreadIDs: true}}
				recs[k] = r
				order = append(order, r)
			}
			seg := darshan.Segment{Offset: g.Offset, Length: g.Length,
				Start: p.offset + g.Start, End: p.offset + g.End, ThreadID: g.Thread}
			if g.Op == OpWrite {
				r.DXT.Writes = append(r.DXT.Writes, seg)
			} else {
				r.DXT.Reads = append(r.DXT.Reads, seg)
			}
		}
		for _, r := range order {
			if r.Module == darshan.ModDXTPOSIX {
				posix = append(posix, r)
			} else {
				mpiio = append(mpiio, r)
			}
		}
	}
	return posix, mpiio
}

// dxtHostname cuts a host name to the 63 bytes a DXT record holds.
func dxtHostname(s string) string {
	if len(s) > 63 {
		return s[:63]
	}
	return s
}

// heatmapRecords returns the HEATMAP records of the processes in rank order (see
// fitHeatmaps for the bins).
func heatmapRecords(procs []*mergeProc, mpi bool) []*darshan.Record {
	var hms []*outHeatmap
	var ends []float64
	var jobSpan float64
	for _, p := range procs {
		jobSpan = max(jobSpan, p.s.End().Sub(p.s.Start()).Seconds())
	}
	for _, p := range procs {
		for _, h := range p.s.Heatmaps {
			if usedBins(h.Write, h.Read) == 0 {
				continue
			}
			hms = append(hms, &outHeatmap{rank: p.rank, name: heatmapName(h.Module), width: h.Width,
				write: slices.Clone(h.Write), read: slices.Clone(h.Read)})
			if mpi {
				ends = append(ends, jobSpan)
			} else {
				ends = append(ends, p.s.End().Sub(p.s.Start()).Seconds())
			}
		}
	}
	fitHeatmaps(hms, ends, mpi)
	out := make([]*darshan.Record, len(hms))
	for i, h := range hms {
		out[i] = &darshan.Record{
			Module:    darshan.ModHeatmap,
			ID:        darshan.RecordID(h.name),
			Rank:      h.rank,
			FCounters: []float64{h.width},
			Heatmap:   &darshan.Heatmap{BinWidth: h.width, Write: h.write, Read: h.read},
		}
	}
	return out
}

// nameTable returns the name table: the names of every written record (and of
// the files of H5D and PNETCDF_VAR records), in order of first appearance
// in the stores taken in rank order, then the heatmap names the stores do
// not hold.
func nameTable(procs []*mergeProc, mods [][]*darshan.Record, seqs []darshan.AccessSequence) iter.Seq2[uint64, string] {
	used := make(map[uint64]bool)
	for _, recs := range mods {
		for _, r := range recs {
			used[r.ID] = true
			if r.FileRecID != 0 {
				used[r.FileRecID] = true
			}
		}
	}
	for _, s := range seqs {
		for _, a := range s.Accesses {
			used[a.ID], used[a.File] = true, true
		}
	}
	var heat []string
	for _, p := range procs {
		for _, h := range p.s.Heatmaps {
			if n := heatmapName(h.Module); !slices.Contains(heat, n) {
				heat = append(heat, n)
			}
		}
	}
	return func(yield func(uint64, string) bool) {
		done := make(map[uint64]bool)
		emit := func(id uint64, name string) bool {
			if !used[id] || done[id] {
				return true
			}
			done[id] = true
			return yield(id, strings.ReplaceAll(name, "\x00", ""))
		}
		for _, p := range procs {
			for _, id := range p.s.NameIDs {
				if !emit(id, p.s.Names[id]) {
					return
				}
			}
		}
		for _, n := range heat {
			if !emit(darshan.RecordID(n), n) {
				return
			}
		}
	}
}

// metadataMax is the room for the job metadata text without its NUL.
const metadataMax = 1023

// jobMetadata returns the job metadata: lib_ver=iolens-<version> and the host
// names of the processes, distinct, in rank order, comma-separated (cut
// with "..." if they do not fit the 1024-byte field).
func jobMetadata(version, set string, procs []*mergeProc) string {
	if version = stripControl(version); version == "" {
		version = "dev"
	}
	meta := "lib_ver=iolens-" + version + "\n"
	if app := strings.ReplaceAll(stripControl(procs[0].s.Header.App), "=", ""); app != "" {
		meta += "app=" + app + "\n"
	}
	meta += prefetchMetadata(procs) + injectionMetadata(set, procs)
	var hosts []string
	seen := make(map[string]bool)
	for _, p := range procs {
		h := strings.ReplaceAll(stripControl(p.s.Header.Hostname), ",", "")
		if h != "" && !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return meta
	}
	list := strings.Join(hosts, ",")
	room := metadataMax - len(meta) - len("hostnames=\n")
	if len(list) > room {
		cut := room - len("...")
		if cut < 0 {
			return meta
		}
		list = list[:cut]
		if i := strings.LastIndexByte(list, ','); i >= 0 {
			list = list[:i+1]
		}
		list += "..."
	}
	return meta + "hostnames=" + list + "\n"
}

// prefetchMetadata returns the job metadata lines of prefetching, summed
// over the processes, when a plan was given: prefetch_status (ok, or the
// first reason a process ignored the plan), prefetch_extents, prefetch_bytes,
// prefetch_hit_bytes, prefetch_right and prefetch_wrong (predictions of
// the next access), prefetch_matched and prefetch_unknown (accesses found
// in the plan or not).
func prefetchMetadata(procs []*mergeProc) string {
	var sum PrefetchStats
	for _, p := range procs {
		s := p.s.Header.Prefetch
		switch {
		case s.Status == "":
		case sum.Status == "" || sum.Status == "ok":
			sum.Status = stripControl(s.Status)
		}
		sum.Issued += s.Issued
		sum.Bytes += s.Bytes
		sum.HitBytes += s.HitBytes
		sum.Right += s.Right
		sum.Wrong += s.Wrong
		sum.Matched += s.Matched
		sum.Unknown += s.Unknown
	}
	if sum.Status == "" {
		return ""
	}
	return fmt.Sprintf("prefetch_status=%s\nprefetch_extents=%d\nprefetch_bytes=%d\nprefetch_hit_bytes=%d\n"+
		"prefetch_right=%d\nprefetch_wrong=%d\nprefetch_matched=%d\nprefetch_unknown=%d\n",
		strings.ReplaceAll(sum.Status, "=", " "), sum.Issued, sum.Bytes, sum.HitBytes, sum.Right, sum.Wrong, sum.Matched, sum.Unknown)
}

// stripControl removes control characters (newlines, NUL) from s.
func stripControl(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// jobCommandLine makes a store's command line fit a job record: newlines and
// NUL bytes become blanks.
func jobCommandLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == 0 {
			return ' '
		}
		return r
	}, s)
}

// Mount table.

// skippedFSTypes are the file-system types the Darshan runtime leaves out
// of the mount table.
var skippedFSTypes = map[string]bool{
	"tmpfs": true, "proc": true, "sysfs": true, "devpts": true, "binfmt_misc": true,
	"fusectl": true, "debugfs": true, "securityfs": true, "nfsd": true, "none": true,
	"rpc_pipefs": true, "hugetlbfs": true, "cgroup": true,
}

// maxMounts is the most mount entries the runtime records.
const maxMounts = 64

// readMounts returns the entries of a mounts file (/proc/self/mounts
// format), or nil if it cannot be read.
func readMounts(path string) []darshan.Mount {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []darshan.Mount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 3 {
			out = append(out, darshan.Mount{Path: fields[1], FSType: fields[2]})
		}
	}
	return out
}

// mountTable applies the runtime's rules to mount entries in mount-file
// order: skipped types left out, non-NFS entries first then "nfs" ones,
// duplicates (same path and type) and unwritable entries (empty, or with
// blanks) left out, at most 64.
func mountTable(entries []darshan.Mount) []darshan.Mount {
	var out []darshan.Mount
	seen := make(map[darshan.Mount]bool)
	for _, nfs := range []bool{false, true} {
		for _, m := range entries {
			if (m.FSType == "nfs") != nfs || skippedFSTypes[m.FSType] || seen[m] || len(out) == maxMounts {
				continue
			}
			if m.Path == "" || m.FSType == "" || strings.ContainsAny(m.Path+m.FSType, " \t\n\v\f\r\x00") {
				continue
			}
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// Directories.

// ReadStores reads every "*.store" file directly in the directories dirs
// (not in sub-directories), in directory and name order. Stores that
// cannot be read are left out and their errors, which name the files, are
// returned joined with the stores that could be read.
func ReadStores(dirs ...string) ([]*Store, error) {
	return readStores(dirs, nil)
}

// readStores reads the stores of dirs, calling read (when not nil) with the
// number of stores read so far and the number found.
func readStores(dirs []string, read func(done, total int64)) ([]*Store, error) {
	var paths []string
	var errs []error
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading stores in %s: %w", dir, err))
			continue
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".store") && !e.IsDir() {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
	}
	var stores []*Store
	for i, p := range paths {
		s, err := ReadStore(p)
		if read != nil {
			read(int64(i+1), int64(len(paths)))
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		stores = append(stores, s)
	}
	return stores, errors.Join(errs...)
}

// MergeDirs merges the stores of dirs (see ReadStores) into Darshan logs,
// one per group (see Groups): the first is written to out, the n-th
// (n ≥ 2) to out with "-<n>" inserted before its ".darshan" extension
// (appended when out has none), e.g. app.darshan, app-2.darshan. Each log
// is written to a temporary file in the directory of out and renamed into
// place when complete, with mode 0600; a log that fails leaves no file. It
// returns the paths of the logs written and the errors met, joined: the
// unreadable stores, the logs that could not be written, or ErrNoData when
// there is nothing to write.
func MergeDirs(dirs []string, out string, opts LogOptions) ([]string, error) {
	// Progress: reading a store is one step, merging it into its log one
	// more.
	var done, total int64
	stores, err := readStores(dirs, func(read, n int64) {
		done, total = read, 2*n
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	})
	errs := []error{err}
	groups := Groups(stores)
	if len(groups) == 0 {
		errs = append(errs, fmt.Errorf("merging %s: %w", strings.Join(dirs, ", "), ErrNoData))
		return nil, errors.Join(errs...)
	}
	var paths []string
	for i, g := range groups {
		path := mergedName(out, i+1)
		err := writeFile(path, g, opts)
		if done += int64(len(g.Stores)); opts.Progress != nil {
			opts.Progress(done, total)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, path)
	}
	if opts.Progress != nil {
		opts.Progress(total, total) // stores of processes without I/O are in no log
	}
	return paths, errors.Join(errs...)
}

// mergedName returns the path of the n-th log of MergeDirs.
func mergedName(out string, n int) string {
	if n == 1 {
		return out
	}
	suffix := fmt.Sprintf("-%d", n)
	if base, ok := strings.CutSuffix(out, ".darshan"); ok && filepath.Base(out) != ".darshan" {
		return base + suffix + ".darshan"
	}
	return out + suffix
}

// writeFile writes the log of g to path through a temporary file.
func writeFile(path string, g Group, opts LogOptions) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := WriteLog(tmp, g, opts); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	for _, step := range []func() error{
		func() error { return tmp.Chmod(0o600) },
		tmp.Sync,
		tmp.Close,
		func() error { return os.Rename(tmp.Name(), path) },
	} {
		if err := step(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}
