package analysis

import (
	"testing"

	"github.com/iolens/iolens/darshan"
)

func TestHDF5Insights(t *testing.T) {
	const file = "/scratch/h.h5"
	rep := analyzeBuilt(t, buildLog(t, 4, "", []rec{
		{mod: darshan.ModH5F, file: file, rank: -1,
			c: map[string]int64{"H5F_OPENS": 4, "H5F_FLUSHES": 80, "H5F_USE_MPIIO": 1}},
		// 2000 independent writes of under 100 bytes.
		{mod: darshan.ModH5D, file: file + ":/small", rank: -1, fileRec: file,
			c: map[string]int64{"H5D_OPENS": 4, "H5D_WRITES": 2000, "H5D_BYTES_WRITTEN": 2000 * 64,
				"H5D_SIZE_WRITE_AGG_0_100": 2000, "H5D_ACCESS1_ACCESS": 64, "H5D_ACCESS1_COUNT": 2000,
				"H5D_DATATYPE_SIZE": 8, "H5D_DATASPACE_NDIMS": 1}},
		// Collective 2 MiB writes to chunks of 1024 × 16 doubles (128 KiB),
		// the dataset opened 100 times per rank.
		{mod: darshan.ModH5D, file: file + ":/chunked", rank: -1, fileRec: file,
			c: map[string]int64{"H5D_OPENS": 400, "H5D_WRITES": 40, "H5D_BYTES_WRITTEN": 80 * MiB,
				"H5D_SIZE_WRITE_AGG_1M_4M": 40, "H5D_ACCESS1_ACCESS": 2 * MiB, "H5D_ACCESS1_COUNT": 40,
				"H5D_DATATYPE_SIZE": 8, "H5D_DATASPACE_NDIMS": 2, "H5D_CHUNK_SIZE_D1": 1024, "H5D_CHUNK_SIZE_D2": 16,
				"H5D_USE_MPIIO_COLLECTIVE": 1}},
	}))
	checkCodes(t, rep, "H01:HIGH", "H02:HIGH", "H03:WARN", "H04:WARN")
	checkMessage(t, insight(t, rep, "H01"), "2000 small HDF5 dataset accesses (under 1.00 MiB) are 98.04% of all 2040 HDF5 dataset reads and writes (0 reads, 2040 writes)")
	checkSubjects(t, insight(t, rep, "H01"), Subject{File: file + ":/small", Value: 2000, Unit: "small accesses"})
	in := insight(t, rep, "H02")
	checkMessage(t, in, "1 dataset(s) of HDF5 files opened with the MPI-IO driver are transferred independently: 2000 H5Dread/H5Dwrite calls without a collective transfer property")
	checkSubjects(t, in, Subject{File: file + ":/small", Value: 2000, Unit: "independent operations"})
	in = insight(t, rep, "H03")
	checkMessage(t, in, "HDF5 metadata overhead: 1 dataset(s) opened repeatedly and 1 file(s) flushed repeatedly by each rank")
	checkSubjects(t, in, Subject{File: file + ":/chunked", Value: 100, Unit: "opens per rank"},
		Subject{File: file, Value: 20, Unit: "flushes per rank"})
	in = insight(t, rep, "H04")
	checkMessage(t, in, "1 chunked HDF5 dataset(s) have chunks much smaller than their common access: up to 16 chunks per access")
	checkSubjects(t, in, Subject{File: file + ":/chunked", Value: 16, Unit: "chunks per access"})
	if len(in.Details) != 1 || in.Details[0] != file+":/chunked: chunk 128.00 KiB, common access 2.00 MiB" {
		t.Errorf("H04 details %q", in.Details)
	}

	// One process: independent transfers are not reported.
	rep = analyzeBuilt(t, buildLog(t, 1, "", []rec{
		{mod: darshan.ModH5F, file: file, rank: 0, c: map[string]int64{"H5F_OPENS": 1, "H5F_USE_MPIIO": 1}},
		{mod: darshan.ModH5D, file: file + ":/d", rank: 0, fileRec: file,
			c: map[string]int64{"H5D_OPENS": 1, "H5D_WRITES": 4, "H5D_SIZE_WRITE_AGG_4M_10M": 4, "H5D_BYTES_WRITTEN": 20 * MiB}},
	}))
	checkCodes(t, rep)
}

func TestPnetCDFInsights(t *testing.T) {
	const file = "/scratch/o.nc"
	rep := analyzeBuilt(t, buildLog(t, 4, "", []rec{
		{mod: darshan.ModPnetCDFFile, file: file, rank: -1,
			c: map[string]int64{"PNETCDF_FILE_CREATES": 4, "PNETCDF_FILE_REDEFS": 12, "PNETCDF_FILE_INDEP_WAITS": 10,
				"PNETCDF_FILE_WAIT_FAILURES": 2}},
		{mod: darshan.ModPnetCDFVar, file: file + ":temp", rank: -1, fileRec: file,
			c: map[string]int64{"PNETCDF_VAR_OPENS": 4, "PNETCDF_VAR_INDEP_WRITES": 1500, "PNETCDF_VAR_BYTES_WRITTEN": 1500 * 800,
				"PNETCDF_VAR_SIZE_WRITE_AGG_100_1K": 1500}},
		{mod: darshan.ModPnetCDFVar, file: file + ":pres", rank: -1, fileRec: file,
			c: map[string]int64{"PNETCDF_VAR_OPENS": 4, "PNETCDF_VAR_COLL_WRITES": 8, "PNETCDF_VAR_BYTES_WRITTEN": 64 * MiB,
				"PNETCDF_VAR_SIZE_WRITE_AGG_4M_10M": 8}},
	}))
	checkCodes(t, rep, "N01:HIGH", "N02:HIGH", "N03:WARN", "N04:WARN")
	in := insight(t, rep, "N01")
	checkMessage(t, in, "1 PnetCDF variable(s) are accessed only in independent data mode: 1500 independent calls and no collective one")
	checkSubjects(t, in, Subject{File: file + ":temp", Value: 1500, Unit: "independent operations"})
	checkMessage(t, insight(t, rep, "N02"), "1500 small PnetCDF variable accesses (under 1.00 MiB) are 99.47% of all 1508 PnetCDF variable reads and writes (0 reads, 1508 writes)")
	in = insight(t, rep, "N03")
	checkMessage(t, in, "1 PnetCDF file(s) re-enter define mode more than 1 time(s) per rank: when the header grows, ncmpi_enddef moves the data of the existing variables")
	checkSubjects(t, in, Subject{File: file, Value: 3, Unit: "redefs per rank"})
	checkMessage(t, insight(t, rep, "N04"), "2 wait call(s) for PnetCDF nonblocking requests failed on 1 file(s) (of 10 wait calls there)")
}

func TestLustreInsights(t *testing.T) {
	layout := func(stripe int64, ost int64) *darshan.Lustre {
		return &darshan.Lustre{Components: []darshan.LustreComponent{{StripeSize: stripe, StripeCount: 1, ExtEnd: -1}}, OSTs: []int64{ost}}
	}
	recs := []rec{
		// 2 GiB written by all ranks in 4 MiB requests to a file on OST 3.
		{mod: darshan.ModPOSIX, file: "/lus/big", rank: -1,
			c: map[string]int64{"POSIX_OPENS": 4, "POSIX_WRITES": 512, "POSIX_SIZE_WRITE_1M_4M": 512,
				"POSIX_BYTES_WRITTEN": 2048 * MiB, "POSIX_MAX_BYTE_WRITTEN": 2048*MiB - 1, "POSIX_SEQ_WRITES": 512,
				"POSIX_ACCESS1_ACCESS": 4 * MiB, "POSIX_ACCESS1_COUNT": 512}},
		{mod: darshan.ModLustre, file: "/lus/big", rank: -1, lustre: layout(4*MiB, 3)},
		// 768 KiB requests on 1 MiB stripes.
		{mod: darshan.ModPOSIX, file: "/lus/a", rank: 0,
			c: map[string]int64{"POSIX_OPENS": 1, "POSIX_WRITES": 100, "POSIX_SIZE_WRITE_100K_1M": 100,
				"POSIX_BYTES_WRITTEN": 75 * MiB, "POSIX_MAX_BYTE_WRITTEN": 75*MiB - 1, "POSIX_SEQ_WRITES": 100,
				"POSIX_ACCESS1_ACCESS": 768 << 10, "POSIX_ACCESS1_COUNT": 60, "POSIX_ACCESS2_ACCESS": 512 << 10, "POSIX_ACCESS2_COUNT": 40}},
		{mod: darshan.ModLustre, file: "/lus/a", rank: -1, lustre: layout(MiB, 3)},
	}
	// Five files on OST 3, one on OST 5, one on OST 7.
	for f, ost := range map[string]int64{"/lus/b": 3, "/lus/c": 3, "/lus/f": 3, "/lus/d": 5, "/lus/e": 7} {
		recs = append(recs, rec{mod: darshan.ModLustre, file: f, rank: -1, lustre: layout(MiB, ost)})
	}
	rep := analyzeBuilt(t, buildLog(t, 4, "", recs))
	checkCodes(t, rep, "L01:WARN", "L02:HIGH", "L03:WARN", "M01:WARN", "P01:INFO", "P03:INFO", "P14:OK")
	in := insight(t, rep, "L01")
	checkMessage(t, in, "1 Lustre file(s) have a common access size that is neither a multiple nor a divisor of their stripe size: accesses straddle stripe boundaries and involve two OSTs")
	checkSubjects(t, in, Subject{File: "/lus/a", Value: 60, Unit: "accesses of 768.00 KiB"})
	in = insight(t, rep, "L02")
	checkMessage(t, in, "1 large shared file(s) are striped over a single OST: all ranks' I/O to them (2.00 GiB) goes through one storage target")
	checkSubjects(t, in, Subject{File: "/lus/big", Value: 2048 * MiB, Unit: "bytes"})
	in = insight(t, rep, "L03")
	checkMessage(t, in, "OST imbalance: OST 3 holds 5 of the job's 7 Lustre files, 2.14 times the mean of 2.33 files per OST over the 3 OSTs used")
	if len(in.Subjects) != 5 || in.Subjects[0].File != "/lus/big" || in.Subjects[1].File != "/lus/a" {
		t.Errorf("L03 subjects %+v", in.Subjects)
	}
}
