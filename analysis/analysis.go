// Package analysis turns a Darshan log into a diagnosis: derived metrics
// per job, interface, file and rank, I/O phases, and insights — root causes
// of slow I/O with a level, the numbers behind them, the files and ranks
// responsible and a recommendation. It prints nothing; package report
// renders a Report for a terminal, as JSON or as HTML.
//
// Insight codes keep the meaning and default thresholds of Drishti's
// (S01, P01–P22, M01–M10); insights Drishti does not have use new families:
// H.. (HDF5), N.. (PnetCDF), L.. (Lustre), D.. (DXT traces), X.. (others).
package analysis

import (
	"fmt"
	"strings"
)

// Level ranks an insight, from OK (a good practice was observed) to HIGH (a
// likely cause of poor performance).
type Level int

// Insight levels, in increasing severity.
const (
	LevelOK Level = iota
	LevelInfo
	LevelWarn
	LevelHigh
)

var levelNames = [...]string{"OK", "INFO", "WARN", "HIGH"}

// String returns the level as printed: OK, INFO, WARN or HIGH.
func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText encodes the level as its name (JSON and TOML).
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText decodes a level name, case-insensitively.
func (l *Level) UnmarshalText(b []byte) error {
	for i, n := range levelNames {
		if strings.EqualFold(n, string(b)) {
			*l = Level(i)
			return nil
		}
	}
	return fmt.Errorf("unknown insight level %q", b)
}

// Subject is a file or rank an insight is about, with the number that makes
// it one of the causes (bytes, operations, seconds...).
type Subject struct {
	// File is the record name (a path, or e.g. "<STDOUT>"); empty for a
	// rank-only subject.
	File string `json:"file,omitempty"`
	// Rank is the MPI rank, -1 for a shared record, nil when not about a
	// rank.
	Rank *int64 `json:"rank,omitempty"`
	// Value and Unit quantify the subject's share of the problem.
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Insight is one finding of the analysis.
type Insight struct {
	Code    string `json:"code"`  // e.g. "P08"
	Level   Level  `json:"level"` // OK, INFO, WARN, HIGH
	Message string `json:"message"`
	// Details are further lines of facts (one per line, no newlines).
	Details []string `json:"details"`
	// Subjects are the files and ranks responsible, most important first,
	// at most 10.
	Subjects []Subject `json:"subjects,omitempty"`
	// Recommendation says what to change; Snippet is optional example code
	// (several lines) for it.
	Recommendation string `json:"recommendation,omitempty"`
	Snippet        string `json:"snippet,omitempty"`
}
