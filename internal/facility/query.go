package facility

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/dataset/query"
	"github.com/iolens/iolens/internal/cli"
	"github.com/iolens/iolens/report"
)

func newQueryCmd(s cli.Streams) *cobra.Command {
	var store string
	var ff formatFlags
	cmd := &cobra.Command{
		Use:   "query [--store DIR] [--json|--csv] SQL",
		Short: "Run SQL over the facility dataset (embedded DuckDB)",
		Long: `Query runs an SQL statement (DuckDB's dialect) over the facility dataset.
Its tables are views: jobs, files, insights, ranks and errors. Each has a
'month' column, the partition ('2026-11': the month the job started, that
of the ingest for errors), on which a condition skips the files of other
months; jobs and errors also have a 'date' column, the day the job started
or the log was ingested. files, insights and ranks join jobs on their 'job'
column (= jobs.id). docs/dataset.md lists every column.`,
		Example: `  iolens query "SELECT app, count(*), sum(io_time) FROM jobs GROUP BY app ORDER BY 3 DESC LIMIT 10"
  iolens query --csv "SELECT j.user, f.name, f.bytes_written FROM files f JOIN jobs j ON f.job = j.id WHERE f.access_size < 4096"
  iolens query --json "SELECT log, error FROM errors"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("want one SQL statement (quote it), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := ff.format()
			if err != nil {
				return err
			}
			db, err := openStore(storeDir(store))
			if err != nil {
				return err
			}
			defer db.Close()
			t, err := db.Query(contextOf(cmd), args[0])
			if err != nil {
				return fmt.Errorf("query: %w", err)
			}
			return writeTable(s.Out, t, f)
		},
	}
	storeFlag(cmd, &store)
	ff.add(cmd, true)
	return cmd
}

func newTopCmd(s cli.Streams) *cobra.Command {
	var store string
	var ff formatFlags
	var fl filterFlags
	var by, group string
	var n int
	cmd := &cobra.Command{
		Use:   "top [--by io-time|bytes|small-writes|meta-time|jobs|insights] [--group user|app|job] [filters]",
		Short: "Rank users, applications or jobs by I/O time, bytes, small writes or metadata time",
		Long: `Top ranks the users, applications or jobs of the facility dataset by a
metric, summed over their jobs: io-time (seconds of I/O, summed over
ranks), bytes (read and written), small-writes (POSIX writes below 1 MiB),
meta-time (POSIX metadata seconds) or jobs. --by insights lists instead the
insight codes found most often (WARN and HIGH), with the jobs, users and
applications that carry them.`,
		Example: `  iolens top --by small-writes --group user --since 30d
  iolens top --by io-time --group app -n 20
  iolens top --by insights --since 2026-11-01`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := ff.format()
			if err != nil {
				return err
			}
			filter, err := fl.filter(time.Now())
			if err != nil {
				return err
			}
			db, err := openStore(storeDir(store))
			if err != nil {
				return err
			}
			defer db.Close()
			ctx := contextOf(cmd)
			if by == "insights" {
				counts, err := db.Insights(ctx, filter, []string{"HIGH", "WARN"}, n)
				if err != nil {
					return err
				}
				return writeTable(s.Out, insightTable(counts), f)
			}
			t, err := db.Top(ctx, by, group, filter, n)
			if err != nil {
				return cli.Usagef("%v", err)
			}
			return writeTable(s.Out, t, f)
		},
	}
	storeFlag(cmd, &store)
	ff.add(cmd, true)
	fl.add(cmd)
	cmd.Flags().StringVar(&by, "by", "io-time", "metric: "+strings.Join(append(query.TopMetrics(), "insights"), ", "))
	cmd.Flags().StringVar(&group, "group", "user", "what to rank: "+strings.Join(query.TopGroups(), ", "))
	cmd.Flags().IntVarP(&n, "number", "n", 10, "how many to show")
	return cmd
}

// insightTable returns insight counts as a table.
func insightTable(counts []query.InsightCount) *query.Table {
	t := &query.Table{Columns: []string{"code", "level", "jobs", "users", "apps", "message", "examples"}, Rows: [][]any{}}
	for _, c := range counts {
		ex := make([]any, len(c.Examples))
		for i, e := range c.Examples {
			ex[i] = e
		}
		t.Rows = append(t.Rows, []any{c.Code, c.Level, c.Jobs, c.Users, c.Apps, c.Message, ex})
	}
	return t
}

func newAppCmd(s cli.Streams) *cobra.Command {
	var store string
	var ff formatFlags
	var fl filterFlags
	cmd := &cobra.Command{
		Use:   "app [--store DIR] [--json] [filters] NAME",
		Short: "One application's runs over time, with its I/O regressions",
		Long: `App shows the runs of one application over time: start, user, ranks,
run time, I/O time and bytes. A run is flagged as a regression when its
I/O time is far above the application's usual: more than twice the median
of the 20 runs before it (at least 5) and more than four scaled median
absolute deviations above it. The insights found in its runs follow.`,
		Example: `  iolens app vpicio
  iolens app --since 90d --json wrf.exe`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("want one application name, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := ff.format()
			if err != nil {
				return err
			}
			filter, err := fl.filter(time.Now())
			if err != nil {
				return err
			}
			db, err := openStore(storeDir(store))
			if err != nil {
				return err
			}
			defer db.Close()
			h, err := db.App(contextOf(cmd), args[0], filter)
			if errors.Is(err, query.ErrNotFound) {
				return fmt.Errorf("no runs of application %q in %s", report.Sanitize(args[0]), db.Dir())
			}
			if err != nil {
				return err
			}
			if f == formatJSON {
				enc := json.NewEncoder(s.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(h)
			}
			return writeApp(s.Out, h)
		},
	}
	storeFlag(cmd, &store)
	ff.add(cmd, false)
	fl.add(cmd)
	return cmd
}

// writeApp prints an application's history for a terminal.
func writeApp(w io.Writer, h *query.AppHistory) error {
	fmt.Fprintf(w, "%s: %d runs, %d regressions\n\n", report.Sanitize(h.Name), len(h.Runs), h.Regressions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "start\tjob\tuser\tranks\trun time\tI/O time\tbytes\tHIGH\t")
	for _, r := range h.Runs {
		flag := ""
		if r.Regression {
			flag = fmt.Sprintf("REGRESSION: %.1fx the usual %.3g s", r.IOTime/r.Usual, r.Usual)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.3g s\t%.3g s\t%s\t%d\t%s\n", r.Start.Format("2006-01-02 15:04"), r.ID, report.Sanitize(r.User),
			r.NProcs, r.RunTime, r.IOTime, report.Bytes(r.Bytes), r.High, flag)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(h.Insights) > 0 {
		fmt.Fprintf(w, "\ninsights in its runs:\n")
		return writeTable(w, insightTable(h.Insights), formatText)
	}
	return nil
}
