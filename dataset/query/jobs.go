package query

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/iolens/iolens/dataset"
)

// Job is a job of the dataset with the day (UTC) it started.
type Job struct {
	dataset.Job
	Date time.Time `json:"date"`
}

// JobsQuery selects a page of the job list.
type JobsQuery struct {
	Filter
	// Sort is the column to sort by (JobSorts); "" sorts by start time.
	Sort string
	// Asc sorts in increasing order (the default is decreasing).
	Asc bool
	// Offset and Limit select the page; Limit 0 means 50.
	Offset, Limit int
}

// JobSorts lists the columns the job list sorts by.
func JobSorts() []string {
	return []string{"start_time", "io_time", "run_time", "bytes", "nprocs", "files", "small_writes", "meta_time", "user", "app"}
}

// ListColumns are the columns of the jobs table that Jobs fills: those a
// job list shows.
func ListColumns() []string {
	return []string{"id", "user", "uid", "app", "exe", "job_id", "start_time", "end_time", "run_time", "nprocs", "nodes",
		"files", "bytes_read", "bytes_written", "io_time", "small_writes", "meta_time", "insights_high", "insights_warn"}
}

// Jobs returns a page of the jobs q selects, and how many it selects in
// all. The jobs have the columns of ListColumns; the others are zero
// (Job returns one job in full).
func (d *DB) Jobs(ctx context.Context, q JobsQuery) ([]Job, int64, error) {
	sort := q.Sort
	switch {
	case sort == "":
		sort = "start_time"
	case !slices.Contains(JobSorts(), sort):
		return nil, 0, fmt.Errorf("cannot sort jobs by %q (one of %s)", sort, strings.Join(JobSorts(), ", "))
	}
	if sort == "bytes" {
		sort = "(bytes_read + bytes_written)"
	}
	dir := "DESC"
	if q.Asc {
		dir = "ASC"
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	where, args := q.Filter.where("")
	// A top-N of the few columns a list shows: DuckDB reads the columns
	// that filter and sort every job, and the others only for the rows
	// of the page. Reading every column of the page's rows (by id, after
	// the top-N) costs more than that on wide tables: each row is in
	// another file.
	cols := ListColumns()
	t, err := d.Query(ctx, fmt.Sprintf("SELECT %s, date FROM jobs WHERE %s ORDER BY %s %s, start_time %s, id %s LIMIT %d OFFSET %d",
		strings.Join(cols, ", "), where, sort, dir, dir, dir, limit, max(q.Offset, 0)), args...)
	if err != nil {
		return nil, 0, err
	}
	jobs := make([]Job, len(t.Rows))
	for i, r := range t.Rows {
		fillNamed(reflect.ValueOf(&jobs[i].Job).Elem(), cols, r)
		jobs[i].Date = asTime(r[len(r)-1])
	}
	if t, err = d.Query(ctx, "SELECT count(*) FROM jobs WHERE "+where, args...); err != nil {
		return nil, 0, err
	}
	return jobs, asInt(t.Rows[0][0]), nil
}

// inList returns the condition that col is one of values, and its
// arguments: "col IN (...)", which prunes partitions (col a partition
// column) and is pushed into scans when values are few.
func inList(col string, values []string) (string, []any) {
	return col + " IN (" + placeholders(len(values)) + ")", strings2any(values)
}

// oneOf returns the condition that col is one of values, and its arguments,
// for lists of many values: DuckDB evaluates "col IN (...)" of more than a
// few values as a join, after it has read every column of every row, while
// it evaluates list_contains in the scan, on col first.
func oneOf(col string, values []string) (string, []any) {
	return "list_contains([" + placeholders(len(values)) + "], " + col + ")", strings2any(values)
}

// placeholders returns n parameter placeholders separated by commas.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func strings2any(values []string) []any {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	return args
}

// Job returns the job of id; ErrNotFound when the dataset has none.
func (d *DB) Job(ctx context.Context, id string) (*Job, error) {
	jobs, err := d.jobs(ctx, "id = ? LIMIT 1", id)
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("job %s: %w", id, ErrNotFound)
	}
	d.remember(id, jobs[0].Month())
	return &jobs[0], nil
}

// maxMonths bounds the cache of the months of jobs.
const maxMonths = 10000

// remember caches the month partition of job id.
func (d *DB) remember(id, month string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.months) >= maxMonths {
		clear(d.months)
	}
	d.months[id] = month
}

// month returns the month partition of job id (that of its rows in every
// table), "" when the dataset has no such job. A job's month never
// changes: it is that of the start time in its log.
func (d *DB) month(ctx context.Context, id string) (string, error) {
	d.mu.Lock()
	m, ok := d.months[id]
	d.mu.Unlock()
	if ok {
		return m, nil
	}
	t, err := d.Query(ctx, "SELECT "+dataset.PartitionColumn+" FROM jobs WHERE id = ? LIMIT 1", id)
	if err != nil || len(t.Rows) == 0 {
		return "", err
	}
	m = asString(t.Rows[0][0])
	d.remember(id, m)
	return m, nil
}

// jobs returns the jobs of a condition (with its ORDER BY and LIMIT).
func (d *DB) jobs(ctx context.Context, cond string, args ...any) ([]Job, error) {
	cols := columns(reflect.TypeFor[dataset.Job]())
	t, err := d.Query(ctx, "SELECT "+strings.Join(cols, ", ")+", date FROM jobs WHERE "+cond, args...)
	if err != nil {
		return nil, err
	}
	out := make([]Job, len(t.Rows))
	for i, r := range t.Rows {
		fill(reflect.ValueOf(&out[i].Job).Elem(), r)
		out[i].Date = asTime(r[len(r)-1])
	}
	return out, nil
}

// Files returns the files of a job, the most bytes first, at most n (all
// when n <= 0).
func (d *DB) Files(ctx context.Context, job string, n int) ([]dataset.File, error) {
	return rowsOf[dataset.File](ctx, d, "files", job, "ORDER BY bytes_read + bytes_written DESC, name", n)
}

// JobInsights returns the insights of a job, the most severe first.
func (d *DB) JobInsights(ctx context.Context, job string) ([]dataset.Insight, error) {
	return rowsOf[dataset.Insight](ctx, d, "insights", job,
		"ORDER BY CASE level WHEN 'HIGH' THEN 0 WHEN 'WARN' THEN 1 WHEN 'INFO' THEN 2 ELSE 3 END, code", 0)
}

// Ranks returns the per-rank I/O of a job, in rank order.
func (d *DB) Ranks(ctx context.Context, job string) ([]dataset.Rank, error) {
	return rowsOf[dataset.Rank](ctx, d, "ranks", job, "ORDER BY rank", 0)
}

// rowsOf returns the rows of a table of one job, in the order of orderBy,
// at most n (all when n <= 0). Only the files of the job's month are read.
func rowsOf[T any](ctx context.Context, d *DB, table, job, orderBy string, n int) ([]T, error) {
	month, err := d.month(ctx, job)
	if err != nil {
		return nil, err
	}
	if month == "" {
		return []T{}, nil
	}
	q := "SELECT " + strings.Join(columns(reflect.TypeFor[T]()), ", ") + " FROM " + table +
		" WHERE " + dataset.PartitionColumn + " = ? AND job = ? " + orderBy
	if n > 0 {
		q += fmt.Sprintf(" LIMIT %d", n)
	}
	t, err := d.Query(ctx, q, month, job)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(t.Rows))
	for i, r := range t.Rows {
		fill(reflect.ValueOf(&out[i]).Elem(), r)
	}
	return out, nil
}

// columns returns the column names of a row type.
func columns(t reflect.Type) []string {
	out := make([]string, t.NumField())
	for i := range out {
		out[i], _, _ = strings.Cut(t.Field(i).Tag.Get("parquet"), ",")
	}
	return out
}

// fill sets the fields of struct v from the values of a row, in order.
func fill(v reflect.Value, row []any) {
	for i := range v.NumField() {
		set(v.Field(i), row[i])
	}
}

// fillNamed sets the fields of struct v whose columns (parquet tags) are
// cols from the values of a row, in the order of cols.
func fillNamed(v reflect.Value, cols []string, row []any) {
	field := map[string]int{}
	for i, c := range columns(v.Type()) {
		field[c] = i
	}
	for k, c := range cols {
		if i, ok := field[c]; ok {
			set(v.Field(i), row[k])
		}
	}
}

// set sets the field f to the normalised value x, left unchanged when nil.
func set(f reflect.Value, x any) {
	switch x := x.(type) {
	case nil:
	case []any:
		s := asStrings(x)
		f.Set(reflect.ValueOf(s))
	case time.Time:
		f.Set(reflect.ValueOf(x))
	case string:
		f.SetString(x)
	case bool:
		f.SetBool(x)
	case float64:
		if f.CanFloat() {
			f.SetFloat(x)
		}
	case int64:
		if f.CanInt() {
			f.SetInt(x)
		}
	}
}

// Run is one run of an application.
type Run struct {
	ID      string    `json:"id"`
	User    string    `json:"user"`
	Start   time.Time `json:"start_time"`
	RunTime float64   `json:"run_time"`
	NProcs  int64     `json:"nprocs"`
	IOTime  float64   `json:"io_time"`
	Bytes   int64     `json:"bytes"`
	High    int64     `json:"insights_high"`
	// Usual is the median I/O time of the application's previous runs
	// (the 20 before, when at least 5); 0 when there are too few.
	Usual float64 `json:"usual_io_time"`
	// Regression is set when the run's I/O time is far above the usual:
	// more than twice the median and more than four scaled median
	// absolute deviations above it.
	Regression bool `json:"regression"`
}

// AppHistory is the runs of an application over time.
type AppHistory struct {
	Name        string         `json:"name"`
	Runs        []Run          `json:"runs"`
	Regressions int            `json:"regressions"`
	Insights    []InsightCount `json:"insights"`
}

// Regression detection: a run is compared with the regressionWindow runs
// before it, when there are at least regressionMin.
const (
	regressionWindow = 20
	regressionMin    = 5
)

// App returns the runs of the application name among the jobs f selects,
// in time order, with regressions flagged; ErrNotFound when it has none.
func (d *DB) App(ctx context.Context, name string, f Filter) (*AppHistory, error) {
	f.App = name
	where, args := f.where("")
	t, err := d.Query(ctx, `SELECT id, user, start_time, run_time, nprocs, io_time, CAST(bytes_read + bytes_written AS BIGINT), insights_high
		FROM jobs WHERE `+where+` ORDER BY start_time, id`, args...)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("application %q: %w", name, ErrNotFound)
	}
	h := &AppHistory{Name: name, Runs: make([]Run, len(t.Rows))}
	for i, r := range t.Rows {
		h.Runs[i] = Run{ID: asString(r[0]), User: asString(r[1]), Start: asTime(r[2]), RunTime: asFloat(r[3]),
			NProcs: asInt(r[4]), IOTime: asFloat(r[5]), Bytes: asInt(r[6]), High: asInt(r[7])}
	}
	h.Regressions = flagRegressions(h.Runs)
	if h.Insights, err = d.Insights(ctx, f, nil, 0); err != nil {
		return nil, err
	}
	return h, nil
}

// flagRegressions sets Usual and Regression of runs (in time order) and
// returns the number of regressions.
func flagRegressions(runs []Run) int {
	n := 0
	for i := range runs {
		prev := runs[max(0, i-regressionWindow):i]
		if len(prev) < regressionMin {
			continue
		}
		times := make([]float64, len(prev))
		for k, r := range prev {
			times[k] = r.IOTime
		}
		med := median(times)
		for k := range times {
			times[k] = math.Abs(times[k] - med)
		}
		mad := 1.4826 * median(times)
		runs[i].Usual = med
		if r := runs[i].IOTime; r > 2*med && r > med+4*mad {
			runs[i].Regression = true
			n++
		}
	}
	return n
}

// median returns the median of v (which it sorts).
func median(v []float64) float64 {
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
