package fortran

import "strings"

// tokKind is the class of a token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tName           // identifier or keyword, lower case
	tInt            // integer literal, possibly with a kind suffix
	tReal           // real literal
	tString         // character literal; s is the decoded value
	tOp             // operator or punctuation; dot operators are lower case
)

// A token of a statement. off and end are byte offsets in the statement
// text, so that unmodelled constructs can be kept as source text.
type token struct {
	kind     tokKind
	s        string
	off, end int
}

// lex appends the tokens of the statement text s to toks.
func lex(s string, toks []token) []token {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case isLetter(c):
			j := i + 1
			for j < len(s) && (isIdentByte(s[j]) || s[j] == '$') {
				j++
			}
			toks = append(toks, token{tName, lower(s[i:j]), i, j})
			i = j
		case c >= '0' && c <= '9':
			j, real := lexNumber(s, i)
			k := tInt
			if real {
				k = tReal
			}
			toks = append(toks, token{k, s[i:j], i, j})
			i = j
		case c == '.':
			if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				j, _ := lexNumber(s, i)
				toks = append(toks, token{tReal, s[i:j], i, j})
				i = j
				break
			}
			if j := dotWord(s, i); j > 0 {
				toks = append(toks, token{tOp, lower(s[i:j]), i, j})
				i = j
				break
			}
			toks = append(toks, token{tOp, ".", i, i + 1})
			i++
		case c == '\'' || c == '"':
			v, j := lexString(s, i)
			toks = append(toks, token{tString, v, i, j})
			i = j
		default:
			n := opLen(s, i)
			toks = append(toks, token{tOp, s[i : i+n], i, i + n})
			i += n
		}
	}
	return toks
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// lower returns s in lower case, without allocating when it already is.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// dotWord returns the end of a dot operator or logical literal starting
// at s[i] == '.' (".and.", ".true.", ".myop."), or 0.
func dotWord(s string, i int) int {
	j := i + 1
	for j < len(s) && isLetter(s[j]) {
		j++
	}
	if j > i+1 && j < len(s) && s[j] == '.' {
		return j + 1
	}
	return 0
}

// lexNumber scans a numeric literal starting at s[i] and returns its end
// and whether it is real. "1.eq.2" stops before the dot operator.
func lexNumber(s string, i int) (end int, real bool) {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j < len(s) && s[j] == '.' && dotWord(s, j) == 0 || j < len(s) && s[j] == '.' && isExponent(s, j+1) {
		real = true
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	if isExponent(s, j) {
		real = true
		j++
		if s[j] == '+' || s[j] == '-' {
			j++
		}
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	if j+1 < len(s) && s[j] == '_' && isIdentByte(s[j+1]) {
		j++
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
	}
	return j, real
}

// isExponent reports whether an exponent ("e5", "D-3", "q+0") starts at s[j].
func isExponent(s string, j int) bool {
	if j >= len(s) {
		return false
	}
	switch s[j] {
	case 'e', 'E', 'd', 'D', 'q', 'Q':
	default:
		return false
	}
	j++
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	return j < len(s) && s[j] >= '0' && s[j] <= '9'
}

// lexString decodes the character literal starting at s[i] and returns it
// with its end; a doubled delimiter stands for itself. An unterminated
// literal runs to the end of the statement.
func lexString(s string, i int) (string, int) {
	q := s[i]
	j := i + 1
	start := j
	var b []byte
	for j < len(s) {
		if s[j] != q {
			j++
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b = append(b, s[start:j+1]...)
			j += 2
			start = j
			continue
		}
		if b == nil {
			return s[start:j], j + 1
		}
		return string(append(b, s[start:j]...)), j + 1
	}
	return string(append(b, s[start:]...)), len(s)
}

// opLen returns the length of the operator or punctuation at s[i].
func opLen(s string, i int) int {
	if i+1 < len(s) {
		switch s[i : i+2] {
		case "**", "//", "/=", "==", "=>", "<=", ">=", "::":
			return 2
		}
	}
	return 1
}
