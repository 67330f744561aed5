package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/iolens/iolens/internal/fixture"
)

// TestHTMLInChromium opens a report in headless Chromium and checks that
// it loads without console errors or network requests, that the charts
// draw, that zooming changes the visible time range and that untrusted
// names are shown as text. It saves a screenshot in $IOLENS_TEST_ARTIFACTS
// (or the test's temporary directory).
func TestHTMLInChromium(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(writeHTML(t, synthReport(4), synthLog(t, 4, 1000), HTMLOptions{})), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, problems, requests := fixture.Browser(t)
	pageURL := (&url.URL{Scheme: "file", Path: file}).String()
	var ready bool
	err := chromedp.Run(ctx,
		network.Enable(), runtime.Enable(), page.Enable(),
		chromedp.Navigate(pageURL),
		chromedp.Poll(`window.iolens && window.iolens.ready`, &ready, chromedp.WithPollingTimeout(30*time.Second)),
		// Let progressive rendering finish.
		chromedp.Sleep(time.Second),
	)
	if err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}

	// Every chart drew: a canvas with many non-transparent pixels.
	var painted map[string]int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const out = {};
		for (const id of ['timeline', 'sizes', 'spatial']) {
			const cv = document.querySelector('#' + id + ' canvas');
			if (!cv) { out[id] = -1; continue; }
			const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
			let n = 0;
			for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
			out[id] = n;
		}
		return out;
	})()`, &painted)); err != nil {
		t.Fatal(err)
	}
	for id, n := range painted {
		if n < 2000 {
			t.Errorf("chart %s: %d painted pixels", id, n)
		}
	}

	// Zooming into the first tenth of the time axis narrows the visible
	// range of the timeline's x axis.
	const extent = `(() => { const e = iolens.charts.timeline.getModel().getComponent('xAxis', 0).axis.scale.getExtent(); return [e[0], e[1]]; })()`
	var before, after []float64
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(extent, &before),
		chromedp.Evaluate(`iolens.charts.timeline.dispatchAction({type: 'dataZoom', dataZoomIndex: 0, start: 0, end: 10}), true`, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(extent, &after),
	); err != nil {
		t.Fatal(err)
	}
	if len(before) != 2 || len(after) != 2 || !(after[1]-after[0] < 0.2*(before[1]-before[0])) {
		t.Errorf("time range %v after zooming into 0-10%%, was %v", after, before)
	}
	// Zooming on ranks narrows the rank axis.
	var ranks []float64
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`iolens.charts.timeline.dispatchAction({type: 'dataZoom', dataZoomIndex: 2, startValue: 1, endValue: 2}), true`, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(`(() => { const e = iolens.charts.timeline.getModel().getComponent('yAxis', 0).axis.scale.getExtent(); return [e[0], e[1]]; })()`, &ranks),
	); err != nil {
		t.Fatal(err)
	}
	if len(ranks) != 2 || ranks[0] < 0.5 || ranks[1] > 2.5 {
		t.Errorf("rank range %v after zooming into ranks 1-2", ranks)
	}

	// The injected names are text: no extra script element, the text
	// itself visible.
	var scripts int
	var text string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.scripts.length`, &scripts),
		chromedp.Evaluate(`document.body.innerText`, &text),
	); err != nil {
		t.Fatal(err)
	}
	if scripts != 3 {
		t.Errorf("%d script elements, want 3", scripts)
	}
	if !strings.Contains(text, "<script>alert(1)</script>") || !strings.Contains(text, "./app --out </td><b>x") {
		t.Error("the untrusted names are not shown as text")
	}

	// Sorting the file table by bytes written puts the largest first.
	var first string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`(() => { const th = document.querySelectorAll('#file-table th')[5]; th.click(); th.click();
			return document.querySelector('#file-table tbody tr td').textContent; })()`, &first),
	); err != nil {
		t.Fatal(err)
	}
	if first != "/scratch/shared.dat" {
		t.Errorf("first file after sorting by bytes written, descending: %q", first)
	}

	// A tooltip shows an operation's details.
	var tip string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`(() => { const c = iolens.charts.timeline; c.dispatchAction({type: 'dataZoom', dataZoomIndex: 0, start: 0, end: 100});
			c.dispatchAction({type: 'dataZoom', dataZoomIndex: 2, start: 0, end: 100});
			c.dispatchAction({type: 'showTip', seriesIndex: 0, dataIndex: 0}); return true; })()`, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(`(() => { const t = [...document.querySelectorAll('#timeline div')].find(d => d.textContent.includes('duration')); return t ? t.textContent : ''; })()`, &tip),
	); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rank", "file", "offset", "size", "duration"} {
		if !strings.Contains(tip, want) {
			t.Errorf("tooltip %q lacks %s", tip, want)
		}
	}

	// Clicking the insight naming rank 3 highlights its operations in
	// every chart; clicking it again restores the view.
	checkLayer(ctx, t, "exact", true)

	// Selected again for the screenshot.
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('#insights article.layer[data-code="D02"]').click(), true`, nil),
		chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	var shot []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&shot, 100)); err != nil {
		t.Fatal(err)
	}
	artifacts := os.Getenv("IOLENS_TEST_ARTIFACTS")
	if artifacts == "" {
		artifacts = dir
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	shotPath := filepath.Join(artifacts, "report-chromium.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shotPath)

	// The clear control ends the selection too.
	var cleared bool
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.getElementById('layer-clear').click(), true`, nil),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.Evaluate(`iolens.layer.active === -1 && !document.body.hasAttribute('data-active-insight') && document.getElementById('layer-status').hidden`, &cleared),
	); err != nil {
		t.Fatal(err)
	}
	if !cleared {
		t.Error("the clear control did not end the highlight")
	}

	// The same with aggregated charts.
	aggFile := filepath.Join(dir, "report-aggregated.html")
	if err := os.WriteFile(aggFile, []byte(writeHTML(t, synthReport(4), synthLog(t, 4, 5000), HTMLOptions{MaxPoints: 2000})), 0o644); err != nil {
		t.Fatal(err)
	}
	ready = false
	if err := chromedp.Run(ctx,
		chromedp.Navigate((&url.URL{Scheme: "file", Path: aggFile}).String()),
		chromedp.Poll(`window.iolens && window.iolens.ready`, &ready, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Sleep(time.Second),
	); err != nil {
		t.Fatal(err)
	}
	checkLayer(ctx, t, "aggregated", false)

	checkQuiet(t, problems, requests)
}

// checkQuiet fails t for every problem the browser saw and every request
// that did not load the page itself.
func checkQuiet(t *testing.T, problems, requests func() []string) {
	t.Helper()
	for _, p := range problems() {
		t.Error(p)
	}
	reqs := requests()
	if len(reqs) == 0 {
		t.Error("no request seen: the network listener does not work")
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, "file:") && !strings.HasPrefix(r, "data:") {
			t.Errorf("network request to %s", r)
		}
	}
}

// layerState is what the page reports about the selected insight.
type layerState struct {
	Active      int            `json:"active"`
	Code        string         `json:"code"`
	Attr        string         `json:"attr"`
	Pressed     string         `json:"pressed"`
	Highlighted map[string]int `json:"highlighted"`
	Status      string         `json:"status"`
	Notes       string         `json:"notes"`
	Overlays    map[string]int `json:"overlays"` // highlight series per chart
	Dimmed      map[string]int `json:"dimmed"`   // base series drawn dimmed
	Elements    map[string]int `json:"elements"` // elements of the highlight series
	Rank3       map[string]int `json:"rank3"`    // highlighted elements of (groups with) rank 3
	Totals      map[string]int `json:"totals"`   // elements of the chart data
}

const layerStateJS = `(() => {
	const out = { active: iolens.layer.active, code: iolens.layer.code, attr: document.body.getAttribute('data-active-insight') || '',
		pressed: document.querySelector('#insights article[data-code="D02"]').getAttribute('aria-pressed') || '',
		highlighted: iolens.layer.highlighted, status: document.getElementById('layer-status').hidden ? '' : document.querySelector('#layer-status .layer-text').textContent,
		notes: document.querySelector('#layer-status .layer-notes').textContent,
		overlays: {}, dimmed: {}, elements: {}, rank3: {}, totals: {} };
	const data = JSON.parse(document.getElementById('iolens-data').textContent).trace;
	for (const id of ['timeline', 'sizes', 'spatial']) {
		const series = iolens.charts[id].getOption().series;
		const cols = data[id], g = cols.group || 1;
		out.overlays[id] = 0; out.dimmed[id] = 0; out.elements[id] = 0; out.rank3[id] = 0; out.totals[id] = cols.kind.length;
		for (const s of series) {
			if (String(s.id).startsWith('hl-')) {
				out.overlays[id]++;
				for (const v of s.data) {
					out.elements[id]++;
					const i = v[v.length - 1];
					if (cols.rank && cols.rank[i] <= 3 && 3 < cols.rank[i] + g) out.rank3[id]++;
				}
			} else if (s.id !== 'phases' && s.itemStyle && s.itemStyle.opacity < 0.5) {
				out.dimmed[id]++;
			}
		}
	}
	return out;
})()`

// checkLayer clicks the insight D02 (rank 3 and one file) twice and checks
// the highlight and its end. Exact charts show every operation of rank 3.
func checkLayer(ctx context.Context, t *testing.T, mode string, exact bool) {
	t.Helper()
	var on, off layerState
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.querySelectorAll('#insights article.layer').length > 0`, nil),
		chromedp.Evaluate(`document.querySelector('#insights article.layer[data-code="D02"]').click(), true`, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(layerStateJS, &on),
		chromedp.Evaluate(`document.querySelector('#insights article.layer[data-code="D02"]').click(), true`, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(layerStateJS, &off),
	); err != nil {
		t.Fatalf("%s: %v", mode, err)
	}
	if on.Active < 0 || on.Code != "D02" || on.Attr != "D02" || on.Pressed != "true" || !strings.Contains(on.Status, "D02") || !strings.Contains(on.Status, "rank 3") {
		t.Errorf("%s: after the click: %+v", mode, on)
	}
	for _, id := range []string{"timeline", "sizes", "spatial"} {
		n := on.Highlighted[id]
		if id == "sizes" && !exact {
			// Size bins mix ranks: only the file's bins may be marked.
			if on.Elements[id] != n || n >= on.Totals[id] {
				t.Errorf("%s %s: %d highlighted, %d drawn, of %d", mode, id, n, on.Elements[id], on.Totals[id])
			}
			continue
		}
		if n == 0 || n >= on.Totals[id] || on.Elements[id] != n || on.Overlays[id] == 0 || on.Dimmed[id] == 0 || on.Rank3[id] == 0 {
			t.Errorf("%s %s: %d highlighted (%d drawn in %d series, %d of rank 3) of %d, %d series dimmed",
				mode, id, n, on.Elements[id], on.Overlays[id], on.Rank3[id], on.Totals[id], on.Dimmed[id])
		}
	}
	if !exact && !strings.Contains(on.Notes, "mix ranks") {
		t.Errorf("%s: the notes %q do not say the size bins mix ranks", mode, on.Notes)
	}
	if off.Active != -1 || off.Attr != "" || off.Pressed != "false" || off.Status != "" {
		t.Errorf("%s: after the second click: %+v", mode, off)
	}
	for _, id := range []string{"timeline", "sizes", "spatial"} {
		if off.Overlays[id] != 0 || off.Dimmed[id] != 0 || off.Highlighted[id] != 0 {
			t.Errorf("%s %s: still highlighted after the second click: %+v", mode, id, off)
		}
	}
}

// TestGraphHTMLInChromium opens a knowledge-graph page: it loads quietly,
// the graph draws every node, and an untrusted label is text.
func TestGraphHTMLInChromium(t *testing.T) {
	v := GraphView{App: "pgea <b>x</b>", Runs: 3}
	for i := range 6 {
		v.Nodes = append(v.Nodes, GraphNode{ID: i, Label: fmt.Sprintf("read PNETCDF_VAR /in_#.nc[0]:v%d", i), Visits: int64(3 + i), Bytes: int64(8000 * (i + 1))})
		if i > 0 {
			v.Links = append(v.Links, GraphLink{From: i - 1, To: i, Count: 3, MeanGap: 0.5})
		}
	}
	v.Nodes[5].Label = "</script><script>alert(1)</script>"
	v.Nodes[5].Write = true
	v.Links = append(v.Links, GraphLink{From: 2, To: 5, Count: 1, MeanGap: 0.1}) // a branch at #2
	var b strings.Builder
	if err := GraphHTML(&b, v); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "graph.html")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, problems, requests := fixture.Browser(t)
	var drawn bool
	var nodes, scripts int
	var text string
	err := chromedp.Run(ctx,
		network.Enable(), runtime.Enable(), page.Enable(),
		chromedp.Navigate((&url.URL{Scheme: "file", Path: file}).String()),
		chromedp.Poll(`document.body.getAttribute('data-drawn') === '1'`, &drawn, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Sleep(500*time.Millisecond),
		chromedp.Evaluate(`echarts.getInstanceByDom(document.getElementById('graph')).getOption().series[0].data.length`, &nodes),
		chromedp.Evaluate(`document.scripts.length`, &scripts),
		chromedp.Evaluate(`document.body.innerText`, &text),
	)
	if err != nil {
		t.Fatal(err)
	}
	if nodes != 6 {
		t.Errorf("%d nodes drawn, want 6", nodes)
	}
	if scripts != 3 {
		t.Errorf("%d script elements, want 3", scripts)
	}
	if !strings.Contains(text, "</script><script>alert(1)</script>") || !strings.Contains(text, "pgea <b>x</b>") {
		t.Error("untrusted labels are not shown as text")
	}
	if !strings.Contains(text, "branch points\t1") && !strings.Contains(text, "branch points 1") {
		t.Errorf("the page does not count the one branch point:\n%.600s", text)
	}
	checkQuiet(t, problems, requests)
}

// TestTuneHTMLInChromium opens a tuning page: it loads quietly, both charts
// draw every successful trial, and an untrusted configuration is text.
func TestTuneHTMLInChromium(t *testing.T) {
	v := TuneView{App: "ior", Command: "mpiexec -n 4 ./ior <b>x</b>", Strategy: "model", Default: 4, Model: "1 + 2 * cb_nodes^-1", RelativeError: 0.1}
	for i := range 8 {
		v.Trials = append(v.Trials, TuneTrial{Seq: i + 1, Config: fmt.Sprintf("cb_nodes=%d", i+1), Objective: 4 / float64(i+1), Predicted: 1 + 2/float64(i+1)})
	}
	v.Trials[7].Failed, v.Trials[7].Error = true, "exit status 1"
	v.Trials[6].Config = "</script><script>alert(1)</script>"
	var b strings.Builder
	if err := TuneHTML(&b, v); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tune.html")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, problems, requests := fixture.Browser(t)
	var drawn bool
	var points []int
	var text string
	err := chromedp.Run(ctx,
		network.Enable(), runtime.Enable(), page.Enable(),
		chromedp.Navigate((&url.URL{Scheme: "file", Path: file}).String()),
		chromedp.Poll(`document.body.getAttribute('data-drawn') === '2'`, &drawn, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Evaluate(`['trials', 'model'].map(id => echarts.getInstanceByDom(document.getElementById(id)).getOption().series[0].data.length)`, &points),
		chromedp.Evaluate(`document.body.innerText`, &text),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 2 || points[0] != 7 || points[1] != 7 {
		t.Errorf("points drawn %v, want the 7 successful trials in both charts", points)
	}
	for _, want := range []string{"</script><script>alert(1)</script>", "mpiexec -n 4 ./ior <b>x</b>", "failed: exit status 1", "7.00× faster than the default"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	checkQuiet(t, problems, requests)
}
