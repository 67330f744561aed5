package main

import (
	"bytes"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
)

// generatedFiles returns the paths, relative to dir, of every file under dir, and
// fails the test on a directory or file with the wrong permissions.
func generatedFiles(t *testing.T, dir string) []string {
	t.Helper()
	var rels []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if path != dir && info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), want)
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rels)
	return rels
}

// TestGenerate generates 40 logs and checks each of them: layout of the
// directory, job record, counters, analysis; then that the same seed writes
// the same bytes, with any number of workers.
func TestGenerate(t *testing.T) {
	const n = 40
	dir := t.TempDir()
	var calls, last int
	if err := generate(dir, n, 1, func(done int) { calls, last = calls+1, done }); err != nil {
		t.Fatal(err)
	}
	if calls != n || last != n {
		t.Errorf("progress called %d times, last with %d; want %d and %d", calls, last, n, n)
	}
	rels := generatedFiles(t, dir)
	if len(rels) != n {
		t.Fatalf("%d files, want %d: %v", len(rels), n, rels)
	}
	type started struct{ start, jobID int64 }
	var jobs []started
	for _, rel := range rels {
		l := checkLog(t, dir, rel)
		if l != nil {
			jobs = append(jobs, started{l.Job.StartTime, l.Job.JobID})
		}
	}
	// Job ids grow with the start time.
	slices.SortFunc(jobs, func(a, b started) int { return int(a.start - b.start) })
	for i := 1; i < len(jobs); i++ {
		if jobs[i].jobID <= jobs[i-1].jobID {
			t.Errorf("job %d starts after job %d", jobs[i].jobID, jobs[i-1].jobID)
		}
	}

	// The same seed, with one worker instead of one per CPU, writes the
	// same files byte for byte.
	dir2 := t.TempDir()
	cfg := defaultGenConfig()
	cfg.Workers = 1
	if err := generateWith(dir2, n, 1, cfg, nil); err != nil {
		t.Fatal(err)
	}
	if rels2 := generatedFiles(t, dir2); !slices.Equal(rels, rels2) {
		t.Fatalf("second run wrote other files:\n%v\n%v", rels, rels2)
	}
	for _, rel := range rels {
		a, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir2, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs with seed 1", rel)
		}
	}
}

// TestGenerateSeeds checks that another seed writes other logs and that a
// bad configuration is refused.
func TestGenerateSeeds(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for i, dir := range []string{a, b} {
		if err := generate(dir, 3, uint64(10+i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if ra, rb := generatedFiles(t, a), generatedFiles(t, b); slices.Equal(ra, rb) {
		t.Errorf("seeds 10 and 11 wrote the same files %v", ra)
	}
	if err := generate(t.TempDir(), 0, 1, nil); err != nil {
		t.Errorf("zero logs: %v", err)
	}
	if err := generate(t.TempDir(), -1, 1, nil); err == nil {
		t.Error("a negative count was accepted")
	}
}

// checkLog checks the log at dir/rel and returns it (nil when it cannot be
// opened).
func checkLog(t *testing.T, dir, rel string) *darshan.Log {
	t.Helper()
	path := filepath.Join(dir, rel)
	l, err := darshan.OpenFile(path)
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return nil
	}
	checkJob(t, rel, l)
	checkRecords(t, rel, l)
	rep, err := analysis.Analyze(l, path, analysis.DefaultConfig())
	if err != nil {
		t.Errorf("%s: analysis: %v", rel, err)
		return l
	}
	for _, in := range rep.Insights {
		if in.Code == "X02" {
			t.Errorf("%s: X02 %s %v", rel, in.Message, in.Details)
		}
	}
	return l
}

// checkJob checks the job record of l against its path rel.
func checkJob(t *testing.T, rel string, l *darshan.Log) {
	t.Helper()
	// Groups: year, month, day, user, exe, job id, pid, month, day, seconds
	// of day, random part.
	logName := regexp.MustCompile(`^(\d{4})/([1-9]|1[0-2])/([1-9]|[12]\d|3[01])/([a-z]+)_(.+)_id(\d+)-(\d+)_([1-9]|1[0-2])-([1-9]|[12]\d|3[01])-(\d+)-(\d+)\.darshan$`)
	m := logName.FindStringSubmatch(rel)
	if m == nil {
		t.Errorf("%s: not a YYYY/M/D/<user>_<exe>_id<jobid>-<pid>_<M>-<D>-<seconds>-<random>.darshan path", rel)
		return
	}
	j := l.Job
	start := time.Unix(j.StartTime, j.StartNsec).UTC()
	y, mo, d := start.Date()
	sod := start.Hour()*3600 + start.Minute()*60 + start.Second()
	want := []string{strconv.Itoa(y), strconv.Itoa(int(mo)), strconv.Itoa(d)}
	if got := m[1:4]; !slices.Equal(got, want) {
		t.Errorf("%s: directory %v, start date %v", rel, got, want)
	}
	if got := m[8:11]; !slices.Equal(got, []string{want[1], want[2], strconv.Itoa(sod)}) {
		t.Errorf("%s: name has month, day, seconds %v; start %s", rel, got, start)
	}
	if m[6] != strconv.FormatInt(j.JobID, 10) {
		t.Errorf("%s: job id %d in the log", rel, j.JobID)
	}
	if j.UID < 1000 || j.UID > 1059 {
		t.Errorf("%s: uid %d outside 1000..1059", rel, j.UID)
	}
	cfg := defaultGenConfig()
	if first := cfg.End.AddDate(0, 0, -cfg.Days); start.Before(first) || !start.Before(cfg.End) {
		t.Errorf("%s: start %s outside [%s, %s)", rel, start, first, cfg.End)
	}
	if j.NProcs < 1 || j.NProcs > 65536 {
		t.Errorf("%s: %d processes", rel, j.NProcs)
	}
	if j.EndTime < j.StartTime+5 {
		t.Errorf("%s: run from %d to %d", rel, j.StartTime, j.EndTime)
	}
	if !strings.HasPrefix(j.Metadata, "lib_ver=3.5.0\n") || strings.Contains(strings.ToLower(j.Metadata+l.Exe), "iolens") {
		t.Errorf("%s: metadata %q, exe %q", rel, j.Metadata, l.Exe)
	}
	if exe := strings.Fields(l.Exe); len(exe) == 0 || filepath.Base(exe[0]) != m[5] {
		t.Errorf("%s: exe %q does not match the name", rel, l.Exe)
	}
}

// histogram holds the name prefixes of a module's size histograms and of
// the counters whose sum each histogram must equal.
type histogram struct {
	bins      string   // e.g. "POSIX_SIZE_READ_"
	ops       []string // counters summing to the requests
	bytes     string   // bytes those requests move
	timeStamp []string // counters holding time stamps
}

// histograms lists, per module, the histograms to check.
func histograms() map[darshan.ModuleID][]histogram {
	stamps := func(p string) []string {
		var out []string
		for _, k := range []string{"OPEN", "READ", "WRITE", "CLOSE"} {
			out = append(out, p+"_F_"+k+"_START_TIMESTAMP", p+"_F_"+k+"_END_TIMESTAMP")
		}
		return out
	}
	return map[darshan.ModuleID][]histogram{
		darshan.ModPOSIX: {
			{"POSIX_SIZE_READ_", []string{"POSIX_READS"}, "POSIX_BYTES_READ", stamps("POSIX")},
			{"POSIX_SIZE_WRITE_", []string{"POSIX_WRITES"}, "POSIX_BYTES_WRITTEN", nil},
		},
		darshan.ModMPIIO: {
			{"MPIIO_SIZE_READ_AGG_", []string{"MPIIO_INDEP_READS", "MPIIO_COLL_READS", "MPIIO_SPLIT_READS", "MPIIO_NB_READS"}, "MPIIO_BYTES_READ", stamps("MPIIO")},
			{"MPIIO_SIZE_WRITE_AGG_", []string{"MPIIO_INDEP_WRITES", "MPIIO_COLL_WRITES", "MPIIO_SPLIT_WRITES", "MPIIO_NB_WRITES"}, "MPIIO_BYTES_WRITTEN", nil},
		},
		darshan.ModH5D: {
			{"H5D_SIZE_READ_AGG_", []string{"H5D_READS"}, "H5D_BYTES_READ", stamps("H5D")},
			{"H5D_SIZE_WRITE_AGG_", []string{"H5D_WRITES"}, "H5D_BYTES_WRITTEN", nil},
		},
		darshan.ModPnetCDFVar: {
			{"PNETCDF_VAR_SIZE_READ_AGG_", []string{"PNETCDF_VAR_INDEP_READS", "PNETCDF_VAR_COLL_READS", "PNETCDF_VAR_NB_READS"}, "PNETCDF_VAR_BYTES_READ", stamps("PNETCDF_VAR")},
			{"PNETCDF_VAR_SIZE_WRITE_AGG_", []string{"PNETCDF_VAR_INDEP_WRITES", "PNETCDF_VAR_COLL_WRITES", "PNETCDF_VAR_NB_WRITES"}, "PNETCDF_VAR_BYTES_WRITTEN", nil},
		},
		darshan.ModSTDIO: {{timeStamp: stamps("STDIO")}},
		darshan.ModH5F:   {{timeStamp: []string{"H5F_F_OPEN_START_TIMESTAMP", "H5F_F_OPEN_END_TIMESTAMP", "H5F_F_CLOSE_START_TIMESTAMP", "H5F_F_CLOSE_END_TIMESTAMP"}}},
	}
}

// recordKey identifies a record within a log.
type recordKey struct {
	m    darshan.ModuleID
	id   uint64
	rank int64
}

// checkRecords checks the records of every module of l: counters agree
// with each other and times fall within the run.
func checkRecords(t *testing.T, rel string, l *darshan.Log) {
	t.Helper()
	runtime := float64(l.Job.EndTime-l.Job.StartTime) + float64(l.Job.EndNsec-l.Job.StartNsec)/1e9
	hists := histograms()
	seen := map[recordKey]bool{}
	h5files := map[uint64]bool{}
	errs := 0
	fail := func(r *darshan.Record, format string, args ...any) {
		if errs++; errs <= 10 {
			name, _ := l.RecordName(r.ID)
			t.Errorf("%s: %s record of %s (rank %d): "+format, append([]any{rel, r.Module, name, r.Rank}, args...)...)
		}
	}
	cnt := func(r *darshan.Record, name string) int64 {
		v, ok := r.Counter(name)
		if !ok {
			t.Fatalf("no counter %s", name)
		}
		return v
	}
	fcnt := func(r *darshan.Record, name string) float64 {
		v, ok := r.FCounter(name)
		if !ok {
			t.Fatalf("no counter %s", name)
		}
		return v
	}
	records := 0
	for m := darshan.ModuleID(0); m < darshan.NumKnownModules; m++ {
		err := l.Each(m, func(r *darshan.Record) error {
			if m != darshan.ModDXTPOSIX {
				records++
			}
			key := recordKey{m, r.ID, r.Rank}
			if seen[key] {
				fail(r, "twice")
			}
			seen[key] = true
			if _, ok := l.RecordName(r.ID); !ok {
				fail(r, "no name")
			}
			if r.Rank < -1 || r.Rank >= l.Job.NProcs {
				fail(r, "rank out of range")
			}
			switch m {
			case darshan.ModH5F:
				h5files[r.ID] = true
			case darshan.ModH5D:
				if !h5files[r.FileRecID] {
					fail(r, "file record %d is not an H5F record", r.FileRecID)
				}
			case darshan.ModDXTPOSIX:
				for _, s := range append(slices.Clone(r.DXT.Writes), r.DXT.Reads...) {
					if s.Start < 0 || s.End < s.Start || s.End > runtime || s.Length <= 0 || s.Offset < 0 {
						fail(r, "segment %+v", s)
						break
					}
				}
			}
			for _, h := range hists[m] {
				if h.bins != "" {
					checkHistogram(r, h, cnt, fail)
				}
				for _, name := range h.timeStamp {
					if v := fcnt(r, name); v < 0 || v > runtime {
						fail(r, "%s = %g outside the run (%g s)", name, v, runtime)
					}
				}
			}
			if m == darshan.ModPOSIX {
				checkPOSIX(l, r, runtime, cnt, fcnt, fail)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%s: module %s: %v", rel, m, err)
		}
	}
	if limit := defaultGenConfig().MaxRecords; records > limit {
		t.Errorf("%s: %d records, more than %d", rel, records, limit)
	}
}

// checkHistogram checks that a histogram counts the requests of its
// counters and that its buckets bound the bytes.
func checkHistogram(r *darshan.Record, h histogram, cnt func(*darshan.Record, string) int64, fail func(*darshan.Record, string, ...any)) {
	// Smallest and largest request size of each bucket.
	bounds := [10][2]float64{{0, 100}, {101, 1024}, {1025, 10240}, {10241, 102400}, {102401, 1048576},
		{1048577, 4194304}, {4194305, 10485760}, {10485761, 104857600}, {104857601, 1073741824}, {1073741825, math.Inf(1)}}
	var ops, binned int64
	for _, name := range h.ops {
		ops += cnt(r, name)
	}
	var lo, hi float64
	for b, suffix := range []string{"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"} {
		c := cnt(r, h.bins+suffix)
		binned += c
		lo += float64(c) * bounds[b][0]
		hi += float64(c) * bounds[b][1]
	}
	if ops != binned {
		fail(r, "%d requests, %d in the %s histogram", ops, binned, h.bins)
	}
	if bytes := float64(cnt(r, h.bytes)); bytes < lo || bytes > hi {
		fail(r, "%s = %g, the histogram allows [%g, %g]", h.bytes, bytes, lo, hi)
	}
}

// checkPOSIX checks the counters of a POSIX record that depend on each
// other.
func checkPOSIX(l *darshan.Log, r *darshan.Record, runtime float64, cnt func(*darshan.Record, string) int64,
	fcnt func(*darshan.Record, string) float64, fail func(*darshan.Record, string, ...any)) {
	for _, d := range []string{"READ", "WRITE"} {
		ops := cnt(r, "POSIX_"+d+"S")
		seq, consec := cnt(r, "POSIX_SEQ_"+d+"S"), cnt(r, "POSIX_CONSEC_"+d+"S")
		if consec < 0 || consec > seq || seq > ops {
			fail(r, "%s: %d requests, %d sequential, %d consecutive", d, ops, seq, consec)
		}
		suffix := map[string]string{"READ": "READ", "WRITE": "WRITTEN"}[d]
		bytes, maxByte := cnt(r, "POSIX_BYTES_"+suffix), cnt(r, "POSIX_MAX_BYTE_"+suffix)
		if (bytes > 0) != (ops > 0) || (bytes > 0 && maxByte < 0) {
			fail(r, "%s: %d requests, %d bytes, max byte %d", d, ops, bytes, maxByte)
		}
		if start, end := fcnt(r, "POSIX_F_"+d+"_START_TIMESTAMP"), fcnt(r, "POSIX_F_"+d+"_END_TIMESTAMP"); start > end {
			fail(r, "%s from %g to %g", d, start, end)
		}
	}
	ops := cnt(r, "POSIX_READS") + cnt(r, "POSIX_WRITES")
	var common int64
	prev := int64(math.MaxInt64)
	for i := 1; i <= 4; i++ {
		c := cnt(r, "POSIX_ACCESS"+strconv.Itoa(i)+"_COUNT")
		if c > prev {
			fail(r, "ACCESS%d_COUNT %d above the previous slot's %d", i, c, prev)
		}
		prev = c
		common += c
	}
	if common > ops {
		fail(r, "common access counts add up to %d of %d requests", common, ops)
	}
	ranks := float64(1)
	if r.Rank < 0 {
		ranks = float64(l.Job.NProcs)
		if slow, fast := fcnt(r, "POSIX_F_SLOWEST_RANK_TIME"), fcnt(r, "POSIX_F_FASTEST_RANK_TIME"); fast > slow || slow > runtime {
			fail(r, "fastest rank %g s, slowest %g s, run %g s", fast, slow, runtime)
		}
	}
	busy := fcnt(r, "POSIX_F_READ_TIME") + fcnt(r, "POSIX_F_WRITE_TIME") + fcnt(r, "POSIX_F_META_TIME")
	if busy < 0 || busy/ranks > runtime {
		fail(r, "%g s of I/O over %g ranks in a %g s run", busy, ranks, runtime)
	}
}
