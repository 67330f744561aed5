package fix

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// edit replaces the bytes [off, end) of a file by text; off == end
// inserts.
type edit struct {
	off, end int
	text     string
}

// overlaps tells whether two edits touch the same bytes. Insertions at the
// same offset do not overlap; an insertion inside a replaced range does.
func (e edit) overlaps(o edit) bool {
	if e.off == e.end || o.off == o.end {
		return e.off > o.off && e.off < o.end || o.off > e.off && o.off < e.end
	}
	return e.off < o.end && o.off < e.end
}

// apply returns text with the edits made; the edits must not overlap.
func apply(text []byte, edits []edit) []byte {
	es := sortedEdits(edits)
	var b strings.Builder
	prev := 0
	for _, e := range es {
		b.Write(text[prev:e.off])
		b.WriteString(e.text)
		prev = e.end
	}
	b.Write(text[prev:])
	return []byte(b.String())
}

// sortedEdits orders edits by offset, insertions before replacements at
// the same offset, keeping the order of insertions at the same offset.
func sortedEdits(edits []edit) []edit {
	es := slices.Clone(edits)
	slices.SortStableFunc(es, func(a, b edit) int {
		if a.off != b.off {
			return a.off - b.off
		}
		return (a.end - a.off) - (b.end - b.off)
	})
	return es
}

// change is a run of whole old lines replaced by new lines.
type change struct {
	oldStart   int // first old line (1-based); for an insertion, the line it goes before
	old, lines []string
}

// changes turns the edits of a file into line changes, merging edits
// that touch the same lines.
func changes(s *source, edits []edit) []change {
	type region struct {
		from, to int // byte range of whole lines
		edits    []edit
	}
	var regs []region
	endsNL := len(s.text) > 0 && s.text[len(s.text)-1] == '\n'
	for _, e := range sortedEdits(edits) {
		from := s.lineStart(s.lineOf(e.off))
		to := from
		lineInsert := e.off == e.end && strings.HasSuffix(e.text, "\n")
		switch {
		case lineInsert && (e.off == from || e.off == len(s.text) && endsNL):
			from, to = e.off, e.off
		default:
			to = s.lineStart(s.lineOf(max(e.end-1, e.off)) + 1)
		}
		if n := len(regs); n > 0 && from < regs[n-1].to {
			regs[n-1].to = max(regs[n-1].to, to)
			regs[n-1].edits = append(regs[n-1].edits, e)
			continue
		}
		regs = append(regs, region{from, to, []edit{e}})
	}
	out := make([]change, 0, len(regs))
	for _, r := range regs {
		oldText := s.text[r.from:r.to]
		shifted := make([]edit, len(r.edits))
		for j, e := range r.edits {
			shifted[j] = edit{off: e.off - r.from, end: e.end - r.from, text: e.text}
		}
		start := s.lineOf(r.from)
		if r.from == len(s.text) {
			start = s.lines() + 1
		}
		out = append(out, change{oldStart: start, old: splitLines(string(oldText)),
			lines: splitLines(string(apply(oldText, shifted)))})
	}
	return out
}

// splitLines splits text into lines, each keeping its newline.
func splitLines(t string) []string {
	if t == "" {
		return nil
	}
	ls := strings.SplitAfter(t, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// contextLines is the number of unchanged lines around each change.
const contextLines = 3

// writeUnified writes the unified diff of one file.
func writeUnified(w io.Writer, s *source, rel string, edits []edit) error {
	chs := changes(s, edits)
	if len(chs) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", rel, rel); err != nil {
		return err
	}
	all := make([]string, s.lines())
	for n := range all {
		all[n] = string(s.text[s.lineStart(n+1):s.lineStart(n+2)])
	}
	delta := 0 // new line number minus old line number so far
	for i := 0; i < len(chs); {
		j := i + 1
		for j < len(chs) && chs[j].oldStart-(chs[j-1].oldStart+len(chs[j-1].old)) <= 2*contextLines {
			j++
		}
		first := max(chs[i].oldStart-contextLines, 1)
		lastCh := chs[j-1]
		end := min(lastCh.oldStart+len(lastCh.old)+contextLines, len(all)+1) // exclusive
		var body []string
		oldN, newN := 0, 0
		ctx := func(a, b int) {
			for n := a; n < b; n++ {
				body = append(body, " "+all[n-1])
				oldN++
				newN++
			}
		}
		at := first
		for _, c := range chs[i:j] {
			ctx(at, c.oldStart)
			for _, l := range c.old {
				body = append(body, "-"+l)
			}
			for _, l := range c.lines {
				body = append(body, "+"+l)
			}
			oldN += len(c.old)
			newN += len(c.lines)
			at = c.oldStart + len(c.old)
		}
		ctx(at, end)
		oldFirst, newFirst := first, first+delta
		if oldN == 0 {
			oldFirst--
		}
		if newN == 0 {
			newFirst--
		}
		if _, err := fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(oldFirst, oldN), hunkRange(newFirst, newN)); err != nil {
			return err
		}
		for _, l := range body {
			if !strings.HasSuffix(l, "\n") {
				l += "\n\\ No newline at end of file\n"
			}
			if _, err := io.WriteString(w, l); err != nil {
				return err
			}
		}
		delta += newN - oldN
		i = j
	}
	return nil
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
