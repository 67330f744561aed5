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
		Long: `iolens works on the I/O of HPC applications. It reads and writes Darshan
logs: "iolens parse" prints a log as text or JSON, "iolens convert"
rewrites a log in the current format.

Exit status: 0 success, 1 failure, 2 bad usage.`,
		Example: `  iolens parse app.darshan
  iolens parse --json app.darshan > app.jsonl
  iolens convert old.darshan new.darshan`,
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
			cmd.SetOut(e.stderr)
			_ = cmd.Help()
			return usagef("no command given")
		},
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(newVersionCmd(e), newParseCmd(e), newConvertCmd(e), newCollectorCmd(e), newRunCmd(e), newReportCmd(e), newMergeCmd(e), newStaticCmd(e))
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
