package query

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"time"
)

// Table is the result of a query: named columns and rows of values
// (int64, float64, string, bool, time.Time, []any, nil...).
type Table struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// Query runs an SQL statement over the dataset's views (jobs, files,
// insights, ranks, errors) and returns its result.
func (d *DB) Query(ctx context.Context, query string, args ...any) (*Table, error) {
	if err := d.refresh(ctx); err != nil {
		return nil, err
	}
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return scanTable(rows)
}

// scanTable reads all rows into a Table and closes them.
func scanTable(rows *sql.Rows) (*Table, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	t := &Table{Columns: cols, Rows: [][]any{}}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			vals[i] = normalise(v)
		}
		t.Rows = append(t.Rows, vals)
	}
	return t, rows.Err()
}

// normalise turns the driver's values into plain ones: integers of any
// width into int64, huge integers into float64 or strings, times into UTC.
func normalise(v any) any {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x <= 1<<63-1 {
			return int64(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case time.Time:
		return x.UTC()
	case []any:
		for i := range x {
			x[i] = normalise(x[i])
		}
		return x
	case []byte:
		return string(x)
	case fmt.Stringer:
		return x.String()
	}
	return v
}
