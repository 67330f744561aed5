package tune

import (
	"math"
	"strconv"
	"strings"
)

// suffixes are the binary multipliers numbers may end with, by upper-case
// letter.
var suffixes = map[byte]float64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}

// ParseNumber parses a number with an optional binary suffix: K, M, G or T
// (case-insensitive, optionally followed by "B" or "iB") multiply by a
// power of 1024, so that "1M" is 1048576 and "1.5K" is 1536. Signs, decimal
// points and exponents are accepted; hexadecimal, infinities and NaN are
// not.
func ParseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	mult := 1.0
	body := s
	for _, tail := range []string{"iB", "ib", "B", "b", ""} {
		if !strings.HasSuffix(body, tail) || len(body) < len(tail)+2 {
			continue
		}
		c := body[len(body)-len(tail)-1]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if m, ok := suffixes[c]; ok {
			mult = m
			body = body[:len(body)-len(tail)-1]
			break
		}
	}
	if !isDecimal(body) {
		return 0, false
	}
	v, err := strconv.ParseFloat(body, 64)
	if err != nil {
		return 0, false
	}
	v *= mult
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// isDecimal reports whether s is a decimal number: an optional sign,
// digits with an optional decimal point, and an optional exponent.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// formatNumber returns the canonical text of a number: an integer without
// a decimal point when it is one, else the shortest representation.
func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// boolWords maps the words a boolean value may be written with to its
// value.
var boolWords = map[string]bool{
	"true": true, "false": false, "yes": true, "no": false, "on": true, "off": false,
	"enable": true, "disable": false, "enabled": true, "disabled": false, "1": true, "0": false,
}

// parseBool parses a boolean written as one of boolWords
// (case-insensitive).
func parseBool(s string) (value, ok bool) {
	value, ok = boolWords[strings.ToLower(strings.TrimSpace(s))]
	return value, ok
}
