package knowledge

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/iolens/iolens/darshan"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

const (
	// SchemaVersion is the version of the repository schema this package
	// reads and writes, kept in the file's PRAGMA user_version. A file of
	// a newer version is refused.
	SchemaVersion = 1

	// applicationID marks a file as an iolens knowledge repository in its
	// PRAGMA application_id ("iolk").
	applicationID = 0x696f6c6b

	// busyTimeout is how long a repository waits for another process
	// holding its lock.
	busyTimeout = 10 * time.Second

	// sqliteMagic is how an SQLite database file begins.
	sqliteMagic = "SQLite format 3\x00"

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
	path string
	db   *sql.DB
}

// DefaultRepoPath returns the path of the default repository:
// $XDG_DATA_HOME/iolens/knowledge.db, or ~/.local/share/iolens/knowledge.db
// when XDG_DATA_HOME is unset or not an absolute path.
func DefaultRepoPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "iolens", "knowledge.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("default knowledge repository: %w", err)
	}
	return filepath.Join(home, ".local", "share", "iolens", "knowledge.db"), nil
}

// OpenRepo opens the repository at path, creating it (and its missing
// parent directories, with mode 0700; the file with mode 0600) if needed.
// The file is put in WAL mode. A file that is not an SQLite database, an
// SQLite database of another program, or a repository of a newer schema
// version is refused.
func OpenRepo(path string) (*Repo, error) {
	if path == "" {
		return nil, errors.New("open knowledge repository: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open knowledge repository %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open knowledge repository %s: %w", abs, err)
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open knowledge repository %s: %w", abs, err)
	}
	// SQLite takes a file too short for its header for an empty database,
	// and would overwrite it: refuse any file that does not start with the
	// header of an SQLite database.
	var magic [len(sqliteMagic)]byte
	n, err := io.ReadFull(f, magic[:])
	if cerr := f.Close(); err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("open knowledge repository %s: %w", abs, err)
	}
	if n > 0 && string(magic[:n]) != sqliteMagic {
		return nil, fmt.Errorf("open knowledge repository %s: not an SQLite database", abs)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	dsn := (&url.URL{Scheme: "file", Path: abs, OmitHost: true}).String() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open knowledge repository %s: %w", abs, err)
	}
	r := &Repo{path: abs, db: db}
	if err := r.init(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("open knowledge repository %s: %w", abs, err)
	}
	return r, nil
}

// Path returns the absolute path of the repository's file.
func (r *Repo) Path() string { return r.path }

// Close closes the repository.
func (r *Repo) Close() error {
	if err := r.db.Close(); err != nil {
		return fmt.Errorf("close knowledge repository %s: %w", r.path, err)
	}
	return nil
}

// querier is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// versions returns the application id and schema version of the file.
func versions(ctx context.Context, q querier) (appID, version int64, err error) {
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return 0, 0, err
	}
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, 0, err
	}
	return appID, version, nil
}

// check reports whether the file is an iolens repository of the current
// version (true), an empty database to initialise (false), or neither (an
// error).
func check(ctx context.Context, q querier) (bool, error) {
	appID, version, err := versions(ctx, q)
	if err != nil {
		return false, err
	}
	if appID != 0 && appID != applicationID {
		return false, fmt.Errorf("not an iolens knowledge repository (SQLite application id %#x)", appID)
	}
	if version == 0 {
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return false, err
		}
		if n > 0 || appID != 0 {
			return false, errors.New("an SQLite database but not an iolens knowledge repository")
		}
		return false, nil
	}
	if appID != applicationID {
		return false, fmt.Errorf("an SQLite database (user version %d) but not an iolens knowledge repository", version)
	}
	if version > SchemaVersion {
		return false, fmt.Errorf("schema version %d is newer than version %d, the newest this iolens knows: use a newer iolens, or another repository", version, SchemaVersion)
	}
	if version < SchemaVersion {
		return false, fmt.Errorf("schema version %d is unknown", version)
	}
	return true, nil
}

// init checks the file and creates the schema in an empty one.
func (r *Repo) init(ctx context.Context) error {
	// One read transaction, so that both versions come from one state of
	// the file even while another process creates the schema.
	var ok bool
	if err := r.read(ctx, func(tx *sql.Tx) error {
		var err error
		ok, err = check(ctx, tx)
		return err
	}); err != nil {
		return err
	}
	// WAL is a property of the file: this is a no-op after the first time.
	// A file system without shared memory for the WAL index keeps the
	// rollback journal, which is slower but as safe.
	if err := r.enableWAL(ctx); err != nil {
		return fmt.Errorf("enable WAL: %w", err)
	}
	if ok {
		return nil
	}
	return r.immediate(ctx, func(c *sql.Conn) error {
		ok, err := check(ctx, c) // another process may have been first
		if err != nil || ok {
			return err
		}
		for _, s := range schema() {
			if _, err := c.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		return nil
	})
}

// enableWAL puts the file in WAL mode. Changing the journal mode needs the
// file to itself, and SQLite reports a conflict at once rather than wait
// for it as for other locks: retry until the busy timeout.
func (r *Repo) enableWAL(ctx context.Context) error {
	var mode string
	if err := r.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode == "wal" {
		return nil
	}
	deadline := time.Now().Add(busyTimeout)
	wait := time.Millisecond
	for {
		err := r.db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (or
// one of their extended codes).
func isBusy(err error) bool {
	var e interface{ Code() int }
	if !errors.As(err, &e) {
		return false
	}
	code := e.Code() & 0xff
	return code == 5 || code == 6
}

// immediate runs fn in a BEGIN IMMEDIATE transaction: the write lock is
// taken at once (waiting up to the busy timeout for other writers), so
// what fn reads cannot change before it writes.
func (r *Repo) immediate(ctx context.Context, fn func(c *sql.Conn) error) (err error) {
	c, err := r.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer func() {
		if err != nil {
			// A failed statement may have ended the transaction already;
			// the error of ROLLBACK then says so and is of no interest.
			_, _ = c.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	if err := fn(c); err != nil {
		return err
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// read runs fn in a read transaction, which sees one state of the file.
func (r *Repo) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

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
		return fmt.Errorf("knowledge repository %s: learn: empty application name", r.path)
	}
	ps, err := paths(run.Sequences, run.Names)
	if err != nil {
		return fmt.Errorf("knowledge repository %s: learn %q from %q: %w", r.path, app, run.Source, err)
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
	err = r.immediate(ctx, func(c *sql.Conn) error {
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
		return fmt.Errorf("knowledge repository %s: learn %q from %q: %w", r.path, app, run.Source, err)
	}
	return nil
}

// Graph returns the accumulation graph of application app; an application
// the repository does not know is an error wrapping ErrUnknownApp.
func (r *Repo) Graph(app string) (*Graph, error) {
	var g *Graph
	err := r.read(context.Background(), func(tx *sql.Tx) error {
		var err error
		_, g, err = loadGraph(context.Background(), tx, app)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("knowledge repository %s: graph of %q: %w", r.path, app, err)
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
	err := r.read(context.Background(), func(tx *sql.Tx) error {
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
		return nil, fmt.Errorf("knowledge repository %s: list applications: %w", r.path, err)
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
	err := r.read(context.Background(), func(tx *sql.Tx) error {
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
		return nil, fmt.Errorf("knowledge repository %s: runs of %q: %w", r.path, app, err)
	}
	return out, nil
}

// loadGraph reads the graph of app.
func loadGraph(ctx context.Context, q querier, app string) (int64, *Graph, error) {
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

func loadVertices(ctx context.Context, q querier, app int64, g *Graph) error {
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

func loadEdges(ctx context.Context, q querier, app int64, g *Graph) error {
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
func saveGraph(ctx context.Context, q querier, app int64, g *Graph) error {
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
