package web

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/dataset"
	"github.com/iolens/iolens/dataset/query"
	"github.com/iolens/iolens/internal/synth"
)

// The users of the synthetic facility.
const (
	uidAlice = 1001
	uidBob   = 1002
)

var userNames = map[int64]string{uidAlice: "alice", uidBob: "bob"}

// Untrusted names: an application, a command line argument and a file.
const (
	evilApp  = `<b>evil&"'`
	evilArg  = `<script>alert(1)</script>`
	evilFile = `/scratch/</td><script>alert(1)</script>.dat`
)

// jobSpec is a job of the synthetic facility: one shared POSIX record of
// known bytes and times.
type jobSpec struct {
	jobID       int64
	uid         int64
	exe, app    string
	start       time.Time
	runTime     int64
	nprocs      int64
	file        string
	read        int64 // bytes, in 1 MiB operations
	written     int64 // bytes, in 1 MiB operations unless smallWrites
	ioTime      float64
	smallWrites int64 // 64-byte writes (P06 above 1000)
}

const mib = 1 << 20

func day(d, hour int) time.Time { return time.Date(2026, 1, d, hour, 0, 0, 0, time.UTC) }

// facilityJobs returns the jobs of the synthetic facility: alice's
// simulation "sim" (8 runs, the 7th with 10× the usual I/O time), bob's
// post-processing "post.py" (3 runs) and one run of bob's application
// with an untrusted name, whose log is deleted after the ingest. Jobs
// 104, 202 and 203 make many small writes (insight P06). I/O times are
// all different.
func facilityJobs() []jobSpec {
	const simExe = "/apps/sim/bin/sim -n 4 --steps 100"
	const postExe = "python3 /home/bob/post.py --fast"
	sim := func(id int64, start time.Time, io float64, small int64) jobSpec {
		return jobSpec{jobID: id, uid: uidAlice, exe: simExe, app: "sim", start: start, runTime: 600, nprocs: 4,
			file: "/scratch/alice/out-" + strconv.FormatInt(id, 10) + ".dat", read: 256 * mib, written: 1024 * mib, ioTime: io, smallWrites: small}
	}
	post := func(id int64, start time.Time, io float64, small int64) jobSpec {
		return jobSpec{jobID: id, uid: uidBob, exe: postExe, app: "post.py", start: start, runTime: 300, nprocs: 1,
			file: "/scratch/bob/result-" + strconv.FormatInt(id, 10) + ".h5", read: 2048 * mib, written: 64 * mib, ioTime: io, smallWrites: small}
	}
	return []jobSpec{
		sim(101, day(5, 8), 9.0, 0),
		sim(102, day(5, 14), 10.0, 0),
		sim(103, day(6, 8), 11.0, 0),
		sim(104, day(6, 14), 10.5, 5000),
		sim(105, day(7, 8), 9.5, 0),
		sim(106, day(7, 14), 10.2, 0),
		sim(107, day(8, 8), 100.0, 0),
		sim(108, day(9, 8), 9.8, 0),
		post(201, day(6, 10), 20.0, 0),
		post(202, day(8, 10), 25.0, 5000),
		post(203, day(10, 10), 30.0, 5000),
		{jobID: 301, uid: uidBob, exe: "/opt/" + evilApp + " --title " + evilArg, app: evilApp, start: day(9, 12), runTime: 60, nprocs: 2,
			file: evilFile, read: 1 * mib, written: 4096, ioTime: 1.5},
	}
}

// bytesWritten is what the log of j says it wrote.
func (j jobSpec) bytesWritten() int64 {
	if j.smallWrites > 0 {
		return 64 * j.smallWrites
	}
	return j.written
}

// facility is the dataset of the synthetic facility.
type facility struct {
	db   *query.DB
	jobs []jobSpec
	ids  map[int64]string // job id → dataset id
	logs map[int64]string // job id → log path
}

// newFacility writes the logs of facilityJobs, ingests them into a new
// dataset, deletes the log of job 301 and opens the dataset.
func newFacility(t testing.TB) *facility {
	t.Helper()
	dir := t.TempDir()
	f := &facility{jobs: facilityJobs(), ids: map[int64]string{}, logs: map[int64]string{}}
	var paths []string
	for _, j := range f.jobs {
		p := filepath.Join(dir, "logs", strconv.FormatInt(j.jobID, 10)+".darshan")
		writeLog(t, p, j)
		paths = append(paths, p)
		f.logs[j.jobID] = p
	}
	ds := filepath.Join(dir, "dataset")
	st, err := dataset.Ingest(context.Background(), ds, paths, dataset.IngestOptions{
		Workers: 2,
		Now:     func() time.Time { return day(11, 12) },
		User:    func(uid int64) string { return userNames[uid] },
	})
	if err != nil || st.Ingested != len(paths) {
		t.Fatalf("ingest: %+v, %v", st, err)
	}
	if err := os.Remove(f.logs[301]); err != nil {
		t.Fatal(err)
	}
	if f.db, err = query.Open(ds); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.db.Close() })
	jobs, _, err := f.db.Jobs(context.Background(), query.JobsQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		f.ids[j.JobID] = j.ID
	}
	if len(f.ids) != len(f.jobs) {
		t.Fatalf("%d jobs in the dataset, want %d", len(f.ids), len(f.jobs))
	}
	return f
}

// writeLog writes the Darshan log of j at path.
func writeLog(t testing.TB, path string, j jobSpec) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	reads, writes := j.read/mib, max(1, j.written/mib)
	c := map[string]int64{
		"POSIX_OPENS": j.nprocs, "POSIX_READS": reads, "POSIX_WRITES": writes,
		"POSIX_BYTES_READ": j.read, "POSIX_BYTES_WRITTEN": j.bytesWritten(),
		"POSIX_MAX_BYTE_READ": j.read - 1, "POSIX_MAX_BYTE_WRITTEN": j.bytesWritten() - 1,
		"POSIX_SEQ_READS": reads, "POSIX_SEQ_WRITES": writes,
		"POSIX_SIZE_READ_1M_4M": reads, "POSIX_SIZE_WRITE_1M_4M": writes,
	}
	switch {
	case j.smallWrites > 0:
		c["POSIX_WRITES"], c["POSIX_SEQ_WRITES"], c["POSIX_SIZE_WRITE_1M_4M"] = j.smallWrites, j.smallWrites, 0
		c["POSIX_SIZE_WRITE_0_100"] = j.smallWrites
	case j.written < mib:
		c["POSIX_SIZE_WRITE_1M_4M"], c["POSIX_SIZE_WRITE_1K_10K"] = 0, writes
	}
	l := synth.Log{
		Job: darshan.Job{UID: j.uid, StartTime: j.start.Unix(), EndTime: j.start.Unix() + j.runTime, NProcs: j.nprocs, JobID: j.jobID},
		Exe: j.exe,
		Records: []synth.Record{{Module: darshan.ModPOSIX, File: j.file, Rank: -1, Counters: c,
			FCounters: map[string]float64{"POSIX_F_READ_TIME": j.ioTime / 4, "POSIX_F_WRITE_TIME": j.ioTime * 3 / 4}}},
	}
	if err := l.Write(path); err != nil {
		t.Fatal(err)
	}
}

// handler returns the UI over f with opts and a page size (0: the
// default).
func (f *facility) handler(t testing.TB, opts Options, pageSize int) *httptest.Server {
	t.Helper()
	s, err := newServer(f.db, opts)
	if err != nil {
		t.Fatal(err)
	}
	if pageSize > 0 {
		s.pageSize = pageSize
	}
	s.log = slog.New(slog.NewTextHandler(t.Output(), nil))
	srv := httptest.NewServer(s.routes())
	t.Cleanup(srv.Close)
	return srv
}

// idsOf returns the dataset ids of job ids.
func (f *facility) idsOf(jobIDs ...int64) []string {
	out := make([]string, len(jobIDs))
	for i, id := range jobIDs {
		out[i] = f.ids[id]
	}
	return out
}
