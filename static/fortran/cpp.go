package fortran

import "strings"

// A define is an object-like macro of a "#define NAME value" line.
type define struct {
	line  int
	name  string // lower case, like every Fortran name in the IR
	value string
}

// cppBranch is the state of one open #if.
type cppBranch struct {
	outer  bool // the enclosing region is kept
	active bool // the lines of the current branch are kept
	taken  bool // a branch of this #if has been kept already
}

// preprocess removes C preprocessor directives from lines. Of each
// #if/#elif/#else chain it keeps the first branch (the one after "#if 0"
// counts as not taken), so that the statements stay balanced; object-like
// #define macros of kept regions are returned.
func preprocess(lines []string) ([]physLine, []define) {
	out := make([]physLine, 0, len(lines))
	var defs []define
	var stack []cppBranch
	active := func() bool { return len(stack) == 0 || stack[len(stack)-1].active }
	for i := 0; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " \t")
		if t == "" || t[0] != '#' {
			if active() {
				out = append(out, physLine{num: i + 1, text: lines[i]})
			}
			continue
		}
		num := i + 1
		for strings.HasSuffix(t, "\\") && i+1 < len(lines) {
			i++
			t = t[:len(t)-1] + " " + lines[i]
		}
		word, rest := cppWord(strings.TrimLeft(t[1:], " \t"))
		switch word {
		case "if", "ifdef", "ifndef":
			zero := word == "if" && isZero(rest)
			on := active()
			stack = append(stack, cppBranch{outer: on, active: on && !zero, taken: !zero})
		case "elif", "else":
			if n := len(stack); n > 0 {
				b := &stack[n-1]
				b.active = b.outer && !b.taken && !(word == "elif" && isZero(rest))
				b.taken = b.taken || b.active
			}
		case "endif":
			if n := len(stack); n > 0 {
				stack = stack[:n-1]
			}
		case "define":
			if d, ok := parseDefine(rest, num); ok && active() {
				defs = append(defs, d)
			}
		}
	}
	return out, defs
}

// cppWord splits the directive name from its operands.
func cppWord(s string) (word, rest string) {
	i := 0
	for i < len(s) && isIdentByte(s[i]) {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// isZero reports whether an #if condition is the literal 0.
func isZero(cond string) bool {
	if i := strings.Index(cond, "/*"); i >= 0 {
		cond = cond[:i]
	}
	return strings.TrimSpace(cond) == "0"
}

// parseDefine parses the operands of an object-like #define. Empty and
// function-like macros are ignored.
func parseDefine(s string, line int) (define, bool) {
	name, value := cppWord(s)
	if name == "" || (len(name) < len(s) && s[len(name)] == '(') {
		return define{}, false
	}
	if i := strings.Index(value, "/*"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	if value == "" {
		return define{}, false
	}
	return define{line: line, name: strings.ToLower(name), value: value}, true
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
