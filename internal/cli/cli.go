// Package cli implements the iolens command line: the command tree, its
// flags, and the mapping of errors to exit statuses. cmd/iolens only calls
// Main.
package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"
)

// Version is the version printed by "iolens version". Builds set it with
// -ldflags "-X github.com/iolens/iolens/internal/cli.Version=...".
var Version = "dev"

// Exit statuses of the iolens command.
const (
	ExitOK      = 0 // success
	ExitFailure = 1 // the command ran and failed (unreadable log, I/O error, ...)
	ExitUsage   = 2 // bad usage: unknown command or flag, wrong arguments
)

// usageError marks an error as a misuse of the command line; Main exits
// with ExitUsage for it.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitStatus maps the error a command returned to the exit status.
func exitStatus(err error) int {
	var ue *usageError
	if code, ok := commandExit(err); ok {
		return code
	}
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue):
		return ExitUsage
	default:
		return ExitFailure
	}
}

// env is what a command may touch of the outside world.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// loc is the time zone of the times printed by parse.
	loc *time.Location
	// more returns the facility commands, in FacilityBinary (nil: run
	// FacilityBinary for them).
	more func(Streams) []*cobra.Command
}

// Main runs the iolens command with the given arguments (without the
// program name) and returns the exit status. Times are printed in
// time.Local, which follows the TZ environment variable.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, &env{stdin: stdin, stdout: stdout, stderr: stderr, loc: time.Local})
}

func run(args []string, e *env) int {
	root := newRootCmd(e)
	if args == nil {
		// cobra reads os.Args when given nil.
		args = []string{}
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if _, ok := commandExit(err); err != nil && !ok {
		fmt.Fprintf(e.stderr, "iolens: %v\n", err)
		if exitStatus(err) == ExitUsage && cmd != nil {
			fmt.Fprintf(e.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	}
	return exitStatus(err)
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "iolens",
		Short: "Capture, diagnose, predict, learn and tune the I/O of HPC applications",
		Long: `iolens records, explains and predicts the I/O of HPC applications. Its
logs are Darshan logs: every Darshan tool reads them, and iolens reads
theirs.

Capture
  run        run a program (serial or MPI) and record its POSIX, STDIO,
             MPI-IO, HDF5 and PnetCDF I/O as Darshan logs (--dxt: traces)
  merge      turn the collector's per-process stores (a crashed run, a job
             script that preloads the library itself) into logs
  collector  build the preload library and print its path, for job scripts
Read logs
  parse      print a log as darshan-parser and darshan-dxt-parser do, or JSON
  convert    rewrite a log of any Darshan 3.x version in the current format
Diagnose
  report     root causes of slow I/O and what to change: terminal, JSON, or
             one offline HTML page with charts of the traces
Predict
  static     from C, C++ and Fortran source alone: I/O intensity of every
             code block, its causes, and fixes as diffs (--fix, --verify)
Learn
  learn      accumulate the access patterns of runs (run --learn) into each
             application's knowledge graph; run --prefetch reads ahead of it
Tune
  tune       find the best MPI-IO, HDF5 and stdio parameters of a program
             with empirical models (or GA, random, exhaustive), applied
             without a source change (run --set), locally or with Slurm
Facility (every log of a machine; program iolens-facility)
  ingest     add logs to the facility dataset: date-partitioned Parquet
             that DuckDB, Spark, Trino and pandas read as they are
  query      SQL over the dataset (tables jobs, files, insights, ranks,
             errors)
  top        users, applications or jobs with the most I/O time, bytes,
             small writes or metadata time; the most frequent insights
  app        an application's runs over time, its I/O regressions flagged
  serve      a web UI over the dataset: overview, jobs, applications
  store      maintain the dataset (compact)

Exit status: 0 success, 1 failure, 2 bad usage. Every command has --help
with examples.`,
		Example: `  iolens run --dxt -- mpiexec -n 4 ./app        # record: one Darshan log per job
  iolens report *_app_id*.darshan                 # what slowed its I/O, what to change
  iolens report --html app.html *_app_id*.darshan # the same as a page, with charts`,
		SilenceErrors:              true,
		SilenceUsage:               true,
		SuggestionsMinimumDistance: 2,
		Args:                       cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				msg := fmt.Sprintf("unknown command %q", args[0])
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					msg += fmt.Sprintf(" (did you mean %q?)", s[0])
				}
				return usagef("%s", msg)
			}
			return cmd.Help()
		},
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(newVersionCmd(e), newParseCmd(e), newConvertCmd(e), newCollectorCmd(e), newRunCmd(e), newReportCmd(e), newMergeCmd(e), newStaticCmd(e), newLearnCmd(e), newTuneCmd(e))
	root.AddCommand(facilityCmds(e)...)
	return root
}

// exactArgs accepts exactly the named positional arguments.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return usagef("missing %s argument", names[len(args)])
		case len(args) > len(names):
			return usagef("unexpected argument %q", args[len(names)])
		}
		return nil
	}
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of iolens",
		Example: "  iolens version",
		Args:    exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(e.stdout, "iolens %s (%s, %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
