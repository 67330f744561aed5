package facility

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/dataset/query"
	"github.com/iolens/iolens/internal/cli"
	"github.com/iolens/iolens/report"
)

// format is how a table is printed.
type format int

const (
	formatText format = iota
	formatJSON
	formatCSV
)

// formatFlags are --json and --csv.
type formatFlags struct{ json, csv bool }

func (f *formatFlags) add(cmd *cobra.Command, csv bool) {
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	if csv {
		cmd.Flags().BoolVar(&f.csv, "csv", false, "print CSV (RFC 4180, a header line first)")
	}
}

func (f *formatFlags) format() (format, error) {
	switch {
	case f.json && f.csv:
		return 0, cli.Usagef("--json and --csv exclude each other")
	case f.json:
		return formatJSON, nil
	case f.csv:
		return formatCSV, nil
	}
	return formatText, nil
}

// writeTable prints t in format f: aligned columns for a terminal (text
// from the dataset made safe), a JSON array of objects (keys in column
// order), or CSV.
func writeTable(w io.Writer, t *query.Table, f format) error {
	switch f {
	case formatJSON:
		return writeJSONTable(w, t)
	case formatCSV:
		cw := csv.NewWriter(w)
		cw.Write(t.Columns)
		for _, r := range t.Rows {
			rec := make([]string, len(r))
			for i, v := range r {
				rec[i] = cell(v, false)
			}
			cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.Columns, "\t"))
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = cell(v, true)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(t.Rows) == 0 {
		_, err := fmt.Fprintln(w, "(no rows)")
		return err
	}
	return nil
}

// writeJSONTable writes the rows of t as a JSON array of objects whose
// keys follow the column order.
func writeJSONTable(w io.Writer, t *query.Table) error {
	var b bytes.Buffer
	b.WriteString("[")
	for i, r := range t.Rows {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for k, v := range r {
			if k > 0 {
				b.WriteString(", ")
			}
			key, _ := json.Marshal(t.Columns[k])
			b.Write(key)
			b.WriteString(": ")
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				v = nil
			}
			val, err := json.Marshal(v)
			if err != nil {
				return err
			}
			b.Write(val)
		}
		b.WriteString("}")
	}
	if len(t.Rows) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := w.Write(b.Bytes())
	return err
}

// cell formats a value for text or CSV; for a terminal, untrusted text is
// made safe and tabs and newlines escaped.
func cell(v any, terminal bool) string {
	var s string
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'g', 6, 64)
	case int64:
		s = strconv.FormatInt(x, 10)
	case bool:
		s = strconv.FormatBool(x)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			s = x.Format(time.DateOnly)
		} else {
			s = x.Format("2006-01-02 15:04:05")
		}
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = cell(e, false)
		}
		s = strings.Join(parts, ",")
	default:
		s = fmt.Sprint(x)
	}
	if terminal {
		s = report.Sanitize(s)
		s = strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(s)
	}
	return s
}
