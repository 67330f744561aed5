package fortran

import (
	"bytes"
	"strings"
)

// A physLine is one source line that survived preprocessing.
type physLine struct {
	num  int // line number in the original file, from 1
	text string
}

// A stmt is one logical statement: continuation lines joined, comments,
// labels and continuation marks removed, ";"-separated statements split.
type stmt struct {
	line  int    // line where the statement starts
	label string // statement label, or ""
	text  string
}

// splitLines returns the lines of src without their line terminators and
// the number of lines.
func splitLines(src []byte) []string {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	s := string(src)
	n := strings.Count(s, "\n") + 1
	if strings.HasSuffix(s, "\n") {
		n--
	}
	lines := make([]string, 0, n)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		var l string
		if i < 0 {
			l, s = s, ""
		} else {
			l, s = s[:i], s[i+1:]
		}
		lines = append(lines, strings.TrimSuffix(l, "\r"))
	}
	return lines
}

// builder accumulates the text of the statement being joined.
type builder struct {
	buf   []byte
	line  int
	label string
	quote byte // the open string's delimiter, or 0
	out   []stmt
	// A statement that is one piece of one line is that piece of the
	// source, not a copy: src[from:from+len(buf)] when pieces == 1.
	src    string
	from   int
	pieces int
}

// add appends text (from source line num) to the current statement. It
// strips a trailing "!" comment, splits statements at ";" and tracks
// strings across calls.
func (b *builder) add(text string, num int) {
	if len(b.buf) > 0 {
		b.pieces++
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case b.quote != 0:
			if c == b.quote {
				b.quote = 0
			}
		case c == '\'' || c == '"':
			b.quote = c
		case c == '!':
			return
		case c == ';':
			b.flush()
			continue
		}
		if len(b.buf) == 0 {
			if c == ' ' || c == '\t' {
				continue
			}
			b.line = num
			b.src, b.from, b.pieces = text, i, 1
		}
		b.buf = append(b.buf, c)
	}
}

// flush ends the current statement.
func (b *builder) flush() {
	b.quote = 0
	var t string
	if b.pieces == 1 {
		t = strings.TrimRight(b.src[b.from:b.from+len(b.buf)], " \t")
	} else {
		t = strings.TrimRight(string(b.buf), " \t")
	}
	b.buf = b.buf[:0]
	label := b.label
	b.label = ""
	if t == "" {
		return
	}
	b.out = append(b.out, stmt{line: b.line, label: label, text: t})
}

// joinFree turns free-form lines into statements.
func joinFree(lines []physLine) []stmt {
	b := &builder{out: make([]stmt, 0, len(lines))}
	cont := false
	for _, l := range lines {
		t := strings.TrimLeft(l.text, " \t")
		if cont {
			if t == "" || (t[0] == '!' && b.quote == 0) {
				continue // comments may sit between continuation lines
			}
			if t[0] == '&' {
				t = t[1:]
			} else if b.quote != 0 {
				t = l.text // a continued string goes on from column 1
			}
		} else {
			if t == "" || t[0] == '!' {
				continue
			}
			t = b.takeLabel(t, l.num)
		}
		b.add(t, l.num)
		cont = b.trimAmpersand()
		if !cont {
			b.flush()
		}
	}
	b.flush()
	return b.out
}

// takeLabel removes a free-form statement label from the start of t.
func (b *builder) takeLabel(t string, num int) string {
	i := 0
	for i < len(t) && i < 5 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && (i == len(t) || t[i] == ' ' || t[i] == '\t') {
		b.label = strings.TrimLeft(t[:i], "0")
		if b.label == "" {
			b.label = "0"
		}
		b.line = num
		return t[i:]
	}
	return t
}

// trimAmpersand removes a trailing continuation "&" from the buffer and
// reports whether there was one.
func (b *builder) trimAmpersand() bool {
	n := len(b.buf)
	for n > 0 && (b.buf[n-1] == ' ' || b.buf[n-1] == '\t') {
		n--
	}
	if n > 0 && b.buf[n-1] == '&' {
		b.buf = b.buf[:n-1]
		return true
	}
	return false
}

// fixedWidth is the number of statement columns (7–72) of a fixed-form line.
const fixedWidth = 66

// joinFixed turns fixed-form lines into statements.
func joinFixed(lines []physLine) []stmt {
	b := &builder{out: make([]stmt, 0, len(lines))}
	for _, l := range lines {
		label, cont, text, ok := fixedFields(l.text)
		if !ok {
			continue
		}
		if !cont {
			b.flush()
			if label != "" {
				b.label = label
				b.line = l.num
			}
		}
		b.add(text, l.num)
	}
	b.flush()
	return b.out
}

// fixedFields splits a fixed-form line into its label, continuation flag
// and statement text. ok is false for comment and blank lines.
func fixedFields(s string) (label string, cont bool, text string, ok bool) {
	if s == "" {
		return "", false, "", false
	}
	switch s[0] {
	case 'c', 'C', '*', '!', 'd', 'D':
		return "", false, "", false
	}
	if t := strings.TrimLeft(s, " \t"); t == "" || (t[0] == '!' && len(s)-len(t) != 5) {
		return "", false, "", false
	}
	var field string
	if tab := strings.IndexByte(s, '\t'); tab >= 0 && tab < 6 {
		// DEC tab format: label, tab, then a digit 1–9 for a
		// continuation line or the statement text.
		field, text = s[:tab], s[tab+1:]
		if text != "" && text[0] >= '1' && text[0] <= '9' {
			cont, text = true, text[1:]
		}
	} else {
		if len(s) < 6 {
			s += "      "[:6-len(s)]
		}
		field, text = s[:5], s[6:]
		cont = s[5] != ' ' && s[5] != '0'
	}
	if len(text) > fixedWidth {
		text = text[:fixedWidth]
	}
	field = strings.TrimSpace(field)
	if field != "" && isDigits(field) && !cont {
		label = strings.TrimLeft(field, "0")
		if label == "" {
			label = "0"
		}
	}
	return label, cont, text, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
