package dataset

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
)

// Rows are the rows of one log in every table but errors.
type Rows struct {
	Job      Job
	Files    []File
	Insights []Insight
	Ranks    []Rank
}

// Source describes the log file rows come from.
type Source struct {
	Path     string
	Checksum string // SHA-256, hexadecimal
	Size     int64
	// User is the name of the job's uid, "" when unknown.
	User     string
	Ingested time.Time
}

// ExtractRows returns the rows of the log l, analysed as rep.
func ExtractRows(src Source, l *darshan.Log, rep *analysis.Report) Rows {
	j := &rep.Job
	id := src.Checksum
	if len(id) > 16 {
		id = id[:16]
	}
	job := Job{
		ID: id, Checksum: src.Checksum, JobID: j.JobID, UID: j.UID, User: src.User,
		App: AppName(j.Exe), Exe: j.Exe,
		Start: unixTime(j.Start, l.Job.StartNsec), End: unixTime(j.End, l.Job.EndNsec),
		RunTime: j.RunTime, NProcs: j.NProcs, Nodes: int64(j.Nodes),
		Version: j.LibVer, Format: l.Header.Version,
		Modules: []string{}, Partial: nonNil(j.Partial),
		Files:      int64(len(rep.Files)),
		SmallReads: j.SmallReads, SmallWrites: j.SmallWrites, MetaTime: j.MetaTime,
		Log: src.Path, LogSize: src.Size, Ingested: src.Ingested.UTC().Truncate(time.Microsecond),
	}
	var low, mpi, h5, pn float64
	for _, m := range j.Modules {
		job.Modules = append(job.Modules, m.Name)
		switch m.Name {
		case darshan.ModPOSIX.String():
			job.POSIXTime, low = m.Time, low+m.Time
		case darshan.ModSTDIO.String():
			job.STDIOTime, low = m.Time, low+m.Time
		case darshan.ModMPIIO.String():
			job.MPIIOTime, mpi = m.Time, m.Time
		case darshan.ModH5F.String(), darshan.ModH5D.String():
			h5 += m.Time
		case darshan.ModPnetCDFFile.String(), darshan.ModPnetCDFVar.String():
			pn += m.Time
		}
	}
	job.HDF5Time, job.PnetCDFTime = h5, pn
	job.IOTime = max(low, mpi, h5, pn)
	for _, f := range rep.Files {
		// The bytes and operations of the job are those of its files,
		// each counted once in the lowest layer that saw it.
		job.BytesRead += f.BytesRead
		job.BytesWritten += f.BytesWritten
		job.Reads += f.Reads
		job.Writes += f.Writes
	}
	out := Rows{Job: job}
	out.Files = make([]File, len(rep.Files))
	for i, f := range rep.Files {
		seq := 0.0
		if ops := f.Reads + f.Writes; ops > 0 && f.SeqOps > 0 {
			seq = min(float64(f.SeqOps)/float64(ops), 1)
		}
		out.Files[i] = File{
			Job: id, Name: f.Name, Modules: nonNil(f.Modules), Ranks: int64(f.Ranks), Shared: f.Shared,
			BytesRead: f.BytesRead, BytesWritten: f.BytesWritten, Reads: f.Reads, Writes: f.Writes,
			Time: f.Time, AccessSize: f.AccessSize, Sequential: seq,
		}
	}
	for _, in := range rep.Insights {
		switch in.Level {
		case analysis.LevelHigh:
			out.Job.High++
		case analysis.LevelWarn:
			out.Job.Warn++
		}
		row := Insight{Job: id, Code: in.Code, Level: in.Level.String(), Message: in.Message, Details: nonNil(in.Details)}
		if len(in.Subjects) > 0 {
			s := in.Subjects[0]
			row.Subject, row.Value, row.Unit = s.File, s.Value, s.Unit
			if row.Subject == "" && s.Rank != nil {
				row.Subject = "rank " + strconv.FormatInt(*s.Rank, 10)
			}
		}
		out.Insights = append(out.Insights, row)
	}
	out.Job.InsightCodes, out.Job.InsightLevels = summarise(out.Insights)
	out.Ranks = make([]Rank, len(rep.Ranks))
	for i, r := range rep.Ranks {
		out.Ranks[i] = Rank{Job: id, Rank: r.Rank, Bytes: r.Bytes, Time: r.Time}
	}
	return out
}

// Month returns the partition of a job: the month it started, UTC
// ("2026-11").
func (j *Job) Month() string { return Month(j.Start) }

// unixTime returns the time of sec seconds and nsec nanoseconds since the
// epoch, UTC, to the microsecond (the precision of the dataset).
func unixTime(sec, nsec int64) time.Time {
	if nsec < 0 || nsec >= 1e9 {
		nsec = 0
	}
	return time.Unix(sec, nsec).UTC().Truncate(time.Microsecond)
}

// interpreter reports whether program (a base name without its version
// digits) runs a script that is the application.
func interpreter(program string) bool {
	switch program {
	case "python", "perl", "ruby", "Rscript", "julia", "bash", "sh", "node", "java":
		return true
	}
	return false
}

// AppName returns the application of a command line: the base name of the
// executable, or of the first argument that is not an option when the
// executable is an interpreter (python3 -u run.py: run.py); "" for an
// empty command line.
func AppName(exe string) string {
	fields := strings.Fields(exe)
	if len(fields) == 0 {
		return ""
	}
	app := path.Base(fields[0])
	if !interpreter(strings.TrimRight(app, "0123456789.")) {
		return app
	}
	for _, f := range fields[1:] {
		if !strings.HasPrefix(f, "-") {
			return path.Base(f)
		}
	}
	return app
}

// nonNil returns s, or an empty slice for nil (a list, not a null, in
// the dataset).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// summarise returns the codes of a job's insights, sorted and each once,
// and the most severe level of each: the job's insight_codes and
// insight_levels.
func summarise(insights []Insight) (codes, levels []string) {
	most := map[string]analysis.Level{}
	for _, in := range insights {
		var l analysis.Level
		if l.UnmarshalText([]byte(in.Level)) != nil {
			l = analysis.LevelOK
		}
		if prev, ok := most[in.Code]; !ok || l > prev {
			most[in.Code] = l
		}
	}
	codes = slices.Sorted(maps.Keys(most))
	levels = make([]string, len(codes))
	for i, c := range codes {
		levels[i] = most[c].String()
	}
	return codes, levels
}
