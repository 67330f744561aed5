package analysis

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// memLog is an in-memory io.WriterAt holding a written log.
type memLog struct{ b []byte }

func (m *memLog) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

// rec describes a record of a purpose-built log by counter name.
type rec struct {
	mod  darshan.ModuleID
	file string
	rank int64
	c    map[string]int64
	f    map[string]float64
	// fileRec names the file record of an H5D or PNETCDF_VAR record;
	// lustre is the layout of a LUSTRE record.
	fileRec string
	lustre  *darshan.Lustre
}

// buildLog writes a log with the given job, metadata and records (in
// module order) and opens it.
func buildLog(t testing.TB, nprocs int64, metadata string, recs []rec) *darshan.Log {
	t.Helper()
	var buf memLog
	w := darshan.NewWriter(&buf, darshan.WriterOptions{Compression: darshan.CompressNone})
	job := darshan.Job{UID: 1000, StartTime: 1700000000, EndTime: 1700000100, NProcs: nprocs, JobID: 42, Metadata: metadata}
	if err := w.WriteJob(job, "/bin/app --in data", []darshan.Mount{{Path: "/", FSType: "ext4"}}); err != nil {
		t.Fatal(err)
	}
	names := map[uint64]string{}
	for _, r := range recs {
		names[darshan.RecordID(r.file)] = r.file
	}
	if err := w.WriteNames(maps.All(names)); err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return int(a.mod) - int(b.mod) })
	cur := darshan.ModuleID(-1)
	for _, r := range recs {
		if r.mod != cur {
			if err := w.BeginModule(r.mod); err != nil {
				t.Fatal(err)
			}
			cur = r.mod
		}
		info := r.mod.Info()
		dr := &darshan.Record{Module: r.mod, ID: darshan.RecordID(r.file), Rank: r.rank,
			Counters: make([]int64, len(info.Counters)), FCounters: make([]float64, len(info.FCounters)), Lustre: r.lustre}
		if r.fileRec != "" {
			dr.FileRecID = darshan.RecordID(r.fileRec)
		}
		for k, v := range r.c {
			i := r.mod.CounterIndex(k)
			if i < 0 {
				t.Fatalf("no counter %s in %s", k, r.mod)
			}
			dr.Counters[i] = v
		}
		for k, v := range r.f {
			i := r.mod.FCounterIndex(k)
			if i < 0 {
				t.Fatalf("no counter %s in %s", k, r.mod)
			}
			dr.FCounters[i] = v
		}
		if err := w.WriteRecord(dr); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := darshan.Open(bytes.NewReader(buf.b), int64(len(buf.b)), "built.darshan")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func analyzeBuilt(t *testing.T, l *darshan.Log) *Report {
	t.Helper()
	rep, err := Analyze(l, "built.darshan", DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// codesOf lists "CODE:LEVEL" of the insights of rep.
func codesOf(rep *Report) []string {
	var out []string
	for _, in := range rep.Insights {
		out = append(out, in.Code+":"+in.Level.String())
	}
	return out
}

func insight(t *testing.T, rep *Report, code string) Insight {
	t.Helper()
	for _, in := range rep.Insights {
		if in.Code == code {
			return in
		}
	}
	t.Fatalf("no insight %s in %v", code, codesOf(rep))
	return Insight{}
}

func checkCodes(t *testing.T, rep *Report, want ...string) {
	t.Helper()
	if got := codesOf(rep); !slices.Equal(got, want) {
		t.Errorf("insights %v, want %v", got, want)
	}
}

func checkMessage(t *testing.T, in Insight, want string) {
	t.Helper()
	if in.Message != want {
		t.Errorf("%s message\n got: %s\nwant: %s", in.Code, in.Message, want)
	}
}

const MiB = 1 << 20

func TestSmallWrites(t *testing.T) {
	l := buildLog(t, 1, "lib_ver=3.5.0\nh=no\n", []rec{{
		mod: darshan.ModPOSIX, file: "/scratch/out.dat", rank: 0,
		c: map[string]int64{"POSIX_OPENS": 1, "POSIX_WRITES": 2000, "POSIX_SIZE_WRITE_0_100": 2000,
			"POSIX_BYTES_WRITTEN": 100000, "POSIX_MAX_BYTE_WRITTEN": 99999,
			"POSIX_SEQ_WRITES": 2000, "POSIX_CONSEC_WRITES": 2000},
		f: map[string]float64{"POSIX_F_WRITE_TIME": 1.5},
	}})
	rep := analyzeBuilt(t, l)
	checkCodes(t, rep, "M01:WARN", "P01:INFO", "P03:INFO", "P06:HIGH", "P14:OK")
	in := insight(t, rep, "P06")
	checkMessage(t, in, "2000 small writes (under 1.00 MiB) are 100.00% of all 2000 POSIX writes")
	if len(in.Subjects) != 1 || in.Subjects[0].File != "/scratch/out.dat" || in.Subjects[0].Value != 2000 {
		t.Errorf("P06 subjects %+v", in.Subjects)
	}
	if !strings.Contains(in.Recommendation, "MPI-IO collective") {
		t.Errorf("P06 recommendation %q", in.Recommendation)
	}
	if rep.Job.Hints != nil {
		t.Errorf("hints %v from h=no", rep.Job.Hints)
	}
	if len(rep.Files) != 1 || rep.Files[0].BytesWritten != 100000 || rep.Files[0].Writes != 2000 || rep.Files[0].Ranks != 1 {
		t.Errorf("files %+v", rep.Files)
	}
}

func TestRandomReads(t *testing.T) {
	l := buildLog(t, 1, "lib_ver=3.5.0\n", []rec{{
		mod: darshan.ModPOSIX, file: "/data/in.dat", rank: 0,
		c: map[string]int64{"POSIX_OPENS": 1, "POSIX_READS": 5000, "POSIX_SIZE_READ_1M_4M": 5000,
			"POSIX_BYTES_READ": 5000 * 2 * MiB, "POSIX_MAX_BYTE_READ": 20000*MiB - 1,
			"POSIX_SEQ_READS": 1000, "POSIX_CONSEC_READS": 500},
	}})
	rep := analyzeBuilt(t, l)
	checkCodes(t, rep, "M01:WARN", "P02:INFO", "P04:INFO", "P11:HIGH")
	in := insight(t, rep, "P11")
	checkMessage(t, in, "4000 POSIX reads (80.00%) are random: not at a higher offset than the previous read")
	if len(in.Subjects) != 1 || in.Subjects[0].Value != 4000 {
		t.Errorf("P11 subjects %+v", in.Subjects)
	}
}

func TestMisalignedRequests(t *testing.T) {
	l := buildLog(t, 1, "", []rec{
		{mod: darshan.ModPOSIX, file: "/lustre/out.h5", rank: 0,
			c: map[string]int64{"POSIX_OPENS": 1, "POSIX_WRITES": 100, "POSIX_SIZE_WRITE_1M_4M": 100,
				"POSIX_BYTES_WRITTEN": 300 * MiB, "POSIX_MAX_BYTE_WRITTEN": 300*MiB - 1,
				"POSIX_SEQ_WRITES": 100, "POSIX_CONSEC_WRITES": 100, "POSIX_FILE_NOT_ALIGNED": 50}},
		{mod: darshan.ModH5F, file: "/lustre/out.h5", rank: 0, c: map[string]int64{"H5F_OPENS": 1}},
	})
	rep := analyzeBuilt(t, l)
	checkCodes(t, rep, "M01:WARN", "P01:INFO", "P03:INFO", "P08:HIGH", "P14:OK")
	in := insight(t, rep, "P08")
	checkMessage(t, in, "50.00% of POSIX requests (50 of 100) start at file offsets not aligned to the file system block")
	if !strings.Contains(in.Snippet, "H5Pset_alignment") {
		t.Errorf("P08 without HDF5 alignment advice: %q", in.Snippet)
	}
	if f := rep.Files[0]; !slices.Equal(f.Modules, []string{"POSIX", "H5F"}) {
		t.Errorf("file modules %v", f.Modules)
	}
}

func TestNoCollectives(t *testing.T) {
	const n = 4000
	l := buildLog(t, 4, "lib_ver=3.5.0\nh=romio_no_indep_rw=true;cb_nodes=1\nhostnames=n1\n", []rec{
		{mod: darshan.ModPOSIX, file: "/scratch/shared.dat", rank: -1,
			c: map[string]int64{"POSIX_OPENS": 4, "POSIX_WRITES": n, "POSIX_SIZE_WRITE_1M_4M": n,
				"POSIX_BYTES_WRITTEN": n * 2 * MiB, "POSIX_MAX_BYTE_WRITTEN": n*2*MiB - 1,
				"POSIX_SEQ_WRITES": n, "POSIX_CONSEC_WRITES": n,
				"POSIX_SLOWEST_RANK_BYTES": n / 4 * 2 * MiB, "POSIX_FASTEST_RANK_BYTES": n / 4 * 2 * MiB},
			f: map[string]float64{"POSIX_F_WRITE_TIME": 8, "POSIX_F_SLOWEST_RANK_TIME": 2.1, "POSIX_F_FASTEST_RANK_TIME": 1.9}},
		{mod: darshan.ModMPIIO, file: "/scratch/shared.dat", rank: -1,
			c: map[string]int64{"MPIIO_INDEP_OPENS": 4, "MPIIO_INDEP_WRITES": n, "MPIIO_BYTES_WRITTEN": n * 2 * MiB}},
	})
	rep := analyzeBuilt(t, l)
	checkCodes(t, rep, "M03:HIGH", "M07:WARN", "M10:OK", "P01:INFO", "P03:INFO", "P14:OK")
	in := insight(t, rep, "M03")
	checkMessage(t, in, "The job uses MPI-IO but no write is collective: all 4000 MPI-IO writes are independent")
	if len(in.Subjects) != 1 || in.Subjects[0].Value != n || in.Subjects[0].File != "/scratch/shared.dat" {
		t.Errorf("M03 subjects %+v", in.Subjects)
	}
	if !strings.Contains(in.Snippet, "MPI_File_write_all") {
		t.Errorf("M03 snippet %q", in.Snippet)
	}
	checkMessage(t, insight(t, rep, "M10"), "One MPI-IO aggregator per compute node (cb_nodes=1, 1 nodes)")
	if rep.Job.Nodes != 1 || len(rep.Job.Hints) != 2 || rep.Job.Hints[1] != (Hint{"cb_nodes", "1"}) {
		t.Errorf("job nodes %d hints %v", rep.Job.Nodes, rep.Job.Hints)
	}
	if f := rep.Files[0]; !f.Shared || f.Ranks != 4 || f.BytesWritten != n*2*MiB {
		t.Errorf("file %+v", f)
	}
}

func TestSlowRankOnSharedFile(t *testing.T) {
	l := buildLog(t, 4, "", []rec{{
		mod: darshan.ModPOSIX, file: "/scratch/shared.dat", rank: -1,
		c: map[string]int64{"POSIX_OPENS": 4, "POSIX_WRITES": 400, "POSIX_SIZE_WRITE_10M_100M": 400,
			"POSIX_BYTES_WRITTEN": 400 * 10 * MiB, "POSIX_MAX_BYTE_WRITTEN": 4000*MiB - 1,
			"POSIX_SEQ_WRITES": 400, "POSIX_CONSEC_WRITES": 400,
			"POSIX_SLOWEST_RANK_BYTES": 1000 * MiB, "POSIX_FASTEST_RANK_BYTES": 1000 * MiB,
			"POSIX_FASTEST_RANK": 1, "POSIX_SLOWEST_RANK": 3},
		f: map[string]float64{"POSIX_F_WRITE_TIME": 40, "POSIX_F_SLOWEST_RANK_TIME": 25, "POSIX_F_FASTEST_RANK_TIME": 5},
	}})
	rep := analyzeBuilt(t, l)
	checkCodes(t, rep, "M01:WARN", "P01:INFO", "P03:INFO", "P14:OK", "P19:HIGH")
	in := insight(t, rep, "P19")
	checkMessage(t, in, "Time imbalance between ranks on 1 shared file(s): the slowest rank spent much longer than the fastest")
	if len(in.Subjects) != 1 || in.Subjects[0].Value != 50 || in.Subjects[0].File != "/scratch/shared.dat" {
		t.Errorf("P19 subjects %+v", in.Subjects)
	}
}

func TestRedundantReads(t *testing.T) {
	var recs []rec
	for r := int64(0); r < 4; r++ {
		recs = append(recs, rec{mod: darshan.ModPOSIX, file: "/data/table.bin", rank: r,
			c: map[string]int64{"POSIX_OPENS": 1, "POSIX_READS": 50, "POSIX_SIZE_READ_1M_4M": 50,
				"POSIX_BYTES_READ": 100 * MiB, "POSIX_MAX_BYTE_READ": 100*MiB - 1,
				"POSIX_SEQ_READS": 50, "POSIX_CONSEC_READS": 50}})
	}
	rep := analyzeBuilt(t, buildLog(t, 4, "", recs))
	checkCodes(t, rep, "M01:WARN", "P02:INFO", "P04:INFO", "P09:WARN", "P12:OK")
	in := insight(t, rep, "P09")
	checkMessage(t, in, "Redundant traffic: 1 file(s) had bytes read more than once: 300.00 MiB beyond the extents accessed, of 400.00 MiB read from them")
	if len(in.Subjects) != 1 || in.Subjects[0].Value != 300*MiB {
		t.Errorf("P09 subjects %+v", in.Subjects)
	}
	if f := rep.Files[0]; f.Shared || f.Ranks != 4 || f.BytesRead != 400*MiB {
		t.Errorf("file %+v", f)
	}
}

// TestSparseIsNotRedundant: reading a sparse part of a large file (highest
// offset far beyond the bytes read) is not redundant traffic.
func TestSparseIsNotRedundant(t *testing.T) {
	rep := analyzeBuilt(t, buildLog(t, 1, "", []rec{{mod: darshan.ModPOSIX, file: "/data/sparse", rank: 0,
		c: map[string]int64{"POSIX_READS": 10, "POSIX_SIZE_READ_1M_4M": 10, "POSIX_BYTES_READ": 20 * MiB,
			"POSIX_MAX_BYTE_READ": 1000*MiB - 1, "POSIX_SEQ_READS": 10}}}))
	checkCodes(t, rep, "M01:WARN", "P02:INFO", "P04:INFO", "P12:OK")
}

func TestIncompleteModule(t *testing.T) {
	var buf memLog
	w := darshan.NewWriter(&buf, darshan.WriterOptions{})
	if err := w.WriteJob(darshan.Job{NProcs: 2, Metadata: "h=\n"}, "app", nil); err != nil {
		t.Fatal(err)
	}
	w.SetPartial(darshan.ModDXTPOSIX)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := darshan.Open(bytes.NewReader(buf.b), int64(len(buf.b)), "partial.darshan")
	if err != nil {
		t.Fatal(err)
	}
	rep := analyzeBuilt(t, l)
	checkCodes(t, rep, "X01:WARN")
	if !slices.Equal(rep.Job.Partial, []string{"DXT_POSIX"}) {
		t.Errorf("partial %v", rep.Job.Partial)
	}
}

func TestParseHints(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Hint
	}{
		{"", nil},
		{"no", nil},
		{" no ", nil},
		{"cb_nodes=4", []Hint{{"cb_nodes", "4"}}},
		{"a=1;;b;c=x=y;", []Hint{{"a", "1"}, {"b", ""}, {"c", "x=y"}}},
	} {
		if got := parseHints(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("parseHints(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestCodes(t *testing.T) {
	cs := Codes()
	want := []string{"D01", "D02", "D03", "D04", "D05", "D06", "H01", "H02", "H03", "H04", "L01", "L02", "L03", "M01", "M02", "M03", "M04", "M05", "M06", "M07", "M08", "M09", "M10",
		"N01", "N02", "N03", "N04", "P01", "P02", "P03", "P04", "P05", "P06", "P07", "P08", "P09", "P10", "P11", "P12", "P13", "P14",
		"P15", "P16", "P17", "P18", "P19", "P21", "P22", "S01", "X01", "X02"}
	var got []string
	for _, c := range cs {
		got = append(got, c.Code)
		if len(c.Levels) == 0 || c.Meaning == "" || c.Threshold == "" {
			t.Errorf("%s: incomplete entry %+v", c.Code, c)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("codes %v, want %v", got, want)
	}
}

func TestJobFileAndRankTotals(t *testing.T) {
	l := buildLog(t, 4, "lib_ver=3.5.0\n", []rec{
		{mod: darshan.ModPOSIX, file: "/scratch/shared.dat", rank: -1,
			c: map[string]int64{"POSIX_OPENS": 4, "POSIX_WRITES": 400, "POSIX_SIZE_WRITE_1K_10K": 400,
				"POSIX_BYTES_WRITTEN": 1638400, "POSIX_MAX_BYTE_WRITTEN": 1638399, "POSIX_SEQ_WRITES": 100,
				"POSIX_ACCESS1_ACCESS": 4096, "POSIX_ACCESS1_COUNT": 400},
			f: map[string]float64{"POSIX_F_WRITE_TIME": 2, "POSIX_F_META_TIME": 0.5}},
		{mod: darshan.ModPOSIX, file: "/scratch/rank0.dat", rank: 0,
			c: map[string]int64{"POSIX_OPENS": 1, "POSIX_READS": 10, "POSIX_SIZE_READ_1M_4M": 10,
				"POSIX_BYTES_READ": 20971520, "POSIX_MAX_BYTE_READ": 20971519, "POSIX_SEQ_READS": 10,
				"POSIX_ACCESS1_ACCESS": 2097152, "POSIX_ACCESS1_COUNT": 10},
			f: map[string]float64{"POSIX_F_READ_TIME": 0.25, "POSIX_F_META_TIME": 0.125}},
		{mod: darshan.ModSTDIO, file: "/scratch/rank0.dat", rank: 0,
			c: map[string]int64{"STDIO_OPENS": 1, "STDIO_WRITES": 1, "STDIO_BYTES_WRITTEN": 10},
			f: map[string]float64{"STDIO_F_WRITE_TIME": 0.5}},
	})
	rep := analyzeBuilt(t, l)
	j := rep.Job
	if j.SmallReads != 0 || j.SmallWrites != 400 || j.MetaTime != 0.625 {
		t.Errorf("small reads %d, small writes %d, meta time %g; want 0, 400, 0.625", j.SmallReads, j.SmallWrites, j.MetaTime)
	}
	want := map[string][2]int64{"/scratch/shared.dat": {4096, 100}, "/scratch/rank0.dat": {2097152, 10}}
	for _, f := range rep.Files {
		if got := [2]int64{f.AccessSize, f.SeqOps}; got != want[f.Name] {
			t.Errorf("%s: access size, sequential ops %v; want %v", f.Name, got, want[f.Name])
		}
	}
	if len(rep.Ranks) != 1 || rep.Ranks[0] != (RankIO{Rank: 0, Bytes: 20971530, Time: 0.875}) {
		t.Errorf("ranks %+v; want rank 0 with 20971530 bytes in 0.875 s", rep.Ranks)
	}
}
