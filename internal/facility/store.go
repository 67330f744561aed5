package facility

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/dataset"
	"github.com/iolens/iolens/internal/cli"
	"github.com/iolens/iolens/report"
)

func newStoreCmd(s cli.Streams) *cobra.Command {
	var store string
	cmd := &cobra.Command{
		Use:     "store",
		Short:   "Maintain the facility dataset (compact)",
		Example: "  iolens store compact --store /data/io      # nightly, after the ingest",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	var minAge time.Duration
	compact := &cobra.Command{
		Use:   "compact [--store DIR] [--min-age D]",
		Short: "Merge each month partition's files into one per table and remove jobs ingested twice",
		Long: `Compact merges, in every month partition, the files that ingest batches
added into one file per table, so that queries open fewer files, and removes
the jobs that two ingesters added at once. Batches younger than --min-age
are left alone (an ingest may be writing them); ingests may go on meanwhile.
The daily partitions (date=2026-11-25) of a dataset written by an earlier
version are merged into their month; queries refuse such a dataset until
then.`,
		Example: `  iolens store compact --store /data/io`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := storeDir(store)
			t0 := time.Now()
			st, err := dataset.Compact(dir, dataset.CompactOptions{MinAge: minAge})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(s.Out, "%s: %d partitions compacted, %d files merged into %d, %d duplicate jobs removed in %.1f s\n",
				report.Sanitize(dir), st.Partitions, st.FilesIn, st.FilesOut, st.Duplicates, time.Since(t0).Seconds())
			return err
		},
	}
	storeFlag(compact, &store)
	compact.Flags().DurationVar(&minAge, "min-age", dataset.DefaultMinAge, "leave batches younger than this alone")
	cmd.AddCommand(compact)
	return cmd
}
