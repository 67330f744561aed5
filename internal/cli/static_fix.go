package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/iolens/iolens/report"
	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/fix"
)

// fixFlags are the flags of static's patching and verification.
type fixFlags struct {
	fix     bool
	out     string
	verify  bool
	build   string
	repeat  int
	command []string // after --
}

func addFixFlags(fl *pflag.FlagSet, f *fixFlags) {
	fl.BoolVar(&f.fix, "fix", false, "write a unified diff of the fixes to standard output")
	fl.StringVar(&f.out, "fix-out", "", "write the diff of the fixes to FILE (standard output gets a summary)")
	fl.BoolVar(&f.verify, "verify", false, "build and run -- CMD before and after the fixes under the collector and compare their I/O")
	fl.StringVar(&f.build, "build", "", "shell command that builds the program in a copy of the sources (--verify; default make)")
	fl.IntVar(&f.repeat, "repeat", 3, "runs of CMD before and after the fixes (--verify)")
}

// splitDash separates the PATHs from the command after --.
func splitDash(cmd *cobra.Command, args []string) (paths, command []string) {
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		return args[:at], args[at:]
	}
	return args, nil
}

// wanted tells whether static makes fixes instead of its usual report.
func (f *fixFlags) wanted() bool { return f.fix || f.out != "" || f.verify }

// check rejects combinations of flags that do not make sense.
func (f *fixFlags) check() error {
	switch {
	case f.verify && len(f.command) == 0:
		return usagef("--verify needs the command to run after --: iolens static --verify PATH... -- CMD [ARGS...]")
	case !f.verify && len(f.command) > 0:
		return usagef("a command after -- is only run with --verify")
	case !f.verify && f.build != "":
		return usagef("--build is only used with --verify")
	case f.repeat < 1:
		return usagef("--repeat must be at least 1")
	case f.fix && f.out != "":
		return usagef("--fix writes the diff to standard output and --fix-out to a file: give one of them")
	case f.fix && f.verify:
		return usagef("--verify reports on standard output: write the diff with --fix-out FILE instead of --fix")
	}
	return nil
}

// staticFixReport is the JSON of --fix-out and --verify.
type staticFixReport struct {
	Fixes   []fix.Fix     `json:"fixes"`
	Skipped []fix.Skip    `json:"skipped"`
	Verify  *verifyReport `json:"verify,omitempty"`
}

// runStaticFix makes the fixes of an analysis, writes the diff and runs
// the verification.
func runStaticFix(ctx context.Context, e *env, f *staticFlags, paths, files []string, res *static.Result) error {
	if f.fix.fix && f.json {
		return usagef("--fix writes a diff: --json goes with --fix-out FILE or --verify")
	}
	prog, _, err := static.Parse(ctx, files)
	if err != nil {
		return err
	}
	root, err := diffRoot(files)
	if err != nil {
		return err
	}
	p, err := fix.Make(res, prog, fix.Options{Root: root})
	if err != nil {
		return err
	}
	if f.fix.fix {
		return p.WriteDiff(e.stdout)
	}
	if f.fix.out != "" {
		if err := writeDiffFile(f.fix.out, p); err != nil {
			return err
		}
	}
	out := staticFixReport{Fixes: p.Fixes, Skipped: p.Skipped}
	if f.fix.verify {
		if out.Verify, err = verify(ctx, e, &f.fix, paths, p); err != nil {
			return err
		}
	}
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	writeFixText(e.stdout, out)
	return nil
}

// diffRoot is the directory the diff's paths are relative to: the
// current directory when it holds every source, else their deepest
// common directory.
func diffRoot(files []string) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("fix: %w", err)
	}
	common := ""
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return "", fmt.Errorf("fix: %s: %w", f, err)
		}
		dir := filepath.Dir(abs)
		for common != "" && dir != common && !strings.HasPrefix(dir, common+string(filepath.Separator)) {
			common = filepath.Dir(common)
		}
		if common == "" {
			common = dir
		}
	}
	if common == cwd || strings.HasPrefix(common, cwd+string(filepath.Separator)) {
		return cwd, nil
	}
	return common, nil
}

// writeDiffFile writes the diff to path, mode 0644 like a source file.
func writeDiffFile(path string, p *fix.Patch) (err error) {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the diff: %w", err)
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	if err := p.WriteDiff(out); err != nil {
		return fmt.Errorf("writing the diff to %s: %w", path, err)
	}
	return nil
}

// writeFixText prints the fixes, the causes left and the verification.
func writeFixText(w io.Writer, r staticFixReport) {
	fmt.Fprintf(w, "Fixes: %d\n", len(r.Fixes))
	for _, x := range r.Fixes {
		fmt.Fprintf(w, "  %s:%d  %s: %s\n", report.Sanitize(x.File), x.Line, x.Pattern, report.Sanitize(x.Message))
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "Not fixed: %d\n", len(r.Skipped))
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "  %s:%d  %s (%s): %s\n", report.Sanitize(s.File), s.Line, s.Cause, report.Sanitize(s.Routine), report.Sanitize(s.Reason))
		}
	}
	if r.Verify != nil {
		fmt.Fprintln(w)
		r.Verify.writeText(w)
	}
}
