package tune

import (
	"encoding/json"
	"fmt"
)

// modelJSON is the JSON form of a model.
type modelJSON struct {
	Names         []string   `json:"names"`
	Terms         []termJSON `json:"terms"`
	RelativeError float64    `json:"relative_error"`
	Samples       int        `json:"samples"`
}

// termJSON is the JSON form of a term.
type termJSON struct {
	Term      string  `json:"term"`
	Exponents []int   `json:"exponents"`
	Coef      float64 `json:"coef"`
}

// MarshalJSON encodes the model: feature names, terms (readable form,
// exponents, coefficient), relative error and number of samples.
func (m *Model) MarshalJSON() ([]byte, error) {
	j := modelJSON{Names: m.names, RelativeError: m.relErr, Samples: m.n, Terms: []termJSON{}}
	exps := m.Exponents()
	for t, e := range m.exps {
		j.Terms = append(j.Terms, termJSON{Term: termString(e, m.names), Exponents: exps[t], Coef: m.coef[t]})
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (m *Model) UnmarshalJSON(data []byte) error {
	var j modelJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	out := Model{names: j.Names, relErr: j.RelativeError, n: j.Samples}
	for t, term := range j.Terms {
		if len(term.Exponents) != len(j.Names) {
			return fmt.Errorf("model: term %d has %d exponents for %d features", t, len(term.Exponents), len(j.Names))
		}
		e := make([]int8, len(term.Exponents))
		for i, p := range term.Exponents {
			if p < -1 || p > 1 {
				return fmt.Errorf("model: term %d: exponent %d is not -1, 0 or 1", t, p)
			}
			e[i] = int8(p)
		}
		out.exps = append(out.exps, e)
		out.coef = append(out.coef, term.Coef)
	}
	*m = out
	return nil
}
