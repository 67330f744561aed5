package query

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Overview summarises the jobs a filter selects: totals, activity per day,
// I/O time per interface and the most common problems.
type Overview struct {
	Jobs         int64     `json:"jobs"`
	Users        int64     `json:"users"`
	Apps         int64     `json:"apps"`
	BytesRead    int64     `json:"bytes_read"`
	BytesWritten int64     `json:"bytes_written"`
	IOTime       float64   `json:"io_time"`
	First        time.Time `json:"first"`
	Last         time.Time `json:"last"`
	// Days are the jobs, bytes and I/O time per day, in date order.
	Days []Day `json:"days"`
	// Interfaces is the I/O time per interface (POSIX, MPI-IO, STDIO,
	// HDF5, PnetCDF) and the POSIX metadata time, summed over jobs.
	Interfaces []Interface `json:"interfaces"`
	// Insights are the most common WARN and HIGH insights.
	Insights []InsightCount `json:"insights"`
	// Errors counts the logs that could not be ingested (not filtered).
	Errors int64 `json:"errors"`
}

// Day is the activity of one day.
type Day struct {
	Date         time.Time `json:"date"`
	Jobs         int64     `json:"jobs"`
	BytesRead    int64     `json:"bytes_read"`
	BytesWritten int64     `json:"bytes_written"`
	IOTime       float64   `json:"io_time"`
}

// Interface is the I/O time of one interface.
type Interface struct {
	Name string  `json:"name"`
	Time float64 `json:"time"`
}

// InsightCount is how often an insight code was found.
type InsightCount struct {
	Code  string `json:"code"`
	Level string `json:"level"` // the most severe level it had
	// Message is the message of the job with the most I/O time.
	Message string `json:"message"`
	Jobs    int64  `json:"jobs"`
	Users   int64  `json:"users"`
	Apps    int64  `json:"apps"`
	// Examples are the jobs carrying it with the most I/O time, at most 3.
	Examples []string `json:"examples"`
}

// Overview answers the facility overview for the jobs f selects.
func (d *DB) Overview(ctx context.Context, f Filter) (*Overview, error) {
	where, args := f.where("")
	t, err := d.Query(ctx, `SELECT count(*), count(DISTINCT uid), count(DISTINCT app),
		CAST(coalesce(sum(bytes_read), 0) AS BIGINT), CAST(coalesce(sum(bytes_written), 0) AS BIGINT), coalesce(sum(io_time), 0),
		min(start_time), max(start_time),
		coalesce(sum(posix_time), 0), coalesce(sum(mpiio_time), 0), coalesce(sum(stdio_time), 0),
		coalesce(sum(hdf5_time), 0), coalesce(sum(pnetcdf_time), 0), coalesce(sum(meta_time), 0),
		(SELECT count(*) FROM errors)
		FROM jobs WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	r := t.Rows[0]
	o := &Overview{
		Jobs: asInt(r[0]), Users: asInt(r[1]), Apps: asInt(r[2]),
		BytesRead: asInt(r[3]), BytesWritten: asInt(r[4]), IOTime: asFloat(r[5]),
		First: asTime(r[6]), Last: asTime(r[7]), Errors: asInt(r[14]),
		Days: []Day{},
	}
	for i, name := range []string{"POSIX", "MPI-IO", "STDIO", "HDF5", "PnetCDF", "metadata (POSIX)"} {
		o.Interfaces = append(o.Interfaces, Interface{Name: name, Time: asFloat(r[8+i])})
	}
	t, err = d.Query(ctx, `SELECT date, count(*), CAST(sum(bytes_read) AS BIGINT), CAST(sum(bytes_written) AS BIGINT), sum(io_time)
		FROM jobs WHERE `+where+` GROUP BY date ORDER BY date`, args...)
	if err != nil {
		return nil, err
	}
	for _, r := range t.Rows {
		o.Days = append(o.Days, Day{Date: asTime(r[0]), Jobs: asInt(r[1]), BytesRead: asInt(r[2]), BytesWritten: asInt(r[3]), IOTime: asFloat(r[4])})
	}
	if o.Insights, err = d.Insights(ctx, f, []string{"HIGH", "WARN"}, 10); err != nil {
		return nil, err
	}
	return o, nil
}

// Insights returns how often each insight code of the given levels (all
// when none) was found in the jobs f selects, the most frequent first, at
// most n (all when n <= 0).
func (d *DB) Insights(ctx context.Context, f Filter, levels []string, n int) ([]InsightCount, error) {
	where, args := f.where("j")
	if len(levels) > 0 {
		where += " AND i.level IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(levels)), ", ") + ")"
		for _, l := range levels {
			args = append(args, l)
		}
	}
	limit := ""
	if n > 0 {
		limit = fmt.Sprintf(" LIMIT %d", n)
	}
	t, err := d.Query(ctx, `SELECT i.code,
		max(CASE i.level WHEN 'HIGH' THEN 3 WHEN 'WARN' THEN 2 WHEN 'INFO' THEN 1 ELSE 0 END),
		arg_max(i.message, j.io_time), count(DISTINCT j.id), count(DISTINCT j.uid), count(DISTINCT j.app),
		max_by(j.id, j.io_time, 3)
		FROM insights i JOIN jobs j ON i.job = j.id
		WHERE `+where+` GROUP BY i.code ORDER BY count(DISTINCT j.id) DESC, i.code`+limit, args...)
	if err != nil {
		return nil, err
	}
	out := []InsightCount{}
	for _, r := range t.Rows {
		out = append(out, InsightCount{
			Code: asString(r[0]), Level: levelName(asInt(r[1])), Message: asString(r[2]),
			Jobs: asInt(r[3]), Users: asInt(r[4]), Apps: asInt(r[5]), Examples: asStrings(r[6]),
		})
	}
	return out, nil
}

func levelName(l int64) string {
	return [...]string{"OK", "INFO", "WARN", "HIGH"}[min(max(l, 0), 3)]
}

// Metrics by which Top ranks.
var topMetrics = map[string]string{
	"io-time":      "sum(io_time)",
	"bytes":        "CAST(sum(bytes_read + bytes_written) AS BIGINT)",
	"small-writes": "CAST(sum(small_writes) AS BIGINT)",
	"meta-time":    "sum(meta_time)",
	"jobs":         "count(*)",
}

// Groups by which Top aggregates.
var topGroups = map[string][]string{
	"user": {"uid", "user"},
	"app":  {"app"},
	"job":  {"id", "user", "app", "start_time", "nprocs"},
}

// TopMetrics and TopGroups list the names Top accepts.
func TopMetrics() []string { return sortedKeys(topMetrics) }

// TopGroups lists the groups Top accepts.
func TopGroups() []string { return sortedKeys(topGroups) }

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Top ranks the users, applications or jobs (group) of the jobs f
// selects by a metric (by: io-time, bytes, small-writes, meta-time, jobs)
// and returns the n first, with their job count, I/O time, bytes, small
// writes and metadata time.
func (d *DB) Top(ctx context.Context, by, group string, f Filter, n int) (*Table, error) {
	metric, ok := topMetrics[by]
	if !ok {
		return nil, fmt.Errorf("unknown metric %q (one of %s)", by, strings.Join(TopMetrics(), ", "))
	}
	cols, ok := topGroups[group]
	if !ok {
		return nil, fmt.Errorf("unknown group %q (one of %s)", group, strings.Join(TopGroups(), ", "))
	}
	if n <= 0 {
		n = 10
	}
	where, args := f.where("")
	keys := strings.Join(cols, ", ")
	q := fmt.Sprintf(`SELECT %s, count(*) AS jobs, sum(io_time) AS io_time,
		CAST(sum(bytes_read + bytes_written) AS BIGINT) AS bytes, CAST(sum(small_writes) AS BIGINT) AS small_writes,
		sum(meta_time) AS meta_time
		FROM jobs WHERE %s GROUP BY %s ORDER BY %s DESC, %s LIMIT %d`, keys, where, keys, metric, keys, n)
	return d.Query(ctx, q, args...)
}

// asInt, asFloat, asString, asTime and asStrings convert a normalised
// value, NULL to the zero value.
func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return 0
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func asTime(v any) time.Time {
	t, _ := v.(time.Time)
	return t
}

func asStrings(v any) []string {
	out := []string{}
	l, _ := v.([]any)
	for _, x := range l {
		out = append(out, asString(x))
	}
	return out
}
