package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/iolens/iolens/dataset"
	"github.com/iolens/iolens/dataset/query"
	"github.com/iolens/iolens/web"
)

// benchConfig is what the benchmark measures and where.
type benchConfig struct {
	dir      string // work directory: logs/, stores
	iolens   string // the iolens binary (parse, the baseline)
	facility string // the iolens-facility binary (ingest)
	sizes    []int  // numbers of logs ingested from cold caches
	seed     uint64
	jobs     int    // -j of each ingest
	replicas int    // the query dataset is the largest ingest times replicas
	baseline int    // logs parsed one process each for the baseline
	parser   string // darshan-parser to use for the baseline instead of iolens parse
	steps    map[string]bool
	out      io.Writer
}

// benchSteps are the measurements benchmark makes, in order.
var benchSteps = []string{"ingest", "small", "parallel", "shards", "reingest", "baseline", "queries"}

// benchmark runs every measurement of make bench-store and prints a table
// per measurement on c.out.
func benchmark(ctx context.Context, c benchConfig) error {
	largest := slices.Max(c.sizes)
	logDir := filepath.Join(c.dir, "logs")
	if err := ensureLogs(logDir, largest, c.seed); err != nil {
		return err
	}
	logs, err := listLogs(logDir)
	if err != nil {
		return err
	}
	if len(logs) < largest {
		return fmt.Errorf("%s holds %d logs, fewer than %d", logDir, len(logs), largest)
	}
	fmt.Fprintf(c.out, "logs: %d synthetic logs in %s; cache eviction: %s\n\n", len(logs), logDir, evictMethod())

	var rate float64 // of counter-only logs
	for _, step := range benchSteps {
		if !c.steps[step] {
			continue
		}
		var err error
		switch step {
		case "ingest":
			err = ingestSizes(ctx, c, logs)
		case "small":
			rate, err = ingestSmall(ctx, c, logs)
		case "parallel":
			err = parallelIngest(ctx, c, logs[:min(len(logs), 10000)])
		case "shards":
			err = shards(ctx, c, logs[:min(len(logs), 10000)])
		case "reingest":
			err = reingest(ctx, c, c.store(largest), logs[:largest])
		case "baseline":
			err = baseline(ctx, c, logs, rate)
		case "queries":
			big := filepath.Join(c.dir, fmt.Sprintf("store-%dx%d", largest, c.replicas))
			if err = replicate(ctx, c, c.store(largest), big); err == nil {
				err = queries(ctx, c, big)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
	}
	return nil
}

// store is the dataset of the ingest of the first n logs.
func (c benchConfig) store(n int) string { return filepath.Join(c.dir, fmt.Sprintf("store-%d", n)) }

// ingestSizes ingests the first n logs into a new dataset for each of the
// sizes, from a cold page cache.
func ingestSizes(ctx context.Context, c benchConfig, logs []string) error {
	fmt.Fprintf(c.out, "== ingest from a cold page cache (-j %d)\n", c.jobs)
	printIngestHeader(c.out)
	for _, n := range c.sizes {
		r, err := coldIngest(ctx, c, c.store(n), logs[:n])
		if err != nil {
			return err
		}
		printIngest(c.out, r)
	}
	return nil
}

// ingestSmall ingests 10,000 counter-only logs (under 16 KiB) from a cold
// page cache and returns the rate.
func ingestSmall(ctx context.Context, c benchConfig, logs []string) (float64, error) {
	small, err := smallLogs(logs, 16<<10, 10000)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(c.out, "\n== counter-only logs (< 16 KiB), cold page cache (-j %d)\n", c.jobs)
	printIngestHeader(c.out)
	r, err := coldIngest(ctx, c, filepath.Join(c.dir, "store-small"), small)
	if err != nil {
		return 0, err
	}
	printIngest(c.out, r)
	return r.rate(), nil
}

// ensureLogs generates n logs with seed into dir unless an earlier run did.
func ensureLogs(dir string, n int, seed uint64) error {
	marker := filepath.Join(dir, ".generated")
	want := fmt.Sprintf("%d %d\n", n, seed)
	if b, err := os.ReadFile(marker); err == nil && string(b) == want {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := run(dir, n, seed); err != nil {
		return err
	}
	return os.WriteFile(marker, []byte(want), 0o600)
}

// listLogs returns the .darshan files under dir, sorted.
func listLogs(dir string) ([]string, error) {
	var logs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".darshan" {
			logs = append(logs, path)
		}
		return err
	})
	slices.Sort(logs)
	return logs, err
}

// smallLogs returns up to n of logs smaller than limit bytes.
func smallLogs(logs []string, limit int64, n int) ([]string, error) {
	var small []string
	for _, l := range logs {
		info, err := os.Stat(l)
		if err != nil {
			return nil, err
		}
		if info.Size() < limit {
			small = append(small, l)
			if len(small) == n {
				break
			}
		}
	}
	return small, nil
}

// evictMethod says how evict drops the logs from the page cache.
func evictMethod() string {
	if unix.Geteuid() == 0 {
		return "sync; echo 3 > /proc/sys/vm/drop_caches"
	}
	return "posix_fadvise(POSIX_FADV_DONTNEED) on each log"
}

// evict drops logs from the page cache: all caches as root, else each log's
// pages.
func evict(logs []string) error {
	unix.Sync()
	if unix.Geteuid() == 0 {
		if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err == nil {
			return nil
		}
	}
	for _, l := range logs {
		f, err := os.Open(l)
		if err != nil {
			return err
		}
		err = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		f.Close()
		if err != nil {
			return fmt.Errorf("evicting %s: %w", l, err)
		}
	}
	return nil
}

// ingestResult is one ingest process's cost.
type ingestResult struct {
	logs  int
	bytes int64
	wall  time.Duration
	rss   int64 // peak resident set, bytes
}

func (r ingestResult) rate() float64 { return float64(r.logs) / r.wall.Seconds() }

func printIngestHeader(w io.Writer) {
	fmt.Fprintf(w, "%8s %10s %9s %8s %7s %9s\n", "logs", "MiB", "wall s", "logs/s", "MiB/s", "peak RSS")
}

func printIngest(w io.Writer, r ingestResult) {
	fmt.Fprintf(w, "%8d %10.1f %9.2f %8.0f %7.1f %6.0f MiB\n", r.logs, float64(r.bytes)/(1<<20),
		r.wall.Seconds(), r.rate(), float64(r.bytes)/(1<<20)/r.wall.Seconds(), float64(r.rss)/(1<<20))
}

// coldIngest ingests logs into a new dataset at store after evicting them
// from the page cache.
func coldIngest(ctx context.Context, c benchConfig, store string, logs []string) (ingestResult, error) {
	if err := os.RemoveAll(store); err != nil {
		return ingestResult{}, err
	}
	if err := evict(logs); err != nil {
		return ingestResult{}, err
	}
	r, err := ingest(ctx, c, store, logs, c.jobs)
	if err != nil {
		return r, err
	}
	r.bytes, err = totalSize(logs)
	return r, err
}

// ingest runs one iolens ingest of logs (given on its stdin) into store.
func ingest(ctx context.Context, c benchConfig, store string, logs []string, jobs int) (ingestResult, error) {
	cmd := exec.CommandContext(ctx, c.facility, "ingest", "--store", store, "-j", strconv.Itoa(jobs), "-")
	cmd.Stdin = strings.NewReader(strings.Join(logs, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return ingestResult{}, fmt.Errorf("%s ingest: %w: %s", c.facility, err, stderr.String())
	}
	r := ingestResult{logs: len(logs), wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = ru.Maxrss << 10
	}
	return r, nil
}

func totalSize(logs []string) (int64, error) {
	var n int64
	for _, l := range logs {
		info, err := os.Stat(l)
		if err != nil {
			return 0, err
		}
		n += info.Size()
	}
	return n, nil
}

// parallelIngest has two processes ingest the two halves of logs into one
// new dataset at once and checks that it holds each log once.
func parallelIngest(ctx context.Context, c benchConfig, logs []string) error {
	store := filepath.Join(c.dir, "store-parallel")
	if err := os.RemoveAll(store); err != nil {
		return err
	}
	if err := evict(logs); err != nil {
		return err
	}
	var halves [2][]string
	for i, l := range logs {
		halves[i%2] = append(halves[i%2], l)
	}
	start := time.Now()
	errs := make(chan error, 2)
	for _, h := range halves {
		go func() {
			_, err := ingest(ctx, c, store, h, max(1, c.jobs/2))
			errs <- err
		}()
	}
	err := errors.Join(<-errs, <-errs)
	wall := time.Since(start)
	if err != nil {
		return err
	}
	db, err := query.Open(store)
	if err != nil {
		return err
	}
	defer db.Close()
	t, err := db.Query(ctx, "SELECT count(*), count(DISTINCT checksum) FROM jobs")
	if err != nil {
		return err
	}
	rows, distinct := t.Rows[0][0], t.Rows[0][1]
	fmt.Fprintf(c.out, "\n== two ingest processes (-j %d each) into one dataset at once\n", max(1, c.jobs/2))
	fmt.Fprintf(c.out, "%d logs in %.2f s (%.0f logs/s); jobs rows %v, distinct checksums %v\n",
		len(logs), wall.Seconds(), float64(len(logs))/wall.Seconds(), rows, distinct)
	if fmt.Sprint(rows) != strconv.Itoa(len(logs)) || fmt.Sprint(distinct) != strconv.Itoa(len(logs)) {
		return fmt.Errorf("parallel ingest of %d logs left %v rows with %v distinct checksums", len(logs), rows, distinct)
	}
	return nil
}

// shards ingests logs in ten runs of interleaved shards, as the tasks of a
// Slurm array would, then compacts the dataset.
func shards(ctx context.Context, c benchConfig, logs []string) error {
	store := filepath.Join(c.dir, "store-shards")
	if err := os.RemoveAll(store); err != nil {
		return err
	}
	const n = 10
	for i := range n {
		var shard []string
		for j := i; j < len(logs); j += n {
			shard = append(shard, logs[j])
		}
		if _, err := ingest(ctx, c, store, shard, c.jobs); err != nil {
			return err
		}
	}
	before, err := countParquet(store)
	if err != nil {
		return err
	}
	start := time.Now()
	st, err := dataset.Compact(store, dataset.CompactOptions{MinAge: time.Nanosecond})
	if err != nil {
		return err
	}
	wall := time.Since(start)
	after, err := countParquet(store)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "\n== %d logs ingested in ten interleaved shards, then store compact\n", len(logs))
	fmt.Fprintf(c.out, "compact: %d Parquet files -> %d in %.2f s (%d partitions, %d duplicates)\n",
		before, after, wall.Seconds(), st.Partitions, st.Duplicates)
	return nil
}

func countParquet(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".parquet" {
			n++
		}
		return err
	})
	return n, err
}

// reingest times an ingest of logs that the dataset holds already.
func reingest(ctx context.Context, c benchConfig, store string, logs []string) error {
	before, err := countParquet(store)
	if err != nil {
		return err
	}
	r, err := ingest(ctx, c, store, logs, c.jobs)
	if err != nil {
		return err
	}
	after, err := countParquet(store)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "\n== ingest again of the %d logs the dataset holds (warm cache)\n", len(logs))
	fmt.Fprintf(c.out, "%.2f s (%.0f logs/s), peak RSS %.0f MiB, Parquet files %d -> %d\n",
		r.wall.Seconds(), r.rate(), float64(r.rss)/(1<<20), before, after)
	return nil
}

// baseline measures what a facility scripts without a dataset: one process
// per log to parse it (every question reads every log again), and parse
// --json output loaded into DuckDB.
func baseline(ctx context.Context, c benchConfig, logs []string, smallRate float64) error {
	sample := logs[:min(len(logs), c.baseline)]
	if err := evict(sample); err != nil {
		return err
	}
	tool := c.iolens + " parse --show-incomplete"
	if c.parser != "" {
		tool = c.parser + " --show-incomplete"
	}
	start := time.Now()
	for _, l := range sample {
		var cmd *exec.Cmd
		if c.parser != "" {
			cmd = exec.CommandContext(ctx, c.parser, "--show-incomplete", l)
		} else {
			cmd = exec.CommandContext(ctx, c.iolens, "parse", "--show-incomplete", l)
		}
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s: %w", tool, l, err)
		}
	}
	parse := time.Since(start)
	rate := float64(len(sample)) / parse.Seconds()

	jsonl := filepath.Join(c.dir, "baseline.jsonl")
	f, err := os.Create(jsonl)
	if err != nil {
		return err
	}
	start = time.Now()
	for _, l := range sample {
		cmd := exec.CommandContext(ctx, c.iolens, "parse", "--json", "--show-incomplete", l)
		cmd.Stdout = f
		if err := cmd.Run(); err != nil {
			f.Close()
			return fmt.Errorf("%s parse --json %s: %w", c.iolens, l, err)
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	toJSON := time.Since(start)
	info, err := os.Stat(jsonl)
	if err != nil {
		return err
	}
	db, err := query.Open(filepath.Join(c.dir, "empty-store"))
	if err != nil {
		return err
	}
	defer db.Close()
	start = time.Now()
	if _, err := db.Query(ctx, fmt.Sprintf("CREATE OR REPLACE TABLE parsed AS SELECT * FROM read_json(%s, format = 'newline_delimited', union_by_name = true, sample_size = -1)", sqlString(jsonl))); err != nil {
		return fmt.Errorf("loading %s into DuckDB: %w", jsonl, err)
	}
	load := time.Since(start)

	n := float64(len(logs))
	fmt.Fprintf(c.out, "\n== baseline without a dataset (%d logs, cold cache)\n", len(sample))
	fmt.Fprintf(c.out, "one process per log (%s): %.0f logs/s; reading all %d logs for each question: %.0f s\n",
		tool, rate, len(logs), n/rate)
	if smallRate > 0 {
		fmt.Fprintf(c.out, "(ingest of counter-only logs: %.0f logs/s, once)\n", smallRate)
	}
	fmt.Fprintf(c.out, "parse --json into JSON Lines: %.0f logs/s (%.1f MiB for %d logs), DuckDB read_json: %.2f s; extrapolated to %d logs: %.0f s + %.0f s, %.1f GiB of JSON\n",
		float64(len(sample))/toJSON.Seconds(), float64(info.Size())/(1<<20), len(sample), load.Seconds(),
		len(logs), n/float64(len(sample))*toJSON.Seconds(), n/float64(len(sample))*load.Seconds(),
		n/float64(len(sample))*float64(info.Size())/(1<<30))
	return os.Remove(jsonl)
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// replicate writes the dataset big: c.replicas copies of every table of
// small, copy k's jobs with new ids, checksums and job ids and their start
// times shifted by 37·k days, so that big holds c.replicas times the jobs
// over more months, one file per table and month as after store compact.
func replicate(ctx context.Context, c benchConfig, small, big string) error {
	marker := filepath.Join(big, ".replicated")
	want := fmt.Sprintf("%s %d month\n", small, c.replicas)
	if b, err := os.ReadFile(marker); err == nil && string(b) == want {
		return nil
	}
	if err := os.RemoveAll(big); err != nil {
		return err
	}
	db, err := query.Open(small)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	const (
		shift  = "INTERVAL (37 * r.k) DAY"
		copies = "range(%d) AS r(k)"
	)
	newID := func(col string) string { return fmt.Sprintf("substr(%s, 1, 13) || printf('%%03d', r.k)", col) }
	month := func(start string) string { return fmt.Sprintf("strftime(%s + %s, '%%Y-%%m') AS month", start, shift) }
	// Every column of the row type, some replaced.
	sel := func(row any, alias string, replace map[string]string) string {
		var cols []string
		t := reflect.TypeOf(row)
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("parquet"), ",")
			if e, ok := replace[name]; ok {
				cols = append(cols, e+" AS "+name)
			} else {
				cols = append(cols, alias+"."+name)
			}
		}
		return strings.Join(cols, ", ")
	}
	stmts := map[string]string{
		dataset.TableJobs: fmt.Sprintf("SELECT %s, %s FROM jobs j, "+copies,
			sel(dataset.Job{}, "j", map[string]string{
				"id":         newID("j.id"),
				"checksum":   "substr(j.checksum, 1, 61) || printf('%03d', r.k)",
				"job_id":     "j.job_id + r.k * 100000000",
				"start_time": "j.start_time + " + shift,
				"end_time":   "j.end_time + " + shift,
			}), month("j.start_time"), c.replicas),
	}
	tables := []string{dataset.TableJobs, dataset.TableFiles, dataset.TableInsights, dataset.TableRanks}
	rows := map[string]any{dataset.TableFiles: dataset.File{}, dataset.TableInsights: dataset.Insight{}, dataset.TableRanks: dataset.Rank{}}
	for _, t := range tables[1:] {
		stmts[t] = fmt.Sprintf("SELECT %s, %s FROM %s t JOIN jobs j ON t.job = j.id, "+copies,
			sel(rows[t], "t", map[string]string{"job": newID("t.job")}), month("j.start_time"), t, c.replicas)
	}
	for _, t := range tables {
		if err := os.MkdirAll(filepath.Join(big, t), 0o750); err != nil {
			return err
		}
		copyStmt := fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (month), FILENAME_PATTERN 'replicas_{i}')",
			stmts[t], sqlString(filepath.Join(big, t)))
		if _, err := db.Query(ctx, copyStmt); err != nil {
			return fmt.Errorf("replicating %s: %w", t, err)
		}
	}
	fmt.Fprintf(c.out, "\n== dataset of %d copies of %s built in %.0f s\n", c.replicas, small, time.Since(start).Seconds())
	return os.WriteFile(marker, []byte(want), 0o600)
}

// questionTime is the first and the median of repeated runs of one question.
type questionTime struct {
	first, median time.Duration
}

// measure runs f once, then five more times, and returns the first time
// and the median of the five.
func measure(f func() error) (questionTime, error) {
	start := time.Now()
	if err := f(); err != nil {
		return questionTime{}, err
	}
	first := time.Since(start)
	var ds []time.Duration
	for range 5 {
		start := time.Now()
		if err := f(); err != nil {
			return questionTime{}, err
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return questionTime{first: first, median: ds[len(ds)/2]}, nil
}

// queries times the named questions and the web pages on the dataset at
// store.
func queries(ctx context.Context, c benchConfig, store string) error {
	db, err := query.Open(store)
	if err != nil {
		return err
	}
	defer db.Close()
	t, err := db.Query(ctx, "SELECT count(*), sum(bytes_read + bytes_written) FROM jobs")
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "\n== questions on %v jobs (%v bytes moved), %s; first run and median of five\n", t.Rows[0][0], t.Rows[0][1], store)
	app, job, err := busiest(ctx, db)
	if err != nil {
		return err
	}
	h, err := web.New(db, web.Options{})
	if err != nil {
		return err
	}
	page := func(path string) func() error {
		return func() error {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			if rec.Code != http.StatusOK {
				return fmt.Errorf("GET %s: %d %s", path, rec.Code, rec.Body.String())
			}
			return nil
		}
	}
	since := time.Now().AddDate(0, -1, 0)
	cases := []struct {
		name string
		f    func() error
	}{
		{"overview", func() error { _, err := db.Overview(ctx, query.Filter{}); return err }},
		{"top users by I/O time", func() error { _, err := db.Top(ctx, "io-time", "user", query.Filter{}, 10); return err }},
		{"top applications by bytes", func() error { _, err := db.Top(ctx, "bytes", "app", query.Filter{}, 10); return err }},
		{"top jobs by small writes", func() error { _, err := db.Top(ctx, "small-writes", "job", query.Filter{}, 10); return err }},
		{"insight frequencies", func() error { _, err := db.Insights(ctx, query.Filter{}, nil, 10); return err }},
		{"job list, first page", func() error { _, _, err := db.Jobs(ctx, query.JobsQuery{}); return err }},
		{"job list, app and I/O time sort, page 3", func() error {
			_, _, err := db.Jobs(ctx, query.JobsQuery{Filter: query.Filter{App: app}, Sort: "io_time", Offset: 100})
			return err
		}},
		{"job list, insight P06, last month", func() error {
			_, _, err := db.Jobs(ctx, query.JobsQuery{Filter: query.Filter{Code: "P06", Since: since}})
			return err
		}},
		{"application history", func() error { _, err := db.App(ctx, app, query.Filter{}); return err }},
		{"one job with files and insights", func() error {
			if _, err := db.Job(ctx, job); err != nil {
				return err
			}
			if _, err := db.Files(ctx, job, 100); err != nil {
				return err
			}
			_, err := db.JobInsights(ctx, job)
			return err
		}},
		{"GET /", page("/")},
		{"GET /jobs", page("/jobs")},
		{"GET /jobs?app=...&sort=io_time", page("/jobs?app=" + url.QueryEscape(app) + "&sort=io_time")},
		{"GET /apps/...", page("/apps/" + url.PathEscape(app))},
	}
	fmt.Fprintf(c.out, "%-42s %10s %10s\n", "question", "first ms", "median ms")
	for _, q := range cases {
		tm, err := measure(q.f)
		if err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
		fmt.Fprintf(c.out, "%-42s %10.1f %10.1f\n", q.name, ms(tm.first), ms(tm.median))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// busiest returns the application with the most jobs and one of its jobs.
func busiest(ctx context.Context, db *query.DB) (app, job string, err error) {
	t, err := db.Query(ctx, "SELECT app, any_value(id) FROM jobs GROUP BY app ORDER BY count(*) DESC, app LIMIT 1")
	if err != nil {
		return "", "", err
	}
	if len(t.Rows) == 0 {
		return "", "", errors.New("the dataset has no jobs")
	}
	return fmt.Sprint(t.Rows[0][0]), fmt.Sprint(t.Rows[0][1]), nil
}
