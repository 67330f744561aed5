// Package facility implements the facility commands of iolens (ingest,
// query, top, app, serve, store), which the program iolens-facility adds
// to the iolens command tree (cli.MainWith): they link DuckDB, Parquet
// and an HTTP server, which the other commands do without.
package facility

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/dataset/query"
	"github.com/iolens/iolens/internal/cli"
)

// Commands returns the facility commands.
func Commands(s cli.Streams) []*cobra.Command {
	return []*cobra.Command{newIngestCmd(s), newQueryCmd(s), newTopCmd(s), newAppCmd(s), newServeCmd(s), newStoreCmd(s)}
}

// defaultStore returns the dataset directory of a user who names none:
// $IOLENS_STORE, else ~/.local/share/iolens/dataset.
func defaultStore() string {
	if d := os.Getenv("IOLENS_STORE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "iolens-dataset"
	}
	return filepath.Join(home, ".local", "share", "iolens", "dataset")
}

// storeFlag adds --store to cmd, into p.
func storeFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "store", "", "dataset directory (default $IOLENS_STORE, else ~/.local/share/iolens/dataset)")
}

// storeDir returns the dataset directory of the --store value v.
func storeDir(v string) string {
	if v != "" {
		return v
	}
	return defaultStore()
}

// openStore opens the dataset in dir for queries; it must exist.
func openStore(dir string) (*query.DB, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w (create it with 'iolens ingest --store %s LOGS...')", dir, err, dir)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("dataset %s: not a directory", dir)
	}
	return query.Open(dir)
}

// filterFlags are the job filters of the query commands.
type filterFlags struct {
	since, until, user, app, code string
}

func (f *filterFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.since, "since", "", "jobs started at or after this date (YYYY-MM-DD, RFC 3339) or this long ago (36h, 30d)")
	cmd.Flags().StringVar(&f.until, "until", "", "jobs started before this date or this long ago")
	cmd.Flags().StringVar(&f.user, "user", "", "jobs of this user name")
	cmd.Flags().StringVar(&f.app, "app", "", "jobs of this application")
	cmd.Flags().StringVar(&f.code, "code", "", "jobs with an insight of this code (e.g. P06)")
}

// filter returns the query filter of the flags at time now.
func (f *filterFlags) filter(now time.Time) (query.Filter, error) {
	q := query.Filter{User: f.user, App: f.app, Code: strings.ToUpper(f.code)}
	var err error
	if q.Since, err = ParseTime(f.since, now); err != nil {
		return q, cli.Usagef("--since: %v", err)
	}
	if q.Until, err = ParseTime(f.until, now); err != nil {
		return q, cli.Usagef("--until: %v", err)
	}
	return q, nil
}

// ParseTime parses a point in time given as a date (2026-11-25), an RFC
// 3339 time, or an age before now (36h, 30d, 2w); "" is the zero time.
func ParseTime(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		v, err := strconv.ParseFloat(s[:n-1], 64)
		if err == nil && v >= 0 {
			day := 24 * time.Hour
			if s[n-1] == 'w' {
				day *= 7
			}
			return now.Add(-time.Duration(v * float64(day))), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a date (2026-11-25), a time (RFC 3339) nor an age (36h, 30d)", s)
}

// contextOf returns the command's context, or a background one.
func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
