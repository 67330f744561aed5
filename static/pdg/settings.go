package pdg

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// A program that writes its own configuration file and parses it back
// ("vertices = 200000" written with fprintf, read with fgets and sscanf;
// a Fortran namelist written and read) takes its sizes from the text it
// wrote. The walk keeps the "key = value" pairs of the text the program
// writes into files (settings), and gives them back where the program
// parses them: in the branch that tests a key (if (strcmp(key,
// "vertices") == 0), if (key == "nx")), the values scanned with the key
// and the conversions of the text after it (atoi, std::stoi) are the
// key's value; a namelist READ sets the variables its text names.

// setting is the value of one key of the text a program wrote: the text
// as written and its number or string value.
type setting struct {
	text string
	v    Value
}

// settings are the keys of the text a program wrote so far in the walk.
// A key written with two different values, or with a value the analysis
// does not know, has an unknown value.
type settings map[string]setting

// keyValue matches the "key = value" pairs of a line, several to a line
// in a namelist ("nx = 224, ny = 192,").
var keyValue = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_%.]*)\s*[=:]\s*('[^']*'|"[^"]*"|[^\s,;]+)`)

// record adds the pairs of text, which a program wrote into a file: in
// each line, after a comment ("#", and for Fortran "!") is removed, the
// "key = value" and "key: value" pairs, or else a "key value" line of two
// words. Fortran keys are in lower case, as its names are.
func (st settings) record(text string, fortran bool) {
	for line := range strings.SplitSeq(text, "\n") {
		line = stripComment(line, fortran)
		var pairs [][2]string
		for _, m := range keyValue.FindAllStringSubmatch(line, -1) {
			pairs = append(pairs, [2]string{m[1], m[2]})
		}
		if f := strings.Fields(line); len(pairs) == 0 && len(f) == 2 && keyValue.MatchString(f[0]+"="+f[1]) {
			pairs = append(pairs, [2]string{f[0], f[1]})
		}
		for _, p := range pairs {
			key := p[0]
			if fortran {
				key = strings.ToLower(key)
			}
			st.set(key, p[1])
		}
	}
}

// set records that the program wrote text as the value of key.
func (st settings) set(key, text string) {
	text = strings.Trim(text, `'"`)
	v := settingValue(text)
	if strings.Contains(text, Wildcard) {
		v = Value{}
	}
	if prev, seen := st[key]; seen && (prev.text != text || !prev.v.Known()) {
		v = Value{}
	}
	st[key] = setting{text: text, v: v}
}

// known returns the setting of key when its value is known.
func (st settings) known(key string) (setting, bool) {
	s, ok := st[key]
	return s, ok && s.v.Known()
}

// stripComment removes a comment from a line of configuration text.
func stripComment(line string, fortran bool) string {
	marks := "#"
	if fortran {
		marks = "#!"
	}
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case strings.IndexByte(marks, c) >= 0:
			return line[:i]
		}
	}
	return line
}

// settingValue is the value a key's text gives: an integer, a real (with
// Fortran's d exponent) or a string.
func settingValue(text string) Value {
	if v := numberValue(text, Propagated); v.Known() || text == "" {
		return v
	}
	return StrValue(text, Propagated)
}

// numberValue reads an integer or a real, with Fortran's d exponent, or
// returns an unknown value.
func numberValue(text string, o Origin) Value {
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return IntValue(i, o)
	}
	if f, err := strconv.ParseFloat(strings.NewReplacer("d", "e", "D", "e").Replace(text), 64); err == nil {
		return FloatValue(f, o)
	}
	return Value{}
}

// writtenText records the settings of the text a C or C++ write puts into
// a file: the formatted string of a printf-like call, the string of
// fputs, puts or write, the items of a stream insertion.
func (w *walker) writtenText(c *ir.Call, s iosem.Semantics, h *Handle) {
	if h == nil || h.Kind != FileHandle {
		return
	}
	var text string
	switch s.Size.Kind {
	case iosem.Format:
		i := s.Size.Count
		if i < 0 || i >= len(c.Args) {
			return
		}
		f := Eval(c.Args[i], w.env)
		if f.Kind != Str {
			return
		}
		args := make([]Value, 0, len(c.Args)-i-1)
		for _, a := range c.Args[i+1:] {
			args = append(args, Eval(a, w.env))
		}
		text = formatValue(f, args).S
	case iosem.Text:
		v := Eval(arg(c, s.Size.Count), w.env)
		if v.Kind != Str {
			return
		}
		text = v.S
	case iosem.Items:
		text = w.itemsText(c.Args, false)
	case iosem.Bytes, iosem.WholeVar:
		// A buffer holding text the program formatted (snprintf(hdr,
		// ..., "grid=%d tile=%d\n", ...); pwrite(fd, hdr, sizeof hdr, 0)).
		v := Eval(arg(c, s.Size.Buf), w.env)
		if v.Kind != Str || !v.Built {
			return
		}
		text = v.S
	default:
		return
	}
	w.b.settings.record(text, false)
	w.textWritten(h, text)
}

// itemsText is the text of the items of a stream insertion or a Fortran
// WRITE: known strings and numbers, std::endl as a newline, Wildcard for
// the rest; Fortran's list-directed items are separated by blanks.
func (w *walker) itemsText(items []ir.Expr, fortran bool) string {
	var b strings.Builder
	for i, x := range items {
		if fortran && i > 0 {
			b.WriteByte(' ')
		}
		if r, ok := x.(ir.Ref); ok && iosem.IsFlushManipulator(r.Name) {
			if !strings.HasSuffix(r.Name, "flush") {
				b.WriteByte('\n')
			}
			continue
		}
		b.WriteString(w.itemText(x))
	}
	return b.String()
}

// itemText is the text of one written item: a known string or number, or
// Wildcard.
func (w *walker) itemText(x ir.Expr) string {
	switch v := Eval(x, w.env); {
	case v.Kind == Str:
		return v.S
	case v.Kind == Int:
		if ch, ok := x.(ir.Int); ok && ch.Char {
			return string(rune(v.I))
		}
		return strconv.FormatInt(v.I, 10)
	case v.Kind == Float:
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	}
	return Wildcard
}

// recordText is the record of an unformatted sequential WRITE, as fields
// read back by position: one per item, Wildcard for a string that would
// not read back as one field.
func (w *walker) recordText(items []ir.Expr) string {
	fields := make([]string, len(items))
	for i, x := range items {
		fields[i] = w.itemText(x)
		if fields[i] == "" || strings.ContainsAny(fields[i], " \t,") {
			fields[i] = Wildcard
		}
	}
	return strings.Join(fields, " ")
}

// fortranSettings handles the namelist and text WRITEs and READs of a
// Fortran statement on an external file: a WRITE records the text of its
// items, or the variables of its namelist group with their values (an
// unformatted WRITE, the record of its items); a
// namelist READ gives the group's variables (every variable, when the
// group is not known) the values the program wrote for them, and forgets
// the others: a text the program did not write may set them.
func (w *walker) fortranSettings(s *ir.FortranIO, sem iosem.Semantics, h *Handle) {
	if h == nil || h.Kind != FileHandle {
		return
	}
	if !sem.Formatted {
		if s.Op == "write" && !sem.ExplicitOffset {
			w.recordWritten(h, w.recordText(s.Items), true)
		}
		return
	}
	group, isNml := s.Specs["nml"]
	if !isNml && s.Op == "read" {
		return // a READ of items, or one that skips a record
	}
	var members []string
	if isNml {
		if r, ok := group.(ir.Ref); ok {
			members = w.d.file.Namelists[strings.ToLower(r.Name)]
		}
	}
	switch s.Op {
	case "write":
		if !isNml {
			text := w.itemsText(s.Items, true)
			w.b.settings.record(text, true)
			w.recordWritten(h, text, false)
			return
		}
		for _, m := range members {
			v := Eval(ir.Ref{Name: m}, w.env)
			text := Wildcard
			switch v.Kind {
			case Int:
				text = strconv.FormatInt(v.I, 10)
			case Float:
				text = strconv.FormatFloat(v.F, 'g', -1, 64)
			case Str:
				text = v.S
			}
			w.b.settings.set(m, text)
		}
	case "read":
		if members == nil {
			for key := range w.b.settings {
				if w.env.Var(key) != nil {
					members = append(members, key)
				}
			}
			slices.Sort(members)
		}
		for _, m := range members {
			if st, ok := w.b.settings.known(m); ok {
				w.setSetting(m, st.v)
			} else {
				w.env.Kill(m) // the text may set it to anything
			}
		}
	}
}

// setSetting gives a variable the value a key of the program's text
// gives it: a local, or a global the walk follows (see globalUses), as
// any assignment does, and settled (see walker.settled); another global
// for the rest of the walk.
func (w *walker) setSetting(name string, v Value) {
	if !w.env.locals.m[name] && w.env.shared.globalVars[name] != nil && !w.env.shared.followed(name) {
		w.env.shared.globals[name] = v
		return
	}
	w.env.Set(name, v)
	w.settled[name] = v
}

// keyTest finds in the condition of a branch the test of a key against a
// string: strcmp(key, "nx") == 0, !strncmp(key, "nx", 2), key == "nx"
// (a std::string), alone or in a conjunction. It returns the expression
// holding the key read from the file and the string.
func keyTest(cond ir.Expr) (ir.Expr, string, bool) {
	switch c := cond.(type) {
	case ir.Binary:
		switch c.Op {
		case "&&":
			if x, k, ok := keyTest(c.L); ok {
				return x, k, true
			}
			return keyTest(c.R)
		case "==":
			if z, ok := c.R.(ir.Int); ok && z.V == 0 {
				return compared(c.L)
			}
			for _, side := range [][2]ir.Expr{{c.L, c.R}, {c.R, c.L}} {
				if s, ok := side[1].(ir.Str); ok {
					return side[0], s.V, true
				}
			}
		}
	case ir.Unary:
		if c.Op == "!" {
			return compared(c.X)
		}
	}
	return nil, "", false
}

// compared returns the two sides of a string comparison call when one is
// a literal.
func compared(x ir.Expr) (ir.Expr, string, bool) {
	call, ok := x.(ir.CallExpr)
	if !ok || len(call.Args) < 2 {
		return nil, "", false
	}
	switch strings.TrimPrefix(call.Callee, "std::") {
	case "strcmp", "strncmp", "strcasecmp", "strncasecmp":
	default:
		return nil, "", false
	}
	for _, side := range [][2]ir.Expr{{call.Args[0], call.Args[1]}, {call.Args[1], call.Args[0]}} {
		if s, ok := side[1].(ir.Str); ok {
			return side[0], s.V, true
		}
	}
	return nil, "", false
}

// keyed reports whether cond tests a key whose value the program wrote,
// and if so gives the values scanned together with the key (sscanf(line,
// "%s = %lf", key, &val); in >> key >> val) that value, and makes it the
// setting of the branch (Env.setting) for the scans and conversions in
// it.
func (w *walker) keyed(cond ir.Expr) bool {
	x, key, ok := keyTest(cond)
	if !ok {
		return false
	}
	st, ok := w.b.settings.known(key)
	if !ok {
		return false
	}
	w.env.setting = st
	name := baseName(x)
	visitStmts(w.d.f.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Call:
			if scanFamily(s.Callee) {
				w.scanned(s.Args, name)
			}
		case *ir.Assign:
			if s.Partial && s.Op == ">>" {
				w.scanned(extractions(s.Value), name)
			}
		}
	})
	return true
}

// scanned gives the outputs that follow the key name among a scan's
// outputs the value of the branch's setting, for the branch only.
func (w *walker) scanned(outs []ir.Expr, name string) {
	i := slices.IndexFunc(outs, func(a ir.Expr) bool { return name != "" && scanTarget(a) == name })
	if i < 0 {
		return
	}
	for _, a := range outs[i+1:] {
		w.scanInto(a, false)
	}
}

// scanFamily reports whether a routine scans text into its arguments.
func scanFamily(callee string) bool {
	switch strings.TrimPrefix(callee, "std::") {
	case "sscanf", "fscanf", "scanf":
		return true
	}
	return false
}

// extractions returns the items of a chain of stream extractions, in
// order: in >> a >> b gives in, a, b.
func extractions(x ir.Expr) []ir.Expr {
	if b, ok := x.(ir.Binary); ok && b.Op == ">>" {
		return append(extractions(b.L), b.R)
	}
	return []ir.Expr{x}
}

// scanTarget returns the variable a scan stores into through a: &x, an
// array x, a stream extraction's x.
func scanTarget(a ir.Expr) string {
	if u, ok := a.(ir.Unary); ok && u.Op == "&" {
		a = u.X
	}
	if r, ok := a.(ir.Ref); ok {
		return r.Name
	}
	return ""
}

// scanInto stores the value of the branch's setting through a scan's
// output a (see storeScanned); a variable is settled when settle is set.
func (w *walker) scanInto(a ir.Expr, settle bool) {
	st := w.env.setting
	w.storeScanned(a, st.v, st.text, settle)
}

// storeScanned stores v, scanned from text, through a scan's output a:
// into a member it is observed, into a character buffer as text; a
// variable is settled when settle is set.
func (w *walker) storeScanned(a ir.Expr, v Value, text string, settle bool) {
	if m := addressedMember(a, w.d.file.Lang); m != "" {
		if v.Kind == Int || v.Kind == Float {
			w.b.observed[m] = v
		}
		return
	}
	name := scanTarget(a)
	if name == "" {
		return
	}
	if t := w.env.Var(name); t != nil && isText(t.Type) {
		v = StrValue(text, Propagated)
	}
	if settle {
		w.setSetting(name, v)
	} else {
		w.env.Set(name, v)
	}
}

// isText reports whether a variable of type t holds characters.
func isText(t ir.Type) bool {
	n := strings.TrimPrefix(strings.TrimPrefix(t.Name, "const "), "std::")
	return n == "string" || n == "char" && (t.Pointer > 0 || len(t.Dims) > 0)
}

// scanSetting stores the key's setting into the outputs of a scan inside
// the branch that tested the key (strcmp(key, "order") == 0 &&
// fscanf(f, "%d", &cfg->n) == 1): the outputs after its format, or the
// items of a stream extraction (if (k == "modules") vs >> c.modules),
// from a file or a string stream. Outside such a branch, a scan whose
// format names the keys reads their settings too (keyedScan).
func (w *walker) scanSetting(c *ir.Call) {
	w.keyedScan(c)
	if !w.env.setting.v.Known() {
		return
	}
	outs := c.Args
	switch {
	case c.Callee == "operator>>" && c.Receiver != nil:
		// Extraction takes its items by reference: a member is stored
		// into as through its address.
		outs = make([]ir.Expr, len(c.Args))
		for i, a := range c.Args {
			if f, ok := a.(ir.Field); ok {
				a = ir.Unary{Op: "&", X: f}
			}
			outs[i] = a
		}
	case scanFamily(c.Callee):
		var ok bool
		if _, outs, ok = scanArgs(c); !ok {
			return
		}
	default:
		return
	}
	for _, a := range outs {
		w.scanInto(a, true)
	}
}

// keyedScan stores into the outputs of a scan whose format names their
// keys (sscanf(hdr, "PYR1 grid=%d tile=%d", &grid, &tile)) the values the
// program wrote for those keys, when known.
func (w *walker) keyedScan(c *ir.Call) {
	if !scanFamily(c.Callee) {
		return
	}
	f, outs, ok := scanArgs(c)
	if !ok {
		return
	}
	format, ok := f.(ir.Str)
	if !ok {
		return
	}
	for i, key := range formatKeys(format.V) {
		if i >= len(outs) {
			break
		}
		if st, ok := w.b.settings.known(key); ok && key != "" {
			w.storeScanned(outs[i], st.v, st.text, false)
		}
	}
}

// scanArgs returns the format and the outputs of a call of the scanf
// family, and false when it has no output.
func scanArgs(c *ir.Call) (format ir.Expr, outs []ir.Expr, ok bool) {
	f := 1
	if strings.TrimPrefix(c.Callee, "std::") == "scanf" {
		f = 0
	}
	if len(c.Args) <= f+1 {
		return nil, nil, false
	}
	return c.Args[f], c.Args[f+1:], true
}

// scannedKey matches the key that labels a scan conversion: the last
// "key=" or "key:" of the text before it.
var scannedKey = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*$`)

// formatKeys returns, for each conversion of a scanf format that stores a
// value, the key the text before it names ("" when none).
func formatKeys(format string) []string {
	var keys []string
	lit := 0 // start of the literal text before the next conversion
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			i++
			continue
		}
		key := ""
		if m := scannedKey.FindStringSubmatch(format[lit:i]); m != nil {
			key = m[1]
		}
		j := i + 1
		suppressed := j < len(format) && format[j] == '*'
		for j < len(format) && strings.IndexByte("*0123456789hlLqjzt", format[j]) >= 0 {
			j++
		}
		if j == len(format) {
			break // a lone % at the end
		}
		if format[j] == '[' {
			if k := strings.IndexByte(format[j+2:], ']'); k >= 0 {
				j += k + 2
			}
		}
		if !suppressed {
			keys = append(keys, key)
		}
		i, lit = j, j+1
	}
	return keys
}

// keepSettled gives the variables settled in a branch, and stored into in
// one of its alternatives, their settled values after the merge: the
// text the program parses holds each key, so every run of the parse
// takes each key's branch once.
func (w *walker) keepSettled(alts ...ir.Block) {
	if len(w.settled) == 0 {
		return
	}
	for _, blk := range alts {
		for name := range w.assignedIn(blk) {
			if v, ok := w.settled[name]; ok {
				w.env.Set(name, v)
			}
		}
	}
}

// mapSetting evaluates kv["nodes"], an element of a map indexed by a key
// of the program's own text, as that key's value: the program filled the
// map as it parsed the text.
func (e *Env) mapSetting(x ir.Index, depth int) (Value, bool) {
	r, ok := x.X.(ir.Ref)
	if !ok || len(x.Idx) != 1 {
		return Value{}, false
	}
	v := e.Var(r.Name)
	if v == nil || !strings.Contains(v.Type.Name, "map<") {
		return Value{}, false
	}
	k := e.eval(x.Idx[0], depth)
	if k.Kind != Str {
		return Value{}, false
	}
	st, ok := e.shared.settings.known(k.S)
	return st.v, ok
}
