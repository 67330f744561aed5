package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/collector"
	"github.com/iolens/iolens/internal/progress"
	"github.com/iolens/iolens/report"
	"github.com/iolens/iolens/tune"
	"github.com/iolens/iolens/tune/trial"
)

type tuneFlags struct {
	space, preset, strategy, executor, objective, app, history, dir, sbatch string
	budget, jobs, repeat, resume                                            int
	seed                                                                    uint64
	timeout                                                                 time.Duration
	warmUp, asJSON                                                          bool
	vars                                                                    []string
}

func newTuneCmd(e *env) *cobra.Command {
	var f tuneFlags
	cmd := &cobra.Command{
		Use:   "tune [--space FILE | --preset hdf5,mpiio,...] [--strategy model|ga|random|exhaustive] [--budget N] [--executor local|slurm] [--objective io-time|wall-time] -- CMD [ARGS...]",
		Short: "Find the best I/O parameters of a program with empirical models instead of brute force",
		Long: `Tune runs CMD with configurations of I/O parameters applied without a source
change: MPI-IO hints merged into every MPI_File_open, HDF5 file-access
properties set at H5Fcreate/H5Fopen, stdio buffers at fopen, environment
variables, and "{name}" placeholders of the command line. Each trial is
measured by the collector: the job's I/O time from its log (io-time), or its
wall time. The default configuration runs first.

Strategies:
  model       (default) a small space-filling design, an empirical model of
              the objective (terms x1^p1 * x2^p2 ..., p in {-1, 0, 1}, chosen
              by forward selection on the relative error), the 20 best
              predicted configurations run, the model refitted, its 10 best
              run; earlier tunings of the application warm-start the model
  ga          a genetic algorithm (tournament, crossover, mutation, elitism)
  random      random configurations
  exhaustive  every configuration (the ground truth of small spaces)

The space is a TOML file (--space; see the README) and/or built-in presets
(--preset: hdf5, mpiio, stdio, lustre). Constraints may use "ranks", which
is taken from "mpiexec -n N" in CMD or --var ranks=N.

Trials run on this machine one after another (--executor local, with the
files a trial wrote evicted from the page cache before the next), or as
Slurm jobs, --jobs at a time (--executor slurm; --sbatch adds arguments;
the jobs run this iolens, or $IOLENS_BIN).
A trial that fails or times out (--timeout) is recorded as failed. Every
trial is kept in the tuning history (--history, default
~/.local/share/iolens/tuning.db); --resume ID continues an interrupted
tuning without rerunning its trials. "iolens tune show" lists them.`,
		Example: `  iolens tune --preset mpiio --budget 40 -- mpiexec -n 4 ./ior-like out.dat
  iolens tune --preset hdf5,mpiio --strategy ga --budget 100 -- mpiexec -n 4 ./vpicio out.h5
  iolens tune --space space.toml --executor slurm --jobs 4 -- srun ./app {size}
  iolens tune --json --preset stdio -- ./writer out.txt`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("missing command to tune (iolens tune [flags] -- CMD [ARGS...])")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runTune(cmd.Context(), e, &f, args) },
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false)
	fl.StringVar(&f.space, "space", "", "parameter space (TOML)")
	fl.StringVar(&f.preset, "preset", "", "built-in spaces, comma-separated: "+strings.Join(tune.Presets(), ", "))
	fl.StringVar(&f.strategy, "strategy", "model", "model, ga, random or exhaustive")
	fl.IntVar(&f.budget, "budget", 0, "most trials (default: 40, or the whole space for exhaustive)")
	fl.StringVar(&f.executor, "executor", "local", "local or slurm")
	fl.IntVar(&f.jobs, "jobs", 1, "trials in flight at once (slurm)")
	fl.StringVar(&f.sbatch, "sbatch", "", "more sbatch arguments, blank-separated (slurm)")
	fl.StringVar(&f.objective, "objective", "io-time", "io-time (from the log) or wall-time")
	fl.IntVar(&f.repeat, "repeat", 1, "runs of each configuration (the median counts)")
	fl.BoolVar(&f.warmUp, "warm-up", false, "run the command once, unmeasured, before the first trial")
	fl.DurationVar(&f.timeout, "timeout", 0, "limit of one run (0: none)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the strategy")
	fl.StringVar(&f.app, "app", "", "application name in the history (default: the program's name)")
	fl.StringVar(&f.history, "history", "", "tuning history (default $IOLENS_TUNING, else ~/.local/share/iolens/tuning.db)")
	fl.IntVar(&f.resume, "resume", 0, "continue the tuning session ID")
	fl.StringVar(&f.dir, "dir", "", "directory of the trials' logs and output (default: a directory beside the history)")
	fl.StringArrayVar(&f.vars, "var", nil, "NAME=VALUE of a variable of the constraints (repeatable)")
	fl.BoolVar(&f.asJSON, "json", false, "print the outcome as one JSON document")
	cmd.AddCommand(newTuneShowCmd(e))
	return cmd
}

// openHistory opens the tuning history path (or the default).
func openHistory(path string) (*tune.History, error) {
	path, err := stateFile(path, "IOLENS_TUNING", tune.DefaultHistoryPath)
	if err != nil {
		return nil, err
	}
	return tune.OpenHistory(path)
}

// tuneSpace builds the space of the flags.
func tuneSpace(f *tuneFlags, args []string) (*tune.Space, error) {
	var spaces []*tune.Space
	if f.preset != "" {
		s, err := tune.Preset(f.preset)
		if err != nil {
			return nil, usagef("--preset: %v", err)
		}
		spaces = append(spaces, s)
	}
	if f.space != "" {
		s, err := tune.LoadSpace(f.space)
		if err != nil {
			return nil, err
		}
		spaces = append(spaces, s)
	}
	if len(spaces) == 0 {
		return nil, usagef("give a parameter space: --space FILE or --preset %s", strings.Join(tune.Presets(), ","))
	}
	s, err := tune.Merge(spaces...)
	if err != nil {
		return nil, err
	}
	if n := launcherRanks(args); n > 0 {
		s.SetVar("ranks", float64(n))
	}
	for _, v := range f.vars {
		name, value, ok := strings.Cut(v, "=")
		x, isNum := tune.ParseNumber(value)
		if !ok || !isNum {
			return nil, usagef("--var %q: want NAME=NUMBER", v)
		}
		s.SetVar(name, x)
	}
	return s, nil
}

// launcherRanks returns N of "mpiexec -n N" (or -np, srun -n, ...) in args,
// 0 if none.
func launcherRanks(args []string) int {
	for i := 0; i+1 < len(args); i++ {
		if a := args[i]; a == "-n" || a == "-np" || a == "--ntasks" || a == "--np" {
			if n, err := strconv.Atoi(args[i+1]); err == nil {
				return n
			}
		}
	}
	return 0
}

// appOf returns the application a command line runs: the base name of its
// first word that is neither a launcher (mpiexec, srun, ...) nor an option
// nor an option's number.
func appOf(args []string) string {
	for _, a := range args {
		base := filepath.Base(a)
		switch {
		case strings.HasPrefix(a, "-"), strings.HasPrefix(base, "mpiexec"), strings.HasPrefix(base, "mpirun"),
			base == "srun", base == "aprun", base == "orterun", base == "env":
			continue
		}
		if _, err := strconv.Atoi(a); err == nil {
			continue
		}
		return base
	}
	return filepath.Base(args[0])
}

func tuneStrategy(f *tuneFlags, h *tune.History, app string) (tune.Strategy, error) {
	switch f.strategy {
	case "model":
		warm, err := h.Measurements(app)
		if err != nil {
			return nil, err
		}
		return tune.ModelBased{Seed: f.seed, Warm: warm}, nil
	case "ga":
		return tune.Genetic{Seed: f.seed}, nil
	case "random":
		return tune.Random{Seed: f.seed}, nil
	case "exhaustive":
		return tune.Exhaustive{}, nil
	}
	return nil, usagef("--strategy %q: want model, ga, random or exhaustive", f.strategy)
}

func runTune(ctx context.Context, e *env, f *tuneFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	obj, err := trial.ParseObjective(f.objective)
	if err != nil {
		return usagef("--objective: %v", err)
	}
	if f.executor != "local" && f.executor != "slurm" {
		return usagef("--executor %q: want local or slurm", f.executor)
	}
	if f.jobs < 1 || f.repeat < 1 || f.budget < 0 {
		return usagef("--jobs and --repeat must be at least 1, --budget at least 0")
	}
	s, err := tuneSpace(f, args)
	if err != nil {
		return err
	}
	if u := s.Unbound(); len(u) > 0 {
		return usagef("the constraints use %s: give --var %s=N (ranks is read from mpiexec -n N)", strings.Join(u, ", "), u[0])
	}
	h, err := openHistory(f.history)
	if err != nil {
		return err
	}
	defer h.Close()
	app := f.app
	if app == "" {
		app = appOf(args)
	}
	strategy, err := tuneStrategy(f, h, app)
	if err != nil {
		return err
	}
	budget := f.budget
	if budget == 0 && f.strategy != "exhaustive" {
		budget = 40
	}
	session := int64(f.resume)
	if session == 0 {
		if session, err = h.Begin(tune.Session{App: app, Command: strings.Join(args, " "), Space: string(s.Format()), Strategy: f.strategy}); err != nil {
			return err
		}
	} else if _, err := h.Session(session); err != nil {
		return err
	}
	dir := f.dir
	if dir == "" {
		dir = filepath.Join(filepath.Dir(h.Path()), "tuning", strconv.FormatInt(session, 10))
	}
	opts := trial.Options{Command: args, Space: s, Objective: obj, Repeat: f.repeat, WarmUp: f.warmUp, Dir: dir, Timeout: f.timeout,
		Collector: collector.BuildOptions{Stderr: e.stderr, Notice: e.stderr}}
	var fn tune.Func
	workers := 1
	if f.executor == "slurm" {
		// The jobs run this iolens, or $IOLENS_BIN (a copy on a file
		// system the compute nodes see).
		fn, err = trial.Slurm(opts, trial.SlurmOptions{Sbatch: strings.Fields(f.sbatch), Iolens: os.Getenv("IOLENS_BIN")})
		workers = f.jobs
	} else {
		fn, err = trial.Local(opts)
	}
	if err != nil {
		return err
	}
	total := int64(budget)
	if total == 0 {
		total = int64(s.Size())
	}
	bar := progress.New(e.stderr, total, "tuning", progress.Count("trials"))
	live := newTrialTable(e.stdout, !f.asJSON)
	ev := tune.Cached(tune.Parallel(func(ctx context.Context, c tune.Config) tune.Result {
		r := fn(ctx, c)
		bar.Add(1)
		live.row(r)
		return r
	}, workers), h, session)
	out, runErr := strategy.Run(ctx, s, ev, budget)
	bar.Done()
	if out == nil {
		return runErr
	}
	if out.Model != nil {
		if err := h.RecordModel(session, out.Model); err != nil {
			return err
		}
	}
	if runErr == nil {
		if err := h.Finish(session); err != nil {
			return err
		}
	}
	if f.asJSON {
		if err := writeTuneJSON(e.stdout, out, f.strategy, session); err != nil {
			return err
		}
	} else {
		printTuneOutcome(e.stdout, out, session)
	}
	if runErr != nil {
		return fmt.Errorf("tuning stopped (resume it with --resume %d): %w", session, runErr)
	}
	if out.Best == nil {
		return errors.New("no trial succeeded: see the trials' output in " + dir)
	}
	return nil
}

// trialTable prints each trial as it ends.
type trialTable struct {
	mu sync.Mutex
	w  io.Writer
	n  int
	on bool
}

func newTrialTable(w io.Writer, on bool) *trialTable { return &trialTable{w: w, on: on} }

func (t *trialTable) row(r tune.Result) {
	if !t.on {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		fmt.Fprintf(t.w, "%5s  %12s  %s\n", "trial", "objective", "configuration")
	}
	t.n++
	v := fmt.Sprintf("%.6g", r.Objective)
	if r.Err != nil {
		v = "failed"
	}
	fmt.Fprintf(t.w, "%5d  %12s  %s\n", t.n, v, report.Sanitize(r.Config.String()))
	if r.Err != nil {
		fmt.Fprintf(t.w, "%5s  %12s  %s\n", "", "", report.Sanitize(r.Err.Error()))
	}
}

// tuneDoc is the JSON outcome of a tuning.
type tuneDoc struct {
	Best     *resultDoc `json:"best"`
	Default  resultDoc  `json:"default"`
	Speedup  float64    `json:"speedup"`
	Runs     int        `json:"runs"`
	Strategy string     `json:"strategy"`
	Session  int64      `json:"session"`
	Model    *modelDoc  `json:"model,omitempty"`
}

type resultDoc struct {
	Config    tune.Config `json:"config"`
	Objective float64     `json:"objective"`
	Error     string      `json:"error,omitempty"`
	Log       string      `json:"log,omitempty"`
}

type modelDoc struct {
	Terms         []string  `json:"terms"`
	Coefficients  []float64 `json:"coefficients"`
	RelativeError float64   `json:"relative_error"`
}

func toResultDoc(r tune.Result) resultDoc {
	d := resultDoc{Config: r.Config, Objective: r.Objective, Log: r.Log}
	if r.Config == nil {
		d.Config = tune.Config{}
	}
	if r.Err != nil {
		d.Error = r.Err.Error()
	}
	return d
}

func writeTuneJSON(w io.Writer, out *tune.Outcome, strategy string, session int64) error {
	d := tuneDoc{Default: toResultDoc(out.Default), Speedup: out.Speedup(), Runs: out.Runs, Strategy: strategy, Session: session}
	if out.Best != nil {
		b := toResultDoc(*out.Best)
		d.Best = &b
	}
	if m := out.Model; m != nil {
		d.Model = &modelDoc{Terms: m.Terms(), Coefficients: m.Coefficients(), RelativeError: m.RelativeError()}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

func printTuneOutcome(w io.Writer, out *tune.Outcome, session int64) {
	fmt.Fprintf(w, "\n%d trials (session %d)\n", out.Runs, session)
	if out.Default.Err == nil {
		fmt.Fprintf(w, "default:  %.6g  %s\n", out.Default.Objective, report.Sanitize(out.Default.Config.String()))
	}
	if out.Best == nil {
		fmt.Fprintln(w, "no trial succeeded")
		return
	}
	fmt.Fprintf(w, "best:     %.6g  %s\n", out.Best.Objective, report.Sanitize(out.Best.Config.String()))
	if sp := out.Speedup(); sp > 0 {
		fmt.Fprintf(w, "speedup:  %.2fx over the default\n", sp)
	}
	if m := out.Model; m != nil {
		fmt.Fprintf(w, "model:    %s (relative error %.1f%%)\n", report.Sanitize(m.String()), 100*m.RelativeError())
	}
	fmt.Fprintln(w, "\nto apply it:")
	var sets, hints []string
	for _, s := range out.Best.Config {
		sets = append(sets, "--set "+s.Name+"="+s.Value)
		if p, ok := tune.Lookup(s.Name); ok && p.Kind == tune.MPIIOHint {
			hints = append(hints, p.Key+" "+s.Value)
		}
	}
	fmt.Fprintf(w, "  iolens run %s -- CMD...\n", report.Sanitize(strings.Join(sets, " ")))
	if len(hints) > 0 {
		fmt.Fprintf(w, "  or, for ROMIO, a hints file named by ROMIO_HINTS:\n")
		for _, h := range hints {
			fmt.Fprintf(w, "    %s\n", report.Sanitize(h))
		}
	}
}

func newTuneShowCmd(e *env) *cobra.Command {
	var history, app, html string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [--history FILE] [--app NAME] [--json | --html FILE] [SESSION]",
		Short: "List the tuning sessions, or the trials of one",
		Example: `  iolens tune show
  iolens tune show 3
  iolens tune show --json 3
  iolens tune show --html tuning-3.html 3`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := openHistory(history)
			if err != nil {
				return err
			}
			defer h.Close()
			if len(args) == 0 {
				ss, err := h.Sessions(app)
				if err != nil {
					return err
				}
				if asJSON {
					return json.NewEncoder(e.stdout).Encode(ss)
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "session\tapplication\tstrategy\tstarted\tfinished\tcommand")
				for _, s := range ss {
					fin := "-"
					if !s.Finished.IsZero() {
						fin = s.Finished.Format(time.DateTime)
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", s.ID, report.Sanitize(s.App), s.Strategy, s.Started.Format(time.DateTime), fin, report.Sanitize(s.Command))
				}
				return tw.Flush()
			}
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return usagef("SESSION %q is not a number", args[0])
			}
			trials, err := h.Trials(id)
			if err != nil {
				return err
			}
			if html != "" {
				v, err := tuneView(h, id, trials)
				if err != nil {
					return err
				}
				return writeAtomically(html, 0o644, func(out *os.File) error { return report.TuneHTML(out, v) })
			}
			if asJSON {
				if html != "" {
					return usagef("--json and --html cannot be combined")
				}
				docs := make([]resultDoc, len(trials))
				for i, t := range trials {
					docs[i] = toResultDoc(t.Result)
				}
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(docs)
			}
			live := newTrialTable(e.stdout, true)
			for _, t := range trials {
				live.row(t.Result)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&history, "history", "", "tuning history (default $IOLENS_TUNING, else ~/.local/share/iolens/tuning.db)")
	cmd.Flags().StringVar(&app, "app", "", "only the sessions of this application")
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON")
	cmd.Flags().StringVar(&html, "html", "", "write an offline HTML page of the session's trials and model to FILE")
	return cmd
}

// tuneView is what the page of session id shows: its trials and the
// predictions of its last model.
func tuneView(h *tune.History, id int64, trials []tune.Trial) (report.TuneView, error) {
	ss, err := h.Session(id)
	if err != nil {
		return report.TuneView{}, err
	}
	v := report.TuneView{App: ss.App, Command: ss.Command, Strategy: ss.Strategy}
	models, err := h.Models(id)
	if err != nil {
		return v, err
	}
	var model *tune.Model
	var space *tune.Space
	if len(models) > 0 {
		model = models[len(models)-1]
		v.Model, v.RelativeError = model.String(), model.RelativeError()
		if space, err = tune.ParseSpace([]byte(ss.Space), fmt.Sprintf("session %d", id)); err != nil {
			return v, err
		}
	}
	for i, t := range trials {
		tt := report.TuneTrial{Seq: t.Seq, Config: t.Config.String(), Objective: t.Objective, Predicted: math.NaN()}
		if t.Err != nil {
			tt.Failed, tt.Error = true, t.Err.Error()
		} else if i == 0 {
			v.Default = t.Objective
		}
		if model != nil {
			tt.Predicted = model.Predict(space.Features(t.Config))
		}
		v.Trials = append(v.Trials, tt)
	}
	return v, nil
}

// injectionOf returns the injection of "iolens run --set NAME=VALUE ...":
// parameters of the built-in presets (MPI-IO hints by their names, h5_*,
// stdio_buffer), with any value their kind accepts.
func injectionOf(sets []string) (*collector.Injection, error) {
	if len(sets) == 0 {
		return nil, nil
	}
	in := &collector.Injection{HDF5: map[string]int64{}}
	var labels []string
	for _, s := range sets {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return nil, usagef("--set %q: want NAME=VALUE", s)
		}
		p, found := tune.Lookup(name)
		if !found {
			return nil, usagef("--set %s: unknown parameter (MPI-IO hints such as cb_nodes, h5_alignment, h5_sieve_buf_size, stdio_buffer...; iolens tune --help)", name)
		}
		v, err := p.Parse(value)
		if err != nil {
			return nil, usagef("--set %s: %v", name, err)
		}
		switch p.Kind {
		case tune.MPIIOHint:
			in.Hints = append(in.Hints, [2]string{p.Key, v})
		case tune.HDF5, tune.Stdio:
			n, err := p.Int(v)
			if err != nil {
				return nil, usagef("--set %s: %v", name, err)
			}
			if p.Kind == tune.Stdio {
				in.StdioBuffer = n
			} else {
				in.HDF5[p.Key] = n
			}
		default:
			return nil, usagef("--set %s: set it in the command or its environment", name)
		}
		labels = append(labels, name+"="+v)
	}
	in.Label = strings.Join(labels, " ")
	return in, nil
}
