package cli

import (
	"bufio"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/progress"
	"github.com/iolens/iolens/report"
)

type reportFlags struct {
	json      bool
	html      string
	config    string
	width     int
	listCodes bool
}

func newReportCmd(e *env) *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report [--json | --html FILE] [--config FILE] [--width N] LOG | --list-codes",
		Short: "Diagnose the I/O of a run: root causes and what to change",
		Long: `Report analyses the Darshan log LOG and prints the job's summary and its
insights: likely causes of slow I/O (small, random or misaligned requests,
no collective I/O, imbalance, stragglers, metadata load...), each with a
level (HIGH, WARN, INFO, OK), the numbers behind it, the files and ranks
responsible and a recommendation. Codes S01, P01–P22 and M01–M10 keep the
meaning and default thresholds of Drishti's; --list-codes prints them all.

Thresholds can be changed with --config FILE (TOML, or JSON for a .json
file). Colours are used on a terminal unless NO_COLOR is set; --json
writes the report as one JSON document (schema in the README); --html
FILE writes one self-contained page that works offline, with interactive
charts of the DXT traces (timeline per rank, transfer sizes, spatiality,
phases) and a sortable table of files. LOG "-" reads the log from
standard input.`,
		Example: `  iolens report app.darshan
  iolens report --json app.darshan > report.json
  iolens report --html report.html app.darshan
  iolens report --config thresholds.toml --width 120 app.darshan
  iolens report --list-codes`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.listCodes {
				return exactArgs()(cmd, args)
			}
			return exactArgs("LOG")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.listCodes {
				return listCodes(e)
			}
			return runReport(e, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, "write the report as JSON")
	fl.StringVar(&f.html, "html", "", "write the report as a self-contained HTML page to FILE")
	fl.StringVar(&f.config, "config", "", "thresholds file (TOML, or JSON)")
	fl.IntVar(&f.width, "width", 0, "line width of the text report (default: the terminal's, else 100)")
	fl.BoolVar(&f.listCodes, "list-codes", false, "print every insight code with its level, meaning and threshold")
	return cmd
}

func runReport(e *env, f *reportFlags, path string) error {
	if f.width < 0 {
		return usagef("--width must be positive")
	}
	if f.json && f.html != "" {
		return usagef("--json and --html cannot be combined")
	}
	cfg := analysis.DefaultConfig()
	if f.config != "" {
		var err error
		if cfg, err = analysis.LoadConfig(f.config); err != nil {
			return err
		}
	}
	l, err := openLog(e, path)
	if err != nil {
		return err
	}
	defer l.Close()
	bar, stop := logProgress(e, l, "analysing the log")
	rep, err := analysis.Analyze(l, path, cfg)
	if f.html == "" || err != nil {
		stop()
	}
	if err != nil {
		return err
	}
	if f.json {
		return report.JSON(e.stdout, rep)
	}
	if f.html != "" {
		defer stop()
		if rep.Trace == nil {
			// The page reads the traces again.
			_, total := l.Progress()
			bar.SetTotal(total + int64(l.Header.Modules[darshan.ModDXTPOSIX].Len+l.Header.Modules[darshan.ModDXTMPIIO].Len))
		}
		return writeAtomically(f.html, 0o644, func(f *os.File) error {
			bw := bufio.NewWriter(f)
			if err := report.HTML(bw, rep, l, report.HTMLOptions{Location: e.loc}); err != nil {
				return err
			}
			return bw.Flush()
		})
	}
	width, color := f.width, false
	if out, ok := e.stdout.(*os.File); ok && term.IsTerminal(int(out.Fd())) {
		color = os.Getenv("NO_COLOR") == ""
		if w, _, err := term.GetSize(int(out.Fd())); err == nil && width == 0 {
			width = w
		}
	}
	return report.Text(e.stdout, rep, report.TextOptions{Width: width, Color: color, Location: e.loc})
}

// logProgress shows, on a terminal, a bar of how much of the module
// regions of l has been read, until stop is called.
func logProgress(e *env, l *darshan.Log, desc string) (bar *progress.Bar, stop func()) {
	_, total := l.Progress()
	bar = progress.New(e.stderr, total, desc, progress.Bytes)
	end := bar.Poll(100*time.Millisecond, func() int64 {
		done, _ := l.Progress()
		return done
	})
	return bar, func() {
		end()
		bar.Done()
	}
}

// listCodes prints the insight codes as a table.
func listCodes(e *env) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CODE\tLEVELS\tMEANING\tTHRESHOLD")
	for _, c := range analysis.Codes() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Code, c.LevelString(), c.Meaning, c.Threshold)
	}
	return tw.Flush()
}
