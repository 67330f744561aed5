package query

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/iolens/iolens/dataset"
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
	// The totals and the days are two scans: one scan with grouping sets
	// would count the distinct users and applications of every day too.
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
	where, args := f.where("")
	level := "true"
	var largs []any
	if len(levels) > 0 {
		level, largs = inList("level", levels)
	}
	limit := ""
	if n > 0 {
		limit = fmt.Sprintf(" LIMIT %d", n)
	}
	// The jobs' insight summaries, not the insights table: a list of a few
	// codes per job instead of a join with rows of long messages. The
	// messages are read below, for the one job of each code whose message
	// is shown.
	t, err := d.Query(ctx, `SELECT code,
		max(CASE level WHEN 'HIGH' THEN 3 WHEN 'WARN' THEN 2 WHEN 'INFO' THEN 1 ELSE 0 END),
		count(*), count(DISTINCT uid), count(DISTINCT app),
		max_by({'id': id, 'month': `+dataset.PartitionColumn+`}, io_time, 3)
		FROM (SELECT id, uid, app, io_time, `+dataset.PartitionColumn+`, unnest(insight_codes) AS code, unnest(insight_levels) AS level
			FROM jobs WHERE `+where+`)
		WHERE `+level+` GROUP BY code ORDER BY count(*) DESC, code`+limit, append(args, largs...)...)
	if err != nil {
		return nil, err
	}
	out := []InsightCount{}
	months := map[string]bool{}
	var ids []string
	for _, r := range t.Rows {
		c := InsightCount{
			Code: asString(r[0]), Level: levelName(asInt(r[1])),
			Jobs: asInt(r[2]), Users: asInt(r[3]), Apps: asInt(r[4]), Examples: []string{},
		}
		examples, _ := r[5].([]any)
		for k, e := range examples {
			e, _ := e.(map[string]any)
			c.Examples = append(c.Examples, asString(e["id"]))
			if k == 0 {
				ids = append(ids, asString(e["id"]))
				months[asString(e["month"])] = true
			}
		}
		out = append(out, c)
	}
	if len(ids) == 0 {
		return out, nil
	}
	// The message of each code is that of the job with the most I/O time,
	// its first example, at one of the levels asked for.
	mcond, margs2 := inList(dataset.PartitionColumn, slices.Sorted(maps.Keys(months)))
	jcond, jargs := oneOf("job", ids)
	q := "SELECT code, job, min(message) FROM insights WHERE " + mcond + " AND " + jcond + " AND " + level + " GROUP BY code, job"
	t, err = d.Query(ctx, q, append(append(margs2, jargs...), largs...)...)
	if err != nil {
		return nil, err
	}
	type key struct{ code, job string }
	msgs := map[key]string{}
	for _, r := range t.Rows {
		msgs[key{asString(r[0]), asString(r[1])}] = asString(r[2])
	}
	for i, c := range out {
		if len(c.Examples) > 0 {
			out[i].Message = msgs[key{c.Code, c.Examples[0]}]
		}
	}
	return out, nil
}

// Names returns the user names and the application names of the jobs f
// selects, at most n of each (all when n <= 0), those of the most jobs,
// sorted by name; empty names are left out.
func (d *DB) Names(ctx context.Context, f Filter, n int) (users, apps []string, err error) {
	where, args := f.where("")
	t, err := d.Query(ctx, `SELECT grouping(user), coalesce(user, app), count(*) AS jobs FROM jobs WHERE `+where+`
		GROUP BY GROUPING SETS ((user), (app)) ORDER BY jobs DESC, 2`, args...)
	if err != nil {
		return nil, nil, err
	}
	users, apps = []string{}, []string{}
	for _, r := range t.Rows {
		dst := &users
		if asInt(r[0]) == 1 { // grouped by application
			dst = &apps
		}
		if name := asString(r[1]); name != "" && (n <= 0 || len(*dst) < n) {
			*dst = append(*dst, name)
		}
	}
	slices.Sort(users)
	slices.Sort(apps)
	return users, apps, nil
}

// Codes returns the insight codes found in the jobs f selects, sorted.
// When f selects everything, they are read from the insights table (a
// dictionary-encoded column, several times faster to scan than the jobs'
// lists): they may then include the codes of the rows of an ingest that
// stopped before adding its jobs, until compaction drops them.
func (d *DB) Codes(ctx context.Context, f Filter) ([]string, error) {
	q := "SELECT DISTINCT code FROM insights ORDER BY code"
	where, args := f.where("")
	if where != "true" {
		q = "SELECT DISTINCT unnest(insight_codes) AS code FROM jobs WHERE " + where + " ORDER BY code"
	}
	t, err := d.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = asString(r[0])
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
