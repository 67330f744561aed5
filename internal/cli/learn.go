package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/progress"
	"github.com/iolens/iolens/knowledge"
	"github.com/iolens/iolens/report"
)

// learnFlags are the flags every learn command has.
type learnFlags struct {
	app, repo string
}

func (f *learnFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.app, "app", "", "application name (default $IOLENS_APP, else the one the log names: its IOLENS_APP or executable)")
	cmd.Flags().StringVar(&f.repo, "repo", "", "knowledge repository (default $IOLENS_REPO, else ~/.local/share/iolens/knowledge.db)")
}

// open opens the repository the flags name.
func (f *learnFlags) open() (*knowledge.Repo, error) {
	path, err := stateFile(f.repo, "IOLENS_REPO", knowledge.DefaultRepoPath)
	if err != nil {
		return nil, err
	}
	return knowledge.OpenRepo(path)
}

// stateFile returns the path of a file of iolens's state (a repository, a
// history): flag when given, else the environment variable env, else the
// default path.
func stateFile(flag, env string, def func() (string, error)) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if p := os.Getenv(env); p != "" {
		return p, nil
	}
	return def()
}

// appName returns the application name a command works on: --app, else
// $IOLENS_APP, else the application the log names (l may be nil).
func (f *learnFlags) appName(l *darshan.Log) string {
	if f.app != "" {
		return f.app
	}
	if a := os.Getenv("IOLENS_APP"); a != "" {
		return a
	}
	if l == nil {
		return ""
	}
	return logApp(l)
}

// logApp returns the application of a log: the app= entry of its metadata
// (IOLENS_APP at run time), else the base name of its executable.
func logApp(l *darshan.Log) string {
	for _, p := range l.Job.MetadataPairs() {
		if p.Key == "app" && p.Value != "" {
			return p.Value
		}
	}
	exe, _, _ := strings.Cut(strings.TrimSpace(l.Exe), " ")
	return filepath.Base(exe)
}

func newLearnCmd(e *env) *cobra.Command {
	var f learnFlags
	cmd := &cobra.Command{
		Use:   "learn [--app NAME] [--repo FILE] LOG...",
		Short: "Accumulate the access patterns of runs into the application's knowledge graph",
		Long: `Learn adds the access sequences of runs recorded with "iolens run --learn"
(or --prefetch) to the accumulation graph of their application, in the
knowledge repository: one vertex per distinct access (a PnetCDF variable or
HDF5 dataset and the bounding box of its selection, or a POSIX extent), one
edge per "visited next", counted over runs and ranks. File names are
generalised (digits become #, then the order of first use), so runs on
other dates or steps share the graph. Learning the same run twice changes
counts, not shape; a run that goes another way adds a branch.

The application is --app, else $IOLENS_APP, else what the log says
(IOLENS_APP at run time, else the executable's name). The repository is one
SQLite file (--repo, else $IOLENS_REPO, else
~/.local/share/iolens/knowledge.db); several runs may learn at once.`,
		Example: `  iolens run --learn -- mpiexec -n 4 ./pgea in/*.nc out.nc
  iolens learn *_pgea_id*.darshan
  iolens learn show --app pgea
  iolens run --prefetch -- mpiexec -n 4 ./pgea in/*.nc out.nc`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("missing LOG (iolens learn [--app NAME] [--repo FILE] LOG...)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := f.open()
			if err != nil {
				return err
			}
			defer repo.Close()
			learned := 0
			bar := progress.New(e.stderr, int64(len(args)), "learning", progress.Count("logs"))
			defer bar.Done()
			for _, path := range args {
				app, n, err := learnLog(repo, &f, path)
				bar.Add(1)
				if errors.Is(err, knowledge.ErrNoSequences) {
					// e.g. the log of mpiexec beside the job's.
					fmt.Fprintf(e.stderr, "iolens: skipped %s: no access sequences (recorded without --learn?)\n", report.Sanitize(path))
					continue
				}
				if err != nil {
					return err
				}
				learned++
				fmt.Fprintf(e.stdout, "%s: %d accesses learned into %s\n", report.Sanitize(path), n, report.Sanitize(app))
			}
			if learned == 0 {
				return errors.New("no log had access sequences: record runs with iolens run --learn")
			}
			return nil
		},
	}
	f.add(cmd)
	cmd.AddCommand(newLearnShowCmd(e), newLearnEvalCmd(e))
	return cmd
}

// learnLog accumulates the log at path and returns the application and the
// number of accesses learned.
func learnLog(repo *knowledge.Repo, f *learnFlags, path string) (string, int, error) {
	l, err := darshan.OpenFile(path)
	if err != nil {
		return "", 0, err
	}
	defer l.Close()
	run, err := knowledge.RunFromLog(l)
	if errors.Is(err, knowledge.ErrNoSequences) {
		return "", 0, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return "", 0, err
	}
	app := f.appName(l)
	if err := repo.Learn(app, run); err != nil {
		return "", 0, err
	}
	n := 0
	for _, s := range run.Sequences {
		n += len(s.Accesses)
	}
	return app, n, nil
}

func newLearnShowCmd(e *env) *cobra.Command {
	var f learnFlags
	var asJSON bool
	var html string
	cmd := &cobra.Command{
		Use:   "show [--app NAME] [--repo FILE] [--json | --html FILE]",
		Short: "Show an application's knowledge graph, or list the applications",
		Long: `Show prints the accumulation graph of an application: its accesses
(vertices) with their regions, visits, bytes and time, and what follows
each (edges) with counts and the mean idle time between, marking the
branch points. Without --app and $IOLENS_APP it lists the applications of
the repository. --json writes the graph as JSON; --html writes an offline
page with the graph drawn.`,
		Example: `  iolens learn show
  iolens learn show --app pgea
  iolens learn show --app pgea --html pgea-graph.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && html != "" {
				return usagef("--json and --html cannot be combined")
			}
			repo, err := f.open()
			if err != nil {
				return err
			}
			defer repo.Close()
			app := f.appName(nil)
			if app == "" {
				return listApps(e.stdout, repo, asJSON)
			}
			g, err := repo.Graph(app)
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(graphJSON(app, g))
			case html != "":
				return writeAtomically(html, 0o644, func(out *os.File) error {
					bw := bufio.NewWriter(out)
					if err := report.GraphHTML(bw, graphView(app, g)); err != nil {
						return err
					}
					return bw.Flush()
				})
			}
			return printGraph(e.stdout, app, g)
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON")
	cmd.Flags().StringVar(&html, "html", "", "write an offline HTML page of the graph to FILE")
	return cmd
}

func listApps(w io.Writer, repo *knowledge.Repo, asJSON bool) error {
	apps, err := repo.Apps()
	if err != nil {
		return err
	}
	if asJSON {
		if apps == nil {
			apps = []knowledge.AppSummary{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(apps)
	}
	if len(apps) == 0 {
		_, err := fmt.Fprintf(w, "%s: no application learned yet\n", repo.Path())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "application\truns\taccesses\tedges\tlast learned")
	for _, a := range apps {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", report.Sanitize(a.Name), a.Runs, a.Vertices, a.Edges, a.LastLearned.Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// graphDoc is the JSON form of a graph.
type graphDoc struct {
	App      string         `json:"app"`
	Runs     int64          `json:"runs"`
	Vertices []vertexDoc    `json:"vertices"`
	Edges    []edgeDoc      `json:"edges"`
	Branches map[string]int `json:"branch_points"`
}

type vertexDoc struct {
	ID        int                `json:"id"`
	Key       string             `json:"key"`
	Object    string             `json:"object"`
	Module    string             `json:"module"`
	Op        string             `json:"op"`
	Start     []int64            `json:"start,omitempty"`
	Count     []int64            `json:"count,omitempty"`
	Offset    int64              `json:"offset"`
	Length    int64              `json:"length"`
	Visits    int64              `json:"visits"`
	Bytes     int64              `json:"bytes"`
	Time      float64            `json:"time_s"`
	Extents   []knowledge.Extent `json:"extents,omitempty"`
	Truncated bool               `json:"extents_truncated,omitempty"`
}

type edgeDoc struct {
	From    int     `json:"from"`
	To      int     `json:"to"`
	Count   int64   `json:"count"`
	MeanGap float64 `json:"mean_gap_s"`
	LastRun int64   `json:"last_run"`
}

func graphJSON(app string, g *knowledge.Graph) graphDoc {
	d := graphDoc{App: app, Runs: g.Runs, Vertices: []vertexDoc{}, Edges: []edgeDoc{}, Branches: map[string]int{}}
	for _, v := range g.Vertices {
		d.Vertices = append(d.Vertices, vertexDoc{
			ID: v.ID, Key: v.String(), Object: v.Object, Module: v.Module.String(), Op: v.Op.String(),
			Start: v.Start, Count: v.Count, Offset: v.Offset, Length: v.Length,
			Visits: v.Visits, Bytes: v.Bytes, Time: v.Time, Extents: v.Extents, Truncated: v.Truncated,
		})
		if out := g.Out(v.ID); len(out) > 1 {
			d.Branches[fmt.Sprint(v.ID)] = len(out)
		}
	}
	for _, e := range g.Edges {
		d.Edges = append(d.Edges, edgeDoc{From: e.From, To: e.To, Count: e.Count, MeanGap: e.MeanGap(), LastRun: e.LastRun})
	}
	return d
}

// graphView is what the HTML page draws of g.
func graphView(app string, g *knowledge.Graph) report.GraphView {
	v := report.GraphView{App: app, Runs: g.Runs}
	for _, x := range g.Vertices {
		v.Nodes = append(v.Nodes, report.GraphNode{ID: x.ID, Label: x.String(), Write: x.Op == darshan.OpWrite,
			Visits: x.Visits, Bytes: x.Bytes, Time: x.Time})
	}
	for _, e := range g.Edges {
		v.Links = append(v.Links, report.GraphLink{From: e.From, To: e.To, Count: e.Count, MeanGap: e.MeanGap()})
	}
	return v
}

// printGraph prints the graph as text: each vertex, then what follows it.
func printGraph(w io.Writer, app string, g *knowledge.Graph) error {
	fmt.Fprintf(w, "application %s: %d runs, %d accesses, %d edges\n\n", report.Sanitize(app), g.Runs, len(g.Vertices), len(g.Edges))
	for _, v := range g.Vertices {
		out := g.Out(v.ID)
		mark := ""
		if len(out) > 1 {
			mark = fmt.Sprintf("  [branch point: %d ways]", len(out))
		}
		fmt.Fprintf(w, "#%d %s%s\n", v.ID, report.Sanitize(v.String()), mark)
		fmt.Fprintf(w, "    visits %d, %s, %.6f s\n", v.Visits, report.Bytes(v.Bytes), v.Time)
		if v.Module != darshan.ModPOSIX && len(v.Extents) > 0 {
			var total int64
			for _, x := range v.Extents {
				total += x.Length
			}
			more := ""
			if v.Truncated {
				more = " (more not kept)"
			}
			fmt.Fprintf(w, "    %d file extents, %s%s\n", len(v.Extents), report.Bytes(total), more)
		}
		for _, e := range out {
			fmt.Fprintf(w, "    -> #%d  %d times, mean gap %.6f s\n", e.To, e.Count, e.MeanGap())
		}
	}
	return nil
}

func newLearnEvalCmd(e *env) *cobra.Command {
	var f learnFlags
	var depth int
	cmd := &cobra.Command{
		Use:   "eval [--app NAME] [--repo FILE] [-k N] LOG...",
		Short: "Score the graph's predictions on runs it did not learn from",
		Long: `Eval replays the access sequences of LOGs (runs the graph has not learned)
through the prediction of the application's graph and prints, per log,
the share of accesses whose next access was predicted first (depth 1),
and the share of the next k accesses among the k predicted (depth k).`,
		Example: `  iolens learn eval --app pgea -k 4 held-back.darshan`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("missing LOG (iolens learn eval [--app NAME] [--repo FILE] [-k N] LOG...)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if depth < 1 {
				return usagef("-k must be at least 1")
			}
			repo, err := f.open()
			if err != nil {
				return err
			}
			defer repo.Close()
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "log\tapplication\taccesses\tunknown\tdepth 1\tdepth %d\n", depth)
			for _, path := range args {
				l, err := darshan.OpenFile(path)
				if err != nil {
					return err
				}
				run, err := knowledge.RunFromLog(l)
				l.Close()
				if err != nil {
					return err
				}
				app := f.appName(l)
				g, err := repo.Graph(app)
				if err != nil {
					return err
				}
				acc, err := knowledge.Evaluate(g, run.Sequences, run.Names, depth)
				if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f%%\t%.1f%%\n", report.Sanitize(path), report.Sanitize(app),
					acc.Accesses, acc.Unknown, 100*acc.Depth1(), 100*acc.DepthK())
			}
			return tw.Flush()
		},
	}
	f.add(cmd)
	cmd.Flags().IntVarP(&depth, "depth", "k", 4, "prediction depth scored")
	return cmd
}

// writePlans writes into dir the prefetch plan of every application of the
// repository named in argv (or only of app when set), as NAME.plan, and
// returns the applications planned.
func writePlans(repo *knowledge.Repo, dir, app string, argv []string) ([]string, error) {
	var apps []string
	if app != "" {
		apps = []string{app}
	} else {
		known, err := repo.Apps()
		if err != nil {
			return nil, err
		}
		for _, a := range known {
			for _, arg := range argv {
				if filepath.Base(arg) == a.Name && !slices.Contains(apps, a.Name) {
					apps = append(apps, a.Name)
				}
			}
		}
	}
	var planned []string
	for _, a := range apps {
		g, err := repo.Graph(a)
		if errors.Is(err, knowledge.ErrUnknownApp) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(a, "/\x00") {
			return nil, fmt.Errorf("application name %q cannot name a plan file", a)
		}
		err = writeAtomically(filepath.Join(dir, a+".plan"), 0o600, func(out *os.File) error {
			return knowledge.WritePlan(out, g, knowledge.PlanOptions{})
		})
		if err != nil {
			return nil, err
		}
		planned = append(planned, a)
	}
	return planned, nil
}
