package knowledge

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/sqlitefile"
)

const (
	// SchemaVersion is the version of the repository schema this package
	// reads and writes, kept in the file's PRAGMA user_version. A file of
	// a newer version is refused.
	SchemaVersion = 1

	// applicationID marks a file as an iolens knowledge repository in its
	// PRAGMA application_id ("iolk").
	applicationID = 0x696f6c6b

	// timeLayout is the layout of times in the repository: UTC and of fixed
	// width, so that they sort as text.
	timeLayout = "2006-01-02T15:04:05.000000000Z"
)

// ErrUnknownApp is returned (wrapped) when a repository has no graph for
// an application.
var ErrUnknownApp = errors.New("no such application")

// ErrNoSequences is returned (wrapped) by RunFromLog for a log that has no
// access sequences.
var ErrNoSequences = errors.New("no access sequences (record the run with --learn)")

// schema returns the statements that create the tables of version
// SchemaVersion.
func schema() []string {
	return []string{
		`CREATE TABLE apps (
		id   INTEGER PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		runs INTEGER NOT NULL DEFAULT 0 CHECK (runs >= 0)
	)`,
		`CREATE TABLE vertices (
		app        INTEGER NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
		id         INTEGER NOT NULL CHECK (id >= 0),
		object     TEXT    NOT NULL,
		module     INTEGER NOT NULL,
		op         INTEGER NOT NULL,
		sel_start  TEXT    NOT NULL, -- JSON array of integers
		sel_count  TEXT    NOT NULL, -- JSON array of integers
		ext_offset INTEGER NOT NULL,
		ext_length INTEGER NOT NULL,
		visits     INTEGER NOT NULL,
		bytes      INTEGER NOT NULL,
		seconds    REAL    NOT NULL,
		extents    TEXT    NOT NULL, -- JSON array of {file, offset, length}
		truncated  INTEGER NOT NULL,
		PRIMARY KEY (app, id)
	) WITHOUT ROWID`,
		`CREATE TABLE edges (
		app      INTEGER NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
		id       INTEGER NOT NULL CHECK (id >= 0),
		src      INTEGER NOT NULL,
		dst      INTEGER NOT NULL,
		visits   INTEGER NOT NULL,
		gap      REAL    NOT NULL,
		last_run INTEGER NOT NULL,
		PRIMARY KEY (app, id),
		UNIQUE (app, src, dst),
		FOREIGN KEY (app, src) REFERENCES vertices (app, id) ON DELETE CASCADE,
		FOREIGN KEY (app, dst) REFERENCES vertices (app, id) ON DELETE CASCADE
	) WITHOUT ROWID`,
		`CREATE TABLE runs (
		app      INTEGER NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
		run      INTEGER NOT NULL,
		source   TEXT    NOT NULL,
		learned  TEXT    NOT NULL, -- UTC, ` + timeLayout + `
		ranks    INTEGER NOT NULL,
		partial  INTEGER NOT NULL,
		accesses INTEGER NOT NULL,
		PRIMARY KEY (app, run)
	) WITHOUT ROWID`,
	}
}

// Repo is a knowledge repository: the accumulation graphs of any number of
// applications in one SQLite file, which several processes may use at
// once. A Repo is safe for concurrent use.
type Repo struct {
	db *sqlitefile.DB
}

// repoKind describes the repository's file.
var repoKind = sqlitefile.Kind{What: "knowledge repository", ApplicationID: applicationID, Version: SchemaVersion}

// DefaultRepoPath returns the path of the default repository:
// $XDG_DATA_HOME/iolens/knowledge.db, or ~/.local/share/iolens/knowledge.db
// when XDG_DATA_HOME is unset or not an absolute path.
func DefaultRepoPath() (string, error) {
	p, err := sqlitefile.DataPath("knowledge.db")
	if err != nil {
		return "", fmt.Errorf("default knowledge repository: %w", err)
	}
	return p, nil
}

// OpenRepo opens the repository at path, creating it (and its missing
// parent directories, with mode 0700; the file with mode 0600) if needed.
// The file is put in WAL mode. A file that is not an SQLite database, an
// SQLite database of another program, or a repository of a newer schema
// version is refused.
func OpenRepo(path string) (*Repo, error) {
	k := repoKind
	k.Schema = schema()
	db, err := sqlitefile.Open(path, k)
	if err != nil {
		return nil, err
	}
	return &Repo{db: db}, nil
}

// Path returns the absolute path of the repository's file.
func (r *Repo) Path() string { return r.db.Path() }

// Close closes the repository.
func (r *Repo) Close() error { return r.db.Close() }

// Run is one run of an application, as Learn takes it.
type Run struct {
	// Source names where the run comes from, such as the path of its log.
	Source string
	// Sequences are the run's access sequences, one per rank.
	Sequences []darshan.AccessSequence
	// Names gives the names of the run's records (nil if none are known).
	Names func(id uint64) (string, bool)
	// Time is when the run is learned; the zero time means now.
	Time time.Time
}

// RunFromLog returns the run recorded in log l, with its access sequences
// and record names; a log without access sequences is an error wrapping
// ErrNoSequences.
func RunFromLog(l *darshan.Log) (Run, error) {
	seqs, err := l.AccessSequences()
	if err != nil {
		return Run{}, fmt.Errorf("run of %s: %w", l.Name, err)
	}
	if len(seqs) == 0 {
		return Run{}, fmt.Errorf("run of %s: %w", l.Name, ErrNoSequences)
	}
	return Run{Source: l.Name, Sequences: seqs, Names: l.RecordName}, nil
}

// Learn adds run to the graph of application app (creating it), and
// records the run. The graph is loaded, extended and saved in one
// transaction that holds the repository's write lock throughout, so that
// several processes learning at once each add their run.
func (r *Repo) Learn(app string, run Run) error {
	if app == "" {
		return fmt.Errorf("knowledge repository %s: learn: empty application name", r.db.Path())
	}
	ps, err := paths(run.Sequences, run.Names)
	if err != nil {
		return fmt.Errorf("knowledge repository %s: learn %q from %q: %w", r.db.Path(), app, run.Source, err)
	}
	when := run.Time
	if when.IsZero() {
		when = time.Now()
	}
	var accesses, partial int
	for i := range run.Sequences {
		accesses += len(run.Sequences[i].Accesses)
		if run.Sequences[i].Partial {
			partial++
		}
	}
	ctx := context.Background()
	err = r.db.Write(ctx, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, "INSERT INTO apps (name) VALUES (?) ON CONFLICT (name) DO NOTHING", app); err != nil {
			return err
		}
		id, g, err := loadGraph(ctx, c, app)
		if err != nil {
			return err
		}
		g.apply(ps)
		if err := saveGraph(ctx, c, id, g); err != nil {
			return err
		}
		_, err = c.ExecContext(ctx, "INSERT INTO runs (app, run, source, learned, ranks, partial, accesses) VALUES (?, ?, ?, ?, ?, ?, ?)",
			id, g.Runs, run.Source, when.UTC().Format(timeLayout), len(run.Sequences), partial, accesses)
		return err
	})
	if err != nil {
		return fmt.Errorf("knowledge repository %s: learn %q from %q: %w", r.db.Path(), app, run.Source, err)
	}
	return nil
}

// Graph returns the accumulation graph of application app; an application
// the repository does not know is an error wrapping ErrUnknownApp.
func (r *Repo) Graph(app string) (*Graph, error) {
	var g *Graph
	err := r.db.Read(context.Background(), func(tx *sql.Tx) error {
		var err error
		_, g, err = loadGraph(context.Background(), tx, app)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("knowledge repository %s: graph of %q: %w", r.db.Path(), app, err)
	}
	return g, nil
}

// AppSummary describes the graph of one application in a repository.
type AppSummary struct {
	// Name is the application's name, as given to Learn.
	Name string
	// Runs is the number of runs learned.
	Runs int64
	// Vertices and Edges are the size of the graph.
	Vertices, Edges int
	// LastLearned is when the last run was learned (zero if none was).
	LastLearned time.Time
}

// Apps returns the applications of the repository, by name.
func (r *Repo) Apps() ([]AppSummary, error) {
	var out []AppSummary
	err := r.db.Read(context.Background(), func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT a.name, a.runs,
			(SELECT count(*) FROM vertices v WHERE v.app = a.id),
			(SELECT count(*) FROM edges e WHERE e.app = a.id),
			(SELECT coalesce(max(learned), '') FROM runs r WHERE r.app = a.id)
			FROM apps a ORDER BY a.name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s AppSummary
			var learned string
			if err := rows.Scan(&s.Name, &s.Runs, &s.Vertices, &s.Edges, &learned); err != nil {
				return err
			}
			if learned != "" {
				if s.LastLearned, err = time.Parse(timeLayout, learned); err != nil {
					return fmt.Errorf("application %q: learned time: %w", s.Name, err)
				}
			}
			out = append(out, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("knowledge repository %s: list applications: %w", r.db.Path(), err)
	}
	return out, nil
}

// RunInfo describes one learned run.
type RunInfo struct {
	// Run is the run's number in its application's graph, from 1.
	Run int64
	// Source is Run.Source.
	Source string
	// Learned is when the run was learned.
	Learned time.Time
	// Ranks is the number of access sequences, PartialRanks how many of
	// them were cut short, and Accesses the number of accesses in all.
	Ranks, PartialRanks, Accesses int
}

// Runs returns the runs learned for application app, in order; an
// application the repository does not know is an error wrapping
// ErrUnknownApp.
func (r *Repo) Runs(app string) ([]RunInfo, error) {
	var out []RunInfo
	err := r.db.Read(context.Background(), func(tx *sql.Tx) error {
		var id int64
		if err := tx.QueryRow("SELECT id FROM apps WHERE name = ?", app).Scan(&id); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrUnknownApp
			}
			return err
		}
		rows, err := tx.Query("SELECT run, source, learned, ranks, partial, accesses FROM runs WHERE app = ? ORDER BY run", id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ri RunInfo
			var learned string
			if err := rows.Scan(&ri.Run, &ri.Source, &learned, &ri.Ranks, &ri.PartialRanks, &ri.Accesses); err != nil {
				return err
			}
			if ri.Learned, err = time.Parse(timeLayout, learned); err != nil {
				return fmt.Errorf("run %d: learned time: %w", ri.Run, err)
			}
			out = append(out, ri)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("knowledge repository %s: runs of %q: %w", r.db.Path(), app, err)
	}
	return out, nil
}

// loadGraph reads the graph of app.
func loadGraph(ctx context.Context, q sqlitefile.Querier, app string) (int64, *Graph, error) {
	var id int64
	g := &Graph{}
	if err := q.QueryRowContext(ctx, "SELECT id, runs FROM apps WHERE name = ?", app).Scan(&id, &g.Runs); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil, ErrUnknownApp
		}
		return 0, nil, err
	}
	if err := loadVertices(ctx, q, id, g); err != nil {
		return 0, nil, err
	}
	if err := loadEdges(ctx, q, id, g); err != nil {
		return 0, nil, err
	}
	g.touchedV, g.touchedE = make(map[int]bool), make(map[int]bool)
	g.index()
	if len(g.byKey) != len(g.Vertices) {
		return 0, nil, errors.New("corrupt graph: two vertices have the same key")
	}
	return id, g, nil
}

func loadVertices(ctx context.Context, q sqlitefile.Querier, app int64, g *Graph) error {
	rows, err := q.QueryContext(ctx, `SELECT id, object, module, op, sel_start, sel_count, ext_offset, ext_length,
		visits, bytes, seconds, extents, truncated FROM vertices WHERE app = ? ORDER BY id`, app)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var v Vertex
		var start, count, extents string
		var op int64
		if err := rows.Scan(&v.ID, &v.Object, &v.Module, &op, &start, &count, &v.Offset, &v.Length,
			&v.Visits, &v.Bytes, &v.Time, &extents, &v.Truncated); err != nil {
			return fmt.Errorf("vertex %d: %w", len(g.Vertices), err)
		}
		if v.ID != len(g.Vertices) {
			return fmt.Errorf("corrupt graph: vertex %d where vertex %d should be", v.ID, len(g.Vertices))
		}
		if op != int64(darshan.OpRead) && op != int64(darshan.OpWrite) {
			return fmt.Errorf("corrupt graph: vertex %d: operation %d is neither read nor write", v.ID, op)
		}
		v.Op = darshan.Op(op)
		if err := unmarshalList(start, &v.Start); err != nil {
			return fmt.Errorf("corrupt graph: vertex %d: selection start: %w", v.ID, err)
		}
		if err := unmarshalList(count, &v.Count); err != nil {
			return fmt.Errorf("corrupt graph: vertex %d: selection count: %w", v.ID, err)
		}
		if err := unmarshalList(extents, &v.Extents); err != nil {
			return fmt.Errorf("corrupt graph: vertex %d: extents: %w", v.ID, err)
		}
		g.Vertices = append(g.Vertices, v)
	}
	return rows.Err()
}

func loadEdges(ctx context.Context, q sqlitefile.Querier, app int64, g *Graph) error {
	rows, err := q.QueryContext(ctx, "SELECT id, src, dst, visits, gap, last_run FROM edges WHERE app = ? ORDER BY id", app)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var e Edge
		if err := rows.Scan(&id, &e.From, &e.To, &e.Count, &e.Gap, &e.LastRun); err != nil {
			return fmt.Errorf("edge %d: %w", len(g.Edges), err)
		}
		if id != len(g.Edges) {
			return fmt.Errorf("corrupt graph: edge %d where edge %d should be", id, len(g.Edges))
		}
		if e.From < 0 || e.From >= len(g.Vertices) || e.To < 0 || e.To >= len(g.Vertices) {
			return fmt.Errorf("corrupt graph: edge %d joins %d and %d, not both vertices", id, e.From, e.To)
		}
		g.Edges = append(g.Edges, e)
	}
	return rows.Err()
}

// unmarshalList decodes a JSON array into *x, leaving nil for an empty one.
func unmarshalList[T any](s string, x *[]T) error {
	if err := json.Unmarshal([]byte(s), x); err != nil {
		return err
	}
	if len(*x) == 0 {
		*x = nil
	}
	return nil
}

// marshalList encodes x as a JSON array ("[]" when empty).
func marshalList[T any](x []T) (string, error) {
	if len(x) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(x)
	return string(b), err
}

// saveGraph writes the runs count and the vertices and edges changed since
// g was loaded, and marks them saved.
func saveGraph(ctx context.Context, q sqlitefile.Querier, app int64, g *Graph) error {
	if _, err := q.ExecContext(ctx, "UPDATE apps SET runs = ? WHERE id = ?", g.Runs, app); err != nil {
		return err
	}
	vs, err := q.PrepareContext(ctx, `INSERT INTO vertices (app, id, object, module, op, sel_start, sel_count,
		ext_offset, ext_length, visits, bytes, seconds, extents, truncated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (app, id) DO UPDATE SET visits = excluded.visits, bytes = excluded.bytes,
		seconds = excluded.seconds, extents = excluded.extents, truncated = excluded.truncated`)
	if err != nil {
		return err
	}
	defer vs.Close()
	for _, id := range sortedKeys(g.touchedV) {
		v := &g.Vertices[id]
		start, err := marshalList(v.Start)
		if err != nil {
			return fmt.Errorf("vertex %d: %w", id, err)
		}
		count, err := marshalList(v.Count)
		if err != nil {
			return fmt.Errorf("vertex %d: %w", id, err)
		}
		extents, err := marshalList(v.Extents)
		if err != nil {
			return fmt.Errorf("vertex %d: %w", id, err)
		}
		if _, err := vs.ExecContext(ctx, app, id, v.Object, int64(v.Module), int64(v.Op), start, count,
			v.Offset, v.Length, v.Visits, v.Bytes, v.Time, extents, v.Truncated); err != nil {
			return fmt.Errorf("vertex %d: %w", id, err)
		}
	}
	es, err := q.PrepareContext(ctx, `INSERT INTO edges (app, id, src, dst, visits, gap, last_run)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (app, id) DO UPDATE SET visits = excluded.visits, gap = excluded.gap, last_run = excluded.last_run`)
	if err != nil {
		return err
	}
	defer es.Close()
	for _, id := range sortedKeys(g.touchedE) {
		e := &g.Edges[id]
		if _, err := es.ExecContext(ctx, app, id, e.From, e.To, e.Count, e.Gap, e.LastRun); err != nil {
			return fmt.Errorf("edge %d: %w", id, err)
		}
	}
	clear(g.touchedV)
	clear(g.touchedE)
	return nil
}

func sortedKeys(m map[int]bool) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
