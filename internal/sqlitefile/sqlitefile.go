// Package sqlitefile opens the SQLite files iolens keeps small mutable state
// in (the knowledge repository, the tuning history): one file each, created
// private to the user, in WAL mode so that several processes can use it at
// once, marked with an application id and a schema version so that a file
// of another program, or of a newer iolens, is refused rather than damaged.
package sqlitefile

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

// BusyTimeout is how long a file waits for another process that holds its
// lock.
const BusyTimeout = 10 * time.Second

// header is how an SQLite database file begins.
const header = "SQLite format 3\x00"

// Kind describes one kind of file.
type Kind struct {
	// What names the kind in errors, e.g. "knowledge repository".
	What string
	// ApplicationID marks the files of the kind (PRAGMA application_id).
	ApplicationID int64
	// Version is the schema version this iolens reads and writes (PRAGMA
	// user_version).
	Version int64
	// Schema creates the tables of an empty file.
	Schema []string
}

// DB is an open file.
type DB struct {
	// SQL is the database; use Write and Read for transactions.
	SQL  *sql.DB
	path string
	kind Kind
}

// Querier is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// DataPath returns the default path of a file named name:
// $XDG_DATA_HOME/iolens/name, or ~/.local/share/iolens/name when
// XDG_DATA_HOME is unset or not absolute.
func DataPath(name string) (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "iolens", name), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "iolens", name), nil
}

// Open opens the file of kind k at path, creating it (mode 0600, and its
// missing parent directories with mode 0700) and its schema if needed.
// Errors read "open <what> <path>: <problem>".
func Open(path string, k Kind) (*DB, error) {
	if path == "" {
		return nil, fmt.Errorf("open %s: empty path", k.What)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s %s: %w", k.What, path, err)
	}
	fail := func(err error) (*DB, error) { return nil, fmt.Errorf("open %s %s: %w", k.What, abs, err) }
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return fail(err)
	}
	if err := checkHeader(abs); err != nil {
		return fail(err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	dsn := (&url.URL{Scheme: "file", Path: abs, OmitHost: true}).String() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fail(err)
	}
	d := &DB{SQL: db, path: abs, kind: k}
	if err := d.init(context.Background()); err != nil {
		db.Close()
		return fail(err)
	}
	return d, nil
}

// checkHeader creates the file if it is missing and refuses one that does
// not begin like an SQLite database: SQLite takes a file too short for its
// header for an empty database, and would overwrite it.
func checkHeader(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	var magic [len(header)]byte
	n, err := io.ReadFull(f, magic[:])
	if cerr := f.Close(); err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n > 0 && string(magic[:n]) != header {
		return errors.New("not an SQLite database")
	}
	return nil
}

// Path returns the absolute path of the file.
func (d *DB) Path() string { return d.path }

// Close closes the file.
func (d *DB) Close() error {
	if err := d.SQL.Close(); err != nil {
		return fmt.Errorf("close %s %s: %w", d.kind.What, d.path, err)
	}
	return nil
}

// check reports whether the file is of d's kind and version (true), an
// empty database to initialise (false), or neither (an error).
func (d *DB) check(ctx context.Context, q Querier) (bool, error) {
	k := d.kind
	var appID, version int64
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return false, err
	}
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, err
	}
	if appID != 0 && appID != k.ApplicationID {
		return false, fmt.Errorf("not an iolens %s (SQLite application id %#x)", k.What, appID)
	}
	if version == 0 {
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return false, err
		}
		if n > 0 || appID != 0 {
			return false, fmt.Errorf("an SQLite database but not an iolens %s", k.What)
		}
		return false, nil
	}
	if appID != k.ApplicationID {
		return false, fmt.Errorf("an SQLite database (user version %d) but not an iolens %s", version, k.What)
	}
	if version > k.Version {
		return false, fmt.Errorf("schema version %d is newer than version %d, the newest this iolens knows: use a newer iolens, or another %s", version, k.Version, k.What)
	}
	if version < k.Version {
		return false, fmt.Errorf("schema version %d is unknown", version)
	}
	return true, nil
}

// init checks the file and creates the schema in an empty one.
func (d *DB) init(ctx context.Context) error {
	// One read transaction, so that both versions come from one state of
	// the file even while another process creates the schema.
	var ok bool
	if err := d.Read(ctx, func(tx *sql.Tx) error {
		var err error
		ok, err = d.check(ctx, tx)
		return err
	}); err != nil {
		return err
	}
	// WAL is a property of the file: this is a no-op after the first time.
	// A file system without shared memory for the WAL index keeps the
	// rollback journal, which is slower but as safe.
	if err := d.enableWAL(ctx); err != nil {
		return fmt.Errorf("enable WAL: %w", err)
	}
	if ok {
		return nil
	}
	return d.Write(ctx, func(c *sql.Conn) error {
		ok, err := d.check(ctx, c) // another process may have been first
		if err != nil || ok {
			return err
		}
		stmts := append(append([]string(nil), d.kind.Schema...),
			fmt.Sprintf("PRAGMA application_id = %d", d.kind.ApplicationID),
			fmt.Sprintf("PRAGMA user_version = %d", d.kind.Version))
		for _, s := range stmts {
			if _, err := c.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
		return nil
	})
}

// enableWAL puts the file in WAL mode. Changing the journal mode needs the
// file to itself, and SQLite reports a conflict at once rather than wait
// for it as for other locks: retry until the busy timeout.
func (d *DB) enableWAL(ctx context.Context) error {
	var mode string
	if err := d.SQL.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode == "wal" {
		return nil
	}
	deadline := time.Now().Add(BusyTimeout)
	wait := time.Millisecond
	for {
		err := d.SQL.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// IsBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (or
// one of their extended codes).
func IsBusy(err error) bool {
	var e interface{ Code() int }
	if !errors.As(err, &e) {
		return false
	}
	code := e.Code() & 0xff
	return code == 5 || code == 6
}

// Write runs fn in a BEGIN IMMEDIATE transaction: the write lock is taken
// at once (waiting up to the busy timeout for other writers), so what fn
// reads cannot change before it writes.
func (d *DB) Write(ctx context.Context, fn func(c *sql.Conn) error) (err error) {
	c, err := d.SQL.Conn(ctx)
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

// Read runs fn in a read transaction, which sees one state of the file.
func (d *DB) Read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := d.SQL.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
