package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
)

// Defaults of IngestOptions.
const (
	DefaultBatchLogs = 50000
	DefaultBatchRows = 400_000
)

// IngestOptions configure Ingest.
type IngestOptions struct {
	// Workers decode logs in parallel; 0 means one per CPU.
	Workers int
	// BatchLogs and BatchRows bound a batch: when either is reached, the
	// batch is written to the dataset (one file per table and month) and
	// memory freed. 0 means DefaultBatchLogs, DefaultBatchRows.
	BatchLogs, BatchRows int
	// Analysis configures the insights; the zero Config means
	// analysis.DefaultConfig().
	Analysis *analysis.Config
	// Progress, when set, is called after each log with the number of
	// logs done.
	Progress func(done int)
	// Now returns the time of the ingest (time.Now when nil).
	Now func() time.Time
	// User returns the user name of a uid; nil looks it up on this
	// machine (the user database of the facility, when the ingest runs
	// there), "" for a uid it does not know.
	User func(uid int64) string
}

// IngestStats count what an ingest did.
type IngestStats struct {
	Logs     int // logs given
	Ingested int // logs added as jobs (Partial of them with errors too)
	Partial  int // logs of which some module could not be read
	Skipped  int // logs the dataset held already (same checksum)
	Failed   int // logs that could not be read, added to the errors table
	Batches  int // batches written
	Bytes    int64
}

// Ingest adds the logs at paths to the dataset in dir, creating it if
// needed. A log the dataset holds already (as a job or an error, by the
// SHA-256 of its file) is skipped, so ingesting a log twice adds nothing.
// A log that cannot be read is recorded in the errors table with the
// reason and does not stop the ingest; one of which some module cannot be
// read becomes a job and an error. Logs are decoded by opts.Workers in
// parallel, one module region at a time each; rows are written in batches
// (opts.BatchLogs, opts.BatchRows), so memory stays bounded whatever the
// number of logs. When ctx is cancelled, the logs ingested so far are
// written before Ingest returns the context's error.
func Ingest(ctx context.Context, dir string, paths []string, opts IngestOptions) (IngestStats, error) {
	st := IngestStats{Logs: len(paths)}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return st, fmt.Errorf("dataset %s: %w", dir, err)
	}
	known, err := Checksums(dir)
	if err != nil {
		return st, err
	}
	cfg := analysis.DefaultConfig()
	if opts.Analysis != nil {
		cfg = *opts.Analysis
	}
	if err := cfg.Validate(); err != nil {
		return st, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	in := &ingester{known: known, cfg: cfg, now: now, lookup: opts.User, users: map[int64]string{}}
	if in.lookup == nil {
		in.lookup = localUser
	}

	jobs := make(chan string)
	results := make(chan result, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for p := range jobs {
				results <- in.one(p)
			}
		})
	}
	go func() {
		defer close(jobs)
		for _, p := range paths {
			select {
			case jobs <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	// Full batches are written by another goroutine while the next one
	// fills: at most two batches are in memory.
	maxLogs, maxRows := cmpOr(opts.BatchLogs, DefaultBatchLogs), cmpOr(opts.BatchRows, DefaultBatchRows)
	writes := make(chan *Batch)
	var werr error
	written := make(chan struct{})
	go func() {
		defer close(written)
		for b := range writes {
			if werr == nil {
				if werr = b.Write(dir, NewBatchName(now())); werr == nil {
					st.Batches++
				}
			}
		}
	}()
	b := &Batch{}
	flush := func() {
		if b.Logs() > 0 || b.Rows() > 0 {
			writes <- b
			b = &Batch{}
		}
	}
	done := 0
	for r := range results {
		done++
		switch {
		case r.skipped:
			st.Skipped++
		case r.rows == nil:
			st.Failed++
			b.AddError(*r.err)
		default:
			st.Ingested++
			st.Bytes += r.rows.Job.LogSize
			b.Add(*r.rows)
			if r.err != nil {
				st.Partial++
				b.AddError(*r.err)
			}
		}
		if b.Logs() >= maxLogs || b.Rows() >= maxRows {
			flush()
		}
		if opts.Progress != nil {
			opts.Progress(done)
		}
	}
	flush()
	close(writes)
	<-written
	if werr != nil {
		return st, werr
	}
	return st, ctx.Err()
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// ingester is the state the workers of an ingest share.
type ingester struct {
	cfg    analysis.Config
	now    func() time.Time
	lookup func(uid int64) string

	mu    sync.Mutex
	known map[Sum]struct{} // checksums in the dataset or taken by this ingest
	users map[int64]string
}

// result is what a worker made of one log: rows, an error row, or both
// (a log read in part); neither when it was skipped.
type result struct {
	skipped bool
	rows    *Rows
	err     *Error
}

// one reads, checks and analyses the log at path.
func (in *ingester) one(path string) result {
	fail := func(sum string, size int64, err error) result {
		return result{err: &Error{Log: path, Checksum: sum, Size: size, Error: err.Error(), Ingested: in.now().UTC()}}
	}
	sum, size, err := fileChecksum(path)
	if err != nil {
		return fail(sum, size, err)
	}
	var key Sum
	hex.Decode(key[:], []byte(sum))
	in.mu.Lock()
	_, seen := in.known[key]
	in.known[key] = struct{}{}
	in.mu.Unlock()
	if seen {
		return result{skipped: true}
	}
	l, err := darshan.OpenFile(path)
	if err != nil {
		return fail(sum, size, err)
	}
	defer l.Close()
	rep, err := analysis.Analyze(l, path, in.cfg)
	if err != nil {
		return fail(sum, size, err)
	}
	rows := ExtractRows(Source{Path: path, Checksum: sum, Size: size, User: in.user(l.Job.UID), Ingested: in.now()}, l, rep)
	res := result{rows: &rows}
	for _, i := range rep.Insights {
		if i.Code == "X02" { // modules that could not be read
			res.err = fail(sum, size, errors.New(strings.Join(append([]string{i.Message}, i.Details...), "; "))).err
		}
	}
	return res
}

// user returns the name of uid, looked up once per ingest.
func (in *ingester) user(uid int64) string {
	in.mu.Lock()
	defer in.mu.Unlock()
	name, ok := in.users[uid]
	if !ok {
		name = in.lookup(uid)
		in.users[uid] = name
	}
	return name
}

// localUser returns the name of uid on this machine, "" when it has none.
func localUser(uid int64) string {
	if u, err := user.LookupId(strconv.FormatInt(uid, 10)); err == nil {
		return u.Username
	}
	return ""
}

// fileChecksum returns the SHA-256 (hexadecimal) and size of the file at
// path.
func fileChecksum(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", n, fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// FindLogs returns the Darshan logs under roots: a file is taken as given,
// a directory is searched recursively (the YYYY/M/D layout of a Darshan log
// directory, or any other) for files named *.darshan, in lexical order.
// With since set, files last modified before it are left out. A root
// that cannot be found is returned as it is, for Ingest to record as an
// error.
func FindLogs(roots []string, since time.Time) ([]string, error) {
	var out []string
	recent := func(info fs.FileInfo) bool { return since.IsZero() || !info.ModTime().Before(since) }
	for _, root := range roots {
		info, err := os.Stat(root)
		if errors.Is(err, fs.ErrNotExist) {
			out = append(out, root)
			continue
		}
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if recent(info) {
				out = append(out, root)
			}
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), ".darshan") {
				return nil
			}
			if !since.IsZero() {
				info, err := d.Info()
				if err != nil || !recent(info) {
					return err
				}
			}
			out = append(out, p)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
