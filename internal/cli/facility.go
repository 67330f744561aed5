package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// FacilityBinary is the program that holds the facility commands. They
// link DuckDB, an HTTP server and Parquet, which would triple the size of
// iolens and double the start-up time of every command, so they live in a
// program of their own that iolens runs for them.
const FacilityBinary = "iolens-facility"

// facilityVerbs are the commands of FacilityBinary, with their summaries.
var facilityVerbs = [...][2]string{
	{"ingest", "Add Darshan logs (files, directories, a list on stdin) to the facility dataset"},
	{"query", "Run SQL over the facility dataset (embedded DuckDB)"},
	{"top", "Rank users, applications or jobs by I/O time, bytes, small writes or metadata time"},
	{"app", "One application's runs over time, with its I/O regressions"},
	{"serve", "Browse the facility dataset in a web UI"},
	{"store", "Maintain the facility dataset (compact)"},
}

// Streams are the standard streams of a command.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// Usagef returns an error that makes the command exit with ExitUsage.
func Usagef(format string, args ...any) error { return usagef(format, args...) }

// MainWith is Main with the commands more returns in place of the
// facility commands that Main delegates to FacilityBinary: the entry point
// of that program.
func MainWith(args []string, stdin io.Reader, stdout, stderr io.Writer, more func(Streams) []*cobra.Command) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, loc: time.Local, more: more}
	return run(args, e)
}

// facilityCmds returns the facility commands: those of e.more, or commands
// that run FacilityBinary with the same arguments.
func facilityCmds(e *env) []*cobra.Command {
	if e.more != nil {
		return e.more(Streams{In: e.stdin, Out: e.stdout, Err: e.stderr})
	}
	var out []*cobra.Command
	for _, v := range facilityVerbs {
		out = append(out, &cobra.Command{
			Use:                v[0],
			Short:              v[1],
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runFacility(e, append([]string{v[0]}, args...))
			},
		})
	}
	return out
}

// runFacility runs FacilityBinary with args and the streams of e.
func runFacility(e *env, args []string) error {
	bin, err := findFacility()
	if err != nil {
		return err
	}
	c := exec.Command(bin, args...)
	c.Stdin, c.Stdout, c.Stderr = e.stdin, e.stdout, e.stderr
	err = c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// It said why; a signal (a closed pipe) exits as a shell would.
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return &exitCodeError{128 + int(ws.Signal())}
		}
		return &exitCodeError{ee.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", bin, err)
	}
	return nil
}

// findFacility returns the path of FacilityBinary: beside the running
// iolens, else in PATH.
func findFacility() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), FacilityBinary)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath(FacilityBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("the facility commands are in %s, found neither beside iolens nor in PATH: build it with 'make build' (bin/%s) or 'go install github.com/iolens/iolens/cmd/%s@latest'",
		FacilityBinary, FacilityBinary, FacilityBinary)
}
