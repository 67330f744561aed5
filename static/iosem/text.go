package iosem

import "strings"

// Estimated widths, in characters, of values converted to text. Formatted
// byte counts are estimates: a list-directed real(8) takes about 25
// characters, "%g" about 12; 16 sits between. They only need the right
// order of magnitude to weigh formatted I/O against binary I/O.
const (
	IntWidth   = 8  // an integer: "%d", I8
	FloatWidth = 16 // a floating-point number: "%f", "%e", list-directed REAL
	PtrWidth   = 14 // "%p"
	StrWidth   = 16 // a string whose length is unknown
	LineWidth  = 80 // a line of text whose length is unknown
)

// FormatBytes estimates the bytes that a printf or scanf format produces
// or consumes: its literal characters plus a typical width per conversion.
// It also returns the number of conversions (the data items).
func FormatBytes(format string) (bytes int64, conversions int) {
	literal, convs := scanFormat(format)
	bytes = literal
	for i := 0; i < len(convs); i++ {
		switch c := convs[i]; {
		case c == 'c':
			bytes++
		case strings.IndexByte("diuxXo", c) >= 0:
			bytes += IntWidth
		case strings.IndexByte("feEgGaA", c) >= 0:
			bytes += FloatWidth
		case c == 'p':
			bytes += PtrWidth
		default: // s, [ and the rest
			bytes += StrWidth
		}
	}
	return bytes, len(convs)
}

// Conversions returns the conversion characters of a printf or scanf
// format, in order ("%ld %.12f\n" gives "df"); "%%" is not a conversion.
func Conversions(format string) string {
	_, convs := scanFormat(format)
	return convs
}

// scanFormat splits a printf or scanf format into the count of its
// literal characters ("%%" counting as one) and its conversion characters.
func scanFormat(format string) (literal int64, convs string) {
	var b []byte
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			literal++
			continue
		}
		// Skip flags, width, precision and length modifiers.
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.*hlLqjzt'", format[j]) >= 0 {
			j++
		}
		if j == len(format) {
			break
		}
		i = j
		if format[j] == '%' {
			literal++
			continue
		}
		b = append(b, format[j])
	}
	return literal, string(b)
}

// ConversionOf returns the printf conversion letter of a value of the
// named type, for the cost of formatting it (FormatCost): 'c' for a
// character, 's' for a string, 'd' for a logical or an integer, 'f' for
// the rest.
func ConversionOf(typeName string) byte {
	n := strings.ToLower(typeName)
	switch {
	case strings.HasPrefix(n, "char"):
		return 'c'
	case strings.Contains(n, "string"):
		return 's'
	case strings.HasPrefix(n, "logical") || n == "bool" || strings.HasPrefix(n, "int") || strings.Contains(n, "long") ||
		strings.Contains(n, "short") || n == "unsigned" || n == "size_t":
		return 'd'
	}
	return 'f'
}

// TextWidth estimates the characters one value of the named type takes
// when formatted: the declared length of a character value (size bytes),
// 2 for a logical, IntWidth for an integer, FloatWidth for the rest.
func TextWidth(typeName string, size int64) int64 {
	n := strings.ToLower(typeName)
	switch {
	case strings.HasPrefix(n, "char"):
		return max(size, 1)
	case strings.HasPrefix(n, "logical") || n == "bool":
		return 2
	case strings.HasPrefix(n, "int") || strings.Contains(n, "long") || strings.Contains(n, "short") ||
		n == "unsigned" || n == "size_t":
		return IntWidth
	}
	return FloatWidth
}
