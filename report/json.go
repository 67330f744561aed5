package report

import (
	"encoding/json"
	"io"

	"github.com/iolens/iolens/analysis"
)

// JSON writes the report as one indented JSON document:
// {"job": {...}, "insights": [...], "phases": [...], "files": [...]}.
// Empty lists are written as [], never null.
func JSON(w io.Writer, rep *analysis.Report) error {
	out := *rep
	if out.Insights == nil {
		out.Insights = []analysis.Insight{}
	}
	if out.Phases == nil {
		out.Phases = []analysis.Phase{}
	}
	if out.Files == nil {
		out.Files = []analysis.File{}
	}
	ins := make([]analysis.Insight, len(out.Insights))
	for i, in := range out.Insights {
		if in.Details == nil {
			in.Details = []string{}
		}
		ins[i] = in
	}
	out.Insights = ins
	if out.Job.Modules == nil {
		out.Job.Modules = []analysis.Module{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&out)
}
