package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"sync"
)

// TuneView is what TuneHTML draws of a tuning session: its trials in the
// order they ran and, when a model was fitted, what it predicts for them.
type TuneView struct {
	App, Command, Strategy string
	Trials                 []TuneTrial
	// Default is the objective of the default configuration (the first
	// trial); 0 when it failed.
	Default float64
	// Model is the last model, as text, and its relative error; empty
	// without a model.
	Model         string
	RelativeError float64
}

// TuneTrial is one trial of a session.
type TuneTrial struct {
	Seq       int
	Config    string
	Objective float64 // seconds; meaningful when not Failed
	Failed    bool
	Error     string
	// Predicted is the model's prediction for the configuration, NaN
	// without one.
	Predicted float64
}

// HasPrediction reports whether the trial has a prediction.
func (t TuneTrial) HasPrediction() bool { return !math.IsNaN(t.Predicted) }

// tuneTemplate is the template of the tuning page, parsed on first use.
var tuneTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("tune.html.tmpl").Funcs(template.FuncMap{
		"seconds": func(v float64) string { return fmt.Sprintf("%.4g s", v) },
		"percent": func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) },
	}).ParseFS(assets, "assets/tune.html.tmpl"))
})

// TuneHTML writes a self-contained page of a tuning session: the objective
// of every trial with the best so far, the last model against the
// measurements, and the table of trials. Text is escaped; the page makes
// no network request.
func TuneHTML(w io.Writer, v TuneView) error {
	type jsTrial struct {
		Seq       int      `json:"seq"`
		Config    string   `json:"config"`
		Objective float64  `json:"objective"`
		Failed    bool     `json:"failed"`
		Predicted *float64 `json:"predicted"`
	}
	var data struct {
		Trials []jsTrial `json:"trials"`
	}
	data.Trials = []jsTrial{}
	page := struct {
		View     TuneView
		Best     *TuneTrial
		Failed   int
		Speedup  float64
		HasModel bool
		Data     template.JS
		CSS      template.CSS
		ECharts  template.JS
		Version  string
	}{View: v}
	for i, t := range v.Trials {
		jt := jsTrial{Seq: t.Seq, Config: t.Config, Failed: t.Failed}
		if t.Failed {
			page.Failed++
		} else {
			jt.Objective = t.Objective
			if page.Best == nil || t.Objective < page.Best.Objective {
				page.Best = &v.Trials[i]
			}
		}
		if t.HasPrediction() {
			p := t.Predicted
			jt.Predicted = &p
			page.HasModel = true
		}
		data.Trials = append(data.Trials, jt)
	}
	if page.Best != nil && v.Default > 0 && page.Best.Objective > 0 {
		page.Speedup = v.Default / page.Best.Objective
	}
	js, err := json.Marshal(data)
	if err != nil {
		return err
	}
	css, err := assets.ReadFile("assets/report.css")
	if err != nil {
		return err
	}
	lib, err := assets.ReadFile("assets/echarts/echarts.min.js")
	if err != nil {
		return err
	}
	page.Data, page.CSS, page.ECharts, page.Version = template.JS(js), template.CSS(css), template.JS(lib), echartsVersion()
	return tuneTemplate().Execute(w, &page)
}
