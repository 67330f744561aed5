package cfront

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/iolens/iolens/static/ir"
)

// parseNumber converts a C or C++ number literal (with digit separators,
// suffixes, hex, octal and binary forms) into an Int or a Float; what it
// cannot read becomes Unknown.
func parseNumber(text string) ir.Expr {
	s := text
	if strings.IndexByte(s, '\'') >= 0 {
		s = strings.ReplaceAll(s, "'", "")
	}
	hex := len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	isFloat := strings.ContainsAny(s, ".") ||
		(hex && strings.ContainsAny(s, "pP")) ||
		(!hex && strings.ContainsAny(s, "eE"))
	if isFloat {
		s = strings.TrimRight(s, "fFlL")
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return ir.Float{V: v}
		}
		return ir.Unknown{Text: text}
	}
	s = strings.TrimRight(s, "uUlLzZ")
	base := 10
	switch {
	case hex:
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	v, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		if !hex {
			// A float without '.', such as 1f in some dialects.
			if f, ferr := strconv.ParseFloat(strings.TrimRight(s, "fF"), 64); ferr == nil && base == 10 {
				return ir.Float{V: f}
			}
		}
		return ir.Unknown{Text: text}
	}
	return ir.Int{V: int64(v)}
}

// unescape decodes the C escape sequences of a string or character
// literal's content.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'e':
			b.WriteByte(0x1b)
		case 'x':
			j := i + 1
			for j < len(s) && isHex(s[j]) {
				j++
			}
			v, _ := strconv.ParseUint(s[i+1:min(j, i+3)], 16, 8)
			b.WriteByte(byte(v))
			i = j - 1
		case 'u', 'U':
			n := 4
			if c == 'U' {
				n = 8
			}
			if i+n < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += n
					break
				}
			}
			b.WriteByte(c)
		default:
			if c >= '0' && c <= '7' {
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(v))
				i = j - 1
				break
			}
			b.WriteByte(c) // \\ \' \" \?
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// charValue returns the value of a character literal's decoded content.
func charValue(s string) int64 {
	if s == "" {
		return 0
	}
	if r, size := utf8.DecodeRuneInString(s); r != utf8.RuneError && size == len(s) {
		return int64(r)
	}
	return int64(s[0])
}
