package query

import (
	"strings"
	"time"
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
	if !f.Since.IsZero() {
		// The date partition prunes files; the start time is exact.
		conds = append(conds, col("date")+" >= CAST(? AS DATE)", col("start_time")+" >= ?")
		args = append(args, f.Since.UTC().Format(time.DateOnly), f.Since.UTC())
	}
	if !f.Until.IsZero() {
		conds = append(conds, col("date")+" <= CAST(? AS DATE)", col("start_time")+" < ?")
		args = append(args, f.Until.UTC().Format(time.DateOnly), f.Until.UTC())
	}
	if f.Code != "" {
		conds = append(conds, col("id")+" IN (SELECT job FROM insights WHERE code = ?)")
		args = append(args, f.Code)
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
