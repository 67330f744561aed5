package analysis

import (
	"slices"
	"strings"
)

// CodeInfo describes one insight code: the levels it can be reported at,
// what it means and the threshold (with its Config key) that triggers it.
type CodeInfo struct {
	Code      string  `json:"code"`
	Levels    []Level `json:"levels"`
	Meaning   string  `json:"meaning"`
	Threshold string  `json:"threshold"`
}

// LevelString returns the levels joined by "/", e.g. "HIGH" or "OK/HIGH".
func (c CodeInfo) LevelString() string {
	s := make([]string, len(c.Levels))
	for i, l := range c.Levels {
		s[i] = l.String()
	}
	return strings.Join(s, "/")
}

// codes is the table behind Codes. The meanings and default thresholds of
// S01, P01–P22 and M01–M10 are those of Drishti; the wording is ours.
var codes = []CodeInfo{
	{"S01", []Level{LevelHigh}, "STDIO moves a large share of the bytes: it is buffered in user space and does not scale on parallel file systems",
		"STDIO bytes / all bytes (STDIO + POSIX not under MPI-IO + MPI-IO) > interface_stdio (0.1)"},
	{"N01", []Level{LevelWarn, LevelHigh}, "PnetCDF variables accessed only in independent data mode in a parallel job",
		"nprocs > 1, per variable PNETCDF_VAR_INDEP_READS + INDEP_WRITES > 0 and COLL_READS + COLL_WRITES = 0; HIGH when their independent calls > collective_operations_absolute (1000)"},
	{"N02", []Level{LevelHigh}, "many small PnetCDF variable accesses (PNETCDF_VAR size histogram bins below small_bytes)",
		"small variable reads and writes / all variable reads and writes > small_requests (0.1) and small > small_requests_absolute (1000); small = PNETCDF_VAR_SIZE_*_AGG bins below small_bytes (1 MiB)"},
	{"N03", []Level{LevelWarn}, "PnetCDF files re-enter define mode often; growing the header moves existing variable data",
		"per file: PNETCDF_FILE_REDEFS / ranks > pnetcdf_redefs (1); ranks = nprocs for shared records, else the number of per-rank records"},
	{"N04", []Level{LevelWarn}, "waits for PnetCDF nonblocking requests failed: those requests did not move their data",
		"per file: PNETCDF_FILE_WAIT_FAILURES > 0"},
	{"P01", []Level{LevelInfo}, "the job is write-intensive by operation count",
		"POSIX writes > reads and |writes − reads| / (reads + writes) > imbalance_operations (0.1)"},
	{"P02", []Level{LevelInfo}, "the job is read-intensive by operation count",
		"POSIX reads > writes and |writes − reads| / (reads + writes) > imbalance_operations (0.1)"},
	{"P03", []Level{LevelInfo}, "the job is write-intensive by bytes moved",
		"POSIX bytes written > read and |written − read| / (read + written) > imbalance_operations (0.1)"},
	{"P04", []Level{LevelInfo}, "the job is read-intensive by bytes moved",
		"POSIX bytes read > written and |written − read| / (read + written) > imbalance_operations (0.1)"},
	{"P05", []Level{LevelHigh}, "many small POSIX reads (size histogram bins below small_bytes)",
		"small reads / reads > small_requests (0.1) and small reads > small_requests_absolute (1000); small = below small_bytes (1 MiB)"},
	{"P06", []Level{LevelHigh}, "many small POSIX writes (size histogram bins below small_bytes)",
		"small writes / writes > small_requests (0.1) and small writes > small_requests_absolute (1000); small = below small_bytes (1 MiB)"},
	{"P07", []Level{LevelHigh}, "many POSIX requests use memory buffers that are not aligned",
		"POSIX_MEM_NOT_ALIGNED / (reads + writes) > misaligned_requests (0.1)"},
	{"P08", []Level{LevelHigh}, "many POSIX requests start at file offsets not aligned to the file system block",
		"POSIX_FILE_NOT_ALIGNED / (reads + writes) > misaligned_requests (0.1)"},
	{"P09", []Level{LevelWarn}, "redundant read traffic: some files had more bytes read than the extent read (the same bytes read again)",
		"per file: POSIX bytes read > POSIX_MAX_BYTE_READ + 1"},
	{"P10", []Level{LevelWarn}, "redundant write traffic: some files had more bytes written than the extent written (the same bytes overwritten)",
		"per file: POSIX bytes written > POSIX_MAX_BYTE_WRITTEN + 1"},
	{"P11", []Level{LevelHigh}, "many random (non-sequential) POSIX reads",
		"random reads = reads − POSIX_SEQ_READS; random / reads > random_operations (0.2) and random > random_operations_absolute (1000)"},
	{"P12", []Level{LevelOK}, "POSIX reads are mostly consecutive or sequential",
		"reported when P11 is not and there are reads"},
	{"P13", []Level{LevelHigh}, "many random (non-sequential) POSIX writes",
		"random writes = writes − POSIX_SEQ_WRITES; random / writes > random_operations (0.2) and random > random_operations_absolute (1000)"},
	{"P14", []Level{LevelOK}, "POSIX writes are mostly consecutive or sequential",
		"reported when P13 is not and there are writes"},
	{"P15", []Level{LevelHigh}, "many small POSIX reads to files shared by all ranks",
		"shared records: small reads / reads > small_requests (0.1) and small reads > small_requests_absolute (1000)"},
	{"P16", []Level{LevelHigh}, "many small POSIX writes to files shared by all ranks",
		"shared records: small writes / writes > small_requests (0.1) and small writes > small_requests_absolute (1000)"},
	{"P17", []Level{LevelHigh}, "ranks spend a long time in metadata operations (open, stat, seek, close...)",
		"ranks whose POSIX_F_META_TIME (own records plus their share of shared records) > metadata_time_rank (30 s)"},
	{"P18", []Level{LevelHigh}, "data imbalance on shared files: the slowest rank moved a different amount of data than the fastest (stragglers)",
		"shared records: |POSIX_SLOWEST_RANK_BYTES − POSIX_FASTEST_RANK_BYTES| / bytes moved > imbalance_stragglers (0.15)"},
	{"P19", []Level{LevelHigh}, "time imbalance on shared files: the slowest rank spent much longer than the fastest (stragglers)",
		"shared records: |POSIX_F_SLOWEST_RANK_TIME − POSIX_F_FASTEST_RANK_TIME| / (read + write + meta time) > imbalance_stragglers (0.15)"},
	{"P21", []Level{LevelHigh}, "write imbalance on files that several ranks accessed without a shared record",
		"per file over its per-rank records: (max − min bytes written) / max > imbalance_size (0.3)"},
	{"P22", []Level{LevelHigh}, "read imbalance on files that several ranks accessed without a shared record",
		"per file over its per-rank records: (max − min bytes read) / max > imbalance_size (0.3)"},
	{"H01", []Level{LevelHigh}, "many small HDF5 dataset accesses (H5D size histogram bins below small_bytes)",
		"small H5D reads and writes / all H5D reads and writes > small_requests (0.1) and small > small_requests_absolute (1000); small = H5D_SIZE_*_AGG bins below small_bytes (1 MiB)"},
	{"H02", []Level{LevelWarn, LevelHigh}, "parallel HDF5 without collective transfers: datasets of files opened with the MPI-IO driver are read or written independently",
		"nprocs > 1, H5F_USE_MPIIO = 1 on the dataset's file, and the dataset's records with I/O all have H5D_USE_MPIIO_COLLECTIVE = 0; HIGH when their H5D reads + writes > collective_operations_absolute (1000)"},
	{"H03", []Level{LevelWarn}, "HDF5 metadata overhead: datasets opened again and again, or files flushed often",
		"per dataset: H5D_OPENS / ranks > hdf5_dataset_opens (10); per file: (H5F_FLUSHES + its datasets' H5D_FLUSHES) / ranks > hdf5_flushes (10); ranks = nprocs for shared records, else the number of per-rank records"},
	{"H04", []Level{LevelWarn}, "chunked HDF5 datasets whose chunks are much smaller than the common access: each access touches many chunks",
		"H5D_ACCESS1_ACCESS / (product of H5D_CHUNK_SIZE_D1..D<ndims> × H5D_DATATYPE_SIZE) > hdf5_chunk_ratio (10)"},
	{"L01", []Level{LevelWarn}, "Lustre stripe size does not fit the common access size: accesses straddle stripes",
		"per file: most common access size (POSIX ACCESS1..4 merged over records, else MPI-IO) ≥ lustre_min_access (64 KiB), below 8 stripes (larger accesses are mostly whole stripes), and neither a multiple nor a divisor of the first component's stripe size"},
	{"L02", []Level{LevelHigh}, "a large shared file is striped over a single OST, which serves all its I/O",
		"file shared by ranks (shared record or several per-rank records), one distinct OST in its layout, bytes moved > lustre_large_file (1 GiB)"},
	{"L03", []Level{LevelWarn}, "OST imbalance: some OSTs hold far more of the job's files than others",
		"files on the busiest OST > lustre_ost_imbalance (2) × mean files per OST over the OSTs used by the job's Lustre files (at least 2 OSTs)"},
	{"M01", []Level{LevelWarn}, "the job does not use MPI-IO, so it cannot use collective buffering or MPI-IO hints",
		"no MPI-IO module in the log"},
	{"M02", []Level{LevelHigh}, "MPI-IO is used but no read is collective",
		"MPIIO_COLL_READS = 0 and independent + collective reads > collective_operations_absolute (1000); files listed where independent reads / independent operations > collective_operations (0.5)"},
	{"M03", []Level{LevelHigh}, "MPI-IO is used but no write is collective",
		"MPIIO_COLL_WRITES = 0 and independent + collective writes > collective_operations_absolute (1000); files listed where independent writes / independent operations > collective_operations (0.5)"},
	{"M04", []Level{LevelOK}, "MPI-IO reads use collective operations",
		"MPIIO_COLL_READS > 0"},
	{"M05", []Level{LevelOK}, "MPI-IO writes use collective operations",
		"MPIIO_COLL_WRITES > 0"},
	{"M06", []Level{LevelWarn}, "MPI-IO reads are all blocking: non-blocking reads could overlap I/O with computation",
		"MPI-IO reads > 0 and MPIIO_NB_READS = 0"},
	{"M07", []Level{LevelWarn}, "MPI-IO writes are all blocking: non-blocking writes could overlap I/O with computation",
		"MPI-IO writes > 0 and MPIIO_NB_WRITES = 0"},
	{"M08", []Level{LevelOK}, "fewer MPI-IO aggregators than compute nodes (aggregation stays within nodes)",
		"cb_nodes hint < number of nodes (from the hostnames metadata, DXT host names or APMPI node names)"},
	{"M09", []Level{LevelHigh}, "more MPI-IO aggregators than compute nodes: aggregation needs network traffic between nodes",
		"cb_nodes hint > number of nodes"},
	{"M10", []Level{LevelOK}, "one MPI-IO aggregator per compute node",
		"cb_nodes hint = number of nodes"},
	{"D01", []Level{LevelWarn}, "many I/O phases: the job alternates between I/O and computation often, paying the fixed costs of I/O (opening, synchronising, waiting for the slowest rank) each time",
		"I/O phases of one DXT module (operations of all ranks merged into intervals, intervals closer than mean + standard deviation of the gaps merged) > dxt_max_phases (10)"},
	{"D02", []Level{LevelHigh}, "stragglers within I/O phases: some ranks spend much longer in I/O than the other ranks of the phase, which lasts until they finish",
		"a rank's I/O time in a phase > dxt_straggler_ratio (2) × the median time of the phase's ranks and > that median + dxt_straggler_seconds (0.1 s), and its bandwidth there (bytes / time) < the median bandwidth / dxt_straggler_ratio (slow, not loaded); medians of an even count take the faster middle value"},
	{"D03", []Level{LevelHigh}, "rank 0 does most of the I/O: one process moves the data of the whole job",
		"rank 0's share of the traced bytes (DXT_MPIIO when traced, else DXT_POSIX) > dxt_rank0_share (0.5), with nprocs > 1"},
	{"D04", []Level{LevelHigh}, "unbalanced workload: the ranks move very different amounts of data",
		"(max − min) / max of the traced bytes per rank (DXT_MPIIO when traced, else DXT_POSIX; ranks without traced operations count 0) > dxt_imbalance (0.3), with nprocs > 1; not reported with D03"},
	{"D05", []Level{LevelWarn}, "redundant or overlapping byte ranges: the same bytes of a file are read, or written, more than once",
		"per file, bytes moved again = sum of request lengths − size of the union of their byte ranges (reads and writes apart; offsets of DXT_POSIX, else DXT_MPIIO); files where bytes moved again / bytes moved > dxt_redundant (0.1)"},
	{"D06", []Level{LevelInfo, LevelHigh}, "time the ranks spend in I/O, compared with the run time",
		"per rank: union of the intervals of its traced operations / run time; HIGH when a rank's share > dxt_io_time (0.5)"},
	{"X01", []Level{LevelWarn}, "a module of the log is flagged as incomplete: the runtime ran out of memory for its records, so counts are lower bounds",
		"a module's partial flag is set in the log header"},
	{"X02", []Level{LevelWarn}, "a module of the log could not be read (damaged or unsupported data); the analysis uses the records read before the error",
		"reading the module's records failed"},
}

// Codes returns every insight code this package reports, sorted by code.
func Codes() []CodeInfo {
	out := slices.Clone(codes)
	slices.SortFunc(out, func(a, b CodeInfo) int { return strings.Compare(a.Code, b.Code) })
	return out
}

// codeInfo returns the table entry of code, or a zero CodeInfo.
func codeInfo(code string) CodeInfo {
	for _, c := range codes {
		if c.Code == code {
			return c
		}
	}
	return CodeInfo{}
}
