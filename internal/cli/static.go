package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/internal/progress"
	"github.com/iolens/iolens/report"
	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/model"
	"github.com/iolens/iolens/static/sysprof"
)

type staticFlags struct {
	json    bool
	entry   string
	args    string
	procs   int
	top     int
	model   string
	storage string
	noProbe bool
	fix     fixFlags
}

func newStaticCmd(e *env) *cobra.Command {
	var f staticFlags
	cmd := &cobra.Command{
		Use:   "static [--json] [--entry NAME] [--args \"ARGS\"] [--procs N] [--fix | --fix-out FILE] [--verify [--build CMD] [--repeat N] -- CMD...] PATH...",
		Short: "Predict the I/O intensity of every code block from C, C++ and Fortran source",
		Long: `Static parses the C, C++ and Fortran sources under PATH (files, or
directories searched recursively), builds the program dependency graph from
the entry function (main, the Fortran PROGRAM, or --entry), decorates its
I/O calls (POSIX, STDIO, C++ streams, MPI-IO, HDF5, PnetCDF/NetCDF, Fortran
I/O statements) with their sizes, counts, loops, branches and files, and
scores every file, function, loop and call with the CIOC model: 0 means
compute only, 1 means I/O only.

The blocks with the most estimated I/O time of their own over the run are
printed first (OWN I/O: the I/O of the program functions a block calls is
left out, and a function's counts as many times as it runs), with their
estimated I/O per call of their function (PER CALL), the causes found in
them ("fflush inside a loop of 2000 iterations") and where they are. Loop bounds come from literals, #define and PARAMETER
constants, values propagated through assignments, calls, structure
members, container sizes, function results and the files the program
wrote earlier, and --args (the program's arguments); unknown bounds take
documented defaults (100 for counted loops, 20 for condition-only loops).

The machine enters the model through a profile of the storage under
--storage (default: the current directory): CPU, memory, device class and
a short bandwidth and latency probe (at most about 1.5 s), cached for a day.
--no-probe uses the device class's typical figures instead.

--fix writes a unified diff (patch -p1, git apply) of the fixes the
analysis can make exactly (larger stdio buffers, flushes moved out of
loops, std::endl, posix_fadvise before sequential reads, collective MPI-IO,
HDF5 and PnetCDF accesses); --fix-out FILE writes it to FILE instead.
--verify -- CMD copies the sources' directory twice, patches one copy,
builds both (--build, default make) and runs CMD in each under the
collector --repeat times, then reports the I/O time, wall time and I/O
call counts before and after.`,
		Example: `  iolens static src/
  iolens static --args "1000 out.dat" --json stencil.c > blocks.json
  iolens static --entry solver --procs 64 --storage /lustre/scratch model.f90
  iolens static --fix src/ > io.patch
  iolens static --verify --build "make app" src/ -- ./app out/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if paths, _ := splitDash(cmd, args); len(paths) == 0 {
				return usagef("missing PATH: give the source files or directories to analyse")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, command := splitDash(cmd, args)
			f.fix.command = command
			return runStatic(cmd.Context(), e, &f, paths)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, "write the blocks as JSON (schema in the README)")
	fl.StringVar(&f.entry, "entry", "", "entry function (default main, or the Fortran PROGRAM)")
	fl.StringVar(&f.args, "args", "", "the program's arguments, for loop bounds that depend on them")
	fl.IntVar(&f.procs, "procs", 1, "processes (MPI ranks) the program runs with")
	fl.IntVar(&f.top, "top", 15, "blocks printed (text output)")
	fl.StringVar(&f.model, "model", "", "CIOC model file (default: the model shipped with iolens)")
	fl.StringVar(&f.storage, "storage", ".", "directory the program does its I/O in, for the system profile")
	fl.BoolVar(&f.noProbe, "no-probe", false, "do not measure the storage: use its device class's typical figures")
	addFixFlags(fl, &f.fix)
	cmd.AddCommand(newStaticTrainCmd(e))
	return cmd
}

func runStatic(ctx context.Context, e *env, f *staticFlags, paths []string) error {
	if f.procs < 1 {
		return usagef("--procs must be at least 1")
	}
	if f.top < 0 {
		return usagef("--top must not be negative")
	}
	if err := f.fix.check(); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	files, err := static.Sources(paths)
	if err != nil {
		return err
	}
	opts := static.Options{Entry: f.entry, Args: strings.Fields(f.args), Procs: f.procs}
	if f.model != "" {
		m, err := model.Load(f.model)
		if err != nil {
			return err
		}
		opts.Model = &m
	}
	if opts.System, err = sysprof.Probe(ctx, f.storage, sysprof.Options{NoProbe: f.noProbe}); err != nil {
		return fmt.Errorf("profiling the storage under %s: %w", f.storage, err)
	}
	bar := progress.New(e.stderr, 0, "analysing the sources", progress.Percent)
	opts.Progress = func(done, total int64) {
		bar.SetTotal(total)
		bar.Set(done)
	}
	res, err := static.Analyze(ctx, files, opts)
	bar.Done()
	if err != nil {
		return err
	}
	if f.fix.wanted() {
		return runStaticFix(ctx, e, f, paths, files, res)
	}
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return writeStaticText(e.stdout, res, f.top)
}

// writeStaticText prints the summary of the analysis and its top blocks.
func writeStaticText(w io.Writer, res *static.Result, top int) error {
	langs := map[string]int{}
	errs := 0
	for _, f := range res.Files {
		langs[string(f.Lang)] += f.Lines
		errs += len(f.Errors)
	}
	var ls []string
	for _, l := range []string{"c", "c++", "fortran"} {
		if n := langs[l]; n > 0 {
			ls = append(ls, fmt.Sprintf("%s %d", l, n))
		}
	}
	fmt.Fprintf(w, "Sources: %d files, %d lines (%s)", len(res.Files), res.Lines, strings.Join(ls, ", "))
	if errs > 0 {
		fmt.Fprintf(w, ", %d constructs not parsed", errs)
	}
	entry := res.Entry
	if entry == "" {
		entry = "none (every function analysed on its own)"
	}
	fmt.Fprintf(w, "\nEntry:   %s\n", report.Sanitize(entry))
	p := res.System.Profile
	fmt.Fprintf(w, "System:  %s storage, %s/s write, %s/s read; model %s (%s)\n\n",
		p.Storage.Class, report.Bytes(int64(res.System.Inputs.WriteBandwidth)),
		report.Bytes(int64(res.System.Inputs.ReadBandwidth)), res.Model.Version, res.Model.TrainedOn)
	shown := 0
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CIOC\tCLASS\tOWN I/O\tPER CALL\tBLOCK\tWHERE")
	for _, b := range res.Blocks {
		if shown == top {
			break
		}
		if !b.Ranked() {
			continue
		}
		shown++
		fmt.Fprintf(tw, "%.2f\t%s\t%s\t%s\t%s %s\t%s\n", b.CIOC, b.Class, seconds(b.OwnIOTime), seconds(b.IOTime), b.Kind,
			report.Sanitize(b.Name), report.Sanitize(where(b.File, b.Line, b.EndLine)))
		for _, c := range b.Causes {
			fmt.Fprintf(tw, "\t\t\t\t  - %s\t%s\n", report.Sanitize(c.Message), report.Sanitize(where(c.File, c.Line, 0)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if shown == 0 {
		_, err := fmt.Fprintln(w, "No I/O found in the blocks reachable from the entry.")
		return err
	}
	return nil
}

func where(file string, line, end int) string {
	if end > line {
		return fmt.Sprintf("%s:%d-%d", file, line, end)
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// seconds prints an estimated duration with a unit that fits it.
func seconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.2f ms", s*1e3)
	default:
		return fmt.Sprintf("%.1f µs", s*1e6)
	}
}
