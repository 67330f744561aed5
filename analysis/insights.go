package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/darshan"
)

// maxSubjects is the number of files or ranks an insight names.
const maxSubjects = 10

// Example code attached to recommendations.
const (
	snippetMPIIOCollRead = `MPI_File fh;
MPI_File_open(MPI_COMM_WORLD, "data", MPI_MODE_RDONLY, info, &fh);
MPI_File_set_view(fh, disp, MPI_DOUBLE, filetype, "native", info);
MPI_File_read_all(fh, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE);  /* collective */
MPI_File_close(&fh);`
	snippetMPIIOCollWrite = `MPI_File fh;
MPI_File_open(MPI_COMM_WORLD, "data", MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
MPI_File_set_view(fh, disp, MPI_DOUBLE, filetype, "native", info);
MPI_File_write_all(fh, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE);  /* collective */
MPI_File_close(&fh);`
	snippetHDF5Collective = `hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
H5Dwrite(dset, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, buf);`
	snippetPnetCDFCollective = `/* the _all variants are collective */
ncmpi_put_vara_double_all(ncid, varid, start, count, buf);`
	snippetHDF5Alignment = `hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
/* objects of 1 MiB or more start at a multiple of the stripe size */
H5Pset_alignment(fapl, 1048576, stripe_size);
hid_t file = H5Fcreate("data.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);`
	snippetLustreStripe = `# stripe new files of the output directory over 8 OSTs, 4 MiB stripes
lfs setstripe -c 8 -S 4M /path/to/output/dir
lfs getstripe /path/to/output/dir/file`
	snippetHDF5Metadata = `hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
H5Pset_all_coll_metadata_ops(fapl, 1);   /* collective metadata reads */
H5Pset_coll_metadata_write(fapl, 1);     /* collective metadata writes */`
	snippetHDF5ChunkCache = `hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
/* 521 hash slots, 64 MiB of chunk cache, evict fully read chunks first */
H5Pset_chunk_cache(dapl, 521, 64 << 20, 1.0);
hid_t dset = H5Dopen(file, "/data", dapl);`
	snippetNoFill = `/* HDF5: do not write fill values when datasets are allocated */
H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
/* PnetCDF: no fill mode for the whole file */
ncmpi_set_fill(ncid, NC_NOFILL, NULL);`
	snippetMPIIONonblocking = `MPI_Request req;
MPI_File_iwrite_at_all(fh, offset, buf, count, MPI_DOUBLE, &req);
compute();                       /* overlaps with the write */
MPI_Wait(&req, MPI_STATUS_IGNORE);`
	snippetMPIIONonblockingRead = `MPI_Request req;
MPI_File_iread_at_all(fh, offset, buf, count, MPI_DOUBLE, &req);
compute();                       /* overlaps with the read */
MPI_Wait(&req, MPI_STATUS_IGNORE);`
	snippetHDF5Async = `# run with the asynchronous I/O VOL connector (hpc-io/vol-async)
export HDF5_PLUGIN_PATH=/path/to/vol-async/lib
export HDF5_VOL_CONNECTOR="async under_vol=0;under_info={}"
export MPICH_MAX_THREAD_SAFETY=multiple`
	snippetPnetCDFNonblocking = `int req[2], st[2];
ncmpi_iput_vara_double(ncid, v1, start, count, a, &req[0]);
ncmpi_iput_vara_double(ncid, v2, start, count, b, &req[1]);
ncmpi_wait_all(ncid, 2, req, st);  /* one aggregated request */`
	snippetHints = `# ROMIO hints file: one aggregator per node
cb_nodes 4
romio_cb_write enable
export ROMIO_HINTS=$PWD/romio-hints`
)

// insights evaluates every rule on the metrics of one pass. Each code is
// reported at most once.
func (m *metrics) insights(rep *Report) []Insight {
	var out []Insight
	add := func(in Insight) {
		if in.Details == nil {
			in.Details = []string{}
		}
		out = append(out, in)
	}
	cfg := m.cfg
	hasMPIIO := m.present[darshan.ModMPIIO]
	hasHDF5 := m.present[darshan.ModH5F] || m.present[darshan.ModH5D]
	hasPnetCDF := m.present[darshan.ModPnetCDFFile] || m.present[darshan.ModPnetCDFVar]
	files := m.sortedFiles()

	// S01: share of bytes through STDIO.
	stdio := m.mods[darshan.ModSTDIO].bytesR + m.mods[darshan.ModSTDIO].bytesW
	posix := m.mods[darshan.ModPOSIX].bytesR + m.mods[darshan.ModPOSIX].bytesW
	mpiio := m.mods[darshan.ModMPIIO].bytesR + m.mods[darshan.ModMPIIO].bytesW
	if posix >= mpiio {
		posix -= mpiio
	}
	if total := stdio + posix + mpiio; total > 0 && ratio(stdio, total) > cfg.InterfaceSTDIO {
		add(Insight{
			Code: "S01", Level: LevelHigh,
			Message: fmt.Sprintf("STDIO moves %s of the %s the job transfers (%s)", pct(stdio, total), fmtBytes(total), fmtBytes(stdio)),
			Subjects: top(files, func(f *fileStats) (float64, bool) {
				return float64(f.stdioBytes), f.stdioBytes > 0
			}, "bytes"),
			Recommendation: "Move bulk data to POSIX read/write with large buffers, or to MPI-IO, HDF5 or PnetCDF; keep STDIO for logs and small text",
		})
	}

	// M01: no MPI-IO.
	if !hasMPIIO && (m.pReads+m.pWrites > 0 || stdio > 0) {
		add(Insight{
			Code: "M01", Level: LevelWarn,
			Message:        "The job does not use MPI-IO: its I/O cannot use collective buffering or MPI-IO hints",
			Recommendation: "For parallel jobs, move file access to MPI-IO (or to HDF5 or PnetCDF on top of it) to use collective I/O",
		})
	}

	m.posixInsights(add, files, hasMPIIO, hasHDF5, hasPnetCDF)
	if hasMPIIO {
		m.mpiioInsights(add, files, rep.Job, hasHDF5, hasPnetCDF)
	}

	m.traceInsights(add, hasMPIIO)
	m.layerInsights(add)

	// X01: incomplete modules.
	if len(rep.Job.Partial) > 0 {
		add(Insight{
			Code: "X01", Level: LevelWarn,
			Message:        fmt.Sprintf("The log flags %s as incomplete: the runtime ran out of memory for records, so counts are lower bounds", strings.Join(rep.Job.Partial, ", ")),
			Recommendation: "Rerun with more memory for the instrumentation (DARSHAN_MODMEM, or IOLENS_DXT_MAX and IOLENS_STORE_MAX with iolens run) to capture every record",
		})
	}
	// X02: unreadable modules.
	if len(m.unreadable) > 0 {
		add(Insight{
			Code: "X02", Level: LevelWarn,
			Message:        fmt.Sprintf("%d module(s) of the log could not be read completely; the analysis uses the records read before the error", len(m.unreadable)),
			Details:        m.unreadable,
			Recommendation: "Check the log with iolens parse; regenerate it if it is damaged",
		})
	}
	slices.SortStableFunc(out, func(a, b Insight) int { return strings.Compare(a.Code, b.Code) })
	return out
}

type addFunc func(Insight)

func (m *metrics) posixInsights(add addFunc, files []*fileStats, hasMPIIO, hasHDF5, hasPnetCDF bool) {
	cfg := m.cfg
	ops := m.pReads + m.pWrites
	// P01–P02: operation intensity.
	if ops > 0 && ratio(abs(m.pWrites-m.pReads), ops) > cfg.ImbalanceOperations {
		in := Insight{Code: "P01", Level: LevelInfo, Message: fmt.Sprintf("The job is write-intensive by operations: %s writes (%d) vs. %s reads (%d)",
			pct(m.pWrites, ops), m.pWrites, pct(m.pReads, ops), m.pReads)}
		if m.pReads > m.pWrites {
			in.Code = "P02"
			in.Message = fmt.Sprintf("The job is read-intensive by operations: %s reads (%d) vs. %s writes (%d)",
				pct(m.pReads, ops), m.pReads, pct(m.pWrites, ops), m.pWrites)
		}
		add(in)
	}
	// P03–P04: size intensity.
	if size := m.pBytesR + m.pBytesW; size > 0 && ratio(abs(m.pBytesW-m.pBytesR), size) > cfg.ImbalanceOperations {
		in := Insight{Code: "P03", Level: LevelInfo, Message: fmt.Sprintf("The job is write-intensive by bytes: %s written (%s) vs. %s read (%s)",
			pct(m.pBytesW, size), fmtBytes(m.pBytesW), pct(m.pBytesR, size), fmtBytes(m.pBytesR))}
		if m.pBytesR > m.pBytesW {
			in.Code = "P04"
			in.Message = fmt.Sprintf("The job is read-intensive by bytes: %s read (%s) vs. %s written (%s)",
				pct(m.pBytesR, size), fmtBytes(m.pBytesR), pct(m.pBytesW, size), fmtBytes(m.pBytesW))
		}
		add(in)
	}

	small := fmtBytes(cfg.SmallBytes)
	collRead, collWrite := "", ""
	switch {
	case hasHDF5:
		collRead, collWrite = snippetHDF5Collective, snippetHDF5Collective
	case hasPnetCDF:
		collRead, collWrite = snippetPnetCDFCollective, snippetPnetCDFCollective
	default:
		collRead, collWrite = snippetMPIIOCollRead, snippetMPIIOCollWrite
	}
	smallRec := func(op string) string {
		r := fmt.Sprintf("Aggregate %ss into fewer, larger, contiguous requests (buffer in memory)", op)
		switch {
		case hasHDF5:
			r += "; with HDF5, use collective transfers (H5Pset_dxpl_mpio) and chunks of at least a stripe"
		case hasPnetCDF:
			r += "; with PnetCDF, use the collective _all calls or nonblocking requests flushed with ncmpi_wait_all"
		case hasMPIIO:
			r += fmt.Sprintf("; the job uses MPI-IO already: collective calls (MPI_File_%s_all, MPI_File_%s_at_all) merge small requests", op, op)
		default:
			r += "; or move to MPI-IO collective calls, which merge small requests across ranks"
		}
		return r
	}
	// P05–P06: small requests.
	if m.pSmallR > 0 && ratio(m.pSmallR, m.pReads) > cfg.SmallRequests && m.pSmallR > cfg.SmallRequestsAbsolute {
		add(Insight{
			Code: "P05", Level: LevelHigh,
			Message:        fmt.Sprintf("%d small reads (under %s) are %s of all %d POSIX reads", m.pSmallR, small, pct(m.pSmallR, m.pReads), m.pReads),
			Subjects:       top(files, func(f *fileStats) (float64, bool) { return float64(f.pSmallR), f.pSmallR > 0 }, "small reads"),
			Recommendation: smallRec("read"), Snippet: collRead,
		})
	}
	if m.pSmallW > 0 && ratio(m.pSmallW, m.pWrites) > cfg.SmallRequests && m.pSmallW > cfg.SmallRequestsAbsolute {
		add(Insight{
			Code: "P06", Level: LevelHigh,
			Message:        fmt.Sprintf("%d small writes (under %s) are %s of all %d POSIX writes", m.pSmallW, small, pct(m.pSmallW, m.pWrites), m.pWrites),
			Subjects:       top(files, func(f *fileStats) (float64, bool) { return float64(f.pSmallW), f.pSmallW > 0 }, "small writes"),
			Recommendation: smallRec("write"), Snippet: collWrite,
		})
	}
	// P07–P08: misaligned requests.
	if ops > 0 && ratio(m.pMemNA, ops) > cfg.MisalignedRequests {
		add(Insight{
			Code: "P07", Level: LevelHigh,
			Message:        fmt.Sprintf("%s of POSIX requests (%d of %d) use memory buffers that are not aligned", pct(m.pMemNA, ops), m.pMemNA, ops),
			Recommendation: "Allocate I/O buffers aligned to the memory page or file system block (posix_memalign, aligned_alloc)",
		})
	}
	if ops > 0 && ratio(m.pFileNA, ops) > cfg.MisalignedRequests {
		in := Insight{
			Code: "P08", Level: LevelHigh,
			Message:        fmt.Sprintf("%s of POSIX requests (%d of %d) start at file offsets not aligned to the file system block", pct(m.pFileNA, ops), m.pFileNA, ops),
			Subjects:       top(files, func(f *fileStats) (float64, bool) { return float64(f.pNotAligned), f.pNotAligned > 0 }, "misaligned requests"),
			Recommendation: "Make request sizes and offsets multiples of the file system block or stripe size",
		}
		switch {
		case hasHDF5:
			in.Recommendation += "; with HDF5, set H5Pset_alignment on the file access property list so large objects start on stripe boundaries"
			in.Snippet = snippetHDF5Alignment
		case m.present[darshan.ModLustre]:
			in.Recommendation += "; on Lustre, match the stripe size to the request size"
			in.Snippet = snippetLustreStripe
		}
		if hasPnetCDF {
			in.Recommendation += "; with PnetCDF, align the header and fixed-size variables with the nc_header_align_size and nc_var_align_size hints"
		}
		add(in)
	}
	// P09–P10: redundant traffic, per file.
	m.redundant(add, files, "P09", "read", func(f *fileStats) (int64, int64) { return f.pBytesR, f.pMaxByteR })
	m.redundant(add, files, "P10", "written", func(f *fileStats) (int64, int64) { return f.pBytesW, f.pMaxByteW })

	// P11–P14: random access.
	randomCheck := func(codeHigh, codeOK, op string, total, seq int64, random func(*fileStats) int64) {
		if total == 0 {
			return
		}
		rnd := total - seq
		if rnd > 0 && ratio(rnd, total) > cfg.RandomOperations && rnd > cfg.RandomOperationsAbsolute {
			add(Insight{
				Code: codeHigh, Level: LevelHigh,
				Message:        fmt.Sprintf("%d POSIX %ss (%s) are random: not at a higher offset than the previous %s", rnd, op, pct(rnd, total), op),
				Subjects:       top(files, func(f *fileStats) (float64, bool) { v := random(f); return float64(v), v > 0 }, "random "+op+"s"),
				Recommendation: fmt.Sprintf("Change the data layout or the access order so that each rank's %ss are sequential; sort requests by offset, or let MPI-IO collective calls reorder them", op),
			})
			return
		}
		add(Insight{
			Code: codeOK, Level: LevelOK,
			Message: fmt.Sprintf("POSIX %ss are mostly sequential: %s of %d", op, pct(seq, total), total),
		})
	}
	randomCheck("P11", "P12", "read", m.pReads, m.pSeqR, func(f *fileStats) int64 { return f.pRandomR })
	randomCheck("P13", "P14", "write", m.pWrites, m.pSeqW, func(f *fileStats) int64 { return f.pRandomW })

	// P15–P16: small requests to shared files.
	sharedSmall := func(code, op string, small, total int64, per func(*fileStats) int64, snippet string) {
		if total == 0 || ratio(small, total) <= cfg.SmallRequests || small <= cfg.SmallRequestsAbsolute {
			return
		}
		add(Insight{
			Code: code, Level: LevelHigh,
			Message: fmt.Sprintf("%d small %ss (under %s) to files shared by all ranks are %s of the %d %ss to shared files",
				small, op, fmtBytes(cfg.SmallBytes), pct(small, total), total, op),
			Subjects: top(files, func(f *fileStats) (float64, bool) {
				v := per(f)
				return float64(v), f.shared && v > 0
			}, "small "+op+"s"),
			Recommendation: fmt.Sprintf("Let the ranks %s shared files with collective calls, which merge their small requests into large ones on a few aggregators", op),
			Snippet:        snippet,
		})
	}
	sharedSmall("P15", "read", m.shSmallR, m.shReads, func(f *fileStats) int64 { return f.pSmallR }, collRead)
	sharedSmall("P16", "write", m.shSmallW, m.shWrites, func(f *fileStats) int64 { return f.pSmallW }, collWrite)

	// P17: metadata time per rank.
	m.metadataTime(add, hasHDF5)

	// P18–P19: stragglers on shared files.
	var dataImb, timeImb []Subject
	nData, nTime := 0, 0
	for _, f := range files {
		if !f.shared {
			continue
		}
		if b := f.pBytesR + f.pBytesW; b > 0 && ratio(f.slowFastBytes, b) > cfg.ImbalanceStragglers {
			nData++
			dataImb = append(dataImb, Subject{File: f.name, Value: round2(100 * ratio(f.slowFastBytes, b)), Unit: "% imbalance"})
		}
		if f.sharedTime > 0 && f.slowFastTime/f.sharedTime > cfg.ImbalanceStragglers {
			nTime++
			timeImb = append(timeImb, Subject{File: f.name, Value: round2(100 * f.slowFastTime / f.sharedTime), Unit: "% imbalance"})
		}
	}
	stripe := "Balance the data among ranks; check the stripe count and size of the shared files so that all ranks reach as many storage targets"
	if nData > 0 {
		add(Insight{
			Code: "P18", Level: LevelHigh,
			Message:        fmt.Sprintf("Data imbalance between ranks on %d shared file(s): the slowest and the fastest rank moved different amounts of data", nData),
			Subjects:       topSubjects(dataImb),
			Recommendation: stripe, Snippet: snippetLustreStripe,
		})
	}
	if nTime > 0 {
		add(Insight{
			Code: "P19", Level: LevelHigh,
			Message:        fmt.Sprintf("Time imbalance between ranks on %d shared file(s): the slowest rank spent much longer than the fastest", nTime),
			Subjects:       topSubjects(timeImb),
			Recommendation: stripe, Snippet: snippetLustreStripe,
		})
	}

	// P21–P22: imbalance on files with per-rank records.
	indiv := func(code, op string, val func(*fileStats) (lo, hi int64)) {
		var subj []Subject
		for _, f := range files {
			if f.shared || f.pRankRecs < 2 {
				continue
			}
			lo, hi := val(f)
			if hi > 0 && ratio(hi-lo, hi) > cfg.ImbalanceSize {
				subj = append(subj, Subject{File: f.name, Value: round2(100 * ratio(hi-lo, hi)), Unit: "% imbalance"})
			}
		}
		if len(subj) == 0 {
			return
		}
		in := Insight{
			Code: code, Level: LevelHigh,
			Message:        fmt.Sprintf("%s imbalance between ranks on %d file(s) accessed by several ranks", op, len(subj)),
			Subjects:       topSubjects(subj),
			Recommendation: "Balance the data among ranks; if one rank does all the I/O of a file, let all ranks take part through MPI-IO collective calls",
		}
		if hasHDF5 || hasPnetCDF {
			in.Recommendation += "; HDF5 and PnetCDF write fill values by default: disable filling when every element is written anyway"
			in.Snippet = snippetNoFill
		}
		add(in)
	}
	indiv("P21", "Write", func(f *fileStats) (int64, int64) { return f.pMinW, f.pMaxW })
	indiv("P22", "Read", func(f *fileStats) (int64, int64) { return f.pMinR, f.pMaxR })
}

// redundant reports files that moved more bytes than the extent they
// accessed.
func (m *metrics) redundant(add addFunc, files []*fileStats, code, op string, get func(*fileStats) (bytes, extent int64)) {
	var subj []Subject
	var excess, moved int64
	for _, f := range files {
		b, ext := get(f)
		if ext > 0 && b > ext {
			subj = append(subj, Subject{File: f.name, Value: float64(b - ext), Unit: "bytes " + op + " again"})
			excess += b - ext
			moved += b
		}
	}
	if len(subj) == 0 {
		return
	}
	verb := map[string]string{"read": "read", "written": "written"}[op]
	add(Insight{
		Code: code, Level: LevelWarn,
		Message: fmt.Sprintf("Redundant traffic: %d file(s) had bytes %s more than once: %s beyond the extents accessed, of %s %s from them",
			len(subj), verb, fmtBytes(excess), fmtBytes(moved), verb),
		Subjects:       topSubjects(subj),
		Recommendation: map[string]string{"read": "Read data once and share it (e.g. read on one rank and broadcast, or cache it in memory) instead of reading the same bytes again", "written": "Avoid overwriting the same bytes: write each region once, after it is final"}[op],
	})
}

func (m *metrics) metadataTime(add addFunc, hasHDF5 bool) {
	n := m.l.Job.NProcs
	share := 0.0
	if n > 0 {
		share = m.sharedMeta / float64(n)
	}
	thr := m.cfg.MetadataTimeRank
	var subj []Subject
	count := int64(0)
	for r, t := range m.metaByRank {
		if t+share > thr {
			count++
			rank := r
			subj = append(subj, Subject{Rank: &rank, Value: round2(t + share), Unit: "s"})
		}
	}
	if share > thr {
		others := n - int64(len(m.metaByRank))
		if others > 0 {
			count += others
		}
	}
	if count == 0 {
		return
	}
	in := Insight{
		Code: "P17", Level: LevelHigh,
		Message:        fmt.Sprintf("%d rank(s) spend more than %s s in POSIX metadata operations (open, stat, seek, sync, close)", count, strconv.FormatFloat(thr, 'g', -1, 64)),
		Subjects:       topSubjects(subj),
		Recommendation: "Open and close files less often, combine small files, cache stat results, or let one rank do the metadata work and share it",
	}
	if hasHDF5 {
		in.Recommendation += "; with HDF5, make metadata operations collective and enlarge the metadata and chunk caches"
		in.Snippet = snippetHDF5Metadata + "\n\n" + snippetHDF5ChunkCache
	}
	add(in)
}

func (m *metrics) mpiioInsights(add addFunc, files []*fileStats, job Job, hasHDF5, hasPnetCDF bool) {
	cfg := m.cfg
	coll := func(codeHigh, codeOK, op string, collN, indepN int64, perFile func(*fileStats) (indep, otherIndep int64), snippet string) {
		total := collN + indepN
		if collN > 0 {
			add(Insight{Code: codeOK, Level: LevelOK, Message: fmt.Sprintf("MPI-IO %ss are collective: %d of %d (%s)", op, collN, total, pct(collN, total))})
			return
		}
		if total <= cfg.CollectiveOperationsAbsolute {
			return
		}
		var subj []Subject
		for _, f := range files {
			ind, other := perFile(f)
			if ind+other > 0 && ratio(ind, ind+other) > cfg.CollectiveOperations {
				subj = append(subj, Subject{File: f.name, Value: float64(ind), Unit: "independent " + op + "s"})
			}
		}
		add(Insight{
			Code: codeHigh, Level: LevelHigh,
			Message:        fmt.Sprintf("The job uses MPI-IO but no %s is collective: all %d MPI-IO %ss are independent", op, indepN, op),
			Subjects:       topSubjects(subj),
			Recommendation: fmt.Sprintf("Use collective %ss (MPI_File_%s_all, MPI_File_%s_at_all) so that MPI-IO merges the ranks' requests on one aggregator per node", op, op, op),
			Snippet:        snippet,
		})
	}
	coll("M02", "M04", "read", m.collR, m.indepR, func(f *fileStats) (int64, int64) { return f.indepR, f.indepW }, snippetMPIIOCollRead)
	coll("M03", "M05", "write", m.collW, m.indepW, func(f *fileStats) (int64, int64) { return f.indepW, f.indepR }, snippetMPIIOCollWrite)

	mods := m.mods[darshan.ModMPIIO]
	nb := func(code, op string, ops, nbN int64) {
		if ops == 0 || nbN > 0 {
			return
		}
		in := Insight{
			Code: code, Level: LevelWarn,
			Message:        fmt.Sprintf("All %d MPI-IO %ss are blocking: the job waits for each one instead of overlapping it with computation", ops, op),
			Recommendation: fmt.Sprintf("Use non-blocking %ss (MPI_File_i%s, MPI_File_i%s_all) and wait for them later", op, op, op),
			Snippet:        nonblockingSnippet(op),
		}
		switch {
		case hasHDF5:
			in.Recommendation += "; with HDF5, the asynchronous I/O VOL connector overlaps dataset I/O with computation"
			in.Snippet = snippetHDF5Async
		case hasPnetCDF:
			in.Recommendation += "; with PnetCDF, post nonblocking requests (ncmpi_iput_vara/ncmpi_iget_vara) and complete them together with ncmpi_wait_all"
			in.Snippet = snippetPnetCDFNonblocking
		}
		add(in)
	}
	nb("M06", "read", mods.reads, m.mNbR)
	nb("M07", "write", mods.writes, m.mNbW)

	// M08–M10: aggregators per node.
	cbNodes := int64(-1)
	for _, h := range job.Hints {
		if h.Key == "cb_nodes" {
			if v, err := strconv.ParseInt(h.Value, 10, 64); err == nil && v > 0 {
				cbNodes = v
			}
		}
	}
	nodes := int64(job.Nodes)
	if cbNodes < 0 || nodes <= 0 {
		return
	}
	switch {
	case cbNodes > nodes:
		add(Insight{
			Code: "M09", Level: LevelHigh,
			Message:        fmt.Sprintf("cb_nodes=%d MPI-IO aggregators for %d compute node(s): more aggregators than nodes, so several share a node's memory and network link", cbNodes, nodes),
			Recommendation: fmt.Sprintf("Set one aggregator per compute node (cb_nodes=%d) with an MPI_Info hint or a ROMIO hints file", nodes),
			Snippet:        strings.Replace(snippetHints, "cb_nodes 4", fmt.Sprintf("cb_nodes %d", nodes), 1),
		})
	case cbNodes < nodes:
		add(Insight{Code: "M08", Level: LevelOK, Message: fmt.Sprintf("cb_nodes=%d MPI-IO aggregators for %d compute nodes: fewer aggregators than nodes", cbNodes, nodes)})
	default:
		add(Insight{Code: "M10", Level: LevelOK, Message: fmt.Sprintf("One MPI-IO aggregator per compute node (cb_nodes=%d, %d nodes)", cbNodes, nodes)})
	}
}

// sortedFiles returns the files in a stable order (by name) so that
// subjects with equal values come out the same way every time.
func (m *metrics) sortedFiles() []*fileStats {
	out := make([]*fileStats, 0, len(m.files))
	for _, f := range m.files {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *fileStats) int { return strings.Compare(a.name, b.name) })
	return out
}

// top returns the files with the largest values, at most maxSubjects.
func top(files []*fileStats, val func(*fileStats) (float64, bool), unit string) []Subject {
	var subj []Subject
	for _, f := range files {
		if v, ok := val(f); ok {
			subj = append(subj, Subject{File: f.name, Value: v, Unit: unit})
		}
	}
	return topSubjects(subj)
}

// topSubjects returns the first maxSubjects subjects in decreasing value
// (for equal values, increasing rank, then the order of s): what a stable
// sort would put first, found in one pass, since s may hold every file of
// a large job.
func topSubjects(s []Subject) []Subject {
	before := func(a, b Subject) bool { // a sorts strictly before b
		if a.Value != b.Value {
			return a.Value > b.Value
		}
		return a.Rank != nil && b.Rank != nil && *a.Rank < *b.Rank
	}
	best := make([]Subject, 0, min(len(s), maxSubjects))
	for _, x := range s {
		// After every kept subject that x does not sort before: stable.
		i := len(best)
		for i > 0 && before(x, best[i-1]) {
			i--
		}
		if i >= maxSubjects {
			continue
		}
		if len(best) < maxSubjects {
			best = append(best, Subject{})
		}
		copy(best[i+1:], best[i:])
		best[i] = x
	}
	return best
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func abs(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

func round2(v float64) float64 {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	r, _ := strconv.ParseFloat(s, 64)
	return r
}

// pct formats a/b as a percentage with two decimals.
func pct(a, b int64) string {
	return strconv.FormatFloat(100*ratio(a, b), 'f', 2, 64) + "%"
}

// fmtBytes formats a byte count with binary units.
func fmtBytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n), -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + " " + string(units[i]) + "iB"
}

// nonblockingSnippet shows a non-blocking MPI-IO read or write (op "read"
// or "write") overlapped with computation.
func nonblockingSnippet(op string) string {
	if op == "read" {
		return snippetMPIIONonblockingRead
	}
	return snippetMPIIONonblocking
}
