package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/collector"
	"github.com/iolens/iolens/knowledge"
	"github.com/iolens/iolens/report"
)

// exitCodeError makes Main exit with the status of a command iolens ran.
type exitCodeError struct{ code int }

func (e *exitCodeError) Error() string { return fmt.Sprintf("command exited with status %d", e.code) }

func newRunCmd(e *env) *cobra.Command {
	var opts collector.RunOptions
	var functions string
	var learn learnFlags
	var prefetch, noLearn bool
	var sets []string
	cmd := &cobra.Command{
		Use:   "run [--log-dir DIR] [--dxt] [--learn | --prefetch [--no-learn] [--repo FILE]] [--set NAME=VALUE]... [--app NAME] [--mpicc PATH] [--functions FILE.json] -- CMD [ARGS...]",
		Short: "Run a command and record its I/O as Darshan logs",
		Long: `Run runs CMD with the collector preloaded into every process it starts
(the library is built on first use, with the mpicc of the MPI the program
uses when it uses MPI), passes standard input and output through and exits
with CMD's status. Then it writes into the log directory one Darshan log
per MPI job (ranks = MPI ranks) and one for the non-MPI processes that did
I/O (each process a rank, in start order), and prints each log's path on
standard error. The log directory is --log-dir, else $IOLENS_LOG_DIR, else
the current directory.

Traces are written as every Darshan release from 3.2.0 to 3.5.0 writes
them (DXT_POSIX version 1, DXT_MPIIO version 2), which every Darshan tool
reads. --dxt-threads (or IOLENS_DXT_THREADS=1) also records the thread of
each operation (DXT_POSIX 2, DXT_MPIIO 3): only Darshan newer than 3.5.0
reads such logs.

--prefetch reads ahead of the program: the graph learned of its
application (see "iolens learn") goes to every process as a plan, and a
thread of the collector follows the process's accesses, predicts the next
ones and asks the kernel to read their file extents into the page cache
while the program computes (IOLENS_PREFETCH_MAX, default 256M, bounds the
bytes prefetched and not yet read; IOLENS_PREFETCH_DEPTH, default 32, the
accesses looked ahead, fewer while predictions go wrong, none when most of
the last 16 were wrong). The log's metadata says what was prefetched and
used (iolens report shows it). The run is learned too, unless --no-learn.

--set NAME=VALUE applies an I/O parameter without a source change: an
MPI-IO hint (cb_nodes, cb_buffer_size, romio_cb_write, romio_ds_write, ...)
merged into the info of every MPI_File_open, an HDF5 file-access property
(h5_alignment, h5_alignment_threshold, h5_sieve_buf_size,
h5_meta_block_size, h5_chunk_cache, h5_coll_metadata_read,
h5_coll_metadata_write) set at every H5Fcreate and H5Fopen, or the buffer of
every stream fopen opens (stdio_buffer). Sizes take K, M and G. The log's
metadata says what was set and how many opens got it (iolens_set).

--learn (or IOLENS_LEARN=1) also records, per process, the ordered
accesses to PnetCDF variables and HDF5 datasets (with the bounding box of
each selection) and the POSIX extents read or written, under the
high-level access that caused them; they go into an extra region of the
log (module id 63) that Darshan tools skip, and "iolens learn" accumulates
them. IOLENS_LEARN_MAX (default 256M) caps the per-process sequence.

Environment of the traced processes: IOLENS_DXT=1 (as --dxt) traces every
POSIX and MPI-IO operation; IOLENS_DXT_MAX (default 1G) and
IOLENS_STORE_MAX (default 4G) cap the per-process trace and store sizes
(a capped module is flagged partial in the log); IOLENS_EXCLUDE and
IOLENS_INCLUDE are extended regular expressions of file names to leave out
or to keep despite the default exclusions (/etc/, /usr/, /proc/, /sys/,
/dev/ except /dev/shm/, ...); IOLENS_MEMALIGN sets the memory alignment
checked by POSIX_MEM_NOT_ALIGNED (default 8).

Programs built with -finstrument-functions are profiled per function
(calls, inclusive wall and I/O time, summed over processes); --functions
writes the profiles as JSON.`,
		Example: `  iolens run -- ./app input.dat
  iolens run --dxt --log-dir logs -- mpiexec -n 4 ./app
  iolens run --app sim -- sh -c './pre | ./sim > out'
  iolens run --prefetch -- mpiexec -n 4 ./pgea in/*.nc out.nc
  iolens run --set cb_nodes=2 --set h5_alignment=1M -- mpiexec -n 4 ./app
  iolens run --functions prof.json -- ./app_built_with_finstrument_functions`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("missing command to run (iolens run [flags] -- CMD [ARGS...])")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if noLearn && !prefetch {
				return usagef("--no-learn goes with --prefetch")
			}
			var repo *knowledge.Repo
			if prefetch {
				var err error
				if repo, err = learn.open(); err != nil {
					return err
				}
				defer repo.Close()
				dir, err := os.MkdirTemp("", "iolens-plans-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				planned, err := writePlans(repo, dir, learn.app, args)
				if err != nil {
					return err
				}
				if len(planned) == 0 {
					fmt.Fprintf(e.stderr, "iolens: nothing learned yet about %s: this run only learns\n", report.Sanitize(strings.Join(args, " ")))
				}
				opts.PrefetchDir = dir
			}
			if opts.Set, err = injectionOf(sets); err != nil {
				return err
			}
			if learn.app != "" && opts.App == "" {
				opts.App = learn.app
			}
			opts.Stdin, opts.Stdout, opts.Stderr = e.stdin, e.stdout, e.stderr
			opts.Log.Version = Version
			opts.Log.DXTThreads = opts.Log.DXTThreads || envOn("IOLENS_DXT_THREADS")
			opts.DXT = opts.DXT || opts.Log.DXTThreads
			opts.Learn = opts.Learn || envOn("IOLENS_LEARN")
			opts.Build.Stderr, opts.Build.Notice = e.stderr, e.stderr
			opts.Functions = functions != ""
			res, err := collector.Run(cmd.Context(), args, opts)
			for _, p := range res.Logs {
				fmt.Fprintf(e.stderr, "iolens: log %s\n", p)
			}
			if err != nil {
				return err
			}
			if repo != nil && !noLearn {
				for _, p := range res.Logs {
					if err := learnAfterRun(e, repo, &learn, p); err != nil {
						return err
					}
				}
			}
			if functions != "" {
				if err := writeFunctions(functions, res.Functions); err != nil {
					return err
				}
			}
			if res.ExitCode != 0 {
				return &exitCodeError{res.ExitCode}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false)
	fl.StringVar(&opts.LogDir, "log-dir", "", "directory of the logs (default $IOLENS_LOG_DIR, else .)")
	fl.BoolVar(&opts.DXT, "dxt", false, "trace every POSIX and MPI-IO operation (DXT)")
	fl.BoolVar(&opts.Log.DXTThreads, "dxt-threads", false, dxtThreadsUsage)
	fl.BoolVar(&opts.Learn, "learn", false, "record the access sequences that \"iolens learn\" accumulates")
	fl.StringArrayVar(&sets, "set", nil, "NAME=VALUE: an I/O parameter applied without a source change (MPI-IO hint such as cb_nodes, h5_alignment, stdio_buffer...; repeatable)")
	fl.BoolVar(&prefetch, "prefetch", false, "prefetch ahead of the program from what was learned of it, and learn this run too")
	fl.BoolVar(&noLearn, "no-learn", false, "with --prefetch: do not learn this run")
	fl.StringVar(&learn.repo, "repo", "", "knowledge repository of --prefetch (default $IOLENS_REPO, else ~/.local/share/iolens/knowledge.db)")
	fl.StringVar(&learn.app, "app", "", "application name: log file names, IOLENS_APP of the processes, the graph of --prefetch")
	fl.StringVar(&opts.MPICC, "mpicc", "", "build the collector with this MPI compiler wrapper instead of detecting it")
	fl.StringVar(&functions, "functions", "", "write the function profiles (-finstrument-functions builds) to this JSON file")
	return cmd
}

// learnAfterRun accumulates the log at path into repo, saying so; a log
// without access sequences (processes that did no I/O) is skipped.
func learnAfterRun(e *env, repo *knowledge.Repo, f *learnFlags, path string) error {
	app, n, err := learnLog(repo, f, path)
	if errors.Is(err, knowledge.ErrNoSequences) {
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "iolens: %d accesses learned into %s\n", n, report.Sanitize(app))
	return nil
}

// dxtThreadsUsage describes the --dxt-threads flag of run and merge.
const dxtThreadsUsage = "keep the thread of each traced operation (DXT_POSIX 2, DXT_MPIIO 3: read only by Darshan newer than 3.5.0)"

// envOn reports whether the environment variable name is set to something
// other than "" or "0".
func envOn(name string) bool {
	v := os.Getenv(name)
	return v != "" && v != "0"
}

// writeFunctions writes function profiles as a JSON array, mode 0600.
func writeFunctions(path string, stats []collector.FunctionStat) error {
	if stats == nil {
		stats = []collector.FunctionStat{}
	}
	data, err := json.MarshalIndent(stats, "", "  ")
	if err != nil {
		return fmt.Errorf("writing function profiles: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing function profiles: %w", err)
	}
	return nil
}

// commandExit returns the exit status carried by err, if any.
func commandExit(err error) (int, bool) {
	var ce *exitCodeError
	if errors.As(err, &ce) {
		return ce.code, true
	}
	return 0, false
}
