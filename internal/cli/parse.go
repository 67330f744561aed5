package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/iolens/iolens/darshan"
	"github.com/spf13/cobra"
)

type parseFlags struct {
	base, total, file, perf, all bool
	showIncomplete               bool
	dxt, json                    bool
}

func newParseCmd(e *env) *cobra.Command {
	var f parseFlags
	cmd := &cobra.Command{
		Use:   "parse [flags] LOG",
		Short: "Print a Darshan log as text or JSON",
		Long: `Parse prints a Darshan log. By default the output is the one of
darshan-parser: the job, the mount table and every record's counters
(--base). --total, --file and --perf add or select the derived sections of
darshan-parser; --all selects all four. --dxt prints the DXT traces as
darshan-dxt-parser does. --json prints one JSON object per line: the job,
then every record (see the README for the schema).

A module that the log flags as incomplete stops the text output with an
error, as darshan-parser does, unless --show-incomplete is given. The JSON
output always holds every record and flags incomplete modules in the job
object. Times are printed in the local time zone (TZ). LOG "-" reads the
log from standard input.`,
		Example: `  iolens parse app.darshan
  iolens parse --total --perf app.darshan
  iolens parse --dxt app.darshan
  iolens parse --json app.darshan | head -n 2`,
		Args: exactArgs("LOG"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runParse(e, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.base, "base", false, "print every record's counters (the default)")
	fl.BoolVar(&f.total, "total", false, "print the totals of each module")
	fl.BoolVar(&f.file, "file", false, "print the file counts of each module by access type")
	fl.BoolVar(&f.perf, "perf", false, "print the performance estimates of each module")
	fl.BoolVar(&f.all, "all", false, "same as --base --total --file --perf")
	fl.BoolVar(&f.showIncomplete, "show-incomplete", false, "print modules flagged as incomplete instead of failing")
	fl.BoolVar(&f.dxt, "dxt", false, "print the DXT traces as darshan-dxt-parser does")
	fl.BoolVar(&f.json, "json", false, "print the job and every record as JSON Lines")
	return cmd
}

func runParse(e *env, f *parseFlags, path string) error {
	sections := f.base || f.total || f.file || f.perf || f.all
	switch {
	case f.dxt && f.json:
		return usagef("--dxt and --json cannot be combined")
	case (f.dxt || f.json) && sections:
		return usagef("--base, --total, --file, --perf and --all select darshan-parser output; they cannot be combined with --dxt or --json")
	}
	l, err := openLog(e, path)
	if err != nil {
		return err
	}
	defer l.Close()
	switch {
	case f.json:
		err = darshan.WriteJSON(e.stdout, l)
	case f.dxt:
		err = darshan.WriteDXTText(e.stdout, e.stderr, l, darshan.DXTOptions{
			ShowIncomplete: f.showIncomplete,
			Location:       e.loc,
		})
	default:
		err = darshan.WriteParserText(e.stdout, e.stderr, l, darshan.ParserOptions{
			Base:           f.base || f.all,
			Total:          f.total || f.all,
			File:           f.file || f.all,
			Perf:           f.perf || f.all,
			ShowIncomplete: f.showIncomplete,
			Location:       e.loc,
		})
	}
	if errors.Is(err, darshan.ErrIncomplete) {
		return fmt.Errorf("%w (use --show-incomplete to print it anyway)", err)
	}
	return err
}

// openLog opens the log at path, or reads it from standard input when
// path is "-".
func openLog(e *env, path string) (*darshan.Log, error) {
	if path != "-" {
		return darshan.OpenFile(path)
	}
	b, err := io.ReadAll(e.stdin)
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	return darshan.Open(bytes.NewReader(b), int64(len(b)), "<stdin>")
}
