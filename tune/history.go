package tune

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/iolens/iolens/internal/sqlitefile"
)

const (
	// HistorySchemaVersion is the version of the history schema this
	// package reads and writes, kept in the file's PRAGMA user_version.
	HistorySchemaVersion = 1

	// historyAppID marks a file as an iolens tuning history in its PRAGMA
	// application_id ("iolt").
	historyAppID = 0x696f6c74

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
	db *sqlitefile.DB
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
	p, err := sqlitefile.DataPath("tuning.db")
	if err != nil {
		return "", fmt.Errorf("default tuning history: %w", err)
	}
	return p, nil
}

// OpenHistory opens the history at path, creating it (and its missing
// parent directories, mode 0700; the file mode 0600) if needed, in WAL
// mode. A file that is not an SQLite database, a database of another
// program, or a history of a newer schema is refused with an error naming
// the file.
func OpenHistory(path string) (*History, error) {
	db, err := sqlitefile.Open(path, sqlitefile.Kind{What: "tuning history", ApplicationID: historyAppID,
		Version: HistorySchemaVersion, Schema: historySchema()})
	if err != nil {
		return nil, err
	}
	return &History{db: db}, nil
}

// Path returns the absolute path of the history's file.
func (h *History) Path() string { return h.db.Path() }

// Close closes the history.
func (h *History) Close() error { return h.db.Close() }

// formatTime returns t in the history's layout.
func formatTime(t time.Time) string { return t.UTC().Format(historyTime) }

// parseTime parses a time of the history ("" or NULL: the zero time).
func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid || s.String == "" {
		return time.Time{}, nil
	}
	return time.Parse(historyTime, s.String)
}
