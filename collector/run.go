package collector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RunOptions configure Run.
type RunOptions struct {
	// LogDir receives the logs; empty means $IOLENS_LOG_DIR, else the
	// current directory.
	LogDir string
	// DXT enables per-operation traces (DXT_POSIX, DXT_MPIIO).
	DXT bool
	// Learn records each process's access sequence (PnetCDF variables,
	// HDF5 datasets, POSIX extents) into the log's access region, for
	// package knowledge.
	Learn bool
	// PrefetchDir holds prefetch plans (knowledge.WritePlan) named
	// APP.plan: each process whose application (IOLENS_APP, else its
	// program name) has one prefetches from it ahead of its reads. Every
	// process then records its access sequence, as with Learn.
	PrefetchDir string
	// Set is injected into every process (see Injection); Set.Label goes
	// into the logs' metadata.
	Set *Injection
	// App names the application in log file names (also IOLENS_APP);
	// empty means the base name of the traced executable.
	App string
	// MPICC forces the compiler of the library; empty means detect the
	// application's MPI (see DetectMPI), or IOLENS_MPICC.
	MPICC string
	// Build configures the library build (cache directory, sources).
	Build BuildOptions
	// Log configures the written logs.
	Log LogOptions
	// Stdin, Stdout and Stderr of the command; nil means the process's.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Env is the command's environment; nil means os.Environ().
	Env []string
	// Dir is the command's working directory; empty means the current
	// one. The command's relative paths (./prog) are relative to it; a
	// relative LogDir is not.
	Dir string
	// Functions collects the function profiles of programs built with
	// -finstrument-functions into RunResult.Functions.
	Functions bool
}

// RunResult is what Run did.
type RunResult struct {
	// ExitCode is the command's exit status, 128+N if signal N killed it.
	ExitCode int
	// Logs are the paths of the logs written.
	Logs []string
	// Functions are the function profiles of every process, summed (see
	// FunctionStats), if RunOptions.Functions was set.
	Functions []FunctionStat
}

// Run runs argv under the collector and merges what every process of the
// command recorded into Darshan logs in the log directory: one per MPI job
// and one for the non-MPI processes that did I/O. The per-process stores
// live in a private directory inside the log directory that is removed
// once the logs are written; if merging fails it is kept (its path is in
// the error) so that `iolens merge` can retry.
//
// SIGINT, SIGTERM, SIGHUP and SIGQUIT received while the command runs are
// passed on to it.
func Run(ctx context.Context, argv []string, opts RunOptions) (RunResult, error) {
	if len(argv) == 0 {
		return RunResult{}, errors.New("run: no command")
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	logDir := opts.LogDir
	if logDir == "" {
		logDir = lookupEnv(env, "IOLENS_LOG_DIR")
	}
	if logDir == "" {
		logDir = "."
	}
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return RunResult{}, fmt.Errorf("run: log directory: %w", err)
	}
	bopts := opts.Build
	bopts.MPICC = opts.MPICC
	if bopts.MPICC == "" {
		mpicc, err := mpiccForCommand(argv, env, opts.Dir)
		if err != nil {
			return RunResult{}, fmt.Errorf("run: %w", err)
		}
		bopts.MPICC = mpicc
	}
	lib, err := Library(ctx, bopts)
	if err != nil {
		return RunResult{}, fmt.Errorf("run: %w", err)
	}
	stores, err := storeDir(env, logDir)
	if err != nil {
		return RunResult{}, fmt.Errorf("run: %w", err)
	}
	inject, err := opts.Set.env()
	if err != nil {
		os.RemoveAll(stores)
		return RunResult{}, fmt.Errorf("run: %w", err)
	}
	if opts.Log.Set == "" {
		if opts.Set != nil {
			opts.Log.Set = opts.Set.Label
		} else {
			// A job script that exported Injection.Environ.
			opts.Log.Set = lookupEnv(env, "IOLENS_SET_LABEL")
		}
	}
	code, err := runCommand(ctx, argv, commandEnv(env, lib, stores, opts, inject), opts)
	if err != nil {
		os.RemoveAll(stores)
		return RunResult{}, err
	}
	read, err := ReadStores(stores)
	res := RunResult{ExitCode: code}
	if opts.Functions {
		var ferr error
		res.Functions, ferr = FunctionStats(read)
		if ferr != nil {
			fmt.Fprintf(stderrOf(opts), "iolens: warning: %v\n", ferr)
		}
	}
	res.Logs, err = mergeRun(read, err, logDir, opts)
	if err != nil {
		return res, fmt.Errorf("run: %w (stores kept in %s)", err, stores)
	}
	if err := os.RemoveAll(stores); err != nil {
		return res, fmt.Errorf("run: removing %s: %w", stores, err)
	}
	return res, nil
}

// stderrOf is where Run writes warnings.
func stderrOf(opts RunOptions) io.Writer {
	if opts.Stderr != nil {
		return opts.Stderr
	}
	return os.Stderr
}

// storeDir creates the private directory of the run's stores: inside
// $IOLENS_STORE_DIR when it is set (a directory every node of a multi-node
// job can reach), else in /dev/shm when it is writable (memory: updates of
// a mapped store cost least there), else in the log directory.
func storeDir(env []string, logDir string) (string, error) {
	parents := []string{logDir}
	if d := lookupEnv(env, "IOLENS_STORE_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", err
		}
		parents = []string{d}
	} else if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		parents = []string{"/dev/shm", logDir}
	}
	var err error
	for _, p := range parents {
		var dir string
		if dir, err = os.MkdirTemp(p, ".iolens-stores-"); err == nil {
			return dir, nil
		}
	}
	return "", err
}

// mpiccForCommand returns the mpicc matching the MPI of the command, or ""
// for a program without MPI.
func mpiccForCommand(argv, env []string, dir string) (string, error) {
	if cc := lookupEnv(env, "IOLENS_MPICC"); cc != "" {
		return cc, nil
	}
	if dir != "" {
		// The command's relative paths are relative to its directory.
		argv = slices.Clone(argv)
		for i, a := range argv {
			if !filepath.IsAbs(a) && strings.Contains(a, "/") {
				if _, err := os.Stat(filepath.Join(dir, a)); err == nil {
					argv[i] = filepath.Join(dir, a)
				}
			}
		}
	}
	flavor, err := DetectMPI(argv)
	if err != nil || flavor == "" {
		return "", nil //nolint:nilerr // an undetectable program is run without MPI support
	}
	return MPICCFor(flavor)
}

// commandEnv is env with the collector's variables set, and those of set
// (the injection's).
func commandEnv(env []string, lib, stores string, opts RunOptions, set map[string]string) []string {
	preload := lib
	if old := lookupEnv(env, "LD_PRELOAD"); old != "" {
		preload += ":" + old
	}
	if set == nil {
		set = map[string]string{}
	}
	set["LD_PRELOAD"] = preload
	set["IOLENS_STORE_DIR"] = stores
	if opts.DXT {
		set["IOLENS_DXT"] = "1"
	}
	if opts.Learn || opts.PrefetchDir != "" {
		set["IOLENS_LEARN"] = "1"
	}
	if opts.PrefetchDir != "" {
		set["IOLENS_PREFETCH_DIR"] = opts.PrefetchDir
	}
	if opts.App != "" {
		set["IOLENS_APP"] = opts.App
	}
	if jobID(env) == "" {
		// One job id for every process of the run.
		set["IOLENS_JOBID"] = strconv.Itoa(os.Getpid())
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

func jobID(env []string) string {
	for _, k := range []string{"IOLENS_JOBID", "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "FLUX_JOB_ID"} {
		if v := lookupEnv(env, k); v != "" {
			return v
		}
	}
	return ""
}

func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// runCommand runs the command and returns its exit status.
func runCommand(ctx context.Context, argv, env []string, opts RunOptions) (int, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, opts.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opts.Stdin, opts.Stdout, opts.Stderr
	if cmd.Stdin == nil {
		cmd.Stdin = os.Stdin
	}
	if cmd.Stdout == nil {
		cmd.Stdout = os.Stdout
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("run: %w", err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, fmt.Errorf("run: %s: %w", argv[0], err)
	}
	st := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if st.Signaled() {
		return 128 + int(st.Signal()), nil
	}
	return st.ExitStatus(), nil
}

// mergeRun writes the logs of the stores read (readErr: the errors of the
// stores that could not be read) into logDir. Unreadable stores do not
// stop the others from being written; their errors are returned with the
// paths of the logs written.
func mergeRun(stores []*Store, readErr error, logDir string, opts RunOptions) ([]string, error) {
	errs := []error{readErr}
	var paths []string
	warn := stderrOf(opts)
	for _, g := range Groups(stores) {
		if size := g.Stores[0].Header.MPISize; g.MPI && int64(len(g.Stores)) < size {
			fmt.Fprintf(warn, "iolens: warning: MPI job of %d ranks, %d recorded: ranks on other nodes need IOLENS_STORE_DIR set to a directory all nodes share\n",
				size, len(g.Stores))
		}
		path := unusedPath(filepath.Join(logDir, LogName(g, opts.App)))
		if err := writeFile(path, g, opts.Log); err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, path)
	}
	return paths, errors.Join(errs...)
}

// unusedPath returns path, or path with "-<n>" before its ".darshan"
// extension (n = 2, 3, …) if a file of that name exists.
func unusedPath(path string) string {
	base := strings.TrimSuffix(path, ".darshan")
	for n := 1; ; n++ {
		p := path
		if n > 1 {
			p = fmt.Sprintf("%s-%d.darshan", base, n)
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
	}
}

// LogName returns a Darshan-style file name for the log of g:
// <user>_<app>_id<jobid>-<pid>_<month>-<day>-<seconds since midnight>.darshan,
// where pid is the first process's and app defaults to the base name of
// its executable.
func LogName(g Group, app string) string {
	first := g.Stores[0]
	h := first.Header
	if app == "" {
		app = h.App
	}
	if app == "" {
		exe, _, _ := strings.Cut(h.Cmdline, " ")
		app = filepath.Base(exe)
	}
	name := "unknown"
	if u, err := user.LookupId(strconv.FormatInt(h.UID, 10)); err == nil {
		name = u.Username
	}
	job := h.JobID
	if job < 0 {
		job = h.PID
	}
	start := time.Unix(h.StartSec, h.StartNsec)
	midnight := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, start.Location())
	return fmt.Sprintf("%s_%s_id%d-%d_%d-%d-%d.darshan", safeName(name), safeName(app), job, h.PID,
		int(start.Month()), start.Day(), int(start.Sub(midnight).Seconds()))
}

// safeName keeps a name usable as a file name component.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '_' || r < ' ' || r == 0x7f {
			return '-'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." {
		return "unknown"
	}
	return s
}
