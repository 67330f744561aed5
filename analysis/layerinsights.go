package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/darshan"
)

const (
	snippetHDF5Chunk = `hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
hsize_t chunk[2] = {256, 1024};   /* 2 MiB of doubles: about one access */
H5Pset_chunk(dcpl, 2, chunk);
hid_t dset = H5Dcreate(file, "/data", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);`
	snippetPnetCDFHeader = `/* reserve 1 MiB of free header space for attributes added later */
ncmpi__enddef(ncid, 1048576, 0, 0, 0);`
)

// sortedDatasets returns the datasets (or variables) of set by name.
func sortedDatasets(set map[uint64]*dataset) []*dataset {
	out := make([]*dataset, 0, len(set))
	for _, d := range set {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *dataset) int { return strings.Compare(a.name, b.name) })
	return out
}

// sortedIDs returns the keys of a map in increasing order.
func sortedIDs[V any](set map[uint64]V) []uint64 {
	ids := make([]uint64, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// layerInsights evaluates the HDF5 (H..), PnetCDF (N..) and Lustre (L..)
// rules.
func (m *metrics) layerInsights(add addFunc) {
	m.hdf5Insights(add)
	m.pnetcdfInsights(add)
	m.lustreInsights(add)
}

// smallAccesses reports many small dataset or variable accesses.
func (m *metrics) smallAccesses(add addFunc, code, what string, ds []*dataset, in Insight) {
	cfg := m.cfg
	var small, reads, writes int64
	var subj []Subject
	for _, d := range ds {
		reads += d.reads
		writes += d.writes
		if s := d.smallR + d.smallW; s > 0 {
			small += s
			subj = append(subj, Subject{File: d.name, Value: float64(s), Unit: "small accesses"})
		}
	}
	ops := reads + writes
	if small == 0 || ratio(small, ops) <= cfg.SmallRequests || small <= cfg.SmallRequestsAbsolute {
		return
	}
	in.Code, in.Level = code, LevelHigh
	in.Message = fmt.Sprintf("%d small %s accesses (under %s) are %s of all %d %s reads and writes (%d reads, %d writes)",
		small, what, fmtBytes(cfg.SmallBytes), pct(small, ops), ops, what, reads, writes)
	in.Subjects = topSubjects(subj)
	add(in)
}

// independent reports datasets or variables transferred without
// collective I/O in a parallel job.
func (m *metrics) independent(add addFunc, code string, ds []*dataset, eligible func(*dataset) bool, msg func(n int, ops int64) string, in Insight) {
	if m.l.Job.NProcs <= 1 {
		return
	}
	var subj []Subject
	var ops int64
	for _, d := range ds {
		if d.indep > 0 && d.coll == 0 && eligible(d) {
			ops += d.indep
			subj = append(subj, Subject{File: d.name, Value: float64(d.indep), Unit: "independent operations"})
		}
	}
	if len(subj) == 0 {
		return
	}
	in.Code, in.Level = code, LevelWarn
	if ops > m.cfg.CollectiveOperationsAbsolute {
		in.Level = LevelHigh
	}
	in.Message = msg(len(subj), ops)
	in.Subjects = topSubjects(subj)
	add(in)
}

func (m *metrics) hdf5Insights(add addFunc) {
	cfg, ly := m.cfg, &m.ly
	ds := sortedDatasets(ly.datasets)
	nprocs := m.l.Job.NProcs

	// H01: small dataset accesses.
	m.smallAccesses(add, "H01", "HDF5 dataset", ds, Insight{
		Recommendation: "Read and write larger hyperslabs per H5Dread/H5Dwrite call (blocks of rows rather than single elements or rows), and use collective transfers so that MPI-IO merges the ranks' pieces",
		Snippet:        snippetHDF5Collective,
	})

	// H02: independent transfers on files opened with the MPI-IO driver.
	m.independent(add, "H02", ds, func(d *dataset) bool {
		f := ly.h5Files[d.fileID]
		return f != nil && f.useMPIIO
	}, func(n int, ops int64) string {
		return fmt.Sprintf("%d dataset(s) of HDF5 files opened with the MPI-IO driver are transferred independently: %d H5Dread/H5Dwrite calls without a collective transfer property", n, ops)
	}, Insight{
		Recommendation: "Set the collective transfer mode on the dataset transfer property list (H5Pset_dxpl_mpio with H5FD_MPIO_COLLECTIVE) so that MPI-IO aggregates the ranks' requests",
		Snippet:        snippetHDF5Collective,
	})

	// H03: datasets opened again and again, files flushed often.
	var subj []Subject
	var details []string
	nOpen, nFlush := 0, 0
	for _, d := range ds {
		per := float64(d.opens) / float64(ranksOf(d.shared, d.recs, nprocs))
		if per > float64(cfg.HDF5DatasetOpens) {
			nOpen++
			subj = append(subj, Subject{File: d.name, Value: round2(per), Unit: "opens per rank"})
		}
	}
	for _, id := range sortedIDs(ly.h5Files) {
		f := ly.h5Files[id]
		per := float64(f.flushes) / float64(ranksOf(f.shared, f.recs, nprocs))
		if per > float64(cfg.HDF5Flushes) {
			nFlush++
			subj = append(subj, Subject{File: f.name, Value: round2(per), Unit: "flushes per rank"})
		}
	}
	if nOpen+nFlush > 0 {
		details = append(details,
			fmt.Sprintf("%d dataset(s) opened more than %d times per rank", nOpen, cfg.HDF5DatasetOpens),
			fmt.Sprintf("%d file(s) flushed more than %d times per rank (file and dataset flushes)", nFlush, cfg.HDF5Flushes))
		add(Insight{
			Code: "H03", Level: LevelWarn,
			Message:        fmt.Sprintf("HDF5 metadata overhead: %d dataset(s) opened repeatedly and %d file(s) flushed repeatedly by each rank", nOpen, nFlush),
			Details:        details,
			Subjects:       topSubjects(subj),
			Recommendation: "Keep datasets open across iterations instead of opening and closing them for each access, and flush only at checkpoints: each flush writes out the metadata cache and waits for the file system; make metadata operations collective",
			Snippet:        snippetHDF5Metadata,
		})
	}

	// H04: chunks much smaller than the common access.
	subj, details = nil, nil
	maxRatio := 0.0
	for _, d := range ds {
		if d.chunkBytes <= 0 || d.access <= 0 {
			continue
		}
		r := float64(d.access) / float64(d.chunkBytes)
		if r > cfg.HDF5ChunkRatio {
			maxRatio = max(maxRatio, r)
			subj = append(subj, Subject{File: d.name, Value: round2(r), Unit: "chunks per access"})
			details = append(details, fmt.Sprintf("%s: chunk %s, common access %s", d.name, fmtBytes(d.chunkBytes), fmtBytes(d.access)))
		}
	}
	if len(subj) > 0 {
		if len(details) > maxSubjects {
			details = details[:maxSubjects]
		}
		add(Insight{
			Code: "H04", Level: LevelWarn,
			Message: fmt.Sprintf("%d chunked HDF5 dataset(s) have chunks much smaller than their common access: up to %s chunks per access",
				len(subj), strconv.FormatFloat(round2(maxRatio), 'f', -1, 64)),
			Details:        details,
			Subjects:       topSubjects(subj),
			Recommendation: "Make chunks about as large as the common access (at least a Lustre stripe for large datasets) so that each access touches few chunks, and give the chunk cache room for the chunks one access touches",
			Snippet:        snippetHDF5Chunk + "\n\n" + snippetHDF5ChunkCache,
		})
	}
}

func (m *metrics) pnetcdfInsights(add addFunc) {
	cfg, ly := m.cfg, &m.ly
	vs := sortedDatasets(ly.variables)
	nprocs := m.l.Job.NProcs

	// N01: independent data mode.
	m.independent(add, "N01", vs, func(*dataset) bool { return true }, func(n int, ops int64) string {
		return fmt.Sprintf("%d PnetCDF variable(s) are accessed only in independent data mode: %d independent calls and no collective one", n, ops)
	}, Insight{
		Recommendation: "Stay in collective data mode and use the _all calls, or nonblocking calls completed with ncmpi_wait_all, so that PnetCDF hands collective requests to MPI-IO",
		Snippet:        snippetPnetCDFCollective,
	})

	// N02: small variable accesses.
	m.smallAccesses(add, "N02", "PnetCDF variable", vs, Insight{
		Recommendation: "Access larger subarrays per call (bigger counts in ncmpi_put_vara/ncmpi_get_vara), or post many small requests as nonblocking calls completed by one ncmpi_wait_all, which PnetCDF merges",
		Snippet:        snippetPnetCDFNonblocking,
	})

	files := make([]*pnFile, 0, len(ly.pnFiles))
	for _, id := range sortedIDs(ly.pnFiles) {
		files = append(files, ly.pnFiles[id])
	}
	slices.SortStableFunc(files, func(a, b *pnFile) int { return strings.Compare(a.name, b.name) })

	// N03: many re-defines.
	var subj []Subject
	for _, f := range files {
		per := float64(f.redefs) / float64(ranksOf(f.shared, f.recs, nprocs))
		if per > float64(cfg.PnetCDFRedefs) {
			subj = append(subj, Subject{File: f.name, Value: round2(per), Unit: "redefs per rank"})
		}
	}
	if len(subj) > 0 {
		add(Insight{
			Code: "N03", Level: LevelWarn,
			Message: fmt.Sprintf("%d PnetCDF file(s) re-enter define mode more than %d time(s) per rank: when the header grows, ncmpi_enddef moves the data of the existing variables",
				len(subj), cfg.PnetCDFRedefs),
			Subjects:       topSubjects(subj),
			Recommendation: "Define all dimensions, variables and attributes before the first ncmpi_enddef; reserve free header space (ncmpi__enddef or the nc_header_align_size hint) for attributes added later",
			Snippet:        snippetPnetCDFHeader,
		})
	}

	// N04: failed waits of nonblocking requests.
	subj = nil
	var failed, waits int64
	for _, f := range files {
		if f.waitFailures > 0 {
			failed += f.waitFailures
			waits += f.waits
			subj = append(subj, Subject{File: f.name, Value: float64(f.waitFailures), Unit: "failed waits"})
		}
	}
	if len(subj) > 0 {
		add(Insight{
			Code: "N04", Level: LevelWarn,
			Message:        fmt.Sprintf("%d wait call(s) for PnetCDF nonblocking requests failed on %d file(s) (of %d wait calls there)", failed, len(subj), waits),
			Subjects:       topSubjects(subj),
			Recommendation: "Check the status array of ncmpi_wait_all/ncmpi_wait: the failed requests did not move their data; common causes are requests outside the variable's bounds and buffers freed or changed before the wait",
		})
	}
}

// lustreFile is a file with a Lustre layout.
type lustreFile struct {
	id     uint64
	name   string
	layout *darshan.Lustre
	osts   []int64 // distinct OSTs
	bytes  int64
	shared bool
}

func (m *metrics) lustreInsights(add addFunc) {
	cfg, ly := m.cfg, &m.ly
	if len(ly.lustre) == 0 {
		return
	}
	var lfs []lustreFile
	for _, id := range sortedIDs(ly.lustre) {
		lf := lustreFile{id: id, name: m.recordName(id), layout: ly.lustre[id]}
		lf.osts = slices.Compact(slices.Sorted(slices.Values(lf.layout.OSTs)))
		if f := m.files[id]; f != nil {
			t := f.totals()
			lf.bytes = t.bytesR + t.bytesW
			lf.shared = f.shared || slices.Max(f.rankRecs[:]) > 1
		}
		lfs = append(lfs, lf)
	}
	slices.SortStableFunc(lfs, func(a, b lustreFile) int { return strings.Compare(a.name, b.name) })

	// L01: stripe size vs common access size.
	var subj []Subject
	var details []string
	for _, lf := range lfs {
		stripe := lf.layout.Components[0].StripeSize
		ac := ly.commonAccess(lf.id)
		if stripe <= 0 || ac.size < cfg.LustreMinAccess || ac.size >= 8*stripe || ac.size%stripe == 0 || stripe%ac.size == 0 {
			continue
		}
		subj = append(subj, Subject{File: lf.name, Value: float64(ac.count), Unit: "accesses of " + fmtBytes(ac.size)})
		details = append(details, fmt.Sprintf("%s: stripe size %s, common access %s (%d times)", lf.name, fmtBytes(stripe), fmtBytes(ac.size), ac.count))
	}
	if len(subj) > 0 {
		if len(details) > maxSubjects {
			details = details[:maxSubjects]
		}
		add(Insight{
			Code: "L01", Level: LevelWarn,
			Message:        fmt.Sprintf("%d Lustre file(s) have a common access size that is neither a multiple nor a divisor of their stripe size: accesses straddle stripe boundaries and involve two OSTs", len(subj)),
			Details:        details,
			Subjects:       topSubjects(subj),
			Recommendation: "Make the stripe size a multiple of the common access size, or the access size a multiple of the stripe size, so that each request maps to whole stripes",
			Snippet:        snippetLustreStripe,
		})
	}

	// L02: large shared files on a single OST.
	subj = nil
	var total int64
	for _, lf := range lfs {
		if len(lf.osts) == 1 && lf.shared && lf.bytes > cfg.LustreLargeFile {
			total += lf.bytes
			subj = append(subj, Subject{File: lf.name, Value: float64(lf.bytes), Unit: "bytes"})
		}
	}
	if len(subj) > 0 {
		add(Insight{
			Code: "L02", Level: LevelHigh,
			Message:        fmt.Sprintf("%d large shared file(s) are striped over a single OST: all ranks' I/O to them (%s) goes through one storage target", len(subj), fmtBytes(total)),
			Subjects:       topSubjects(subj),
			Recommendation: "Stripe large shared files over many OSTs (lfs setstripe -c) before they are created, e.g. on their output directory so that new files inherit the layout",
			Snippet:        snippetLustreStripe,
		})
	}

	// L03: OST imbalance: files per OST.
	perOST := map[int64][]int{} // OST -> indices into lfs
	for i, lf := range lfs {
		for _, o := range lf.osts {
			perOST[o] = append(perOST[o], i)
		}
	}
	if len(perOST) < 2 {
		return
	}
	type ostLoad struct {
		ost   int64
		files int
	}
	var loads []ostLoad
	placements := 0
	for o, fs := range perOST {
		loads = append(loads, ostLoad{o, len(fs)})
		placements += len(fs)
	}
	slices.SortFunc(loads, func(a, b ostLoad) int {
		if c := cmp.Compare(b.files, a.files); c != 0 {
			return c
		}
		return cmp.Compare(a.ost, b.ost)
	})
	mean := float64(placements) / float64(len(loads))
	busiest := loads[0]
	if float64(busiest.files) <= cfg.LustreOSTImbalance*mean {
		return
	}
	details = nil
	for _, l := range loads[:min(len(loads), maxSubjects)] {
		details = append(details, fmt.Sprintf("OST %d: %d file(s)", l.ost, l.files))
	}
	subj = nil
	for _, i := range perOST[busiest.ost] {
		subj = append(subj, Subject{File: lfs[i].name, Value: float64(lfs[i].bytes), Unit: "bytes"})
	}
	add(Insight{
		Code: "L03", Level: LevelWarn,
		Message: fmt.Sprintf("OST imbalance: OST %d holds %d of the job's %d Lustre files, %s times the mean of %s files per OST over the %d OSTs used",
			busiest.ost, busiest.files, len(lfs), strconv.FormatFloat(round2(float64(busiest.files)/mean), 'f', -1, 64),
			strconv.FormatFloat(round2(mean), 'f', -1, 64), len(loads)),
		Details:        details,
		Subjects:       topSubjects(subj),
		Recommendation: "Spread the files over the OSTs: let Lustre choose each file's first OST (no fixed stripe offset, lfs setstripe -i -1) and stripe large files over several OSTs",
		Snippet:        snippetLustreStripe,
	})
}
