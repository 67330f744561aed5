package tune

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// maxRangeValues is the most values a range may yield.
const maxRangeValues = 10000

// spaceFile is the TOML form of a space:
//
//	presets = ["mpiio"]          # optional: start from built-in presets
//
//	[vars]                       # optional: values of constraint variables
//	ranks = 4
//
//	[[param]]
//	name = "cb_nodes"
//	kind = "mpiio"               # mpiio | hdf5 | stdio | env | arg | ranks
//	key = "cb_nodes"             # optional, defaults to name
//	values = ["1", "2", "4"]     # or: range = { min = "64K", max = "16M", scale = "pow2" }
//	default = "1"                # optional, defaults to the first value
//	doc = "..."                  # optional
//
//	[[constraint]]
//	expr = "cb_nodes <= ranks"
type spaceFile struct {
	Presets    []string         `toml:"presets,omitempty"`
	Vars       map[string]any   `toml:"vars,omitempty"`
	Param      []paramFile      `toml:"param"`
	Constraint []constraintFile `toml:"constraint,omitempty"`
}

// paramFile is a [[param]] table.
type paramFile struct {
	Name    string     `toml:"name"`
	Kind    string     `toml:"kind"`
	Key     string     `toml:"key,omitempty"`
	Values  []any      `toml:"values,omitempty"`
	Range   *rangeFile `toml:"range,omitempty"`
	Default any        `toml:"default,omitempty"`
	Doc     string     `toml:"doc,omitempty"`
}

// rangeFile is the range of a parameter's values.
type rangeFile struct {
	Min   any    `toml:"min"`
	Max   any    `toml:"max"`
	Step  any    `toml:"step,omitempty"`
	Scale string `toml:"scale,omitempty"`
}

// constraintFile is a [[constraint]] table.
type constraintFile struct {
	Expr string `toml:"expr"`
}

// LoadSpace reads the space of a TOML file (see ParseSpace).
func LoadSpace(path string) (*Space, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading space: %w", err)
	}
	return ParseSpace(data, path)
}

// ParseSpace parses the TOML text of a space; name (such as the file's
// path) prefixes every error. The file has [[param]] tables (name, kind,
// key, values or range, default, doc), [[constraint]] tables (expr), an
// optional [vars] table of variable values, and an optional presets list
// of built-in presets whose parameters come first; a [[param]] of the name
// of a preset parameter replaces it. A range is { min, max, scale } with
// scale "pow2" (every power of two from min to max, the default without a
// step) or "linear" (min, min+step, ... up to max, with step).
func ParseSpace(data []byte, name string) (*Space, error) {
	var f spaceFile
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := unknownKeys(md, f.Param); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	base := &Space{}
	if len(f.Presets) > 0 {
		if base, err = Preset(strings.Join(f.Presets, ",")); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	vars := map[string]float64{}
	for _, k := range slices.Sorted(maps.Keys(f.Vars)) {
		v, ok := anyNumber(f.Vars[k])
		if !ok {
			return nil, fmt.Errorf("%s: variable %s: %v is not a number", name, k, f.Vars[k])
		}
		vars[k] = v
	}
	var params []Param
	seen := map[string]bool{}
	for i, pf := range f.Param {
		p, err := pf.param(i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("%s: parameter %s: defined twice", name, p.Name)
		}
		seen[p.Name] = true
		params = append(params, p)
	}
	var constraints []string
	for i, c := range f.Constraint {
		if strings.TrimSpace(c.Expr) == "" {
			return nil, fmt.Errorf("%s: constraint #%d: empty expr", name, i+1)
		}
		constraints = append(constraints, c.Expr)
	}
	own, err := NewSpace(params, nil, vars)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	merged, err := Merge(base, own)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, c := range constraints {
		if err := merged.addConstraint(c); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(merged.params) == 0 {
		return nil, fmt.Errorf("%s: no parameter (add [[param]] tables or presets)", name)
	}
	return merged, nil
}

// unknownKeys returns an error naming the first key of the file that is
// not part of the format, and the parameter whose table holds it.
func unknownKeys(md toml.MetaData, params []paramFile) error {
	undecoded := map[string]bool{}
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
	}
	if len(undecoded) == 0 {
		return nil
	}
	table := -1
	for _, k := range md.Keys() {
		if len(k) == 1 && k[0] == "param" {
			table++
		}
		if !undecoded[k.String()] {
			continue
		}
		if len(k) > 1 && k[0] == "param" && table >= 0 && table < len(params) {
			who := fmt.Sprintf("#%d", table+1)
			if params[table].Name != "" {
				who = params[table].Name
			}
			return fmt.Errorf("parameter %s: unknown key %q", who, strings.Join(k[1:], "."))
		}
		return fmt.Errorf("unknown key %q", k.String())
	}
	return nil
}

// anyNumber returns the number a TOML value stands for: an integer, a
// float, or a string with an optional binary suffix.
func anyNumber(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case string:
		return ParseNumber(v)
	}
	return 0, false
}

// anyText returns the text of a TOML value that is a string, a number or
// a boolean.
func anyText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int64:
		return strconv.FormatInt(v, 10), true
	case float64:
		return formatNumber(v), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// param converts the i-th [[param]] table.
func (pf paramFile) param(i int) (Param, error) {
	who := pf.Name
	if who == "" {
		return Param{}, fmt.Errorf("parameter #%d: missing name", i+1)
	}
	if pf.Kind == "" {
		return Param{}, fmt.Errorf("parameter %s: missing kind (one of %s)", who, strings.Join(kindNames[1:], ", "))
	}
	kind, err := ParseKind(pf.Kind)
	if err != nil {
		return Param{}, fmt.Errorf("parameter %s: %w", who, err)
	}
	p := Param{Name: pf.Name, Kind: kind, Key: pf.Key, Doc: pf.Doc}
	if pf.Default != nil {
		if p.Default, _ = anyText(pf.Default); p.Default == "" {
			return Param{}, fmt.Errorf("parameter %s: default %v is neither a string, a number nor a boolean", who, pf.Default)
		}
	}
	switch {
	case pf.Values != nil && pf.Range != nil:
		return Param{}, fmt.Errorf("parameter %s: both values and range", who)
	case pf.Range != nil:
		if p.Values, err = pf.Range.values(); err != nil {
			return Param{}, fmt.Errorf("parameter %s: bad range: %w", who, err)
		}
	default:
		for _, v := range pf.Values {
			t, ok := anyText(v)
			if !ok {
				return Param{}, fmt.Errorf("parameter %s: value %v is neither a string, a number nor a boolean", who, v)
			}
			p.Values = append(p.Values, t)
		}
		if len(p.Values) == 0 {
			return Param{}, fmt.Errorf("parameter %s: empty value list", who)
		}
	}
	return p, nil
}

// values returns the values of a range.
func (r *rangeFile) values() ([]string, error) {
	lo, ok := anyNumber(r.Min)
	if !ok {
		return nil, fmt.Errorf("min %v is not a number", r.Min)
	}
	hi, ok := anyNumber(r.Max)
	if !ok {
		return nil, fmt.Errorf("max %v is not a number", r.Max)
	}
	if lo > hi {
		return nil, fmt.Errorf("min %s is greater than max %s", formatNumber(lo), formatNumber(hi))
	}
	scale := strings.ToLower(r.Scale)
	if scale == "" {
		scale = "pow2"
		if r.Step != nil {
			scale = "linear"
		}
	}
	var out []string
	switch scale {
	case "pow2":
		if r.Step != nil {
			return nil, errors.New("step does not apply to scale pow2")
		}
		if lo <= 0 {
			return nil, fmt.Errorf("min %s: scale pow2 needs a positive min", formatNumber(lo))
		}
		for p := math.Exp2(math.Ceil(math.Log2(lo))); p <= hi; p *= 2 {
			out = append(out, formatNumber(p))
			if len(out) > maxRangeValues {
				break
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no power of two between %s and %s", formatNumber(lo), formatNumber(hi))
		}
	case "linear":
		step, ok := anyNumber(r.Step)
		if r.Step == nil {
			return nil, errors.New("scale linear needs a step")
		}
		if !ok || step <= 0 {
			return nil, fmt.Errorf("step %v is not a positive number", r.Step)
		}
		for k := 0; ; k++ {
			v := lo + float64(k)*step
			if v > hi*(1+1e-12) {
				break
			}
			out = append(out, formatNumber(v))
			if len(out) > maxRangeValues {
				break
			}
		}
	default:
		return nil, fmt.Errorf("unknown scale %q (known: pow2, linear)", r.Scale)
	}
	if len(out) > maxRangeValues {
		return nil, fmt.Errorf("more than %d values", maxRangeValues)
	}
	return out, nil
}

// Format returns the space as a TOML file that ParseSpace reads back into
// the same space: every parameter with its values listed, the
// constraints and the variables.
func (s *Space) Format() []byte {
	f := spaceFile{Vars: map[string]any{}}
	for k, v := range s.vars {
		f.Vars[k] = v
	}
	for _, p := range s.params {
		pf := paramFile{Name: p.Name, Kind: p.Kind.String(), Key: p.Key, Doc: p.Doc}
		for _, v := range p.Values {
			pf.Values = append(pf.Values, v)
		}
		if p.Default != "" {
			pf.Default = p.Default
		}
		f.Param = append(f.Param, pf)
	}
	for _, c := range s.constraints {
		f.Constraint = append(f.Constraint, constraintFile{Expr: c.expr})
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(f); err != nil {
		panic(fmt.Sprintf("tune: formatting a space: %v", err)) // strings and numbers only
	}
	return b.Bytes()
}
