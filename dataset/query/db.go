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
	"slices"
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

	mu sync.Mutex
	// views is the state of each table's view: absent before the first
	// query, false while the table has no file (an empty relation), true
	// once it reads the table's files.
	views map[string]bool
	// months caches the month partition of jobs looked up by id.
	months map[string]string
}

// ErrNotFound is returned when a job or an application is not in the
// dataset (or not visible to the filter).
var ErrNotFound = errors.New("not found")

// Open opens the dataset in dir for queries. The directory must exist; a
// dataset without any file yet has empty tables. A dataset in the daily
// layout of earlier versions ("date=2026-11-25") is refused until
// dataset.Compact has moved it into months.
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
	d := &DB{dir: abs, db: db, views: map[string]bool{}, months: map[string]string{}}
	// The metadata of a Parquet file (its footer: schema, row groups,
	// statistics) is read once, not at every query: a file of the dataset
	// never changes once in place (batches and merged files get new names),
	// and DuckDB reads it again should its modification time say otherwise.
	for _, set := range []string{"SET TimeZone = 'UTC'", "SET parquet_metadata_cache = true"} {
		if _, err := db.Exec(set); err != nil {
			db.Close()
			return nil, fmt.Errorf("opening DuckDB: %w", err)
		}
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

// dayOf names the column whose day (UTC) the view of a table adds as its
// date column: that of the job's start, that of an error's ingest.
var dayOf = map[string]string{
	dataset.TableJobs:   "start_time",
	dataset.TableErrors: "ingested",
}

// refresh creates the view of each table: over its files, or an empty
// relation of its columns while it has none. A table with files never
// becomes empty again (batches are only added, and compaction renames a
// merged file into place before it removes the files merged), and DuckDB
// expands the view's glob at each query: only the tables still empty are
// looked at again.
func (d *DB) refresh(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, table := range dataset.Tables() {
		has, seen := d.views[table]
		if has {
			continue
		}
		if !seen {
			daily, err := filepath.Glob(filepath.Join(d.dir, table, "date=*"))
			if err != nil {
				return err
			}
			if len(daily) > 0 {
				return fmt.Errorf("dataset %s: table %s is in the daily partitions of an earlier version (%s): run 'iolens store compact' to move them into months",
					d.dir, table, filepath.Base(daily[0]))
			}
		}
		glob := filepath.Join(d.dir, table, dataset.PartitionColumn+"=*", "*.parquet")
		files, err := filepath.Glob(glob)
		if err != nil {
			return err
		}
		has = slices.ContainsFunc(files, func(f string) bool { return !strings.HasPrefix(filepath.Base(f), ".") })
		if seen && !has {
			continue
		}
		src := emptyRelation(table)
		if has {
			// By name: the files of earlier versions may lack columns.
			src = fmt.Sprintf("SELECT *%s FROM read_parquet(%s, hive_partitioning = true, hive_types = {'%s': VARCHAR}, union_by_name = true)",
				dateColumn(table), literal(glob), dataset.PartitionColumn)
		}
		if _, err := d.db.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", table, src)); err != nil {
			return fmt.Errorf("dataset %s: table %s: %w", d.dir, table, err)
		}
		if has && table == dataset.TableJobs {
			if err := d.checkSummaries(ctx); err != nil {
				return err
			}
		}
		d.views[table] = has
	}
	return nil
}

// checkSummaries refuses a jobs table with rows of an earlier version,
// without the insight summary the questions read.
func (d *DB) checkSummaries(ctx context.Context) error {
	var has bool
	err := d.db.QueryRowContext(ctx, "SELECT count(*) > 0 FROM information_schema.columns WHERE table_name = 'jobs' AND column_name = 'insight_codes'").Scan(&has)
	stale := "SELECT count(*) FROM jobs"
	if has {
		stale += " WHERE insight_codes IS NULL"
	}
	var n int64
	if err == nil {
		err = d.db.QueryRowContext(ctx, stale).Scan(&n)
	}
	if err != nil {
		return fmt.Errorf("dataset %s: table jobs: %w", d.dir, err)
	}
	if n > 0 {
		return fmt.Errorf("dataset %s: %d jobs written by an earlier version have no insight summary (insight_codes): run 'iolens store compact' to add it", d.dir, n)
	}
	return nil
}

// dateColumn returns the date column the view of a table adds to those of
// its files, "" for none: the day (UTC) of the dayOf column, by
// arithmetic on the microseconds since the epoch, a few times cheaper than
// a cast through the time zone.
func dateColumn(table string) string {
	if col, ok := dayOf[table]; ok {
		return fmt.Sprintf(", DATE '1970-01-01' + CAST(floor(epoch_us(%s) / 86400000000) AS INTEGER) AS date", col)
	}
	return ""
}

// literal quotes s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// emptyRelation returns a SELECT of no rows with the columns of a table's
// view: those of its row type, the month partition and the date column.
func emptyRelation(table string) string {
	t := rowTypes[table]
	var cols []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		cols = append(cols, fmt.Sprintf("CAST(NULL AS %s) AS %s", sqlType(f.Type), name))
	}
	cols = append(cols, "CAST(NULL AS VARCHAR) AS "+dataset.PartitionColumn)
	if _, ok := dayOf[table]; ok {
		cols = append(cols, "CAST(NULL AS DATE) AS date")
	}
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
