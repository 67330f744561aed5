package corpus

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/collector"
)

// Options configure Measure.
type Options struct {
	// WorkDir receives the executable, the files the program writes and
	// the collector's logs; empty means a temporary directory removed
	// when Measure returns.
	WorkDir string
	// MPIExec launches programs of more than one rank; empty means
	// "mpiexec.openmpi". It is run as MPIExec --oversubscribe -n RANKS.
	MPIExec string
	// Env is added to the environment of the build and the run.
	Env []string
	// Build configures the collector library build.
	Build collector.BuildOptions
	// Stdout receives the program's standard output; nil discards it.
	Stdout io.Writer
}

// Function is the measurement of one function of a program, summed over
// its calls, threads and ranks. Times are in seconds.
type Function struct {
	// Name is the name in the source (see SourceName); Symbol the
	// symbol it was read from.
	Name   string `json:"name"`
	Symbol string `json:"symbol"`
	Calls  uint64 `json:"calls"`
	// Wall and IOTime are inclusive: the time from entry to exit of the
	// outermost activations, and the part of it spent in intercepted I/O
	// operations. SelfIO is the I/O done in the function's own body.
	Wall   float64 `json:"wall"`
	IOTime float64 `json:"io_time"`
	SelfIO float64 `json:"self_io"`
	// Intensity is IOTime/Wall, 0 when Wall is 0.
	Intensity float64 `json:"intensity"`
}

// Measurement is what Measure found for one program.
type Measurement struct {
	Program string `json:"program"`
	Ranks   int    `json:"ranks"`
	// Functions are the program's own instrumented functions, by name.
	Functions []Function `json:"functions"`
}

// Function returns the measurement of the function named name.
func (m Measurement) Function(name string) (Function, bool) {
	i := slices.IndexFunc(m.Functions, func(f Function) bool { return f.Name == name })
	if i < 0 {
		return Function{}, false
	}
	return m.Functions[i], true
}

// Measure builds prog with its build template and runs it under the
// collector, then returns the measured profile of every function of the
// program's executable. A build failure, a run that exits with a non-zero
// status, or a run that yields no function profile is an error.
func Measure(ctx context.Context, prog Program, opts Options) (Measurement, error) {
	work := opts.WorkDir
	if work == "" {
		dir, err := os.MkdirTemp("", "iolens-corpus-")
		if err != nil {
			return Measurement{}, fmt.Errorf("measuring %s: %w", prog.Name, err)
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	out := filepath.Join(work, "out")
	if err := os.MkdirAll(out, 0o700); err != nil {
		return Measurement{}, fmt.Errorf("measuring %s: %w", prog.Name, err)
	}
	env := append(os.Environ(), opts.Env...)
	exe, err := build(ctx, prog, work, env)
	if err != nil {
		return Measurement{}, fmt.Errorf("measuring %s: %w", prog.Name, err)
	}
	stats, err := run(ctx, prog, exe, out, env, opts)
	if err != nil {
		return Measurement{}, fmt.Errorf("measuring %s: %w", prog.Name, err)
	}
	m := Measurement{Program: prog.Name, Ranks: prog.Ranks, Functions: functions(prog.Language, exe, stats)}
	if len(m.Functions) == 0 {
		return m, fmt.Errorf("measuring %s: no function profile (is it built with -finstrument-functions?)", prog.Name)
	}
	return m, nil
}

// build compiles prog into dir and returns the executable's path.
func build(ctx context.Context, prog Program, dir string, env []string) (string, error) {
	exe := filepath.Join(dir, prog.Name)
	var argv []string
	for _, a := range prog.Build {
		switch {
		case a == "{out}":
			argv = append(argv, exe)
		case a == "{src}":
			for _, s := range prog.Sources {
				abs, err := filepath.Abs(filepath.Join(prog.Dir, s))
				if err != nil {
					return "", err
				}
				argv = append(argv, abs)
			}
		case strings.HasPrefix(a, "{pkg-config ") && strings.HasSuffix(a, "}"):
			pkg := strings.TrimSuffix(strings.TrimPrefix(a, "{pkg-config "), "}")
			flags, err := command(ctx, dir, env, "pkg-config", "--cflags", "--libs", pkg)
			if err != nil {
				return "", fmt.Errorf("building: %w", err)
			}
			argv = append(argv, strings.Fields(flags)...)
		default:
			argv = append(argv, a)
		}
	}
	if _, err := command(ctx, dir, env, argv[0], argv[1:]...); err != nil {
		return "", fmt.Errorf("building: %w", err)
	}
	return exe, nil
}

// command runs name in dir and returns its standard output; the error
// carries the command line and its standard error.
func command(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.String(), nil
}

// run runs exe under the collector with the program's arguments (files
// go to out) and returns the function profiles of every process.
func run(ctx context.Context, prog Program, exe, out string, env []string, opts Options) ([]collector.FunctionStat, error) {
	argv := []string{exe}
	if prog.Ranks > 1 {
		mpiexec := cmp.Or(opts.MPIExec, "mpiexec.openmpi")
		argv = []string{mpiexec, "--oversubscribe", "-n", strconv.Itoa(prog.Ranks), exe}
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	for _, a := range prog.Args {
		argv = append(argv, strings.ReplaceAll(a, "{dir}", out))
	}
	logs := filepath.Join(filepath.Dir(out), "logs")
	var stderr bytes.Buffer
	res, err := collector.Run(ctx, argv, collector.RunOptions{
		LogDir:    logs,
		Build:     opts.Build,
		Functions: true,
		Stdin:     strings.NewReader(""),
		Stdout:    cmp.Or[io.Writer](opts.Stdout, io.Discard),
		Stderr:    &stderr,
		Env:       env,
	})
	if err != nil {
		return nil, fmt.Errorf("running: %w\n%s", err, stderr.Bytes())
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("running %s: exit status %d\n%s", strings.Join(argv, " "), res.ExitCode, stderr.Bytes())
	}
	return res.Functions, nil
}

// functions keeps the profiles of exe's own functions, named as in the
// source (see Named).
func functions(lang, exe string, stats []collector.FunctionStat) []Function {
	resolved, err := filepath.EvalSymlinks(exe)
	if err != nil {
		resolved = exe
	}
	var own []Function
	for _, s := range stats {
		if s.File == exe || s.File == resolved {
			own = append(own, Function{Symbol: s.Name, Calls: s.Calls, Wall: s.Wall, IOTime: s.IOTime, SelfIO: s.SelfIO})
		}
	}
	return Named(lang, own)
}

// Named names the functions of a program in language lang as in its
// source, from their symbols (see SourceName), sums those that map to the
// same name, and sorts them by name. A function alone under its name
// keeps its intensity (the median of its runs, for a recorded one); the
// sum of several has IOTime/Wall. Measurements recorded by an earlier
// version take the names the current one gives their symbols.
func Named(lang string, fs []Function) []Function {
	byName := make(map[string]*Function)
	count := make(map[string]int)
	for _, s := range fs {
		name := SourceName(lang, s.Symbol)
		f := byName[name]
		if f == nil {
			f = &Function{Name: name, Symbol: s.Symbol, Intensity: s.Intensity}
			byName[name] = f
		}
		count[name]++
		f.Calls += s.Calls
		f.Wall += s.Wall
		f.IOTime += s.IOTime
		f.SelfIO += s.SelfIO
	}
	out := make([]Function, 0, len(byName))
	for name, f := range byName {
		if count[name] > 1 || f.Intensity == 0 {
			f.Intensity = 0
			if f.Wall > 0 {
				f.Intensity = f.IOTime / f.Wall
			}
		}
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b Function) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
