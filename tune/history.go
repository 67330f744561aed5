package tune

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

const (
	// HistorySchemaVersion is the version of the history schema this
	// package reads and writes, kept in the file's PRAGMA user_version.
	HistorySchemaVersion = 1

	// historyAppID marks a file as an iolens tuning history in its PRAGMA
	// application_id ("iolt").
	historyAppID = 0x696f6c74

	// historyBusyTimeout is how long a history waits for another process
	// holding its lock.
	historyBusyTimeout = 10 * time.Second

	// sqliteHeader is how an SQLite database file begins.
	sqliteHeader = "SQLite format 3\x00"

	// historyTime is the layout of times in the history: UTC, fixed width,
	// so that they sort as text.
	historyTime = "2006-01-02T15:04:05.000000000Z"
)

// ErrNoSession is returned (wrapped) for a session the history does not
// have.
var ErrNoSession = errors.New("no such session")

// historySchema returns the statements that create the tables.
func historySchema() []string {
	return []string{
		`CREATE TABLE sessions (
		id       INTEGER PRIMARY KEY,
		app      TEXT NOT NULL,
		command  TEXT NOT NULL,
		space    TEXT NOT NULL, -- the space as TOML (Space.Format)
		strategy TEXT NOT NULL,
		started  TEXT NOT NULL, -- UTC, ` + historyTime + `
		finished TEXT           -- NULL while unfinished
	)`,
		`CREATE INDEX sessions_app ON sessions (app, id)`,
		`CREATE TABLE trials (
		session   INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		seq       INTEGER NOT NULL CHECK (seq >= 1),
		config    TEXT    NOT NULL, -- JSON object name -> value
		key       TEXT    NOT NULL, -- Config.Key
		objective REAL,             -- NULL when failed
		status    TEXT    NOT NULL CHECK (status IN ('ok', 'failed')),
		error     TEXT    NOT NULL,
		log       TEXT    NOT NULL,
		wall      REAL    NOT NULL, -- seconds
		recorded  TEXT    NOT NULL,
		PRIMARY KEY (session, seq)
	) WITHOUT ROWID`,
		`CREATE TABLE models (
		session        INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		seq            INTEGER NOT NULL CHECK (seq >= 1),
		terms          TEXT    NOT NULL, -- JSON of the model (Model.MarshalJSON)
		relative_error REAL    NOT NULL,
		recorded       TEXT    NOT NULL,
		PRIMARY KEY (session, seq)
	) WITHOUT ROWID`,
	}
}

// History is a tuning history: sessions, their trials and models, in one
// SQLite file that several processes may use at once. A History is safe
// for concurrent use.
type History struct {
	path string
	db   *sql.DB
}

// Session is a tuning session.
type Session struct {
	// ID identifies the session in its history.
	ID int64
	// App names the application tuned.
	App string
	// Command is the command line of the runs.
	Command string
	// Space is the space searched, as TOML (Space.Format).
	Space string
	// Strategy names the strategy and its settings.
	Strategy string
	// Started is when the session began.
	Started time.Time
	// Finished is when the session ended, zero while it has not.
	Finished time.Time
}

// Trial is a trial recorded in a history.
type Trial struct {
	Result
	// Session is the session of the trial.
	Session int64
	// Seq numbers the trials of a session from 1, in the order recorded.
	Seq int
	// Recorded is when the trial was recorded.
	Recorded time.Time
}

// DefaultHistoryPath returns the path of the default history:
// $XDG_DATA_HOME/iolens/tuning.db, or ~/.local/share/iolens/tuning.db
// when XDG_DATA_HOME is unset or not an absolute path.
func DefaultHistoryPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "iolens", "tuning.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("default tuning history: %w", err)
	}
	return filepath.Join(home, ".local", "share", "iolens", "tuning.db"), nil
}

// OpenHistory opens the history at path, creating it (and its missing
// parent directories, mode 0700; the file mode 0600) if needed, in WAL
// mode. A file that is not an SQLite database, a database of another
// program, or a history of a newer schema is refused with an error naming
// the file.
func OpenHistory(path string) (*History, error) {
	if path == "" {
		return nil, errors.New("open tuning history: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open tuning history %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open tuning history %s: %w", abs, err)
	}
	if err := checkHeader(abs); err != nil {
		return nil, fmt.Errorf("open tuning history %s: %w", abs, err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", historyBusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	dsn := (&url.URL{Scheme: "file", Path: abs, OmitHost: true}).String() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open tuning history %s: %w", abs, err)
	}
	h := &History{path: abs, db: db}
	if err := h.init(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("open tuning history %s: %w", abs, err)
	}
	return h, nil
}

// checkHeader creates the file if needed and refuses one that does not
// start with the header of an SQLite database (SQLite would take a file
// shorter than its header for an empty database and overwrite it).
func checkHeader(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	var magic [len(sqliteHeader)]byte
	n, err := io.ReadFull(f, magic[:])
	if cerr := f.Close(); err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n > 0 && string(magic[:n]) != sqliteHeader {
		return errors.New("not an SQLite database")
	}
	return nil
}

// Path returns the absolute path of the history's file.
func (h *History) Path() string { return h.path }

// Close closes the history.
func (h *History) Close() error {
	if err := h.db.Close(); err != nil {
		return fmt.Errorf("close tuning history %s: %w", h.path, err)
	}
	return nil
}

// schemaState reports whether the file is a history of the current
// version (true), an empty database to initialise (false), or neither.
func schemaState(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (bool, error) {
	var appID, version int64
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return false, err
	}
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, err
	}
	if appID != 0 && appID != historyAppID {
		return false, fmt.Errorf("not an iolens tuning history (SQLite application id %#x)", appID)
	}
	if version == 0 {
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return false, err
		}
		if n > 0 || appID != 0 {
			return false, errors.New("an SQLite database but not an iolens tuning history")
		}
		return false, nil
	}
	if appID != historyAppID {
		return false, fmt.Errorf("an SQLite database (user version %d) but not an iolens tuning history", version)
	}
	if version > HistorySchemaVersion {
		return false, fmt.Errorf("schema version %d is newer than version %d, the newest this iolens knows", version, HistorySchemaVersion)
	}
	if version < HistorySchemaVersion {
		return false, fmt.Errorf("schema version %d is unknown", version)
	}
	return true, nil
}

// init checks the file and creates the schema in an empty one.
func (h *History) init(ctx context.Context) error {
	var ok bool
	if err := h.read(ctx, func(tx *sql.Tx) error {
		var err error
		ok, err = schemaState(ctx, tx)
		return err
	}); err != nil {
		return err
	}
	if err := h.enableWAL(ctx); err != nil {
		return fmt.Errorf("enable WAL: %w", err)
	}
	if ok {
		return nil
	}
	return h.write(ctx, func(c *sql.Conn) error {
		ok, err := schemaState(ctx, c) // another process may have been first
		if err != nil || ok {
			return err
		}
		for _, s := range historySchema() {
			if _, err := c.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", historyAppID)); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", HistorySchemaVersion)); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		return nil
	})
}

// enableWAL puts the file in WAL mode, retrying while another connection
// holds it (SQLite reports that conflict at once rather than wait).
func (h *History) enableWAL(ctx context.Context) error {
	var mode string
	if err := h.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode == "wal" {
		return nil
	}
	deadline := time.Now().Add(historyBusyTimeout)
	wait := time.Millisecond
	for {
		err := h.db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil || !sqliteBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// sqliteBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED.
func sqliteBusy(err error) bool {
	var e interface{ Code() int }
	if !errors.As(err, &e) {
		return false
	}
	code := e.Code() & 0xff
	return code == 5 || code == 6
}

// write runs fn in a BEGIN IMMEDIATE transaction, which takes the write
// lock at once (waiting up to the busy timeout).
func (h *History) write(ctx context.Context, fn func(c *sql.Conn) error) (err error) {
	c, err := h.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer func() {
		if err != nil {
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

// read runs fn in a read transaction.
func (h *History) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// formatTime returns t in the history's layout.
func formatTime(t time.Time) string { return t.UTC().Format(historyTime) }

// parseTime parses a time of the history ("" or NULL: the zero time).
func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid || s.String == "" {
		return time.Time{}, nil
	}
	return time.Parse(historyTime, s.String)
}
