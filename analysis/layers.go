package analysis

import (
	"strconv"
	"sync"

	"github.com/iolens/iolens/darshan"
)

// Metrics of the HDF5 (H5F, H5D), PnetCDF (PNETCDF_FILE, PNETCDF_VAR)
// and LUSTRE modules, behind the H.., N.. and L.. insights.

// layerIndices are the indices of the counters these insights use.
type layerIndices struct {
	h5fFlushes, h5fMPIIO                                     int
	h5dOpens, h5dReads, h5dWrites, h5dFlushes, h5dColl       int
	h5dBytesR, h5dBytesW, h5dAccess, h5dDtype, h5dNdims      int
	h5dChunk                                                 []int // D1..D5
	h5dSizeR, h5dSizeW                                       []int
	pfRedefs, pfWaitFail, pfIndepWaits, pfCollWaits          int
	pvIndepR, pvIndepW, pvCollR, pvCollW, pvNbR, pvNbW       int
	pvSizeR, pvSizeW                                         []int
	posixAccess, posixAccessCount, mpiAccess, mpiAccessCount []int // ACCESS1..4
}

// layerIdx returns the indices of the counters these insights use, found
// on first use.
var layerIdx = sync.OnceValue(func() *layerIndices {
	x := &layerIndices{}
	hf, hd := darshan.ModH5F, darshan.ModH5D
	pf, pv := darshan.ModPnetCDFFile, darshan.ModPnetCDFVar
	x.h5fFlushes, x.h5fMPIIO = hf.CounterIndex("H5F_FLUSHES"), hf.CounterIndex("H5F_USE_MPIIO")
	x.h5dOpens, x.h5dReads, x.h5dWrites = hd.CounterIndex("H5D_OPENS"), hd.CounterIndex("H5D_READS"), hd.CounterIndex("H5D_WRITES")
	x.h5dFlushes, x.h5dColl = hd.CounterIndex("H5D_FLUSHES"), hd.CounterIndex("H5D_USE_MPIIO_COLLECTIVE")
	x.h5dBytesR, x.h5dBytesW = hd.CounterIndex("H5D_BYTES_READ"), hd.CounterIndex("H5D_BYTES_WRITTEN")
	x.h5dAccess, x.h5dDtype, x.h5dNdims = hd.CounterIndex("H5D_ACCESS1_ACCESS"), hd.CounterIndex("H5D_DATATYPE_SIZE"), hd.CounterIndex("H5D_DATASPACE_NDIMS")
	x.pfRedefs, x.pfWaitFail = pf.CounterIndex("PNETCDF_FILE_REDEFS"), pf.CounterIndex("PNETCDF_FILE_WAIT_FAILURES")
	x.pfIndepWaits, x.pfCollWaits = pf.CounterIndex("PNETCDF_FILE_INDEP_WAITS"), pf.CounterIndex("PNETCDF_FILE_COLL_WAITS")
	x.pvIndepR, x.pvIndepW = pv.CounterIndex("PNETCDF_VAR_INDEP_READS"), pv.CounterIndex("PNETCDF_VAR_INDEP_WRITES")
	x.pvCollR, x.pvCollW = pv.CounterIndex("PNETCDF_VAR_COLL_READS"), pv.CounterIndex("PNETCDF_VAR_COLL_WRITES")
	x.pvNbR, x.pvNbW = pv.CounterIndex("PNETCDF_VAR_NB_READS"), pv.CounterIndex("PNETCDF_VAR_NB_WRITES")
	all := []int{x.h5fFlushes, x.h5fMPIIO, x.h5dOpens, x.h5dReads, x.h5dWrites, x.h5dFlushes, x.h5dColl, x.h5dBytesR,
		x.h5dBytesW, x.h5dAccess, x.h5dDtype, x.h5dNdims, x.pfRedefs, x.pfWaitFail, x.pfIndepWaits, x.pfCollWaits,
		x.pvIndepR, x.pvIndepW, x.pvCollR, x.pvCollW, x.pvNbR, x.pvNbW}
	for d := 1; d <= 5; d++ {
		x.h5dChunk = append(x.h5dChunk, hd.CounterIndex("H5D_CHUNK_SIZE_D"+strconv.Itoa(d)))
	}
	for _, b := range []string{"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G"} {
		x.h5dSizeR = append(x.h5dSizeR, hd.CounterIndex("H5D_SIZE_READ_AGG_"+b))
		x.h5dSizeW = append(x.h5dSizeW, hd.CounterIndex("H5D_SIZE_WRITE_AGG_"+b))
		x.pvSizeR = append(x.pvSizeR, pv.CounterIndex("PNETCDF_VAR_SIZE_READ_AGG_"+b))
		x.pvSizeW = append(x.pvSizeW, pv.CounterIndex("PNETCDF_VAR_SIZE_WRITE_AGG_"+b))
	}
	for k := 1; k <= 4; k++ {
		s := "_ACCESS" + strconv.Itoa(k) + "_"
		x.posixAccess = append(x.posixAccess, darshan.ModPOSIX.CounterIndex("POSIX"+s+"ACCESS"))
		x.posixAccessCount = append(x.posixAccessCount, darshan.ModPOSIX.CounterIndex("POSIX"+s+"COUNT"))
		x.mpiAccess = append(x.mpiAccess, darshan.ModMPIIO.CounterIndex("MPIIO"+s+"ACCESS"))
		x.mpiAccessCount = append(x.mpiAccessCount, darshan.ModMPIIO.CounterIndex("MPIIO"+s+"COUNT"))
	}
	for _, l := range [][]int{all, x.h5dChunk, x.h5dSizeR, x.h5dSizeW, x.pvSizeR, x.pvSizeW, x.posixAccess, x.posixAccessCount, x.mpiAccess, x.mpiAccessCount} {
		for _, i := range l {
			if i < 0 {
				panic("analysis: a counter the layer insights use is missing from the darshan tables")
			}
		}
	}
	return x
})

// h5File is an HDF5 file (H5F records, and H5D records naming it).
type h5File struct {
	name     string
	recs     int // per-rank H5F records
	shared   bool
	flushes  int64 // H5F_FLUSHES + H5D_FLUSHES of its datasets
	useMPIIO bool
}

// dataset is an HDF5 dataset or a PnetCDF variable.
type dataset struct {
	name           string
	fileID         uint64
	recs           int // per-rank records
	shared         bool
	opens          int64
	reads, writes  int64
	smallR, smallW int64
	indep, coll    int64 // operations on records without / with collective transfers
	chunkBytes     int64 // HDF5: bytes of one chunk, 0 when not chunked
	access         int64 // most common access size (ACCESS1 of the record with most I/O)
	accessOps      int64
}

// ranks is the number of ranks whose records make up the dataset or file.
func ranksOf(shared bool, recs int, nprocs int64) int64 {
	if shared {
		return max(nprocs, int64(recs), 1)
	}
	return max(int64(recs), 1)
}

// pnFile is a PnetCDF file.
type pnFile struct {
	name                 string
	recs                 int
	shared               bool
	redefs, waitFailures int64
	waits                int64
}

// accessCount is one common access size of a file and its frequency.
type accessCount struct{ size, count int64 }

// layers holds the metrics of the HDF5, PnetCDF and Lustre modules.
type layers struct {
	h5Files   map[uint64]*h5File
	datasets  map[uint64]*dataset
	pnFiles   map[uint64]*pnFile
	variables map[uint64]*dataset
	// lustre: striping layout per file id (the first record seen).
	lustre map[uint64]*darshan.Lustre
	// access: common access sizes per file id, from POSIX (low) and MPI-IO
	// records.
	accessLow, accessMPI map[uint64][]accessCount
}

func newLayers(l *darshan.Log) layers {
	ly := layers{
		h5Files: map[uint64]*h5File{}, datasets: map[uint64]*dataset{},
		pnFiles: map[uint64]*pnFile{}, variables: map[uint64]*dataset{},
		lustre:    map[uint64]*darshan.Lustre{},
		accessLow: map[uint64][]accessCount{}, accessMPI: map[uint64][]accessCount{},
	}
	return ly
}

func (m *metrics) recordName(id uint64) string {
	if name, ok := m.l.RecordName(id); ok {
		return name
	}
	return "<" + strconv.FormatUint(id, 10) + ">"
}

func (m *metrics) h5File(id uint64) *h5File {
	f := m.ly.h5Files[id]
	if f == nil {
		f = &h5File{name: m.recordName(id)}
		m.ly.h5Files[id] = f
	}
	return f
}

// addLayer accumulates a record of the H5F, H5D, PNETCDF_FILE,
// PNETCDF_VAR or LUSTRE module.
func (m *metrics) addLayer(r *darshan.Record) {
	x := layerIdx()
	switch r.Module {
	case darshan.ModH5F:
		f := m.h5File(r.ID)
		if r.Rank < 0 {
			f.shared = true
		} else {
			f.recs++
		}
		f.flushes += cnt(r, x.h5fFlushes)
		f.useMPIIO = f.useMPIIO || cnt(r, x.h5fMPIIO) == 1
	case darshan.ModH5D:
		d := m.dataset(m.ly.datasets, r, x.h5dSizeR, x.h5dSizeW)
		d.opens += cnt(r, x.h5dOpens)
		ops := cnt(r, x.h5dReads) + cnt(r, x.h5dWrites)
		d.reads += cnt(r, x.h5dReads)
		d.writes += cnt(r, x.h5dWrites)
		if cnt(r, x.h5dColl) == 1 {
			d.coll += ops
		} else {
			d.indep += ops
		}
		if ops > d.accessOps {
			d.accessOps = ops
			d.access = cnt(r, x.h5dAccess)
			d.chunkBytes = 0
			if dt := cnt(r, x.h5dDtype); dt > 0 && cnt(r, x.h5dChunk[0]) > 0 {
				d.chunkBytes = dt
				nd := min(max(cnt(r, x.h5dNdims), 1), 5)
				for _, i := range x.h5dChunk[:nd] {
					if c := cnt(r, i); c > 0 {
						d.chunkBytes *= c
					}
				}
			}
		}
		if r.FileRecID != 0 {
			m.h5File(r.FileRecID).flushes += cnt(r, x.h5dFlushes)
		}
	case darshan.ModPnetCDFFile:
		f := m.ly.pnFiles[r.ID]
		if f == nil {
			f = &pnFile{name: m.recordName(r.ID)}
			m.ly.pnFiles[r.ID] = f
		}
		if r.Rank < 0 {
			f.shared = true
		} else {
			f.recs++
		}
		f.redefs += cnt(r, x.pfRedefs)
		f.waitFailures += cnt(r, x.pfWaitFail)
		f.waits += cnt(r, x.pfIndepWaits) + cnt(r, x.pfCollWaits)
	case darshan.ModPnetCDFVar:
		d := m.dataset(m.ly.variables, r, x.pvSizeR, x.pvSizeW)
		indep := cnt(r, x.pvIndepR) + cnt(r, x.pvIndepW)
		coll := cnt(r, x.pvCollR) + cnt(r, x.pvCollW)
		d.reads += cnt(r, x.pvIndepR) + cnt(r, x.pvCollR) + cnt(r, x.pvNbR)
		d.writes += cnt(r, x.pvIndepW) + cnt(r, x.pvCollW) + cnt(r, x.pvNbW)
		d.indep += indep
		d.coll += coll
	case darshan.ModLustre:
		if r.Lustre != nil && m.ly.lustre[r.ID] == nil && len(r.Lustre.Components) > 0 {
			m.ly.lustre[r.ID] = r.Clone().Lustre
		}
	}
}

func (m *metrics) dataset(set map[uint64]*dataset, r *darshan.Record, sizeR, sizeW []int) *dataset {
	d := set[r.ID]
	if d == nil {
		d = &dataset{name: m.recordName(r.ID), fileID: r.FileRecID}
		set[r.ID] = d
	}
	if r.Rank < 0 {
		d.shared = true
	} else {
		d.recs++
	}
	for i := 0; i < m.nSmall; i++ {
		d.smallR += cnt(r, sizeR[i])
		d.smallW += cnt(r, sizeW[i])
	}
	return d
}

// addAccess merges the common access sizes of a POSIX or MPI-IO record
// into those of its file.
func (m *metrics) addAccess(r *darshan.Record) {
	set, vals, counts := m.ly.accessLow, layerIdx().posixAccess, layerIdx().posixAccessCount
	if r.Module == darshan.ModMPIIO {
		set, vals, counts = m.ly.accessMPI, layerIdx().mpiAccess, layerIdx().mpiAccessCount
	}
	acc := set[r.ID]
next:
	for k := range vals {
		v, c := cnt(r, vals[k]), cnt(r, counts[k])
		if v <= 0 || c <= 0 {
			continue
		}
		for i := range acc {
			if acc[i].size == v {
				acc[i].count += c
				continue next
			}
		}
		acc = append(acc, accessCount{v, c})
	}
	set[r.ID] = acc
}

// commonAccess returns the most frequent access size of a file (ties: the
// larger size) and its count, from its POSIX records, else its MPI-IO
// records.
func (ly *layers) commonAccess(id uint64) accessCount {
	acc := ly.accessLow[id]
	if len(acc) == 0 {
		acc = ly.accessMPI[id]
	}
	var best accessCount
	for _, a := range acc {
		if a.count > best.count || (a.count == best.count && a.size > best.size) {
			best = a
		}
	}
	return best
}
