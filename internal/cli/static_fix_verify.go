package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/iolens/iolens/collector"
	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/static/fix"
)

// verifyReport compares runs of a command before and after the fixes.
type verifyReport struct {
	Command []string `json:"command"`
	Build   string   `json:"build"`
	Repeat  int      `json:"repeat"`
	Before  runStats `json:"before"`
	After   runStats `json:"after"`
	// IOTimeRatio and WallTimeRatio are after / before of the medians
	// (0 when before is 0).
	IOTimeRatio   float64 `json:"io_time_ratio"`
	WallTimeRatio float64 `json:"wall_time_ratio"`
}

// runStats are the measures of the runs of one variant.
type runStats struct {
	// IOTimes and WallTimes are per run, in seconds: the sum of the
	// F_READ_TIME, F_WRITE_TIME and F_META_TIME counters of the POSIX,
	// STDIO, MPI-IO, HDF5 and PnetCDF records of the run's logs, and the
	// longest run time of its logs.
	IOTimes   []float64 `json:"io_times"`
	WallTimes []float64 `json:"wall_times"`
	IOTime    float64   `json:"io_time"`   // median
	WallTime  float64   `json:"wall_time"` // median
	// Counts are the I/O call and byte counters summed over the records
	// of the first run (they do not vary between runs).
	Counts map[string]int64 `json:"counts"`
}

// timeModules are the modules whose time counters make the I/O time.
var timeModules = []darshan.ModuleID{darshan.ModPOSIX, darshan.ModSTDIO, darshan.ModMPIIO,
	darshan.ModH5F, darshan.ModH5D, darshan.ModPnetCDFFile, darshan.ModPnetCDFVar}

// countCounters are the call counters the report compares, and the byte
// counters, which show that a fix moves as much data.
var countCounters = map[darshan.ModuleID][]string{
	darshan.ModPOSIX: {"POSIX_OPENS", "POSIX_READS", "POSIX_WRITES", "POSIX_SEEKS", "POSIX_FSYNCS", "POSIX_FDSYNCS",
		"POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"},
	darshan.ModSTDIO: {"STDIO_OPENS", "STDIO_READS", "STDIO_WRITES", "STDIO_FLUSHES", "STDIO_BYTES_READ", "STDIO_BYTES_WRITTEN"},
	darshan.ModMPIIO: {"MPIIO_INDEP_READS", "MPIIO_INDEP_WRITES", "MPIIO_COLL_READS", "MPIIO_COLL_WRITES", "MPIIO_SYNCS",
		"MPIIO_BYTES_READ", "MPIIO_BYTES_WRITTEN"},
	darshan.ModH5D: {"H5D_READS", "H5D_WRITES", "H5D_USE_MPIIO_COLLECTIVE"},
	darshan.ModPnetCDFVar: {"PNETCDF_VAR_INDEP_READS", "PNETCDF_VAR_INDEP_WRITES",
		"PNETCDF_VAR_COLL_READS", "PNETCDF_VAR_COLL_WRITES"},
}

// verify copies the sources' tree twice, patches one copy, builds both
// and runs the command in each under the collector.
func verify(ctx context.Context, e *env, f *fixFlags, paths []string, p *fix.Patch) (*verifyReport, error) {
	tree, err := sourceTree(paths)
	if err != nil {
		return nil, err
	}
	build := f.build
	if build == "" {
		if !hasMakefile(tree) {
			return nil, usagef("no Makefile in %s: give the build command with --build", tree)
		}
		build = "make"
	}
	tmp, err := os.MkdirTemp("", "iolens-verify-")
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer os.RemoveAll(tmp)
	dirs := map[string]string{"before": filepath.Join(tmp, "before"), "after": filepath.Join(tmp, "after")}
	for _, d := range dirs {
		if err := copyTree(tree, d); err != nil {
			return nil, fmt.Errorf("verify: copying %s: %w", tree, err)
		}
	}
	if err := applyPatch(p, tree, dirs["after"]); err != nil {
		return nil, err
	}
	for _, v := range []string{"before", "after"} {
		if err := runBuild(ctx, e, build, dirs[v]); err != nil {
			return nil, fmt.Errorf("verify: building the %s copy: %w", v, err)
		}
	}
	r := &verifyReport{Command: f.command, Build: build, Repeat: f.repeat}
	for i := range f.repeat {
		for _, v := range []struct {
			name string
			st   *runStats
		}{{"before", &r.Before}, {"after", &r.After}} {
			logDir := filepath.Join(tmp, fmt.Sprintf("logs-%s-%d", v.name, i))
			if err := runUnder(ctx, e, f.command, dirs[v.name], logDir, v.st, i == 0); err != nil {
				return nil, fmt.Errorf("verify: run %d %s the fixes: %w", i+1, v.name, err)
			}
		}
	}
	for _, st := range []*runStats{&r.Before, &r.After} {
		st.IOTime, st.WallTime = median(st.IOTimes), median(st.WallTimes)
	}
	r.IOTimeRatio = ratio(r.After.IOTime, r.Before.IOTime)
	r.WallTimeRatio = ratio(r.After.WallTime, r.Before.WallTime)
	return r, nil
}

// sourceTree is the deepest directory holding every PATH (a directory
// PATH, or the directory of a file PATH).
func sourceTree(paths []string) (string, error) {
	common := ""
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("verify: %s: %w", p, err)
		}
		if st, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("verify: %w", err)
		} else if !st.IsDir() {
			abs = filepath.Dir(abs)
		}
		for common != "" && abs != common && !strings.HasPrefix(abs, common+string(filepath.Separator)) {
			common = filepath.Dir(common)
		}
		if common == "" {
			common = abs
		}
	}
	return common, nil
}

func hasMakefile(dir string) bool {
	for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if st, err := os.Stat(filepath.Join(dir, n)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// copyTree copies the directories, regular files and symbolic links of
// src into dst (created 0700), skipping hidden directories.
func copyTree(src, dst string) error {
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == src {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case d.IsDir():
			return os.Mkdir(to, 0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			return copyRegular(path, to)
		}
		return nil
	})
}

func copyRegular(from, to string) error {
	st, err := os.Stat(from)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, st.Mode().Perm()|0o600)
}

// applyPatch writes the patched sources into the copy of tree at dst.
func applyPatch(p *fix.Patch, tree, dst string) error {
	for _, path := range p.Files() {
		abs, err := filepath.Abs(path)
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		rel, err := filepath.Rel(tree, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("verify: %s is not under %s", path, tree)
		}
		text, _ := p.Patched(path)
		if err := os.WriteFile(filepath.Join(dst, rel), text, 0o600); err != nil {
			return fmt.Errorf("verify: patching the copy: %w", err)
		}
	}
	return nil
}

// runBuild runs the build command with sh in dir; its output goes to
// standard error.
func runBuild(ctx context.Context, e *env, build, dir string) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", build)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, e.stderr, e.stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", build, err)
	}
	return nil
}

// runUnder runs the command in dir under the collector and adds the
// measures of its logs to st; counts are taken when first is set.
func runUnder(ctx context.Context, e *env, command []string, dir, logDir string, st *runStats, first bool) error {
	opts := collector.RunOptions{LogDir: logDir, Dir: dir, Stdin: strings.NewReader(""), Stdout: e.stderr, Stderr: e.stderr}
	opts.Log.Version = Version
	res, err := collector.Run(ctx, command, opts)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%s exited with status %d", command[0], res.ExitCode)
	}
	var io, wall float64
	counts := map[string]int64{}
	for _, path := range res.Logs {
		t, w, err := logMeasures(path, counts)
		if err != nil {
			return err
		}
		io += t
		wall = max(wall, w)
	}
	st.IOTimes = append(st.IOTimes, io)
	st.WallTimes = append(st.WallTimes, wall)
	if first {
		st.Counts = counts
	}
	return nil
}

// logMeasures returns the I/O time and run time of a log and adds its
// call counters to counts.
func logMeasures(path string, counts map[string]int64) (io, wall float64, err error) {
	l, err := darshan.OpenFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	defer l.Close()
	for _, m := range timeModules {
		err := l.Each(m, func(r *darshan.Record) error {
			for _, name := range m.Info().FCounters {
				if strings.HasSuffix(name, "_F_READ_TIME") || strings.HasSuffix(name, "_F_WRITE_TIME") || strings.HasSuffix(name, "_F_META_TIME") {
					v, _ := r.FCounter(name)
					io += v
				}
			}
			for _, name := range countCounters[m] {
				if v, ok := r.Counter(name); ok {
					counts[name] += v
				}
			}
			return nil
		})
		if err != nil {
			return 0, 0, fmt.Errorf("reading %s: module %s: %w", path, m, err)
		}
	}
	return io, l.RunTime(), nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// writeText prints the comparison.
func (r *verifyReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "Verify: %s, built with %q, %d runs each (medians)\n", strings.Join(r.Command, " "), r.Build, r.Repeat)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tbefore\tafter\tratio\t")
	fmt.Fprintf(tw, "I/O time\t%s\t%s\t%.2f\t\n", seconds(r.Before.IOTime), seconds(r.After.IOTime), r.IOTimeRatio)
	fmt.Fprintf(tw, "wall time\t%s\t%s\t%.2f\t\n", seconds(r.Before.WallTime), seconds(r.After.WallTime), r.WallTimeRatio)
	var names []string
	for n := range r.Before.Counts {
		names = append(names, n)
	}
	for n := range r.After.Counts {
		if _, ok := r.Before.Counts[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		b, a := r.Before.Counts[n], r.After.Counts[n]
		if a != 0 || b != 0 {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t\n", n, b, a, countRatio(a, b))
		}
	}
	tw.Flush()
}

func countRatio(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
