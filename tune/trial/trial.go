// Package trial runs the trials of a tuning: a command with a
// configuration applied (MPI-IO hints, HDF5 properties and stdio buffers
// injected by the collector, environment variables, command-line
// placeholders), measured by its Darshan log or its wall time, on this
// machine one after another (Local) or as Slurm jobs, several at once
// (Slurm). Both give a tune.Func, which tune.Parallel turns into the
// Evaluator a strategy drives.
package trial

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/iolens/iolens/collector"
	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/tune"
)

// Options configure the trials of a tuning.
type Options struct {
	// Command is the command line; "{name}" stands for the value of the
	// Arg parameter name, and "{ranks}" for the Ranks parameter's.
	Command []string
	// Space is the space the configurations come from.
	Space *tune.Space
	// Objective is what a trial measures.
	Objective Objective
	// Repeat runs every configuration this many times (default 1): the
	// objective is the median.
	Repeat int
	// WarmUp runs the first trial's command once more, unmeasured, before
	// it (loading the file system's and the program's caches).
	WarmUp bool
	// Dir receives one directory per trial (its logs and output).
	Dir string
	// Timeout bounds one run of the command (0: none); a run that exceeds
	// it fails the trial.
	Timeout time.Duration
	// Env is the environment of the runs (nil: this process's).
	Env []string
	// Collector configures the collector's library build (Local).
	Collector collector.BuildOptions
}

// runner holds what the trials of a tuning share.
type runner struct {
	opts    Options
	seq     atomic.Int64
	warm    sync.Once
	mu      sync.Mutex
	written []string // files the last trial wrote, evicted before the next
}

func newRunner(opts Options) (*runner, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("trial: no command")
	}
	if opts.Space == nil {
		return nil, errors.New("trial: no space")
	}
	if opts.Repeat < 1 {
		opts.Repeat = 1
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("trial directory: %w", err)
	}
	return &runner{opts: opts}, nil
}

// prepare returns the settings and command line of configuration c and a
// new directory for its trial.
func (r *runner) prepare(c tune.Config) (tune.Settings, []string, string, error) {
	st, err := r.opts.Space.Settings(c)
	if err != nil {
		return st, nil, "", err
	}
	if st.Ranks > 0 {
		st.Args["ranks"] = strconv.Itoa(st.Ranks)
	}
	argv := st.ExpandArgs(r.opts.Command)
	dir := filepath.Join(r.opts.Dir, fmt.Sprintf("trial-%04d", r.seq.Add(1)))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return st, nil, "", err
	}
	return st, argv, dir, nil
}

// measure runs one trial: the command, Repeat times, and the median of the
// objective.
func (r *runner) measure(ctx context.Context, c tune.Config, once func(ctx context.Context, st tune.Settings, argv []string, dir string) (float64, string, error)) tune.Result {
	t0 := time.Now()
	res := tune.Result{Config: c}
	st, argv, dir, err := r.prepare(c)
	if err != nil {
		res.Err = err
		return res
	}
	if r.opts.WarmUp {
		r.warm.Do(func() { once(ctx, st, argv, filepath.Join(dir, "warm-up")) })
	}
	var values []float64
	for i := range r.opts.Repeat {
		v, log, err := once(ctx, st, argv, filepath.Join(dir, fmt.Sprintf("run-%d", i+1)))
		if err != nil {
			res.Err = err
			res.Wall = time.Since(t0)
			return res
		}
		values = append(values, v)
		res.Log = log
	}
	slices.Sort(values)
	res.Objective = values[len(values)/2]
	res.Wall = time.Since(t0)
	return res
}

// Local returns the trial function that runs the command on this machine
// under the collector, with the configuration injected. Trials must run one
// at a time (tune.Parallel with one worker): before each run, the files
// the previous run wrote are evicted from the page cache.
func Local(opts Options) (tune.Func, error) {
	r, err := newRunner(opts)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, c tune.Config) tune.Result {
		return r.measure(ctx, c, r.runLocal)
	}, nil
}

// runLocal runs argv once under the collector into dir and returns its
// objective and the log measured.
func (r *runner) runLocal(ctx context.Context, st tune.Settings, argv []string, dir string) (float64, string, error) {
	r.evictWritten()
	if r.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.Timeout)
		defer cancel()
	}
	out, err := os.Create(filepath.Join(dir + ".out"))
	if err != nil {
		return 0, "", err
	}
	defer out.Close()
	t0 := time.Now()
	res, err := collector.Run(ctx, argv, collector.RunOptions{
		LogDir: dir,
		Set:    &collector.Injection{Hints: st.Hints, HDF5: st.HDF5, StdioBuffer: st.StdioBuffer, Label: st.Label},
		Env:    append(slices.Clone(r.opts.Env), st.Env...),
		Stdin:  strings.NewReader(""), Stdout: out, Stderr: out,
		Build: r.opts.Collector,
	})
	wall := time.Since(t0).Seconds()
	if ctx.Err() != nil {
		return 0, "", fmt.Errorf("run timed out or was cancelled: %w", ctx.Err())
	}
	if err != nil {
		return 0, "", err
	}
	if res.ExitCode != 0 {
		return 0, "", fmt.Errorf("command exited with status %d (output in %s.out)", res.ExitCode, dir)
	}
	return r.objective(res.Logs, wall)
}

// objective returns the objective of a run from its logs (the one of the
// largest I/O time, for IOTime) and its wall time, and remembers the files
// it wrote.
func (r *runner) objective(logs []string, wall float64) (float64, string, error) {
	var best float64
	var bestLog string
	var written []string
	for _, p := range logs {
		l, err := darshan.OpenFile(p)
		if err != nil {
			return 0, "", err
		}
		t, err := ioTime(l)
		written = append(written, writtenFiles(l)...)
		l.Close()
		if err != nil {
			return 0, "", fmt.Errorf("%s: %w", p, err)
		}
		if bestLog == "" || t > best {
			best, bestLog = t, p
		}
	}
	r.mu.Lock()
	r.written = written
	r.mu.Unlock()
	if r.opts.Objective == WallTime {
		return wall, bestLog, nil
	}
	if bestLog == "" {
		return 0, "", errors.New("the run wrote no log (did it do any I/O?)")
	}
	return best, bestLog, nil
}

// writtenFiles returns the names of the files of l that were written to.
func writtenFiles(l *darshan.Log) []string {
	var out []string
	idx := darshan.ModPOSIX.CounterIndex("POSIX_BYTES_WRITTEN")
	l.Each(darshan.ModPOSIX, func(r *darshan.Record) error {
		if r.Counters[idx] > 0 {
			if n, ok := l.RecordName(r.ID); ok && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return nil
	})
	return out
}

// evictWritten drops the files the previous run wrote from the page cache,
// so that a run does not read what the one before left in memory.
func (r *runner) evictWritten() {
	r.mu.Lock()
	files := r.written
	r.written = nil
	r.mu.Unlock()
	for _, f := range files {
		fd, err := unix.Open(f, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		unix.Fdatasync(fd)
		unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
		unix.Close(fd)
	}
}

// SlurmOptions configure trials run as Slurm jobs.
type SlurmOptions struct {
	// Iolens is the iolens binary the jobs run (default: this program).
	Iolens string
	// Sbatch are more arguments of sbatch (partition, account, time...).
	Sbatch []string
	// Env is the environment of sbatch (nil: this process's), e.g. with
	// SLURM_CONF.
	Env []string
}

// Slurm returns the trial function that submits each run of the command as
// a Slurm job (sbatch --wait) that runs it under "iolens run" with the
// configuration injected, and measures it from the job's log (the job's
// run time for WallTime). Several trials can be in flight at once
// (tune.Parallel with several workers); a job that fails or exceeds
// Options.Timeout (sbatch --time) fails its trial.
func Slurm(opts Options, so SlurmOptions) (tune.Func, error) {
	r, err := newRunner(opts)
	if err != nil {
		return nil, err
	}
	if so.Iolens == "" {
		if so.Iolens, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if so.Env == nil {
		so.Env = os.Environ()
	}
	return func(ctx context.Context, c tune.Config) tune.Result {
		return r.measure(ctx, c, func(ctx context.Context, st tune.Settings, argv []string, dir string) (float64, string, error) {
			return r.runSlurm(ctx, so, st, argv, dir)
		})
	}, nil
}

// runSlurm runs argv once as a Slurm job into dir.
func (r *runner) runSlurm(ctx context.Context, so SlurmOptions, st tune.Settings, argv []string, dir string) (float64, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, "", err
	}
	inj := &collector.Injection{Hints: st.Hints, HDF5: st.HDF5, StdioBuffer: st.StdioBuffer, Label: st.Label}
	env, err := inj.Environ()
	if err != nil {
		return 0, "", err
	}
	env = append(env, st.Env...)
	var script strings.Builder
	script.WriteString("#!/bin/sh\n# iolens tune trial: " + shellComment(st.Label) + "\n")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&script, "export %s=%s\n", k, shellQuote(v))
	}
	fmt.Fprintf(&script, "exec %s run --log-dir %s --", shellQuote(so.Iolens), shellQuote(dir))
	for _, a := range argv {
		script.WriteString(" " + shellQuote(a))
	}
	script.WriteString("\n")
	path := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(path, []byte(script.String()), 0o700); err != nil {
		return 0, "", err
	}
	args := []string{"--wait", "--parsable", "-J", "iolens-tune", "-o", filepath.Join(dir, "job.out")}
	if r.opts.Timeout > 0 {
		args = append(args, "--time", strconv.Itoa(max(1, int((r.opts.Timeout+time.Minute-1)/time.Minute))))
	}
	args = append(append(args, so.Sbatch...), path)
	cmd := execCommand(ctx, so.Env, "sbatch", args...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return 0, "", fmt.Errorf("job cancelled: %w", ctx.Err())
	}
	if err != nil {
		return 0, "", fmt.Errorf("sbatch %s: %v: %s (job output in %s)", path, err, strings.TrimSpace(string(out)), filepath.Join(dir, "job.out"))
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.darshan"))
	v, log, err := r.objective(logs, 0)
	if err != nil || r.opts.Objective != WallTime {
		return v, log, err
	}
	if log == "" {
		return 0, "", fmt.Errorf("the job wrote no log (output in %s)", filepath.Join(dir, "job.out"))
	}
	l, err := darshan.OpenFile(log)
	if err != nil {
		return 0, "", err
	}
	defer l.Close()
	return l.RunTime(), log, nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellComment makes s safe on a comment line.
func shellComment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
