package query

import (
	"strings"
	"time"

	"github.com/iolens/iolens/dataset"
)

// Filter selects jobs. Zero fields select everything.
type Filter struct {
	// UID, when set, restricts every answer to the jobs of that user
	// (the access control of a multi-user server).
	UID *int64
	// User and App select jobs by user name and application name.
	User, App string
	// Since and Until bound the start time of jobs ([Since, Until)).
	Since, Until time.Time
	// Code selects jobs with an insight of that code (e.g. "P06").
	Code string
	// MinBytes selects jobs that moved at least that many bytes.
	MinBytes int64
}

// where returns the SQL condition of f on the jobs table (aliased a, ""
// for none) and its arguments; "true" when f selects everything.
func (f Filter) where(alias string) (string, []any) {
	col := func(c string) string {
		if alias == "" {
			return c
		}
		return alias + "." + c
	}
	var conds []string
	var args []any
	if f.UID != nil {
		conds, args = append(conds, col("uid")+" = ?"), append(args, *f.UID)
	}
	if f.User != "" {
		conds, args = append(conds, col("user")+" = ?"), append(args, f.User)
	}
	if f.App != "" {
		conds, args = append(conds, col("app")+" = ?"), append(args, f.App)
	}
	// The month partition prunes files; the start time is exact.
	months, margs := f.months(col(dataset.PartitionColumn))
	conds, args = append(conds, months...), append(args, margs...)
	if !f.Since.IsZero() {
		conds, args = append(conds, col("start_time")+" >= ?"), append(args, f.Since.UTC())
	}
	if !f.Until.IsZero() {
		conds, args = append(conds, col("start_time")+" < ?"), append(args, f.Until.UTC())
	}
	if f.Code != "" {
		conds, args = append(conds, "list_contains("+col("insight_codes")+", ?)"), append(args, f.Code)
	}
	if f.MinBytes > 0 {
		conds = append(conds, col("bytes_read")+" + "+col("bytes_written")+" >= ?")
		args = append(args, f.MinBytes)
	}
	if len(conds) == 0 {
		return "true", nil
	}
	return strings.Join(conds, " AND "), args
}

// months returns the conditions on the month partition column col (of any
// table: a job's rows are all in the month it started) that Since and
// Until imply, and their arguments; none when they are zero.
func (f Filter) months(col string) ([]string, []any) {
	var conds []string
	var args []any
	if !f.Since.IsZero() {
		conds, args = append(conds, col+" >= ?"), append(args, dataset.Month(f.Since))
	}
	if !f.Until.IsZero() {
		// Until is excluded: the last month is that of the instant before.
		conds, args = append(conds, col+" <= ?"), append(args, dataset.Month(f.Until.Add(-time.Nanosecond)))
	}
	return conds, args
}
