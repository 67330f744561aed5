// Package query answers questions about a facility dataset (package
// dataset) with embedded DuckDB: any SQL over views of its tables, and
// the common questions by name — overview, top users, applications or jobs
// by I/O time, bytes, small writes or metadata time, one application's
// runs with its regressions, the most frequent insights, a filtered and
// paginated job list.
package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver

	"github.com/iolens/iolens/dataset"
)

// DB is a dataset opened for queries. Its views (jobs, files, insights,
// ranks, errors) read the dataset's files at each query, so batches added
// since Open are seen. A DB is safe for concurrent use.
type DB struct {
	dir string
	db  *sql.DB

	mu    sync.Mutex
	empty map[string]bool // tables whose view has no file yet
}

// ErrNotFound is returned when a job or an application is not in the
// dataset (or not visible to the filter).
var ErrNotFound = errors.New("not found")

// Open opens the dataset in dir for queries. The directory must exist; a
// dataset without any file yet has empty tables.
func Open(dir string) (*DB, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, fmt.Errorf("opening DuckDB: %w", err)
	}
	// One connection: the views live in its in-memory catalogue, and DuckDB
	// parallelises each query itself.
	db.SetMaxOpenConns(1)
	d := &DB{dir: abs, db: db, empty: map[string]bool{}}
	if _, err := db.Exec("SET TimeZone = 'UTC'"); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening DuckDB: %w", err)
	}
	if err := d.refresh(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	return d, nil
}

// Close releases the database.
func (d *DB) Close() error { return d.db.Close() }

// Dir returns the dataset's directory.
func (d *DB) Dir() string { return d.dir }

// rowTypes are the row types of the tables.
var rowTypes = map[string]reflect.Type{
	dataset.TableJobs:     reflect.TypeFor[dataset.Job](),
	dataset.TableFiles:    reflect.TypeFor[dataset.File](),
	dataset.TableInsights: reflect.TypeFor[dataset.Insight](),
	dataset.TableRanks:    reflect.TypeFor[dataset.Rank](),
	dataset.TableErrors:   reflect.TypeFor[dataset.Error](),
}

// refresh (re)creates the view of each table: over its files, or an empty
// relation of its columns while it has none.
func (d *DB) refresh(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, table := range dataset.Tables() {
		files, err := filepath.Glob(filepath.Join(d.dir, table, "*", "*.parquet"))
		if err != nil {
			return err
		}
		has := false
		for _, f := range files {
			if !strings.HasPrefix(filepath.Base(f), ".") {
				has = true
				break
			}
		}
		if empty, seen := d.empty[table]; seen && empty == !has {
			continue
		}
		var src string
		if has {
			glob := filepath.Join(d.dir, table, "*", "*.parquet")
			src = fmt.Sprintf("SELECT * FROM read_parquet(%s, hive_partitioning = true, hive_types = {'date': DATE})", literal(glob))
		} else {
			src = emptyRelation(rowTypes[table])
		}
		if _, err := d.db.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", table, src)); err != nil {
			return fmt.Errorf("dataset %s: table %s: %w", d.dir, table, err)
		}
		d.empty[table] = !has
	}
	return nil
}

// literal quotes s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// emptyRelation returns a SELECT of no rows with the columns of row type t
// and the date partition.
func emptyRelation(t reflect.Type) string {
	var cols []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		cols = append(cols, fmt.Sprintf("CAST(NULL AS %s) AS %s", sqlType(f.Type), name))
	}
	cols = append(cols, "CAST(NULL AS DATE) AS date")
	return "SELECT " + strings.Join(cols, ", ") + " WHERE false"
}

// sqlType returns the DuckDB type of a row field's Go type.
func sqlType(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "TIMESTAMP WITH TIME ZONE"
	case t.Kind() == reflect.Slice:
		return sqlType(t.Elem()) + "[]"
	case t.Kind() == reflect.String:
		return "VARCHAR"
	case t.Kind() == reflect.Bool:
		return "BOOLEAN"
	case t.Kind() == reflect.Float64:
		return "DOUBLE"
	case t.Kind() == reflect.Int32:
		return "INTEGER"
	}
	return "BIGINT"
}
