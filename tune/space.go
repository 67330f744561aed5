package tune

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strings"
)

// runVars are the variables a constraint may name without declaring them:
// properties of the run that the command that tunes knows, such as the
// number of ranks.
var runVars = []string{"ranks", "nodes"}

// Space is a parameter space: parameters, each with its values, and
// constraints that valid configurations satisfy. Its methods may be called
// concurrently, except SetVar.
type Space struct {
	params      []Param
	index       map[string]int
	constraints []*Constraint
	vars        map[string]float64
	enc         [][]float64 // numeric encodings, by parameter and value
}

// NewSpace returns the space of the given parameters (which are checked,
// and put in canonical form) and constraints. A constraint may name the
// parameters, the variables of vars (which give them values), and the
// variables of the run ("ranks", "nodes") whose values SetVar gives later.
func NewSpace(params []Param, constraints []string, vars map[string]float64) (*Space, error) {
	s := &Space{index: map[string]int{}, vars: maps.Clone(vars)}
	if s.vars == nil {
		s.vars = map[string]float64{}
	}
	for name := range vars {
		if !isIdent(name) {
			return nil, fmt.Errorf("variable %q: not an identifier", name)
		}
	}
	for _, p := range params {
		q, err := p.normalize()
		if err != nil {
			return nil, err
		}
		if _, dup := s.index[q.Name]; dup {
			return nil, fmt.Errorf("parameter %s: defined twice", q.Name)
		}
		if _, clash := vars[q.Name]; clash {
			return nil, fmt.Errorf("parameter %s: also a variable", q.Name)
		}
		s.index[q.Name] = len(s.params)
		s.params = append(s.params, q)
	}
	for _, expr := range constraints {
		if err := s.addConstraint(expr); err != nil {
			return nil, err
		}
	}
	s.encode()
	return s, nil
}

// addConstraint parses a constraint and checks that it names only known
// parameters and variables.
func (s *Space) addConstraint(expr string) error {
	c, err := ParseConstraint(expr)
	if err != nil {
		return err
	}
	for _, n := range c.names {
		_, isParam := s.index[n]
		_, isVar := s.vars[n]
		if !isParam && !isVar && !slices.Contains(runVars, n) {
			return fmt.Errorf("constraint %q: unknown parameter %q (parameters: %s; variables: %s)",
				expr, n, strings.Join(s.Names(), ", "), strings.Join(s.varNames(), ", "))
		}
	}
	s.constraints = append(s.constraints, c)
	return nil
}

// encode computes the numeric encodings of the values.
func (s *Space) encode() {
	s.enc = make([][]float64, len(s.params))
	for i, p := range s.params {
		s.enc[i] = make([]float64, len(p.Values))
		for j, v := range p.Values {
			s.enc[i][j], _ = p.Encode(v)
		}
	}
}

// varNames returns the names of the variables constraints may use.
func (s *Space) varNames() []string {
	names := slices.Collect(maps.Keys(s.vars))
	for _, n := range runVars {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Merge returns the space of the parameters of all the spaces, in order; a
// parameter of a later space replaces the one of the same name of an
// earlier space, at its place. Constraints are all kept; variables of
// later spaces override those of earlier ones.
func Merge(spaces ...*Space) (*Space, error) {
	var params []Param
	index := map[string]int{}
	vars := map[string]float64{}
	var constraints []string
	for _, sp := range spaces {
		if sp == nil {
			continue
		}
		for _, p := range sp.params {
			if i, ok := index[p.Name]; ok {
				params[i] = p
				continue
			}
			index[p.Name] = len(params)
			params = append(params, p)
		}
		maps.Copy(vars, sp.vars)
		for _, c := range sp.constraints {
			constraints = append(constraints, c.expr)
		}
	}
	return NewSpace(params, constraints, vars)
}

// Params returns the parameters (copies).
func (s *Space) Params() []Param {
	ps := make([]Param, len(s.params))
	for i, p := range s.params {
		ps[i] = p
		ps[i].Values = slices.Clone(p.Values)
	}
	return ps
}

// Param returns the parameter named name.
func (s *Space) Param(name string) (Param, bool) {
	i, ok := s.index[name]
	if !ok {
		return Param{}, false
	}
	p := s.params[i]
	p.Values = slices.Clone(p.Values)
	return p, true
}

// Names returns the names of the parameters, in order.
func (s *Space) Names() []string {
	names := make([]string, len(s.params))
	for i, p := range s.params {
		names[i] = p.Name
	}
	return names
}

// Constraints returns the constraint expressions.
func (s *Space) Constraints() []string {
	out := make([]string, len(s.constraints))
	for i, c := range s.constraints {
		out[i] = c.expr
	}
	return out
}

// SetVar gives a variable of the constraints a value, such as "ranks" when
// the number of ranks is not a parameter.
func (s *Space) SetVar(name string, v float64) { s.vars[name] = v }

// Vars returns the values of the variables.
func (s *Space) Vars() map[string]float64 { return maps.Clone(s.vars) }

// Unbound returns the variables that constraints name but that have no
// value, sorted. The configurations of a space with unbound variables
// are unknown: Configs yields none of those a constraint with an unbound
// variable has to decide.
func (s *Space) Unbound() []string {
	var out []string
	for _, c := range s.constraints {
		for _, n := range c.names {
			if _, ok := s.index[n]; ok {
				continue
			}
			if _, ok := s.vars[n]; ok {
				continue
			}
			if n == "ranks" && s.ranksParam() >= 0 {
				continue
			}
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ranksParam returns the index of the parameter of kind Ranks, or -1.
func (s *Space) ranksParam() int {
	return slices.IndexFunc(s.params, func(p Param) bool { return p.Kind == Ranks })
}

// Total returns the number of combinations of values, without the
// constraints (math.MaxInt if more).
func (s *Space) Total() int {
	n := 1
	for _, p := range s.params {
		if n > math.MaxInt/len(p.Values) {
			return math.MaxInt
		}
		n *= len(p.Values)
	}
	return n
}

// Size returns the number of configurations that satisfy the constraints.
func (s *Space) Size() int {
	if len(s.constraints) == 0 {
		return s.Total()
	}
	n := 0
	for range s.indices() {
		n++
	}
	return n
}

// Configs returns the configurations that satisfy the constraints, the
// first parameter varying slowest and each parameter's values in order.
func (s *Space) Configs() iter.Seq[Config] {
	return func(yield func(Config) bool) {
		for idx := range s.indices() {
			if !yield(s.config(idx)) {
				return
			}
		}
	}
}

// indices yields the value indices of the valid configurations, in the
// order of Configs. The slice is reused between iterations.
func (s *Space) indices() iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		idx := make([]int, len(s.params))
		for {
			if s.allowedIdx(idx) && !yield(idx) {
				return
			}
			i := len(idx) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < len(s.params[i].Values) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				return
			}
		}
	}
}

// config returns the configuration of value indices idx.
func (s *Space) config(idx []int) Config {
	c := make(Config, len(s.params))
	for i, p := range s.params {
		c[i] = Setting{Name: p.Name, Value: p.Values[idx[i]]}
	}
	return c
}

// indicesOf returns the value indices of a configuration: false if it
// sets a value that is not one of its parameter's or a parameter that is
// not one of the space's. Parameters it does not set take their default.
func (s *Space) indicesOf(c Config) ([]int, bool) {
	idx := make([]int, len(s.params))
	for i, p := range s.params {
		idx[i] = p.index(p.DefaultValue())
	}
	for _, st := range c {
		i, ok := s.index[st.Name]
		if !ok {
			return nil, false
		}
		if idx[i] = s.params[i].index(st.Value); idx[i] < 0 {
			return nil, false
		}
	}
	return idx, true
}

// Contains reports whether c is a configuration of the space: values of
// its parameters that satisfy the constraints (parameters c does not set
// take their default value).
func (s *Space) Contains(c Config) bool {
	idx, ok := s.indicesOf(c)
	return ok && s.allowedIdx(idx)
}

// idxEnv is the environment of constraints for a configuration given by
// value indices.
type idxEnv struct {
	s   *Space
	idx []int
}

func (e idxEnv) number(name string) (float64, bool) {
	if i, ok := e.s.index[name]; ok {
		return e.s.enc[i][e.idx[i]], true
	}
	return e.s.variable(name, e.text)
}

func (e idxEnv) text(name string) (string, bool) {
	if i, ok := e.s.index[name]; ok {
		return e.s.params[i].Values[e.idx[i]], true
	}
	return "", false
}

// variable returns the value of a variable; "ranks" without a value is the
// value of the parameter of kind Ranks, if any.
func (s *Space) variable(name string, text func(string) (string, bool)) (float64, bool) {
	if v, ok := s.vars[name]; ok {
		return v, true
	}
	if name == "ranks" {
		if i := s.ranksParam(); i >= 0 {
			if t, ok := text(s.params[i].Name); ok {
				return ParseNumber(t)
			}
		}
	}
	return 0, false
}

// allowedIdx reports whether the configuration of value indices idx
// satisfies the constraints; one that cannot be decided (an unbound
// variable) does not.
func (s *Space) allowedIdx(idx []int) bool {
	e := idxEnv{s, idx}
	for _, c := range s.constraints {
		if ok, err := c.eval(e); err != nil || !ok {
			return false
		}
	}
	return true
}

// configEnv is the environment of constraints for a Config.
type configEnv struct {
	s *Space
	c Config
}

func (e configEnv) text(name string) (string, bool) {
	if v, ok := e.c.Get(name); ok {
		return v, true
	}
	if i, ok := e.s.index[name]; ok {
		return e.s.params[i].DefaultValue(), true
	}
	return "", false
}

func (e configEnv) number(name string) (float64, bool) {
	if i, ok := e.s.index[name]; ok {
		v, _ := e.text(name)
		return e.s.params[i].Encode(v)
	}
	return e.s.variable(name, e.text)
}

// Allowed reports whether c satisfies the constraints (parameters c does
// not set take their default value); the error says which constraint
// could not be evaluated, such as one naming an unbound variable.
func (s *Space) Allowed(c Config) (bool, error) {
	e := configEnv{s, c}
	for _, k := range s.constraints {
		ok, err := k.eval(e)
		if err != nil {
			if errors.Is(err, errUnbound) {
				return false, fmt.Errorf("constraint %q: variable %w (set it with SetVar)", k.expr, err)
			}
			return false, fmt.Errorf("constraint %q: %w", k.expr, err)
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// Default returns the default configuration: the default value of every
// parameter (Param.DefaultValue).
func (s *Space) Default() Config {
	c := make(Config, len(s.params))
	for i, p := range s.params {
		c[i] = Setting{Name: p.Name, Value: p.DefaultValue()}
	}
	return c
}

// Encode returns the numeric encodings of the values of c (Param.Encode),
// in the order of the space's parameters; a parameter c does not set
// takes its default value, and a value that cannot be encoded is NaN.
func (s *Space) Encode(c Config) []float64 {
	x := make([]float64, len(s.params))
	for i, p := range s.params {
		v, ok := c.Get(p.Name)
		if !ok {
			v = p.DefaultValue()
		}
		x[i], _ = p.Encode(v)
	}
	return x
}
