// Package report renders an analysis.Report: for a terminal (Text), as
// JSON (JSON) and as a self-contained HTML page. Text from logs (file
// names, command lines, hints) is untrusted and escaped in every renderer.
package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/iolens/iolens/analysis"
)

// TextOptions configure Text.
type TextOptions struct {
	// Width is the line width text is wrapped to; 0 means 100.
	Width int
	// Color enables ANSI colours. Callers decide it from the output (a
	// terminal) and NO_COLOR.
	Color bool
	// Location is the time zone of printed times; nil means UTC.
	Location *time.Location
}

// styles are the colours of the terminal report.
type styles struct {
	level map[analysis.Level]lipgloss.Style
	head  lipgloss.Style
	faint lipgloss.Style
}

func newStyles(color bool) styles {
	r := lipgloss.NewRenderer(io.Discard)
	if color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	c := func(n string) lipgloss.Style { return r.NewStyle().Foreground(lipgloss.Color(n)).Bold(true) }
	return styles{
		level: map[analysis.Level]lipgloss.Style{
			analysis.LevelHigh: c("1"),
			analysis.LevelWarn: c("3"),
			analysis.LevelInfo: c("4"),
			analysis.LevelOK:   c("2"),
		},
		head:  r.NewStyle().Bold(true),
		faint: r.NewStyle().Faint(true),
	}
}

// Text writes the report for a terminal: the job summary, then the
// insights grouped by level, most severe first.
func Text(w io.Writer, rep *analysis.Report, opts TextOptions) error {
	if opts.Width <= 0 {
		opts.Width = 100
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	t := &textWriter{w: w, width: opts.Width, st: newStyles(opts.Color), loc: opts.Location}
	t.job(&rep.Job)
	t.insights(rep.Insights)
	return t.err
}

type textWriter struct {
	w     io.Writer
	width int
	st    styles
	loc   *time.Location
	err   error
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

func (t *textWriter) job(j *analysis.Job) {
	t.printf("%s\n", t.st.head.Render("Job"))
	t.field("log", Sanitize(j.Log))
	t.field("exe", Sanitize(j.Exe))
	t.field("job id", strconv.FormatInt(j.JobID, 10))
	ranks := strconv.FormatInt(j.NProcs, 10)
	if j.Nodes > 0 {
		ranks += fmt.Sprintf(" on %d node(s)", j.Nodes)
	}
	t.field("ranks", ranks)
	t.field("run time", fmt.Sprintf("%.4g s (%s to %s)", j.RunTime,
		time.Unix(j.Start, 0).In(t.loc).Format(time.DateTime), time.Unix(j.End, 0).In(t.loc).Format(time.DateTime)))
	if j.LibVer != "" {
		t.field("recorded by", Sanitize(j.LibVer))
	}
	if len(j.Partial) > 0 {
		t.field("incomplete", strings.Join(j.Partial, ", "))
	}
	if len(j.Hints) > 0 {
		hints := make([]string, len(j.Hints))
		for i, h := range j.Hints {
			hints[i] = Sanitize(h.Key) + "=" + Sanitize(h.Value)
		}
		t.field("MPI-IO hints", strings.Join(hints, "; "))
	}
	if pf := j.Prefetch; pf != nil {
		if pf.Status != "ok" {
			t.field("prefetching", "plan ignored: "+Sanitize(pf.Status))
		} else {
			t.field("prefetching", fmt.Sprintf("%d extents, %s, %.0f%% read afterwards; next access predicted right %d times, wrong %d; %d of %d accesses known",
				pf.Extents, Bytes(pf.Bytes), 100*pf.Used(), pf.Right, pf.Wrong, pf.Matched, pf.Matched+pf.Unknown))
		}
	}
	if len(j.Modules) > 0 {
		t.printf("\n  %-12s %6s %10s %10s %9s %9s %9s\n", "interface", "files", "read", "written", "reads", "writes", "time (s)")
		for _, m := range j.Modules {
			t.printf("  %-12s %6d %10s %10s %9d %9d %9.3f\n", m.Name, m.Files, Bytes(m.BytesRead),
				Bytes(m.BytesWritten), m.Reads, m.Writes, m.Time)
		}
	}
}

func (t *textWriter) field(name, value string) {
	t.printf("  %-13s %s\n", name+":", t.wrap(value, 16))
}

func (t *textWriter) insights(ins []analysis.Insight) {
	t.printf("\n%s\n", t.st.head.Render(fmt.Sprintf("Insights (%d)", len(ins))))
	if len(ins) == 0 {
		t.printf("  none\n")
		return
	}
	for _, lvl := range []analysis.Level{analysis.LevelHigh, analysis.LevelWarn, analysis.LevelInfo, analysis.LevelOK} {
		for _, in := range ins {
			if in.Level == lvl {
				t.insight(&in)
			}
		}
	}
}

func (t *textWriter) insight(in *analysis.Insight) {
	tag := t.st.level[in.Level].Render(fmt.Sprintf("%-4s", in.Level))
	t.printf("\n  %s %-4s %s\n", tag, in.Code, t.wrap(Sanitize(in.Message), 12))
	for _, d := range in.Details {
		t.printf("            %s\n", t.wrap("- "+Sanitize(d), 14))
	}
	for _, s := range in.Subjects {
		var who []string
		if s.File != "" {
			who = append(who, Sanitize(s.File))
		}
		if s.Rank != nil {
			who = append(who, fmt.Sprintf("rank %d", *s.Rank))
		}
		t.printf("            %s\n", t.wrap(fmt.Sprintf("%s: %s", strings.Join(who, ", "), quantity(s.Value, s.Unit)), 14))
	}
	if in.Recommendation != "" {
		t.printf("            %s %s\n", t.st.head.Render("→"), t.wrap(Sanitize(in.Recommendation), 14))
	}
	if in.Snippet != "" {
		for _, line := range strings.Split(strings.TrimRight(in.Snippet, "\n"), "\n") {
			t.printf("              %s\n", t.st.faint.Render(Sanitize(line)))
		}
	}
}

// wrap breaks s into lines of at most the width, continuing lines with
// indent spaces.
func (t *textWriter) wrap(s string, indent int) string {
	limit := t.width - indent
	if limit < 20 {
		limit = 20
	}
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		n := utf8.RuneCountInString(word)
		if i > 0 {
			if line+1+n > limit {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				line = 0
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

// quantity prints a subject's value with its unit.
func quantity(v float64, unit string) string {
	switch unit {
	case "bytes":
		return Bytes(int64(v))
	case "seconds":
		return fmt.Sprintf("%.3f s", v)
	case "":
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " " + unit
}

// Bytes prints a byte count with a binary unit (B, KiB, MiB, ...).
func Bytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), 0
	for v >= unit || v <= -unit {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTPE"[i-1])
}

// Sanitize makes untrusted text safe for a terminal: control characters
// (escape sequences included), invalid UTF-8 and other non-printable runes
// are replaced by Go-style escapes such as \x1b.
func Sanitize(s string) string {
	safe := true
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}
