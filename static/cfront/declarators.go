package cfront

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// The C++ grammar accepts a default member initializer on the last
// declarator of a member declaration only: "int id = 0, period = 0;" in a
// class body is a syntax error to it, and its recovery loses members and
// the declarations after them. splitDeclarators rewrites each one-line
// declaration with several initialised declarators into one declaration
// per declarator ("int id = 0; int period = 0;"), which means the same in
// a class body and in a block. Lines keep their numbers.
func splitDeclarators(src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte{'\n'})
	changed := false
	for i, line := range lines {
		if bytes.IndexByte(line, ',') < 0 || bytes.IndexByte(line, '=') < 0 {
			continue
		}
		if out, ok := splitLine(string(line)); ok {
			lines[i] = []byte(out)
			changed = true
		}
	}
	if !changed {
		return src
	}
	return bytes.Join(lines, nil)
}

// splitLine splits the declarations of one line: the statements that
// start at the line's beginning or after "{" or ";" and end with ";".
func splitLine(line string) (string, bool) {
	var b strings.Builder
	changed := false
	start := 0
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"', '\'':
			i = skipQuoted(line, i)
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '/':
			if strings.HasPrefix(line[i:], "//") {
				i = len(line) - 1
			}
		case '{':
			if depth > 0 || initializerBrace(line[:i]) {
				depth++
				continue
			}
			b.WriteString(line[start : i+1])
			start = i + 1
		case '}':
			if depth > 0 {
				depth--
				continue
			}
			b.WriteString(line[start : i+1])
			start = i + 1
		case ';':
			if depth != 0 {
				continue
			}
			stmt := line[start : i+1]
			if out, ok := splitDeclaration(stmt); ok {
				stmt, changed = out, true
			}
			b.WriteString(stmt)
			start = i + 1
		}
	}
	b.WriteString(line[start:])
	return b.String(), changed
}

// initializerBrace reports whether a "{" after before opens an
// initializer ("= {", "f({", "y{2}") rather than a block or a class body
// ("struct Acc {", ") {").
func initializerBrace(before string) bool {
	if before == "" {
		return false
	}
	if c := before[len(before)-1]; c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
		return true
	}
	trimmed := strings.TrimRight(before, " \t")
	return trimmed != "" && strings.IndexByte("=,({[", trimmed[len(trimmed)-1]) >= 0
}

// skipQuoted returns the index of the quote closing the literal opened at
// line[i], or the last index of the line.
func skipQuoted(line string, i int) int {
	q := line[i]
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case q:
			return j
		}
	}
	return len(line) - 1
}

// declaratorPatterns are the patterns of splitDeclaration, compiled on
// first use: the type and first declarator of a declaration (specifiers
// and a type, with template arguments and qualified names, then the
// declared name after its pointer or reference marks), and a later
// declarator with its initializer.
var declaratorPatterns = sync.OnceValues(func() (leading, later *regexp.Regexp) {
	return regexp.MustCompile(`^\s*((?:[A-Za-z_][\w:]*(?:<[^=;]*>)?[\s*&]+)+?)([*&\s]*[A-Za-z_]\w*(?:\[[^\]]*\])?\s*)$`),
		regexp.MustCompile(`^\s*[*&]*\s*[A-Za-z_]\w*(?:\[[^\]]*\])?\s*(?:=.*|\{.*\})?$`)
})

// startsStatement reports whether word starts a statement that is not a
// declaration.
func startsStatement(word string) bool {
	switch word {
	case "return", "for", "if", "while", "else", "case", "goto", "delete", "throw", "using", "typedef",
		"co_return", "co_yield", "do", "switch", "friend", "template", "namespace", "enum":
		return true
	}
	return false
}

// splitDeclaration rewrites "T a = x, b = y;" as "T a = x; T b = y;".
// It reports false for statements that are not such declarations.
func splitDeclaration(stmt string) (string, bool) {
	body := strings.TrimSuffix(stmt, ";")
	parts := topLevelCommas(body)
	if len(parts) < 2 {
		return "", false
	}
	eq := topLevelEquals(parts[0])
	if eq < 0 {
		return "", false
	}
	leading, later := declaratorPatterns()
	m := leading.FindStringSubmatch(parts[0][:eq])
	if m == nil {
		return "", false
	}
	typ := strings.TrimRight(m[1], "*& \t")
	if first := strings.Fields(typ); len(first) == 0 || startsStatement(first[0]) {
		return "", false
	}
	initialised := false
	for _, p := range parts[1:] {
		if !later.MatchString(p) {
			return "", false
		}
		initialised = initialised || strings.ContainsAny(p, "={")
	}
	if !initialised {
		return "", false // "int a = 0, b;" is accepted as written
	}
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		b.WriteString("; ")
		// The type's pointer marks belong to the first declarator.
		b.WriteString(typ)
		b.WriteString(" ")
		b.WriteString(strings.TrimSpace(p))
	}
	b.WriteString(";")
	return b.String(), true
}

// topLevelCommas splits s at the commas outside brackets and template
// arguments (these only before the first "=" of a part).
func topLevelCommas(s string) []string {
	var parts []string
	depth, angle, start := 0, 0, 0
	inInit := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'':
			i = skipQuoted(s, i)
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '<':
			if !inInit {
				angle++
			}
		case '>':
			if !inInit && angle > 0 {
				angle--
			}
		case '=':
			if depth == 0 && angle == 0 {
				inInit = true
			}
		case ',':
			if depth == 0 && angle == 0 {
				parts = append(parts, s[start:i])
				start, inInit = i+1, false
			}
		}
	}
	return append(parts, s[start:])
}

// topLevelEquals returns the index of the "=" of an initializer in s (not
// of "==", "<=", ">=" or "!="), or -1.
func topLevelEquals(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
		case '=':
			if depth != 0 || i+1 < len(s) && s[i+1] == '=' || i > 0 && strings.IndexByte("<>!=+-*/%&|^", s[i-1]) >= 0 {
				continue
			}
			return i
		}
	}
	return -1
}
