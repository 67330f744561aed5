package cli

import (
	"fmt"

	"github.com/iolens/iolens/collector"
	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/progress"
	"github.com/spf13/cobra"
)

func newMergeCmd(e *env) *cobra.Command {
	comp := compressionFlag{darshan.CompressZlib}
	var out string
	var threads bool
	cmd := &cobra.Command{
		Use:   "merge [--compress zlib|none|bzip2] [--dxt-threads] DIR... -o OUT",
		Short: "Merge the per-process stores of the collector into Darshan logs",
		Long: `Merge reads the per-process store files (*.store) that the collector left
in the directories DIR (not in their sub-directories) and writes them as
Darshan logs (format 3.41), for example the stores of a job that crashed
or of runs made without "iolens run".

Each MPI job becomes one log, its ranks being the MPI ranks; records that
every rank has are reduced to one record of rank -1 as Darshan does. The
non-MPI processes that did I/O become one more log, each process a rank
in start order. The first log is written to OUT, the n-th (n = 2, 3, ...)
to OUT with "-<n>" before its .darshan extension (app.darshan,
app-2.darshan, ...). Logs are written to a temporary file beside OUT and
renamed into place when complete, with mode 0600. The path of every log
written is printed on standard error. Traces are written in the layout of
the Darshan releases 3.2.0 to 3.5.0 unless --dxt-threads (or
IOLENS_DXT_THREADS=1) keeps the thread of each operation.

If some stores cannot be read, the logs are still written from the others,
the problems are reported and the exit status is 1.`,
		Example: `  iolens merge /tmp/iolens-stores -o app.darshan
  iolens merge --compress bzip2 run1/ run2/ -o app.darshan`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("missing DIR argument")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("missing -o OUT")
			}
			bar := progress.New(e.stderr, 0, "merging", progress.Count("steps"))
			paths, err := collector.MergeDirs(args, out, collector.LogOptions{
				Version: Version, Compression: comp.c, DXTThreads: threads || envOn("IOLENS_DXT_THREADS"),
				Progress: func(done, total int64) {
					bar.SetTotal(total)
					bar.Set(done)
				},
			})
			bar.Done()
			for _, p := range paths {
				fmt.Fprintf(e.stderr, "iolens: log %s\n", p)
			}
			return lastOf(e, err)
		},
	}
	cmd.Flags().Var(&comp, "compress", "compression of the logs: zlib, none or bzip2")
	cmd.Flags().StringVarP(&out, "output", "o", "", "path of the (first) log; required")
	cmd.Flags().BoolVar(&threads, "dxt-threads", false, dxtThreadsUsage)
	return cmd
}

// lastOf prints every error joined in err but the last on standard error,
// one per line, and returns the last, which Main prints.
func lastOf(e *env, err error) error {
	errs := flatten(err)
	if len(errs) == 0 {
		return err
	}
	for _, x := range errs[:len(errs)-1] {
		fmt.Fprintf(e.stderr, "iolens: %v\n", x)
	}
	return errs[len(errs)-1]
}

// flatten returns the errors joined in err (with errors.Join, at any
// depth), or err itself.
func flatten(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		if err == nil {
			return nil
		}
		return []error{err}
	}
	var out []error
	for _, x := range j.Unwrap() {
		out = append(out, flatten(x)...)
	}
	return out
}
