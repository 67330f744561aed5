package collector

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
)

func TestPnetCDF(t *testing.T) {
	mpicc := needTool(t, "mpicc.openmpi")
	mpiexec := needTool(t, "mpiexec.openmpi")
	prog := compileWorkload(t, mpicc, "pnetcdf/basic.c", pkgFlags(t, "pnetcdf")...)
	dir := t.TempDir()
	var stdout strings.Builder
	res := runCollected(t, RunOptions{Stdout: &stdout}, openMPIEnv, mpiexec, "-n", "2", prog, dir)
	if res.Result.ExitCode != 0 {
		t.Fatalf("exit code %d", res.Result.ExitCode)
	}
	l := mpiLog(t, res.Logs, 2)
	path := filepath.Join(dir, "basic.nc")

	// Each rank prints what PnetCDF reports it moved through both opens.
	var put, get int64
	lines := strings.Fields(stdout.String())
	if len(lines) != 4 {
		t.Fatalf("workload output %q, want 2 lines of put=P get=G", stdout.String())
	}
	for i := 0; i < 4; i += 2 {
		var p, g int64
		if _, err := fmt.Sscanf(lines[i]+" "+lines[i+1], "put=%d get=%d", &p, &g); err != nil {
			t.Fatalf("workload output %q: %v", stdout.String(), err)
		}
		put += p
		get += g
	}

	f := record(t, l, darshan.ModPnetCDFFile, path, -1)
	wantCounters(t, f, map[string]int64{
		"PNETCDF_FILE_CREATES": 2, "PNETCDF_FILE_OPENS": 2, "PNETCDF_FILE_REDEFS": 2,
		"PNETCDF_FILE_INDEP_WAITS": 2, "PNETCDF_FILE_COLL_WAITS": 4, "PNETCDF_FILE_SYNCS": 2,
		"PNETCDF_FILE_BYTES_READ": get, "PNETCDF_FILE_BYTES_WRITTEN": put,
		"PNETCDF_FILE_WAIT_FAILURES": 0,
	})
	wantTimes(t, f, "PNETCDF_FILE_F_OPEN_START_TIMESTAMP", "PNETCDF_FILE_F_OPEN_END_TIMESTAMP",
		"PNETCDF_FILE_F_CLOSE_START_TIMESTAMP", "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP",
		"PNETCDF_FILE_F_WAIT_START_TIMESTAMP", "PNETCDF_FILE_F_WAIT_END_TIMESTAMP",
		"PNETCDF_FILE_F_META_TIME", "PNETCDF_FILE_F_WAIT_TIME")
	if n := len(records(t, l, darshan.ModPnetCDFFile)); n != 1 {
		t.Errorf("%d PNETCDF_FILE records, want 1", n)
	}

	// rec (float, record variable of 100 per record), per rank: two
	// 50-element iput_vara (200 bytes), get_vara of 2 records (800 bytes),
	// get_var_float_all of the whole variable (2 records: 800 bytes);
	// defined, then found with inq_varid.
	rec := record(t, l, darshan.ModPnetCDFVar, path+":rec", -1)
	wantCounters(t, rec, counterUnion(map[string]int64{
		"PNETCDF_VAR_OPENS": 4, "PNETCDF_VAR_INDEP_READS": 2, "PNETCDF_VAR_INDEP_WRITES": 0,
		"PNETCDF_VAR_COLL_READS": 2, "PNETCDF_VAR_COLL_WRITES": 0,
		"PNETCDF_VAR_NB_READS": 0, "PNETCDF_VAR_NB_WRITES": 4,
		"PNETCDF_VAR_BYTES_READ": 2 * 1600, "PNETCDF_VAR_BYTES_WRITTEN": 2 * 400,
		"PNETCDF_VAR_RW_SWITCHES": 2,
		"PNETCDF_VAR_IPUT_VARA":   4, "PNETCDF_VAR_GET_VARA": 2, "PNETCDF_VAR_GET_VAR": 2,
		"PNETCDF_VAR_PUT_VARA": 0, "PNETCDF_VAR_GET_VARS": 0,
		"PNETCDF_VAR_MAX_READ_TIME_SIZE": 800, "PNETCDF_VAR_MAX_WRITE_TIME_SIZE": 200,
		"PNETCDF_VAR_SIZE_READ_AGG_100_1K": 4, "PNETCDF_VAR_SIZE_WRITE_AGG_100_1K": 4,
		"PNETCDF_VAR_NDIMS": 2, "PNETCDF_VAR_NPOINTS": 100, "PNETCDF_VAR_DATATYPE_SIZE": 4,
		"PNETCDF_VAR_IS_RECORD_VAR":      1,
		"PNETCDF_VAR_FASTEST_RANK_BYTES": 2000, "PNETCDF_VAR_SLOWEST_RANK_BYTES": 2000,
	},
		// D1 = first dimension (opposite of H5D).
		accessTuple("PNETCDF_VAR", 1, 200, [5]int64{1, 50}, zero5, 4),
		accessTuple("PNETCDF_VAR", 2, 800, [5]int64{2, 100}, zero5, 2),
		accessTuple("PNETCDF_VAR", 3, 800, zero5, zero5, 2),
		accessTuple("PNETCDF_VAR", 4, 0, zero5, zero5, 0),
	))
	if got, want := rec.FileRecID, darshan.RecordID(path); got != want {
		t.Errorf("PNETCDF_VAR_FILE_REC_ID = %#x, want %#x", got, want)
	}
	wantTimes(t, rec, "PNETCDF_VAR_F_OPEN_START_TIMESTAMP", "PNETCDF_VAR_F_READ_START_TIMESTAMP",
		"PNETCDF_VAR_F_WRITE_END_TIMESTAMP", "PNETCDF_VAR_F_READ_TIME", "PNETCDF_VAR_F_WRITE_TIME",
		"PNETCDF_VAR_F_META_TIME")

	// fix (double, 2x1000), per rank: put_vara_double_all of a row (8000
	// bytes), iget_vara_double of the other row (8000 bytes),
	// put_vars_double_all of every other element of a row (4000 bytes).
	fix := record(t, l, darshan.ModPnetCDFVar, path+":fix", -1)
	wantCounters(t, fix, counterUnion(map[string]int64{
		"PNETCDF_VAR_OPENS": 2, "PNETCDF_VAR_INDEP_READS": 0, "PNETCDF_VAR_INDEP_WRITES": 0,
		"PNETCDF_VAR_COLL_READS": 0, "PNETCDF_VAR_COLL_WRITES": 4,
		"PNETCDF_VAR_NB_READS": 2, "PNETCDF_VAR_NB_WRITES": 0,
		"PNETCDF_VAR_BYTES_READ": 2 * 8000, "PNETCDF_VAR_BYTES_WRITTEN": 2 * 12000,
		"PNETCDF_VAR_RW_SWITCHES": 4,
		"PNETCDF_VAR_PUT_VARA":    2, "PNETCDF_VAR_PUT_VARS": 2, "PNETCDF_VAR_IGET_VARA": 2,
		"PNETCDF_VAR_MAX_READ_TIME_SIZE":   8000,
		"PNETCDF_VAR_SIZE_READ_AGG_1K_10K": 2, "PNETCDF_VAR_SIZE_WRITE_AGG_1K_10K": 4,
		"PNETCDF_VAR_NDIMS": 2, "PNETCDF_VAR_NPOINTS": 2000, "PNETCDF_VAR_DATATYPE_SIZE": 8,
		"PNETCDF_VAR_IS_RECORD_VAR":      0,
		"PNETCDF_VAR_FASTEST_RANK_BYTES": 20000, "PNETCDF_VAR_SLOWEST_RANK_BYTES": 20000,
	},
		accessTuple("PNETCDF_VAR", 1, 8000, [5]int64{1, 1000}, zero5, 4),
		accessTuple("PNETCDF_VAR", 2, 4000, [5]int64{1, 500}, [5]int64{1, 2}, 2),
		accessTuple("PNETCDF_VAR", 3, 0, zero5, zero5, 0),
	))
	if got, want := fix.FileRecID, darshan.RecordID(path); got != want {
		t.Errorf("PNETCDF_VAR_FILE_REC_ID = %#x, want %#x", got, want)
	}

	// misc (int, 2x100), per rank: put_var1 (4 bytes), put_varn of 5 and
	// 3 elements (32), put_varm of 10 (40, stride 1 when none is given),
	// bput_vara of 20 (80), get_vard of a row as an MPI type (400).
	misc := record(t, l, darshan.ModPnetCDFVar, path+":misc", -1)
	wantCounters(t, misc, counterUnion(map[string]int64{
		"PNETCDF_VAR_OPENS": 2, "PNETCDF_VAR_INDEP_READS": 0, "PNETCDF_VAR_INDEP_WRITES": 0,
		"PNETCDF_VAR_COLL_READS": 2, "PNETCDF_VAR_COLL_WRITES": 6,
		"PNETCDF_VAR_NB_READS": 0, "PNETCDF_VAR_NB_WRITES": 2,
		"PNETCDF_VAR_BYTES_READ": 2 * 400, "PNETCDF_VAR_BYTES_WRITTEN": 2 * (4 + 32 + 40 + 80),
		"PNETCDF_VAR_RW_SWITCHES": 2,
		"PNETCDF_VAR_PUT_VAR1":    2, "PNETCDF_VAR_PUT_VARN": 2, "PNETCDF_VAR_PUT_VARM": 2,
		"PNETCDF_VAR_BPUT_VARA": 2, "PNETCDF_VAR_GET_VARD": 2, "PNETCDF_VAR_PUT_VARA": 0,
		"PNETCDF_VAR_MAX_READ_TIME_SIZE":   400,
		"PNETCDF_VAR_SIZE_READ_AGG_100_1K": 2, "PNETCDF_VAR_SIZE_WRITE_AGG_0_100": 8,
		"PNETCDF_VAR_NDIMS": 2, "PNETCDF_VAR_NPOINTS": 200, "PNETCDF_VAR_DATATYPE_SIZE": 4,
		"PNETCDF_VAR_IS_RECORD_VAR": 0,
	},
		// Five distinct accesses per rank: the 4-byte one is fifth.
		accessTuple("PNETCDF_VAR", 1, 400, zero5, zero5, 2),
		accessTuple("PNETCDF_VAR", 2, 80, [5]int64{1, 20}, zero5, 2),
		accessTuple("PNETCDF_VAR", 3, 40, [5]int64{1, 10}, [5]int64{1, 1}, 2),
		accessTuple("PNETCDF_VAR", 4, 32, zero5, zero5, 2),
	))
	if n := len(records(t, l, darshan.ModPnetCDFVar)); n != 3 {
		t.Errorf("%d PNETCDF_VAR records, want 3", n)
	}
}
