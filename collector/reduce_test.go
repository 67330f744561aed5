package collector

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

// mkRecord returns a record of module m with the named counters and
// fcounters set (fcounters in seconds) and the others 0.
func mkRecord(m darshan.ModuleID, id uint64, rank int64, vals cv) *darshan.Record {
	info := m.Info()
	r := &darshan.Record{Module: m, ID: id, Rank: rank,
		Counters: make([]int64, len(info.Counters)), FCounters: make([]float64, len(info.FCounters))}
	for k, v := range vals {
		if i := m.CounterIndex(k); i >= 0 {
			r.Counters[i] = int64(v)
		} else if i := m.FCounterIndex(k); i >= 0 {
			r.FCounters[i] = v
		} else {
			panic(fmt.Sprintf("no counter %s in %s", k, m))
		}
	}
	return r
}

// sameRecord compares r with want exactly (floats bit for bit).
func sameRecord(t *testing.T, what string, r, want *darshan.Record) {
	t.Helper()
	if diff := cmp.Diff(want, r, cmp.Comparer(func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b)
	})); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func TestReductionTables(t *testing.T) {
	for _, spec := range reductionSpecs() {
		if _, err := resolve(&spec); err != nil {
			t.Errorf("%s: %v", spec.module, err)
		}
	}
	// A counter claimed twice, an unknown name and a counter without a rule
	// are errors.
	bad := []reductionSpec{
		{module: darshan.ModH5F, prefix: "H5F", ints: []counterSpan{{"OPENS", "USE_MPIIO", opSum}, {"USE_MPIIO", "", opOr}},
			floats: []counterSpan{{"F_OPEN_START_TIMESTAMP", "F_META_TIME", opSum}}},
		{module: darshan.ModH5F, prefix: "H5F", ints: []counterSpan{{"OPENS", "NOPE", opSum}}},
		{module: darshan.ModH5F, prefix: "H5F", ints: []counterSpan{{"OPENS", "FLUSHES", opSum}},
			floats: []counterSpan{{"F_OPEN_START_TIMESTAMP", "F_META_TIME", opSum}}},
	}
	for i, spec := range bad {
		if _, err := resolve(&spec); err == nil {
			t.Errorf("bad spec %d accepted", i)
		}
	}
}

func TestReducePOSIXTwoRanks(t *testing.T) {
	const id = 42
	r0 := mkRecord(darshan.ModPOSIX, id, 0, cv{
		"POSIX_OPENS": 2, "POSIX_MMAPS": -1, "POSIX_RENAME_SOURCES": 1,
		"POSIX_MODE": 420, "POSIX_MEM_ALIGNMENT": 8, "POSIX_FILE_ALIGNMENT": 4096,
		"POSIX_BYTES_READ": 4096, "POSIX_BYTES_WRITTEN": 4198400,
		"POSIX_MAX_BYTE_WRITTEN": 100, "POSIX_CONSEC_WRITES": 3, "POSIX_SEQ_WRITES": 4,
		"POSIX_FILE_NOT_ALIGNED": 2, "POSIX_SIZE_WRITE_1M_4M": 1, "POSIX_SIZE_READ_1K_10K": 1,
		"POSIX_ACCESS1_ACCESS": 4096, "POSIX_ACCESS1_COUNT": 5, "POSIX_ACCESS2_ACCESS": 1048576, "POSIX_ACCESS2_COUNT": 4,
		"POSIX_STRIDE1_STRIDE": 10, "POSIX_STRIDE1_COUNT": 2,
		"POSIX_MAX_READ_TIME_SIZE": 4096, "POSIX_MAX_WRITE_TIME_SIZE": 1048576,
		"POSIX_F_OPEN_START_TIMESTAMP": 0.5, "POSIX_F_WRITE_START_TIMESTAMP": 1,
		"POSIX_F_OPEN_END_TIMESTAMP": 0.625, "POSIX_F_WRITE_END_TIMESTAMP": 3,
		"POSIX_F_READ_TIME": 0.5, "POSIX_F_WRITE_TIME": 1, "POSIX_F_META_TIME": 0.25,
		"POSIX_F_MAX_READ_TIME": 0.25, "POSIX_F_MAX_WRITE_TIME": 0.5,
	})
	r1 := mkRecord(darshan.ModPOSIX, id, 1, cv{
		"POSIX_OPENS": 1, "POSIX_MMAPS": -1, "POSIX_RENAMED_FROM": 7,
		"POSIX_MODE": 384, "POSIX_MEM_ALIGNMENT": 16, "POSIX_FILE_ALIGNMENT": 4096,
		"POSIX_BYTES_WRITTEN":    4194304,
		"POSIX_MAX_BYTE_WRITTEN": 200, "POSIX_CONSEC_WRITES": 1,
		"POSIX_SIZE_WRITE_1M_4M": 4, "POSIX_SIZE_WRITE_1K_10K": 1,
		"POSIX_ACCESS1_ACCESS": 1048576, "POSIX_ACCESS1_COUNT": 4, "POSIX_ACCESS2_ACCESS": 4096, "POSIX_ACCESS2_COUNT": 1,
		"POSIX_STRIDE1_STRIDE": 20, "POSIX_STRIDE1_COUNT": 2,
		"POSIX_MAX_READ_TIME_SIZE": 10, "POSIX_MAX_WRITE_TIME_SIZE": 4096,
		"POSIX_F_OPEN_START_TIMESTAMP": 0.25, "POSIX_F_READ_START_TIMESTAMP": 2, "POSIX_F_WRITE_START_TIMESTAMP": 1.5,
		"POSIX_F_OPEN_END_TIMESTAMP": 0.375, "POSIX_F_READ_END_TIMESTAMP": 2.25, "POSIX_F_WRITE_END_TIMESTAMP": 2.5,
		"POSIX_F_WRITE_TIME": 2, "POSIX_F_META_TIME": 0.5,
		"POSIX_F_MAX_READ_TIME": 0.125, "POSIX_F_MAX_WRITE_TIME": 0.5,
	})
	got := reductions()[darshan.ModPOSIX].reduce([]*darshan.Record{r0, r1})
	want := mkRecord(darshan.ModPOSIX, id, -1, cv{
		"POSIX_OPENS": 3, "POSIX_MMAPS": -1, "POSIX_RENAME_SOURCES": 1,
		"POSIX_RENAMED_FROM": 7, "POSIX_MODE": 384, "POSIX_MEM_ALIGNMENT": 16, "POSIX_FILE_ALIGNMENT": 4096,
		"POSIX_BYTES_READ": 4096, "POSIX_BYTES_WRITTEN": 8392704,
		"POSIX_MAX_BYTE_WRITTEN": 200, "POSIX_CONSEC_WRITES": 4, "POSIX_SEQ_WRITES": 4,
		"POSIX_FILE_NOT_ALIGNED": 2, "POSIX_SIZE_WRITE_1M_4M": 5, "POSIX_SIZE_WRITE_1K_10K": 1, "POSIX_SIZE_READ_1K_10K": 1,
		// 1048576: 4+4, 4096: 5+1.
		"POSIX_ACCESS1_ACCESS": 1048576, "POSIX_ACCESS1_COUNT": 8, "POSIX_ACCESS2_ACCESS": 4096, "POSIX_ACCESS2_COUNT": 6,
		// Equal counts: the larger stride first.
		"POSIX_STRIDE1_STRIDE": 20, "POSIX_STRIDE1_COUNT": 2, "POSIX_STRIDE2_STRIDE": 10, "POSIX_STRIDE2_COUNT": 2,
		// Read: rank 0 is slower. Write: a tie goes to the lower rank.
		"POSIX_MAX_READ_TIME_SIZE": 4096, "POSIX_MAX_WRITE_TIME_SIZE": 1048576,
		"POSIX_F_MAX_READ_TIME": 0.25, "POSIX_F_MAX_WRITE_TIME": 0.5,
		"POSIX_F_OPEN_START_TIMESTAMP": 0.25, "POSIX_F_READ_START_TIMESTAMP": 2, "POSIX_F_WRITE_START_TIMESTAMP": 1,
		"POSIX_F_OPEN_END_TIMESTAMP": 0.625, "POSIX_F_READ_END_TIMESTAMP": 2.25, "POSIX_F_WRITE_END_TIMESTAMP": 3,
		"POSIX_F_READ_TIME": 0.5, "POSIX_F_WRITE_TIME": 3, "POSIX_F_META_TIME": 0.75,
		// Rank 0: 1.75 s, 4202496 bytes; rank 1: 2.5 s, 4194304 bytes.
		"POSIX_FASTEST_RANK": 0, "POSIX_FASTEST_RANK_BYTES": 4202496, "POSIX_F_FASTEST_RANK_TIME": 1.75,
		"POSIX_SLOWEST_RANK": 1, "POSIX_SLOWEST_RANK_BYTES": 4194304, "POSIX_F_SLOWEST_RANK_TIME": 2.5,
		// (a-b)²/4.
		"POSIX_F_VARIANCE_RANK_TIME": 0.140625, "POSIX_F_VARIANCE_RANK_BYTES": 16777216,
	})
	sameRecord(t, "POSIX", got, want)
	if v := (1.75 - 2.5) * (1.75 - 2.5) / 4; v != 0.140625 {
		t.Errorf("check of the expected variance: %v", v)
	}

	// Summed call counters below zero are clamped to -1 (MMAPS of both
	// ranks), and a zero sum stays 0.
	r0 = mkRecord(darshan.ModPOSIX, id, 0, cv{"POSIX_MMAPS": -1, "POSIX_STATS": -3, "POSIX_FSYNCS": 2})
	r1 = mkRecord(darshan.ModPOSIX, id, 1, cv{"POSIX_MMAPS": -1, "POSIX_STATS": 1, "POSIX_FSYNCS": -2})
	got = reductions()[darshan.ModPOSIX].reduce([]*darshan.Record{r0, r1})
	for name, want := range map[string]int64{"POSIX_MMAPS": -1, "POSIX_STATS": -1, "POSIX_FSYNCS": 0, "POSIX_FASTEST_RANK": 0, "POSIX_SLOWEST_RANK": 0} {
		if v, _ := got.Counter(name); v != want {
			t.Errorf("%s = %d, want %d", name, v, want)
		}
	}
}

func TestReduceFourRanks(t *testing.T) {
	const id = 9
	access := [][]int64{
		{100, 10, 200, 5, 300, 5, 400, 1},
		{200, 6, 500, 3, 0, 0, 0, 0},
		{600, 9, 100, 1, 0, 7, 0, 0}, // a zero value is skipped
		{300, 6, 700, 11, 800, 2, 900, 2},
	}
	meta := []float64{4, 1, 1, 4}
	bytes := []float64{1, 2, 3, 4}
	var recs []*darshan.Record
	for rank := range 4 {
		c := cv{
			"MPIIO_COLL_OPENS": 1, "MPIIO_COLL_WRITES": float64(rank), "MPIIO_MODE": float64(10 + rank),
			"MPIIO_BYTES_WRITTEN": bytes[rank], "MPIIO_F_META_TIME": meta[rank],
			"MPIIO_F_WRITE_START_TIMESTAMP": float64(4 - rank), "MPIIO_F_WRITE_END_TIMESTAMP": float64(10 + rank%2),
		}
		for k := range 4 {
			c[fmt.Sprintf("MPIIO_ACCESS%d_ACCESS", k+1)] = float64(access[rank][2*k])
			c[fmt.Sprintf("MPIIO_ACCESS%d_COUNT", k+1)] = float64(access[rank][2*k+1])
		}
		recs = append(recs, mkRecord(darshan.ModMPIIO, id, int64(rank), c))
	}
	got := reductions()[darshan.ModMPIIO].reduce(recs)
	want := mkRecord(darshan.ModMPIIO, id, -1, cv{
		"MPIIO_COLL_OPENS": 4, "MPIIO_COLL_WRITES": 6, "MPIIO_MODE": 13, "MPIIO_BYTES_WRITTEN": 10,
		"MPIIO_F_META_TIME": 10, "MPIIO_F_WRITE_START_TIMESTAMP": 1, "MPIIO_F_WRITE_END_TIMESTAMP": 11,
		// Totals 100:11 200:11 300:11 700:11 600:9 500:3 ...: four counts of
		// 11, the larger values first.
		"MPIIO_ACCESS1_ACCESS": 700, "MPIIO_ACCESS1_COUNT": 11,
		"MPIIO_ACCESS2_ACCESS": 300, "MPIIO_ACCESS2_COUNT": 11,
		"MPIIO_ACCESS3_ACCESS": 200, "MPIIO_ACCESS3_COUNT": 11,
		"MPIIO_ACCESS4_ACCESS": 100, "MPIIO_ACCESS4_COUNT": 11,
		// Times 4, 1, 1, 4: ties go to the lowest rank.
		"MPIIO_FASTEST_RANK": 1, "MPIIO_FASTEST_RANK_BYTES": 2, "MPIIO_F_FASTEST_RANK_TIME": 1,
		"MPIIO_SLOWEST_RANK": 0, "MPIIO_SLOWEST_RANK_BYTES": 1, "MPIIO_F_SLOWEST_RANK_TIME": 4,
		// Population variances of 4,1,1,4 and 1,2,3,4.
		"MPIIO_F_VARIANCE_RANK_TIME": 2.25, "MPIIO_F_VARIANCE_RANK_BYTES": 1.25,
	})
	sameRecord(t, "MPI-IO", got, want)
}

// setTuple sets the 11 counters and the count of slot k of an H5D or
// PNETCDF_VAR access tuple in c.
func setTuple(prefix string, k int, v []int64, count int64, c cv) {
	names := []string{"ACCESS"}
	for _, kind := range []string{"LENGTH", "STRIDE"} {
		for d := 1; d <= 5; d++ {
			names = append(names, fmt.Sprintf("%s_D%d", kind, d))
		}
	}
	for i, n := range names {
		c[fmt.Sprintf("%s_ACCESS%d_%s", prefix, k, n)] = float64(v[i])
	}
	c[fmt.Sprintf("%s_ACCESS%d_COUNT", prefix, k)] = float64(count)
}

func TestReduceTuples(t *testing.T) {
	t1 := []int64{4096, 0, 0, 0, 1, 4096, 0, 0, 0, 1, 1}
	t2 := []int64{4096, 0, 0, 0, 2, 2048, 0, 0, 0, 1, 1}
	t3 := []int64{8192, 0, 0, 0, 2, 4096, 0, 0, 0, 1, 1}
	t4 := []int64{4096, 0, 0, 0, 1, 8192, 0, 0, 0, 1, 1}
	for _, m := range []struct {
		id     darshan.ModuleID
		prefix string
		extra  func(rank int) cv
		want   cv
	}{
		{darshan.ModH5D, "H5D", func(rank int) cv {
			return cv{"H5D_OPENS": 1, "H5D_REGULAR_HYPERSLAB_SELECTS": -1, "H5D_DATASPACE_NDIMS": float64(2 + rank),
				"H5D_USE_MPIIO_COLLECTIVE": float64(1 - rank), "H5D_CHUNK_SIZE_D5": float64(rank)}
		}, cv{"H5D_OPENS": 2, "H5D_REGULAR_HYPERSLAB_SELECTS": -2, "H5D_DATASPACE_NDIMS": 3,
			"H5D_USE_MPIIO_COLLECTIVE": 1, "H5D_CHUNK_SIZE_D5": 1}},
		{darshan.ModPnetCDFVar, "PNETCDF_VAR", func(rank int) cv {
			return cv{"PNETCDF_VAR_OPENS": 1, "PNETCDF_VAR_NDIMS": float64(2 + rank), "PNETCDF_VAR_IS_RECORD_VAR": float64(rank)}
		}, cv{"PNETCDF_VAR_OPENS": 2, "PNETCDF_VAR_NDIMS": 3, "PNETCDF_VAR_IS_RECORD_VAR": 1}},
	} {
		c0, c1 := m.extra(0), m.extra(1)
		setTuple(m.prefix, 1, t1, 3, c0)
		setTuple(m.prefix, 2, t2, 3, c0)
		setTuple(m.prefix, 3, t4, 3, c0)
		setTuple(m.prefix, 1, t3, 3, c1)
		setTuple(m.prefix, 2, t1, 1, c1)
		r0, r1 := mkRecord(m.id, 5, 0, c0), mkRecord(m.id, 5, 1, c1)
		r0.FileRecID, r1.FileRecID = 100, 101
		got := reductions()[m.id].reduce([]*darshan.Record{r0, r1})
		want := m.want
		// t1: 4; then count 3: t3 (larger access), t2 and t4 (equal access,
		// larger fifth component first).
		setTuple(m.prefix, 1, t1, 4, want)
		setTuple(m.prefix, 2, t3, 3, want)
		setTuple(m.prefix, 3, t2, 3, want)
		setTuple(m.prefix, 4, t4, 3, want)
		p := m.prefix
		want[p+"_FASTEST_RANK"], want[p+"_SLOWEST_RANK"] = 0, 0
		w := mkRecord(m.id, 5, -1, want)
		w.FileRecID = 101
		sameRecord(t, m.id.String(), got, w)
	}
}

func TestReduceOtherModules(t *testing.T) {
	// H5F: sums, or, stamps; no rank statistics.
	got := reductions()[darshan.ModH5F].reduce([]*darshan.Record{
		mkRecord(darshan.ModH5F, 1, 0, cv{"H5F_OPENS": 1, "H5F_FLUSHES": 2, "H5F_F_OPEN_START_TIMESTAMP": 0.5, "H5F_F_CLOSE_END_TIMESTAMP": 4, "H5F_F_META_TIME": 0.25}),
		mkRecord(darshan.ModH5F, 1, 1, cv{"H5F_OPENS": 1, "H5F_USE_MPIIO": 1, "H5F_F_OPEN_START_TIMESTAMP": 0.75, "H5F_F_CLOSE_END_TIMESTAMP": 3, "H5F_F_META_TIME": 0.5}),
	})
	sameRecord(t, "H5F", got, mkRecord(darshan.ModH5F, 1, -1, cv{"H5F_OPENS": 2, "H5F_FLUSHES": 2, "H5F_USE_MPIIO": 1,
		"H5F_F_OPEN_START_TIMESTAMP": 0.5, "H5F_F_CLOSE_END_TIMESTAMP": 4, "H5F_F_META_TIME": 0.75}))

	// PNETCDF_FILE: every integer counter summed, -1 included.
	got = reductions()[darshan.ModPnetCDFFile].reduce([]*darshan.Record{
		mkRecord(darshan.ModPnetCDFFile, 1, 0, cv{"PNETCDF_FILE_CREATES": 1, "PNETCDF_FILE_BYTES_READ": -1, "PNETCDF_FILE_BYTES_WRITTEN": 100,
			"PNETCDF_FILE_F_WAIT_START_TIMESTAMP": 2, "PNETCDF_FILE_F_WAIT_END_TIMESTAMP": 3, "PNETCDF_FILE_F_WAIT_TIME": 0.5}),
		mkRecord(darshan.ModPnetCDFFile, 1, 1, cv{"PNETCDF_FILE_CREATES": 1, "PNETCDF_FILE_BYTES_READ": -1, "PNETCDF_FILE_BYTES_WRITTEN": 50,
			"PNETCDF_FILE_F_WAIT_START_TIMESTAMP": 1.5, "PNETCDF_FILE_F_WAIT_END_TIMESTAMP": 2.5, "PNETCDF_FILE_F_WAIT_TIME": 0.25}),
	})
	sameRecord(t, "PNETCDF_FILE", got, mkRecord(darshan.ModPnetCDFFile, 1, -1, cv{"PNETCDF_FILE_CREATES": 2,
		"PNETCDF_FILE_BYTES_READ": -2, "PNETCDF_FILE_BYTES_WRITTEN": 150,
		"PNETCDF_FILE_F_WAIT_START_TIMESTAMP": 1.5, "PNETCDF_FILE_F_WAIT_END_TIMESTAMP": 3, "PNETCDF_FILE_F_WAIT_TIME": 0.75}))

	// STDIO: sums, max, stamps, rank statistics.
	got = reductions()[darshan.ModSTDIO].reduce([]*darshan.Record{
		mkRecord(darshan.ModSTDIO, 1, 0, cv{"STDIO_OPENS": 1, "STDIO_WRITES": 3, "STDIO_BYTES_WRITTEN": 30, "STDIO_MAX_BYTE_WRITTEN": 29,
			"STDIO_F_WRITE_START_TIMESTAMP": 1, "STDIO_F_WRITE_END_TIMESTAMP": 2, "STDIO_F_WRITE_TIME": 0.5}),
		mkRecord(darshan.ModSTDIO, 1, 1, cv{"STDIO_OPENS": 1, "STDIO_WRITES": 1, "STDIO_BYTES_WRITTEN": 10, "STDIO_MAX_BYTE_WRITTEN": 9,
			"STDIO_F_WRITE_START_TIMESTAMP": 0.5, "STDIO_F_WRITE_END_TIMESTAMP": 1.5, "STDIO_F_WRITE_TIME": 0.25}),
	})
	sameRecord(t, "STDIO", got, mkRecord(darshan.ModSTDIO, 1, -1, cv{"STDIO_OPENS": 2, "STDIO_WRITES": 4,
		"STDIO_BYTES_WRITTEN": 40, "STDIO_MAX_BYTE_WRITTEN": 29,
		"STDIO_F_WRITE_START_TIMESTAMP": 0.5, "STDIO_F_WRITE_END_TIMESTAMP": 2, "STDIO_F_WRITE_TIME": 0.75,
		"STDIO_FASTEST_RANK": 1, "STDIO_FASTEST_RANK_BYTES": 10, "STDIO_F_FASTEST_RANK_TIME": 0.25,
		"STDIO_SLOWEST_RANK": 0, "STDIO_SLOWEST_RANK_BYTES": 30, "STDIO_F_SLOWEST_RANK_TIME": 0.5,
		"STDIO_F_VARIANCE_RANK_TIME": 0.015625, "STDIO_F_VARIANCE_RANK_BYTES": 100}))
}

// idRanks returns the (id, rank) pairs of recs.
func idRanks(recs []*darshan.Record) [][2]int64 {
	var out [][2]int64
	for _, r := range recs {
		out = append(out, [2]int64{int64(r.ID), r.Rank})
	}
	return out
}

func TestOrderModule(t *testing.T) {
	const big = 1<<63 + 1 // sorts after the small ids as unsigned
	mk := func(rank int64, idList ...uint64) []*darshan.Record {
		var out []*darshan.Record
		for _, id := range idList {
			out = append(out, mkRecord(darshan.ModPOSIX, id, rank, cv{"POSIX_OPENS": 1}))
		}
		return out
	}
	byRank := [][]*darshan.Record{
		mk(0, 50, 30, 10, big, 20, 60),
		mk(1, 20, 40, 30, 5, 60, 60),
		mk(2, 7, 30, 20, 1, 60),
	}
	got := orderModule(darshan.ModPOSIX, byRank, true)
	want := [][2]int64{
		{10, 0}, {50, 0}, {60, 0}, {math.MinInt64 + 1, 0}, // rank 0's own records by id (60: twice in rank 1)
		{20, -1}, {30, -1}, // shared records by id
		{5, 1}, {40, 1}, {60, 1}, {60, 1},
		{1, 2}, {7, 2}, {60, 2},
	}
	if diff := cmp.Diff(want, idRanks(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if v, _ := got[4].Counter("POSIX_OPENS"); v != 3 {
		t.Errorf("shared record: %d opens", v)
	}

	// Without a shared record, or when sharing is off, ranks and store order
	// are kept.
	for _, shared := range []bool{true, false} {
		got = orderModule(darshan.ModPOSIX, [][]*darshan.Record{mk(0, 3, 1), mk(1, 2)}, shared)
		if diff := cmp.Diff([][2]int64{{3, 0}, {1, 0}, {2, 1}}, idRanks(got)); diff != "" {
			t.Errorf("shared=%v: order (-want +got):\n%s", shared, diff)
		}
	}
	got = orderModule(darshan.ModPOSIX, [][]*darshan.Record{mk(0, 3, 1), mk(1, 1)}, false)
	if diff := cmp.Diff([][2]int64{{3, 0}, {1, 0}, {1, 1}}, idRanks(got)); diff != "" {
		t.Errorf("no sharing: order (-want +got):\n%s", diff)
	}
}

func TestFilterSTDIO(t *testing.T) {
	out, errID, file := darshan.RecordID("<STDOUT>"), darshan.RecordID("<STDERR>"), darshan.RecordID("/f")
	recs := []*darshan.Record{
		mkRecord(darshan.ModSTDIO, out, -1, cv{"STDIO_OPENS": 2}),
		mkRecord(darshan.ModSTDIO, file, 0, cv{"STDIO_OPENS": 1}),
		mkRecord(darshan.ModSTDIO, errID, 0, cv{"STDIO_OPENS": 1, "STDIO_WRITES": 1}),
		mkRecord(darshan.ModSTDIO, darshan.RecordID("<STDIN>"), 1, cv{"STDIO_OPENS": 1, "STDIO_READS": 1}),
		mkRecord(darshan.ModSTDIO, darshan.RecordID("<STDIN>"), 0, cv{"STDIO_OPENS": 1, "STDIO_SEEKS": 1}),
	}
	got := filterSTDIO(recs)
	want := [][2]int64{{int64(file), 0}, {int64(errID), 0}, {int64(darshan.RecordID("<STDIN>")), 1}}
	if diff := cmp.Diff(want, idRanks(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// hmBins returns 200 bins with bin i holding f(i).
func hmBins(f func(i int) int64) []int64 {
	b := make([]int64, heatmapBins)
	for i := range b {
		b[i] = f(i)
	}
	return b
}

func TestFitHeatmaps(t *testing.T) {
	// One process that ran 24.9 s with 0.1-s bins: one collapse to 0.2 s,
	// ceil(24.9/0.2) = 125 bins.
	h := &outHeatmap{width: 0.1, write: hmBins(func(i int) int64 { return int64(i + 1) }), read: hmBins(func(int) int64 { return 0 })}
	fitHeatmaps([]*outHeatmap{h}, []float64{24.9}, false)
	if h.width != 0.2 || len(h.write) != 125 || len(h.read) != 125 {
		t.Fatalf("width %v, %d/%d bins", h.width, len(h.write), len(h.read))
	}
	for k, v := range h.write {
		want := int64(4*k + 3) // (2k+1) + (2k+2)
		if k >= 100 {
			want = 0
		}
		if v != want {
			t.Fatalf("bin %d = %d, want %d", k, v, want)
		}
	}

	// A short run keeps ceil(E/w) bins, but never cuts a non-zero bin.
	h = &outHeatmap{width: 0.1, write: hmBins(func(i int) int64 { return map[int]int64{2: 5}[i] }), read: hmBins(func(int) int64 { return 0 })}
	fitHeatmaps([]*outHeatmap{h}, []float64{0.45}, false)
	if h.width != 0.1 || len(h.write) != 5 {
		t.Errorf("short run: width %v, %d bins", h.width, len(h.write))
	}
	h = &outHeatmap{width: 0.1, write: hmBins(func(i int) int64 { return map[int]int64{7: 1}[i] }), read: hmBins(func(int) int64 { return 0 })}
	fitHeatmaps([]*outHeatmap{h}, []float64{0.45}, false)
	if len(h.write) != 8 {
		t.Errorf("bin 7 used: %d bins", len(h.write))
	}

	// An MPI job: widths within 0.1 % end equal, a narrower heatmap is
	// collapsed until it matches; all get the largest width and the same
	// bin count ceil(30/0.2000002) = 150.
	one := func(int) int64 { return 1 }
	hms := []*outHeatmap{
		{width: 0.1, write: hmBins(one), read: hmBins(one)},
		{width: 0.1000001, write: hmBins(one), read: hmBins(one)},
		{width: 0.05, write: hmBins(one), read: hmBins(one)},
	}
	fitHeatmaps(hms, []float64{30, 30, 30}, true)
	for i, h := range hms {
		if h.width != 0.2000002 || len(h.write) != 150 || len(h.read) != 150 {
			t.Errorf("heatmap %d: width %v, %d bins", i, h.width, len(h.write))
		}
	}
	if got := hms[2].write[:3]; !cmp.Equal(got, []int64{4, 4, 4}) || hms[2].write[49] != 4 || hms[2].write[50] != 0 {
		t.Errorf("0.05-s heatmap collapsed twice: %v ... %v", got, hms[2].write[48:52])
	}
	// Collapsing for width only: 0.1 → 0.4 to match, E = 1 s → 3 bins.
	hms = []*outHeatmap{
		{width: 0.4, write: hmBins(func(i int) int64 { return map[int]int64{0: 1}[i] }), read: hmBins(func(int) int64 { return 0 })},
		{width: 0.1, write: hmBins(func(i int) int64 { return map[int]int64{5: 2}[i] }), read: hmBins(func(int) int64 { return 0 })},
	}
	fitHeatmaps(hms, []float64{1, 1}, true)
	if hms[1].width != 0.4 || len(hms[1].write) != 3 || !cmp.Equal(hms[1].write, []int64{0, 2, 0}) || len(hms[0].read) != 3 {
		t.Errorf("width match: %v %v %d", hms[1].width, hms[1].write, len(hms[0].read))
	}
}
