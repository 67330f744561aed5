package collector

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// Workloads of the HDF5 and PnetCDF modules are built against the Open MPI
// builds of the libraries (Debian: libhdf5-openmpi-dev, libpnetcdf-dev) and
// linked dynamically, so that the preload library sees their calls.

// pkgFlags returns the compiler and linker flags of a pkg-config package.
// It skips the test when the package is missing, or fails it when CI=true.
func pkgFlags(t testing.TB, pkg string) []string {
	t.Helper()
	needTool(t, "pkg-config")
	out, err := exec.Command("pkg-config", "--cflags", "--libs", pkg).CombinedOutput()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pkg-config %s is required in CI: %v\n%s", pkg, err, out)
		}
		t.Skipf("pkg-config %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// openMPIEnv lets Open MPI run two ranks as root and on one core.
var openMPIEnv = []string{
	"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
	"OMPI_MCA_rmaps_base_oversubscribe=1",
}

// mpiLog returns the log of the MPI job with nprocs ranks among logs.
func mpiLog(t testing.TB, logs []*darshan.Log, nprocs int64) *darshan.Log {
	t.Helper()
	var found []*darshan.Log
	for _, l := range logs {
		if l.Job.NProcs == nprocs {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d logs of %d processes among %d logs, want 1", len(found), nprocs, len(logs))
	}
	return found[0]
}

// accessTuple returns the counters of common access slot n (1..4) of
// module prefix p: the access size, LENGTH_D1..5, STRIDE_D1..5 and count.
func accessTuple(p string, n int, access int64, length, stride [5]int64, count int64) map[string]int64 {
	s := p + "_ACCESS" + string(rune('0'+n)) + "_"
	m := map[string]int64{s + "ACCESS": access, s + "COUNT": count}
	for i := 0; i < 5; i++ {
		d := string(rune('1' + i))
		m[s+"LENGTH_D"+d] = length[i]
		m[s+"STRIDE_D"+d] = stride[i]
	}
	return m
}

// counterUnion returns the union of counter maps.
func counterUnion(ms ...map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

var zero5 [5]int64

func TestHDF5Parallel(t *testing.T) {
	mpicc := needTool(t, "mpicc.openmpi")
	mpiexec := needTool(t, "mpiexec.openmpi")
	prog := compileWorkload(t, mpicc, "hdf5/parallel.c", pkgFlags(t, "hdf5-openmpi")...)
	dir := t.TempDir()
	res := runCollected(t, RunOptions{}, openMPIEnv, mpiexec, "-n", "2", prog, dir)
	if res.Result.ExitCode != 0 {
		t.Fatalf("exit code %d", res.Result.ExitCode)
	}
	l := mpiLog(t, res.Logs, 2)
	path := filepath.Join(dir, "parallel.h5")

	f := record(t, l, darshan.ModH5F, path, -1)
	wantCounters(t, f, map[string]int64{"H5F_OPENS": 2, "H5F_FLUSHES": 2, "H5F_USE_MPIIO": 1})
	wantTimes(t, f, "H5F_F_OPEN_START_TIMESTAMP", "H5F_F_OPEN_END_TIMESTAMP",
		"H5F_F_CLOSE_START_TIMESTAMP", "H5F_F_CLOSE_END_TIMESTAMP", "H5F_F_META_TIME")
	if n := len(records(t, l, darshan.ModH5F)); n != 1 {
		t.Errorf("%d H5F records, want 1", n)
	}

	// Each rank: a 256x512 half (1 MiB) written and read back, 4 points
	// (32 bytes) and 3 rows (12288 bytes) read; opened twice.
	d := record(t, l, darshan.ModH5D, path+":/data", -1)
	wantCounters(t, d, counterUnion(map[string]int64{
		"H5D_OPENS": 4, "H5D_READS": 6, "H5D_WRITES": 2, "H5D_FLUSHES": 0,
		"H5D_BYTES_READ": 2 * (1048576 + 32 + 12288), "H5D_BYTES_WRITTEN": 2 * 1048576,
		"H5D_RW_SWITCHES": 2, "H5D_REGULAR_HYPERSLAB_SELECTS": 4,
		"H5D_IRREGULAR_HYPERSLAB_SELECTS": 2, "H5D_POINT_SELECTS": 2,
		"H5D_MAX_WRITE_TIME_SIZE": 1048576,
		"H5D_SIZE_READ_AGG_0_100": 2, "H5D_SIZE_READ_AGG_10K_100K": 2, "H5D_SIZE_READ_AGG_100K_1M": 2,
		"H5D_SIZE_READ_AGG_1M_4M": 0, "H5D_SIZE_WRITE_AGG_100K_1M": 2,
		"H5D_DATASPACE_NDIMS": 2, "H5D_DATASPACE_NPOINTS": 512 * 512, "H5D_DATATYPE_SIZE": 8,
		"H5D_CHUNK_SIZE_D1": 0, "H5D_CHUNK_SIZE_D2": 0,
		"H5D_USE_MPIIO_COLLECTIVE": 1, "H5D_USE_DEPRECATED": 0,
		"H5D_FASTEST_RANK_BYTES": 1048576 + 32 + 12288 + 1048576,
		"H5D_SLOWEST_RANK_BYTES": 1048576 + 32 + 12288 + 1048576,
	},
		// D5 = first dimension (256 rows), D4 = last (512 columns).
		accessTuple("H5D", 1, 1048576, [5]int64{0, 0, 0, 512, 256}, [5]int64{0, 0, 0, 1, 1}, 4),
		accessTuple("H5D", 2, 12288, zero5, zero5, 2),
		accessTuple("H5D", 3, 32, zero5, zero5, 2),
		accessTuple("H5D", 4, 0, zero5, zero5, 0),
	))
	if got, want := d.FileRecID, darshan.RecordID(path); got != want {
		t.Errorf("H5D_FILE_REC_ID = %#x, want %#x", got, want)
	}
	wantTimes(t, d, "H5D_F_OPEN_START_TIMESTAMP", "H5D_F_READ_START_TIMESTAMP", "H5D_F_WRITE_START_TIMESTAMP",
		"H5D_F_CLOSE_END_TIMESTAMP", "H5D_F_READ_TIME", "H5D_F_WRITE_TIME", "H5D_F_META_TIME",
		"H5D_F_MAX_READ_TIME", "H5D_F_MAX_WRITE_TIME")

	// Each rank: every other row written (stride 2), the whole dataset
	// (2 MiB) read; created, then opened with H5Oopen.
	c := record(t, l, darshan.ModH5D, path+":/chunked", -1)
	wantCounters(t, c, counterUnion(map[string]int64{
		"H5D_OPENS": 4, "H5D_READS": 2, "H5D_WRITES": 2, "H5D_FLUSHES": 0,
		"H5D_BYTES_READ": 2 * 2097152, "H5D_BYTES_WRITTEN": 2 * 1048576,
		"H5D_RW_SWITCHES": 2, "H5D_REGULAR_HYPERSLAB_SELECTS": 2,
		"H5D_IRREGULAR_HYPERSLAB_SELECTS": 0, "H5D_POINT_SELECTS": 0,
		"H5D_MAX_READ_TIME_SIZE": 2097152, "H5D_MAX_WRITE_TIME_SIZE": 1048576,
		"H5D_SIZE_READ_AGG_1M_4M": 2, "H5D_SIZE_WRITE_AGG_100K_1M": 2,
		"H5D_DATASPACE_NDIMS": 2, "H5D_DATASPACE_NPOINTS": 512 * 512, "H5D_DATATYPE_SIZE": 8,
		"H5D_CHUNK_SIZE_D1": 128, "H5D_CHUNK_SIZE_D2": 64, "H5D_CHUNK_SIZE_D3": 0,
		"H5D_USE_MPIIO_COLLECTIVE": 1, "H5D_USE_DEPRECATED": 0,
		"H5D_FASTEST_RANK_BYTES": 2097152 + 1048576, "H5D_SLOWEST_RANK_BYTES": 2097152 + 1048576,
	},
		accessTuple("H5D", 1, 2097152, zero5, zero5, 2),
		accessTuple("H5D", 2, 1048576, [5]int64{0, 0, 0, 512, 256}, [5]int64{0, 0, 0, 1, 2}, 2),
		accessTuple("H5D", 3, 0, zero5, zero5, 0),
	))
	if got, want := c.FileRecID, darshan.RecordID(path); got != want {
		t.Errorf("H5D_FILE_REC_ID = %#x, want %#x", got, want)
	}
	if n := len(records(t, l, darshan.ModH5D)); n != 2 {
		t.Errorf("%d H5D records, want 2", n)
	}
}

func TestHDF5Serial(t *testing.T) {
	mpicc := needTool(t, "mpicc.openmpi")
	prog := compileWorkload(t, mpicc, "hdf5/serial.c", pkgFlags(t, "hdf5-openmpi")...)
	dir := t.TempDir()
	res := runCollected(t, RunOptions{}, nil, prog, dir)
	if res.Result.ExitCode != 0 {
		t.Fatalf("exit code %d", res.Result.ExitCode)
	}
	l := mpiLog(t, res.Logs, 1)
	path := filepath.Join(dir, "serial.h5")

	f := record(t, l, darshan.ModH5F, path, 0)
	wantCounters(t, f, map[string]int64{"H5F_OPENS": 2, "H5F_FLUSHES": 1, "H5F_USE_MPIIO": 0})
	wantTimes(t, f, "H5F_F_OPEN_START_TIMESTAMP", "H5F_F_CLOSE_END_TIMESTAMP", "H5F_F_META_TIME")

	// Dataset "d" of group "/g": the name is the group path followed by the
	// dataset name, without a separator.
	d := record(t, l, darshan.ModH5D, path+":/gd", 0)
	wantCounters(t, d, counterUnion(map[string]int64{
		"H5D_OPENS": 2, "H5D_READS": 1, "H5D_WRITES": 1, "H5D_FLUSHES": 1,
		"H5D_BYTES_READ": 400, "H5D_BYTES_WRITTEN": 4000, "H5D_RW_SWITCHES": 1,
		"H5D_REGULAR_HYPERSLAB_SELECTS": 1, "H5D_IRREGULAR_HYPERSLAB_SELECTS": 0, "H5D_POINT_SELECTS": 0,
		"H5D_MAX_READ_TIME_SIZE": 400, "H5D_MAX_WRITE_TIME_SIZE": 4000,
		"H5D_SIZE_READ_AGG_100_1K": 1, "H5D_SIZE_WRITE_AGG_1K_10K": 1,
		"H5D_DATASPACE_NDIMS": 1, "H5D_DATASPACE_NPOINTS": 1000, "H5D_DATATYPE_SIZE": 4,
		"H5D_CHUNK_SIZE_D1": 0, "H5D_USE_MPIIO_COLLECTIVE": 0, "H5D_USE_DEPRECATED": 1,
	},
		accessTuple("H5D", 1, 4000, zero5, zero5, 1),
		// A 1-D selection: its only dimension is the first, in D5.
		accessTuple("H5D", 2, 400, [5]int64{0, 0, 0, 0, 100}, [5]int64{0, 0, 0, 0, 1}, 1),
		accessTuple("H5D", 3, 0, zero5, zero5, 0),
	))
	if got, want := d.FileRecID, darshan.RecordID(path); got != want {
		t.Errorf("H5D_FILE_REC_ID = %#x, want %#x", got, want)
	}
	wantTimes(t, d, "H5D_F_OPEN_START_TIMESTAMP", "H5D_F_READ_END_TIMESTAMP", "H5D_F_WRITE_END_TIMESTAMP",
		"H5D_F_CLOSE_START_TIMESTAMP", "H5D_F_META_TIME")
	// The group opened with H5Oopen is not a dataset.
	if n := len(records(t, l, darshan.ModH5D)); n != 1 {
		t.Errorf("%d H5D records, want 1", n)
	}
}
