package facility

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/dataset"
	"github.com/iolens/iolens/internal/cli"
	"github.com/iolens/iolens/internal/progress"
	"github.com/iolens/iolens/report"
)

func newIngestCmd(s cli.Streams) *cobra.Command {
	var store string
	var since string
	var workers, batch int
	cmd := &cobra.Command{
		Use:   "ingest [--store DIR] [-j N] [--since T] PATH... | -",
		Short: "Add Darshan logs (files, directories, a list on stdin) to the facility dataset",
		Long: `Ingest adds Darshan logs to the facility dataset: each log becomes a row
of the jobs table, and rows of its files, insights (those of 'iolens
report') and per-rank I/O, in Parquet files partitioned by the month the
job started. PATHs are logs or directories searched recursively for
*.darshan (a Darshan log directory and its YYYY/M/D layout); '-' reads a
list of paths from stdin, one per line.

Ingest is incremental: a log the dataset holds already (same SHA-256) is
skipped, so the same directory can be ingested every night (--since 2d
looks only at logs modified in the last two days). A log that cannot be
read is recorded in the errors table with the reason; the others go on.
Several ingests may write to one dataset at once (processes, nodes of a
Slurm array over shards of the logs): each batch adds its own files,
renamed into place when complete. Logs are decoded on -j cores; memory
stays bounded by --batch whatever the number of logs.`,
		Example: `  iolens ingest --store /data/io /var/darshan-logs/2026
  find /var/darshan-logs -name '*.darshan' -newer last-run | iolens ingest --store /data/io -
  iolens ingest --store /data/io --since 2d /var/darshan-logs     # nightly`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("missing PATH argument: logs, directories of logs, or - for a list on stdin")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			now := time.Now()
			t0, err := ParseTime(since, now)
			if err != nil {
				return cli.Usagef("--since: %v", err)
			}
			paths, err := inputs(s, args, t0)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(contextOf(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			dir := storeDir(store)
			bar := progress.New(s.Err, int64(len(paths)), "ingesting", progress.Count("logs"))
			st, err := dataset.Ingest(ctx, dir, paths, dataset.IngestOptions{
				Workers: workers, BatchLogs: batch,
				Progress: func(done int) { bar.Set(int64(done)) },
			})
			bar.Done()
			elapsed := time.Since(now).Seconds()
			fmt.Fprintf(s.Out, "%s: %d logs ingested (%d in part), %d already there, %d unreadable, %s of logs in %.1f s (%.0f logs/s)\n",
				report.Sanitize(dir), st.Ingested, st.Partial, st.Skipped, st.Failed, report.Bytes(st.Bytes), elapsed, float64(st.Ingested+st.Skipped+st.Failed)/max(elapsed, 1e-9))
			if st.Failed+st.Partial > 0 {
				fmt.Fprintf(s.Err, "iolens: %d logs could not be read in full; the reasons: iolens query --store %s \"SELECT log, error FROM errors\"\n", st.Failed+st.Partial, dir)
			}
			return err
		},
	}
	storeFlag(cmd, &store)
	cmd.Flags().IntVarP(&workers, "jobs", "j", 0, "logs decoded at once (default: one per CPU)")
	cmd.Flags().StringVar(&since, "since", "", "only logs modified at or after this date (YYYY-MM-DD) or this long ago (36h, 2d)")
	cmd.Flags().IntVar(&batch, "batch", dataset.DefaultBatchLogs, "logs per batch: one set of files is written per batch")
	return cmd
}

// inputs returns the logs named by the arguments: files, directories,
// or "-" for a list on stdin.
func inputs(s cli.Streams, args []string, since time.Time) ([]string, error) {
	var roots []string
	for _, a := range args {
		if a != "-" {
			roots = append(roots, a)
			continue
		}
		sc := bufio.NewScanner(s.In)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				roots = append(roots, line)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading the list of logs on stdin: %w", err)
		}
	}
	paths, err := dataset.FindLogs(roots, since)
	if err != nil {
		return nil, fmt.Errorf("finding logs: %w", err)
	}
	return paths, nil
}
