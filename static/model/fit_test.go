package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// factorial is a replicated 2×2 design in X1 and X2 (all other variables
// 0): cell means 2, 5, 2, 6 for (x1, x2) = (0,0), (1,0), (0,1), (1,1).
func factorial() []Sample {
	rows := []struct{ x1, x2, y float64 }{
		{0, 0, 1}, {0, 0, 3}, {1, 0, 4}, {1, 0, 6},
		{0, 1, 2}, {0, 1, 2}, {1, 1, 7}, {1, 1, 5},
	}
	s := make([]Sample, len(rows))
	for i, r := range rows {
		s[i].X[0], s[i].X[1], s[i].Measured = r.x1, r.x2, r.y
	}
	return s
}

// closedForm computes the least-squares fit of y on an intercept and
// mutually orthogonal centred columns (true of a balanced factorial): each
// slope is Sxy/Sxx, the intercept ȳ − Σ b·x̄, Var(b) = σ²/Sxx and
// Var(b0) = σ²(1/n + Σ x̄²/Sxx).
func closedForm(s []Sample, cols []int) (coef, se []float64, r2, adj, f float64) {
	n := float64(len(s))
	var ybar float64
	for _, v := range s {
		ybar += v.Measured / n
	}
	coef, se = make([]float64, 1+len(cols)), make([]float64, 1+len(cols))
	xbar, sxx := make([]float64, len(cols)), make([]float64, len(cols))
	coef[0] = ybar
	for j, c := range cols {
		var sxy float64
		for _, v := range s {
			xbar[j] += v.X[c] / n
		}
		for _, v := range s {
			sxx[j] += (v.X[c] - xbar[j]) * (v.X[c] - xbar[j])
			sxy += (v.X[c] - xbar[j]) * (v.Measured - ybar)
		}
		coef[1+j] = sxy / sxx[j]
		coef[0] -= coef[1+j] * xbar[j]
	}
	var sse, sst float64
	for _, v := range s {
		fit := coef[0]
		for j, c := range cols {
			fit += coef[1+j] * v.X[c]
		}
		sse += (v.Measured - fit) * (v.Measured - fit)
		sst += (v.Measured - ybar) * (v.Measured - ybar)
	}
	k := float64(len(cols))
	df := n - k - 1
	sigma2 := sse / df
	v0 := 1 / n
	for j := range cols {
		se[1+j] = math.Sqrt(sigma2 / sxx[j])
		v0 += xbar[j] * xbar[j] / sxx[j]
	}
	se[0] = math.Sqrt(sigma2 * v0)
	r2 = 1 - sse/sst
	return coef, se, r2, 1 - (1-r2)*(n-1)/df, (sst - sse) / k / sigma2
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(b)) }

func checkFit(t *testing.T, m Model, cols []int, s []Sample) {
	t.Helper()
	coef, se, r2, adj, f := closedForm(s, cols)
	got := []float64{m.Intercept, m.Stats.InterceptSE, m.Stats.R2, m.Stats.AdjR2, m.Stats.F}
	want := []float64{coef[0], se[0], r2, adj, f}
	for j, c := range cols {
		got = append(got, m.Coef[c], m.Stats.SE[c], m.Stats.T[c])
		want = append(want, coef[1+j], se[1+j], coef[1+j]/se[1+j])
	}
	for i := range got {
		if !near(got[i], want[i], 1e-12) {
			t.Errorf("value %d = %.15g, want %.15g (intercept, its SE, R², adj R², F, then coef/SE/t per variable)", i, got[i], want[i])
		}
	}
	if m.Stats.N != len(s) {
		t.Errorf("n = %d, want %d", m.Stats.N, len(s))
	}
	var sel []int
	for i, ok := range m.Selected {
		if ok {
			sel = append(sel, i)
		}
	}
	if !equalInts(sel, cols) {
		t.Errorf("selected %v, want %v", sel, cols)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFitHandChecked(t *testing.T) {
	s := factorial()
	m, table, err := Fit(s, FitOptions{KeepAll: true})
	if err != nil {
		t.Fatal(err)
	}
	checkFit(t, m, []int{0, 1}, s)
	// The same numbers by hand: b = (1.75, 3.5, 0.5), SSE = 6.5, SST = 31.5,
	// σ² = 1.3, R² = 50/63, adjusted R² = 32/45, F = 125/13.
	for _, c := range []struct{ got, want float64 }{
		{m.Intercept, 1.75}, {m.Coef[0], 3.5}, {m.Coef[1], 0.5},
		{m.Stats.R2, 50.0 / 63}, {m.Stats.AdjR2, 32.0 / 45}, {m.Stats.F, 125.0 / 13},
		{m.Stats.SE[0], math.Sqrt(0.65)}, {m.Stats.InterceptSE, math.Sqrt(1.3 * 0.375)},
	} {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("got %.15g, want %.15g", c.got, c.want)
		}
	}
	if len(table.Dropped) != NumVars-2 || table.Dropped[0].Reason != "collinear" {
		t.Errorf("dropped %v, want the 14 constant variables as collinear", table.Dropped)
	}

	// Stepwise: x2 has t = 0.5/√0.65 ≈ 0.62 < 2 and goes; then b = (2, 3.5),
	// R² = 24.5/31.5 = 7/9, adjusted R² = 20/27, F = 24.5/(7/6) = 21.
	m, table, err = Fit(s, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFit(t, m, []int{0}, s)
	for _, c := range []struct{ got, want float64 }{
		{m.Intercept, 2}, {m.Stats.R2, 7.0 / 9}, {m.Stats.AdjR2, 20.0 / 27}, {m.Stats.F, 21},
		{m.Stats.SE[0], math.Sqrt(7.0 / 12)}, {m.Stats.InterceptSE, math.Sqrt(7.0 / 24)},
	} {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("stepwise: got %.15g, want %.15g", c.got, c.want)
		}
	}
	last := table.Dropped[len(table.Dropped)-1]
	if last.Name != "x2_io_calls" || !near(last.T, 0.5/math.Sqrt(0.65), 1e-12) || m.Stats.MinT != DefaultMinT {
		t.Errorf("last dropped %+v, want x2_io_calls with t = 0.62", last)
	}
}

func TestTableString(t *testing.T) {
	_, table, err := Fit(factorial(), FitOptions{Version: "test", TrainedOn: "factorial", Exclude: excludeAllBut(0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	want := `CIOC model test (factorial)
variable      coefficient  std. error    t-ratio
(intercept)             2      0.5401      3.703
x1_loop_io            3.5      0.7638      4.583
n = 8  R² = 0.7778  adjusted R² = 0.7407  F = 21
dropped: x2_io_calls (|t| < 2, t = 0.62)
`
	if got := table.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func excludeAllBut(keep ...int) (ex [NumVars]bool) {
	for i := range ex {
		ex[i] = true
	}
	for _, k := range keep {
		ex[k] = false
	}
	return ex
}

// TestFitRecoversCoefficients fits y = 0.05 + 0.2·x2 − 0.15·x6 + 0.1·x13 +
// 0.3·x16 + ε, ε ~ N(0, 0.001²), on n = 300 uniform samples of all 16
// variables. The standard error of a slope is about σ/(√n·sd(x)) =
// 0.001/(√300·0.289) ≈ 2e-4, so every true coefficient must be within four
// reported standard errors (a false failure has probability < 1e-4) and
// those errors below 3e-4; variables without effect must be dropped by the
// |t| < 2 rule or, if they survive by chance, have tiny coefficients.
func TestFitRecoversCoefficients(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	beta := map[int]float64{1: 0.2, 5: -0.15, 12: 0.1, 15: 0.3}
	const intercept = 0.05
	s := make([]Sample, 300)
	for i := range s {
		y := intercept
		for j := range NumVars {
			s[i].X[j] = rng.Float64()
			y += beta[j] * s[i].X[j]
		}
		s[i].Measured = y + 0.001*rng.NormFloat64()
	}
	m, table, err := Fit(s, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + table.String())
	if math.Abs(m.Intercept-intercept) > 4*m.Stats.InterceptSE {
		t.Errorf("intercept %v ± %v, want %v", m.Intercept, m.Stats.InterceptSE, intercept)
	}
	for j := range NumVars {
		b, relevant := beta[j]
		switch {
		case relevant && !m.Selected[j]:
			t.Errorf("%s dropped, want %v", m.Names[j], b)
		case relevant && (math.Abs(m.Coef[j]-b) > 4*m.Stats.SE[j] || m.Stats.SE[j] > 3e-4):
			t.Errorf("%s = %v ± %v, want %v", m.Names[j], m.Coef[j], m.Stats.SE[j], b)
		case !relevant && m.Selected[j] && math.Abs(m.Coef[j]) > 1e-3:
			t.Errorf("irrelevant %s kept with %v", m.Names[j], m.Coef[j])
		}
	}
	droppedByT := 0
	for _, d := range table.Dropped {
		if _, relevant := beta[Index(d.Name)]; relevant || math.Abs(d.T) >= 2 {
			t.Errorf("dropped %+v", d)
		}
		droppedByT++
	}
	if droppedByT == 0 {
		t.Error("no irrelevant variable dropped")
	}
	if m.Stats.R2 < 0.999 {
		t.Errorf("R² = %v", m.Stats.R2)
	}
}

func TestFitExact(t *testing.T) {
	s := make([]Sample, 6)
	for i := range s {
		s[i].X[15] = float64(i) / 5
		s[i].Measured = 0.1 + 0.8*s[i].X[15]
	}
	m, table, err := Fit(s, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !near(m.Coef[15], 0.8, 1e-12) || !near(m.Intercept, 0.1, 1e-12) || !m.Selected[15] {
		t.Errorf("exact fit %v + %v·x16", m.Intercept, m.Coef[15])
	}
	// Rounding leaves residuals of about 1e-16, so t and F are huge but finite.
	if !near(m.Stats.R2, 1, 1e-15) || m.Stats.F < 1e20 || m.Stats.T[15] < 1e12 {
		t.Errorf("exact fit stats %+v", m.Stats)
	}
	if len(table.Dropped) != NumVars-1 {
		t.Errorf("dropped %v, want the 15 constant variables", table.Dropped)
	}
	if _, err := m.Marshal(); err != nil {
		t.Errorf("exact fit does not encode: %v", err)
	}
}

func TestRatiosOfZeroResidual(t *testing.T) {
	if got := tRatio(0.5, 0); got != math.MaxFloat64 {
		t.Errorf("tRatio(0.5, 0) = %v", got)
	}
	if got := tRatio(-0.5, 0); got != -math.MaxFloat64 {
		t.Errorf("tRatio(-0.5, 0) = %v", got)
	}
	if got := tRatio(0, 0); got != 0 {
		t.Errorf("tRatio(0, 0) = %v", got)
	}
	if got := fRatio(3, 1, 0, 4); got != math.MaxFloat64 {
		t.Errorf("fRatio with no residual = %v", got)
	}
	if got := formatT(math.MaxFloat64); got != "exact" {
		t.Errorf("formatT(max) = %q", got)
	}
}

func TestFitErrors(t *testing.T) {
	f := factorial()
	s := []Sample{f[0], f[2], f[4]} // X1 and X2 independent, n = k+1
	if _, _, err := Fit(s, FitOptions{}); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("3 samples, 2 variables: %v, want ErrTooFewSamples", err)
	}
	if _, _, err := Fit(nil, FitOptions{}); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("no samples: %v, want ErrTooFewSamples", err)
	}
	s = factorial()
	s[3].Measured = math.NaN()
	s[3].Name = "bad"
	if _, _, err := Fit(s, FitOptions{}); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("NaN sample: %v", err)
	}
}

func TestFitDropsDuplicateColumn(t *testing.T) {
	s := factorial()
	for i := range s {
		s[i].X[2] = 2*s[i].X[0] - s[i].X[1] // a combination of X1 and X2
	}
	m, table, err := Fit(s, FitOptions{KeepAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Selected[2] || !m.Selected[0] || !m.Selected[1] {
		t.Errorf("selected %v, want X1 and X2 only", m.Selected)
	}
	if table.Dropped[0].Name != "x3_bytes" {
		t.Errorf("first dropped %+v, want x3_bytes as collinear", table.Dropped[0])
	}
}

// TestFitDropsByGroups: a variable that is non-zero in one program only
// explains that program's offset (its t-ratio is large) but cannot be
// estimated from the other programs: step 4 drops it.
func TestFitDropsByGroups(t *testing.T) {
	var samples []Sample
	for g := range 6 {
		group := string(rune('a' + g))
		for i := range 10 {
			var x X
			x[15] = float64(i) / 10
			y := 0.7*x[15] + 0.1
			if g == 0 {
				x[2] = 1
				y += 0.2
			}
			samples = append(samples, Sample{Name: fmt.Sprint(group, i), Group: group, X: x, Measured: y})
		}
	}
	_, tab, err := Fit(samples, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, c := range tab.Rows {
		kept = append(kept, c.Name)
	}
	if !slices.Equal(kept, []string{"(intercept)", "x16_est_io_share"}) {
		t.Errorf("kept %v, want the intercept and x16 only; dropped %+v", kept, tab.Dropped)
	}
	i := slices.IndexFunc(tab.Dropped, func(d Dropped) bool { return d.Name == "x3_bytes" })
	if i < 0 || !strings.HasPrefix(tab.Dropped[i].Reason, "error on programs left out") {
		t.Errorf("x3 not dropped for its error on programs left out: %+v", tab.Dropped)
	}
	// Without groups the t-ratio keeps it.
	for i := range samples {
		samples[i].Group = ""
	}
	if _, tab, _ := Fit(samples, FitOptions{}); len(tab.Rows) != 3 {
		t.Errorf("without groups: %+v", tab.Rows)
	}
}

// TestFitDropsInflated: two nearly equal variables whose small difference
// explains the samples get large opposite coefficients and large t-ratios;
// the variance inflation step keeps one of them.
func TestFitDropsInflated(t *testing.T) {
	var samples []Sample
	for i := range 40 {
		var x X
		v := float64(i%10) / 10
		x[15] = float64(i) / 40
		x[0] = v
		x[1] = v + 0.01*float64(1-2*(i%2)) // x2 ≈ x1
		samples = append(samples, Sample{Name: fmt.Sprint(i), X: x, Measured: 0.5*x[15] + 3*(x[1]-x[0]) + 0.2})
	}
	_, tab, err := Fit(samples, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var inflated []string
	for _, d := range tab.Dropped {
		if strings.HasPrefix(d.Reason, "variance inflation") {
			inflated = append(inflated, d.Name)
		}
	}
	if len(inflated) != 1 || (inflated[0] != "x1_loop_io" && inflated[0] != "x2_io_calls") {
		t.Errorf("dropped for variance inflation: %v, want one of x1 and x2; table %+v", inflated, tab)
	}
	if got := vif(samples, []int{0, 15}, 0); got < 1 || got > 1.1 {
		t.Errorf("vif of x1 beside an unrelated x16 = %v, want about 1", got)
	}
}
