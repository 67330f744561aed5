package tune

import "math"

// The model's features of a configuration. A numeric parameter, or one of
// at most two values, is one feature: its encoding (Param.Encode). A
// parameter of more than two words ("automatic", "enable", "disable") has
// no order a power of its position could follow, so it becomes one feature
// per value after the first, 2 when the configuration has that value and 1
// otherwise: the model's terms can then scale the objective per value.

// indicators reports whether parameter p is modelled by indicators.
func (p Param) indicators() bool { return !p.numeric() && len(p.Values) > 2 }

// FeatureNames returns the names of the model's features, in order: a
// parameter's name, or "name=value" for an indicator.
func (s *Space) FeatureNames() []string {
	var names []string
	for _, p := range s.params {
		if !p.indicators() {
			names = append(names, p.Name)
			continue
		}
		for _, v := range p.Values[1:] {
			names = append(names, p.Name+"="+v)
		}
	}
	return names
}

// Features returns the model's features of configuration c; a parameter c
// does not set takes its default value, and a value that cannot be encoded
// makes its features NaN.
func (s *Space) Features(c Config) []float64 {
	var x []float64
	for _, p := range s.params {
		v, ok := c.Get(p.Name)
		if !ok {
			v = p.DefaultValue()
		}
		if !p.indicators() {
			e, _ := p.Encode(v)
			x = append(x, e)
			continue
		}
		i := p.index(v)
		for j := 1; j < len(p.Values); j++ {
			switch {
			case i < 0:
				x = append(x, math.NaN())
			case i == j:
				x = append(x, 2)
			default:
				x = append(x, 1)
			}
		}
	}
	return x
}

// featureCount returns the number of features.
func (s *Space) featureCount() int {
	n := 0
	for _, p := range s.params {
		if p.indicators() {
			n += len(p.Values) - 1
		} else {
			n++
		}
	}
	return n
}

// featuresIdx writes the features of the configuration of value indices
// idx into x (featureCount long).
func (s *Space) featuresIdx(idx []int, x []float64) {
	k := 0
	for i, p := range s.params {
		if !p.indicators() {
			x[k] = s.enc[i][idx[i]]
			k++
			continue
		}
		for j := 1; j < len(p.Values); j++ {
			x[k] = 1
			if idx[i] == j {
				x[k] = 2
			}
			k++
		}
	}
}
