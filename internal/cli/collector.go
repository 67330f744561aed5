package cli

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/iolens/iolens/collector"
	"github.com/spf13/cobra"
)

// collectorSources are the C sources the collector commands build; nil
// means the sources embedded in iolens. Tests replace them.
var collectorSources fs.FS

// collectorFlags are the flags of "collector build" and "collector path".
type collectorFlags struct {
	mpicc string
	mpi   string
}

func newCollectorCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "collector",
		Short: "Build the preload library that records the I/O of a program",
		Long: `The collector is a shared library that records the I/O of a program when
it is preloaded (LD_PRELOAD). iolens carries its C sources and compiles it
on first use, with cc ($CC) for programs without MPI or with the mpicc of
the MPI the program uses, into a per-user cache ($IOLENS_CACHE_DIR, by
default iolens/collector in the user's cache directory). One library is
kept per source version and compiler.`,
		Example: `  iolens collector path
  LD_PRELOAD=$(iolens collector path --mpi openmpi) mpiexec -n 4 ./app`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					msg += fmt.Sprintf(" (did you mean %q?)", s[0])
				}
				return usagef("%s", msg)
			}
			cmd.SetOut(e.stderr)
			_ = cmd.Help()
			return usagef("no collector command given")
		},
	}
	cmd.AddCommand(newCollectorBuildCmd(e), newCollectorPathCmd(e))
	return cmd
}

func addCollectorFlags(cmd *cobra.Command, f *collectorFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.mpicc, "mpicc", "", "build with this MPI compiler wrapper (path or name in PATH)")
	fl.StringVar(&f.mpi, "mpi", "", `build for this MPI: "openmpi" or "mpich" (its mpicc is $IOLENS_MPICC, mpicc.FLAVOR or mpicc)`)
}

func newCollectorBuildCmd(e *env) *cobra.Command {
	var f collectorFlags
	cmd := &cobra.Command{
		Use:   "build [--mpicc PATH | --mpi FLAVOR]",
		Short: "Build the collector library and print its path",
		Long: `Build compiles the collector library unless the cache already holds it,
and prints its path. Without flags the library has no MPI support and
suits any program that does not use MPI. With --mpicc (or --mpi) it is
compiled with that MPI compiler wrapper and also records MPI-IO; it still
loads into programs without MPI (such as mpiexec itself). The compiler's
diagnostics are printed on standard error.`,
		Example: `  iolens collector build
  iolens collector build --mpicc mpicc.mpich
  iolens collector build --mpi openmpi`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCollectorPath(cmd, e, &f)
		},
	}
	addCollectorFlags(cmd, &f)
	return cmd
}

func newCollectorPathCmd(e *env) *cobra.Command {
	var f collectorFlags
	cmd := &cobra.Command{
		Use:   "path [--mpicc PATH | --mpi FLAVOR]",
		Short: "Print the path of the collector library, building it if needed",
		Long: `Path prints the path of the collector library for the given compiler,
building it first when the cache does not hold it, so that its output can
always be given to LD_PRELOAD. The flags are those of "iolens collector
build".`,
		Example: `  LD_PRELOAD=$(iolens collector path) ./app
  LD_PRELOAD=$(iolens collector path --mpicc mpicc.mpich) mpiexec.mpich -n 4 ./app
  mpiexec -n 4 -x LD_PRELOAD=$(iolens collector path --mpi openmpi) ./app`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCollectorPath(cmd, e, &f)
		},
	}
	addCollectorFlags(cmd, &f)
	return cmd
}

// runCollectorPath builds the library if needed and prints its path.
func runCollectorPath(cmd *cobra.Command, e *env, f *collectorFlags) error {
	mpicc, err := f.resolve()
	if err != nil {
		return err
	}
	// An interrupt stops the compilers and removes the partial build.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lib, err := collector.Library(ctx, collector.BuildOptions{
		MPICC:   mpicc,
		Sources: collectorSources,
		Stderr:  e.stderr,
		Notice:  e.stderr,
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, lib)
	return err
}

// resolve returns the mpicc the flags select ("" for none).
func (f *collectorFlags) resolve() (string, error) {
	switch {
	case f.mpicc != "" && f.mpi != "":
		return "", usagef("--mpicc and --mpi cannot be combined")
	case f.mpicc != "":
		if _, err := exec.LookPath(f.mpicc); err != nil {
			return "", usagef("--mpicc: %v", err)
		}
		return f.mpicc, nil
	case f.mpi != "":
		if f.mpi != collector.FlavorOpenMPI && f.mpi != collector.FlavorMPICH {
			return "", usagef("--mpi: unknown MPI %q (want %s or %s)", f.mpi, collector.FlavorOpenMPI, collector.FlavorMPICH)
		}
		return collector.MPICCFor(f.mpi)
	}
	return "", nil
}
