package fix

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/iolens/iolens/static/ir"
)

// lazyRegexp returns a function that compiles pattern on its first call
// and returns the same expression afterwards: patterns cost nothing at
// start-up.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// Patterns of the C source scanners, compiled on first use.
var (
	includeLine = lazyRegexp(`^#\s*include\s*[<"]([^>"]+)[>"]`)
	ifKeyword   = lazyRegexp(`\bif\s*\(`)
	elseKeyword = lazyRegexp(`^else\b`)
)

// source is the text of one source file with its line starts.
type source struct {
	path  string
	lang  ir.Lang
	text  []byte
	start []int // byte offset of every line; start[0] is line 1
}

func newSource(path string, lang ir.Lang, text []byte) *source {
	s := &source{path: path, lang: lang, text: text, start: []int{0}}
	for i, c := range text {
		if c == '\n' && i+1 < len(text) {
			s.start = append(s.start, i+1)
		}
	}
	return s
}

// lines is the number of lines.
func (s *source) lines() int { return len(s.start) }

// lineStart returns the offset of line n (1-based); past the last line it
// returns the length of the text.
func (s *source) lineStart(n int) int {
	if n > len(s.start) {
		return len(s.text)
	}
	return s.start[n-1]
}

// line returns the text of line n without its newline, "" out of range.
func (s *source) line(n int) string {
	if n < 1 || n > len(s.start) {
		return ""
	}
	return strings.TrimSuffix(string(s.text[s.lineStart(n):s.lineStart(n+1)]), "\n")
}

// lineOf returns the line holding the byte at off.
func (s *source) lineOf(off int) int {
	lo, hi := 0, len(s.start)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if s.start[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// afterLine is the offset where text inserted after line n goes; it
// makes sure the file's last line ends with a newline first.
func (s *source) afterLine(n int) (off int, prefix string) {
	off = s.lineStart(n + 1)
	if off == len(s.text) && len(s.text) > 0 && s.text[len(s.text)-1] != '\n' {
		return off, "\n"
	}
	return off, ""
}

// indent returns the leading white space of line n; for Fortran a
// statement label in front of it counts as white space.
func (s *source) indent(n int) string {
	l := s.line(n)
	if s.lang == ir.Fortran {
		i := 0
		for i < len(l) && (l[i] == ' ' || l[i] >= '0' && l[i] <= '9') {
			i++
		}
		if i < len(l) && l[i] == '\t' {
			return strings.Repeat(" ", i) + "\t"
		}
		return strings.Repeat(" ", i)
	}
	return l[:len(l)-len(strings.TrimLeft(l, " \t"))]
}

// comment spells a comment line in the file's language.
func (s *source) comment(indent, text string) string {
	if s.lang == ir.Fortran {
		return indent + "! " + text + "\n"
	}
	return indent + "/* " + text + " */\n"
}

// code returns line n with comments and string contents blanked out
// (C family: //, /* */ within the line; Fortran: !), trimmed.
func (s *source) code(n int) string {
	l := []byte(s.line(n))
	out := make([]byte, 0, len(l))
	var quote byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			if c == '\\' && s.lang != ir.Fortran {
				i++
			} else if c == quote {
				quote = 0
				out = append(out, c)
			}
			continue
		case c == '"' || c == '\'':
			quote = c
		case s.lang == ir.Fortran && c == '!':
			return strings.TrimSpace(string(out))
		case s.lang != ir.Fortran && c == '/' && i+1 < len(l) && l[i+1] == '/':
			return strings.TrimSpace(string(out))
		case s.lang != ir.Fortran && c == '/' && i+1 < len(l) && l[i+1] == '*':
			end := bytes.Index(l[i+2:], []byte("*/"))
			if end < 0 {
				return strings.TrimSpace(string(out))
			}
			i += end + 3
			out = append(out, ' ')
			continue
		}
		out = append(out, c)
	}
	return strings.TrimSpace(string(out))
}

// boundary tells whether a statement may be inserted before line n: the
// code before it ends a statement or opens or closes a block, so that the
// new statement is not the body of an if, for or while without braces.
// Lines of comments spanning several lines make it answer false.
func (s *source) boundary(n int) bool {
	for p := n - 1; p >= 1; p-- {
		raw := strings.TrimSpace(s.line(p))
		if s.lang != ir.Fortran && (strings.HasPrefix(raw, "*") || strings.HasSuffix(raw, "*/") && !strings.Contains(raw, "/*")) {
			return false
		}
		c := s.code(p)
		if c == "" || s.lang != ir.Fortran && strings.HasPrefix(c, "#") {
			continue
		}
		if s.lang == ir.Fortran {
			return !strings.HasSuffix(c, "&")
		}
		last := c[len(c)-1]
		return last == ';' || last == '{' || last == '}'
	}
	return true
}

// wholeStatement tells whether line n holds exactly one statement that
// matches re, and nothing else but white space and a trailing comment;
// the statements around it must end on their own lines.
func (s *source) wholeStatement(n int, re *regexp.Regexp) bool {
	c := s.code(n)
	if !re.MatchString(c) {
		return false
	}
	if s.lang == ir.Fortran {
		return !strings.Contains(c, ";") && !strings.HasSuffix(c, "&") &&
			!strings.HasPrefix(strings.TrimSpace(s.code(n+1)), "&") && s.boundary(n)
	}
	return strings.Count(c, ";") == 1 && strings.HasSuffix(c, ";") && s.boundary(n)
}

// callAt returns the offset of the name of the call of routine on line n,
// its opening parenthesis and its arguments' spans; ok is false unless
// exactly one such call starts on the line.
func (s *source) callAt(n int, routine string) (c call, ok bool) {
	pat := `\b` + regexp.QuoteMeta(routine) + `\s*\(`
	if s.lang == ir.Fortran {
		pat = `(?i)` + pat
	}
	re := regexp.MustCompile(pat)
	from := s.lineStart(n)
	l := s.text[from:s.lineStart(n+1)]
	locs := re.FindAllIndex(l, -1)
	if len(locs) != 1 {
		return call{}, false
	}
	c.name = from + locs[0][0]
	c.nameEnd = c.name + len(routine)
	c.args, c.end, ok = s.args(from + locs[0][1] - 1)
	return c, ok
}

// call is a call located in the text.
type call struct {
	name, nameEnd int
	args          []span
	end           int // after the closing parenthesis
}

// span is a range of the text.
type span struct{ off, end int }

// args splits the parenthesised argument list that opens at off into its
// arguments (trimmed), skipping strings, character literals and comments.
func (s *source) args(off int) (out []span, end int, ok bool) {
	depth := 0
	argStart := off + 1
	t := s.text
	trim := func(a, b int) span {
		for a < b && isSpace(t[a]) {
			a++
		}
		for b > a && isSpace(t[b-1]) {
			b--
		}
		return span{a, b}
	}
	for i := off; i < len(t); i++ {
		switch c := t[i]; {
		case c == '"' || c == '\'':
			j := skipString(t, i)
			if j < 0 {
				return nil, 0, false
			}
			i = j
		case c == '/' && s.lang != ir.Fortran && i+1 < len(t) && (t[i+1] == '*' || t[i+1] == '/'):
			return nil, 0, false // comments inside calls: leave them alone
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				if sp := trim(argStart, i); sp.end > sp.off || len(out) > 0 {
					out = append(out, sp)
				}
				return out, i + 1, true
			}
		case c == ',' && depth == 1:
			out = append(out, trim(argStart, i))
			argStart = i + 1
		case c == ';':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipString returns the offset of the closing quote of the literal that
// opens at i, or -1.
func skipString(t []byte, i int) int {
	q := t[i]
	for j := i + 1; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case q:
			return j
		case '\n':
			return -1
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// statementEnd returns the line on which the C statement that contains
// off ends: the line of its semicolon at nesting depth 0.
func (s *source) statementEnd(off int) (int, bool) {
	t := s.text
	depth := 0
	for i := off; i < len(t); i++ {
		switch c := t[i]; {
		case c == '"' || c == '\'':
			j := skipString(t, i)
			if j < 0 {
				return 0, false
			}
			i = j
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == '{' || c == '}':
			return 0, false
		case c == ';' && depth == 0:
			n := s.lineOf(i)
			rest := strings.TrimSpace(string(t[i+1 : s.lineStart(n+1)]))
			return n, rest == "" || strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "/*") && strings.HasSuffix(rest, "*/")
		}
	}
	return 0, false
}

// textOf returns the source of a span.
func (s *source) textOf(sp span) string { return string(s.text[sp.off:sp.end]) }

// hasWord tells whether the text holds the identifier w.
func (s *source) hasWord(w string) bool {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).Match(s.text)
}

// freshName returns base, or base with a number, that the file does not
// use yet and no other fix took.
func (s *source) freshName(base string, taken map[string]bool) string {
	name := base
	for i := 2; s.hasWord(name) || taken[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	taken[name] = true
	return name
}

// includes returns the headers the file includes before its first line
// of code, and the last line of those includes outside any #if (0 if
// none).
func (s *source) includes() (last int, headers map[string]bool) {
	headers = map[string]bool{}
	depth := 0
	for n := 1; n <= s.lines(); n++ {
		c := s.code(n)
		switch {
		case strings.HasPrefix(c, "#"):
			d := strings.TrimSpace(strings.TrimPrefix(c, "#"))
			switch {
			case strings.HasPrefix(d, "if"):
				depth++
			case strings.HasPrefix(d, "endif"):
				depth--
			}
			if m := includeLine().FindStringSubmatch(c); m != nil {
				headers[m[1]] = true
				if depth == 0 {
					last = n
				}
			}
		case c != "" && last > 0:
			return last, headers // the first code after the includes
		}
	}
	return last, headers
}

// includeEdit returns the edit adding "#include <header>" after the last
// unconditional #include at the top of the file, unless one of have is
// already included; ok is false when there is no safe place.
func (s *source) includeEdit(header string, have ...string) (e edit, needed, ok bool) {
	_, headers := s.includes()
	for _, h := range append([]string{header}, have...) {
		if headers[h] {
			return edit{}, false, true
		}
	}
	e, ok = s.afterIncludes("#include <" + header + ">\n")
	return e, true, ok
}

// afterIncludes returns an insertion of text after the last unconditional
// #include at the top of the file; ok is false when there is none.
func (s *source) afterIncludes(text string) (edit, bool) {
	last, _ := s.includes()
	if last == 0 {
		return edit{}, false
	}
	off, pre := s.afterLine(last)
	return edit{off: off, end: off, text: pre + text}, true
}

// ifEnd returns the last line of the C if statement (without else) that
// starts on line n.
func (s *source) ifEnd(n int) (int, bool) {
	loc := ifKeyword().FindIndex(s.text[s.lineStart(n):s.lineStart(n+1)])
	if loc == nil {
		return 0, false
	}
	_, end, ok := s.args(s.lineStart(n) + loc[1] - 1)
	if !ok {
		return 0, false
	}
	i := end
	for i < len(s.text) && isSpace(s.text[i]) {
		i++
	}
	var last int
	if i < len(s.text) && s.text[i] == '{' {
		close, ok := s.matchBrace(i)
		if !ok {
			return 0, false
		}
		last = s.lineOf(close - 1)
		if s.code(last) != "}" {
			return 0, false
		}
	} else if last, ok = s.statementEnd(i); !ok {
		return 0, false
	}
	next := last + 1
	for next <= s.lines() && s.code(next) == "" {
		next++
	}
	return last, !elseKeyword().MatchString(s.code(next))
}

// matchBrace returns the offset after the brace that closes the one at
// off, skipping strings, character literals and comments.
func (s *source) matchBrace(off int) (int, bool) {
	t := s.text
	depth := 0
	for i := off; i < len(t); i++ {
		switch c := t[i]; {
		case c == '"' || c == '\'':
			j := skipString(t, i)
			if j < 0 {
				return 0, false
			}
			i = j
		case c == '/' && i+1 < len(t) && t[i+1] == '/':
			for i < len(t) && t[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(t) && t[i+1] == '*':
			j := bytes.Index(t[i+2:], []byte("*/"))
			if j < 0 {
				return 0, false
			}
			i += j + 3
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}
