package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"
)

// GraphView is what GraphHTML draws of an accumulation graph: the
// application's distinct accesses (nodes) and which came next (links).
// The caller (package knowledge's graph, turned into this view) keeps this
// package free of the graph's representation.
type GraphView struct {
	App   string
	Runs  int64
	Nodes []GraphNode
	Links []GraphLink
}

// GraphNode is one distinct access.
type GraphNode struct {
	ID     int
	Label  string // e.g. "read PNETCDF_VAR /in_#.nc[0]:t [0 0]+[1 100]"
	Write  bool
	Visits int64
	Bytes  int64
	Time   float64 // seconds, over all visits
}

// GraphLink says that access To followed access From Count times.
type GraphLink struct {
	From, To int
	Count    int64
	MeanGap  float64 // seconds
}

// maxGraphNodes bounds the nodes the drawing shows (the table lists all).
const maxGraphNodes = 2000

// graphTemplate is the template of the graph page, parsed on first use.
var graphTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("graph.html.tmpl").Funcs(template.FuncMap{
		"bytes":   Bytes,
		"seconds": func(v float64) string { return fmt.Sprintf("%.4g s", v) },
	}).ParseFS(assets, "assets/graph.html.tmpl"))
})

// GraphHTML writes a self-contained page that draws v: a force-directed
// graph (Apache ECharts, embedded) and the table of accesses. The page
// makes no network request; names are escaped.
func GraphHTML(w io.Writer, v GraphView) error {
	type nodeRow struct {
		GraphNode
		Next string
	}
	type jsNode struct {
		ID     int    `json:"id"`
		Label  string `json:"label"`
		Write  bool   `json:"write"`
		Visits int64  `json:"visits"`
		Bytes  int64  `json:"bytes"`
		Branch bool   `json:"branch"`
	}
	type jsLink struct {
		From  int     `json:"from"`
		To    int     `json:"to"`
		Count int64   `json:"count"`
		Gap   float64 `json:"gap"`
	}
	out := make(map[int][]GraphLink)
	for _, l := range v.Links {
		out[l.From] = append(out[l.From], l)
	}
	// The most visited nodes are drawn, with the links between them.
	shown := slices.Clone(v.Nodes)
	slices.SortStableFunc(shown, func(a, b GraphNode) int { return int(b.Visits - a.Visits) })
	truncated := len(shown) > maxGraphNodes
	if truncated {
		shown = shown[:maxGraphNodes]
	}
	drawn := make(map[int]bool, len(shown))
	data := struct {
		Nodes []jsNode `json:"nodes"`
		Links []jsLink `json:"links"`
	}{Nodes: []jsNode{}, Links: []jsLink{}}
	for _, n := range shown {
		drawn[n.ID] = true
		data.Nodes = append(data.Nodes, jsNode{n.ID, n.Label, n.Write, n.Visits, n.Bytes, len(out[n.ID]) > 1})
	}
	for _, l := range v.Links {
		if drawn[l.From] && drawn[l.To] {
			data.Links = append(data.Links, jsLink{l.From, l.To, l.Count, l.MeanGap})
		}
	}
	js, err := json.Marshal(data)
	if err != nil {
		return err
	}
	page := struct {
		View      GraphView
		Rows      []nodeRow
		Branches  int
		Truncated bool
		Shown     int
		Data      template.JS
		CSS       template.CSS
		ECharts   template.JS
		Version   string
	}{View: v, Truncated: truncated, Shown: len(shown), Data: template.JS(js)}
	page.View.Nodes = nil
	for _, n := range v.Nodes {
		var next []string
		for _, l := range out[n.ID] {
			next = append(next, fmt.Sprintf("#%d (%d×)", l.To, l.Count))
		}
		if len(next) > 1 {
			page.Branches++
		}
		page.Rows = append(page.Rows, nodeRow{n, strings.Join(next, ", ")})
	}
	css, err := assets.ReadFile("assets/report.css")
	if err != nil {
		return err
	}
	lib, err := assets.ReadFile("assets/echarts/echarts.min.js")
	if err != nil {
		return err
	}
	page.CSS, page.ECharts, page.Version = template.CSS(css), template.JS(lib), echartsVersion()
	return graphTemplate().Execute(w, &page)
}
