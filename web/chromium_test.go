package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/iolens/iolens/internal/fixture"
)

// paintedJS counts the painted pixels of the canvas of each chart of a
// page (-1: no canvas).
const paintedJS = `(() => {
	const out = {};
	for (const el of document.querySelectorAll('[data-chart]')) {
		const cv = el.querySelector('canvas');
		if (!cv) { out[el.id] = -1; continue; }
		const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
		let n = 0;
		for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
		out[el.id] = n;
	}
	return out;
})()`

// browserPage is what a test reads of a loaded page.
type browserPage struct {
	Status  int64
	Text    string // document.body.innerText
	Scripts int    // script elements
	Path    string // location.pathname + location.search
}

// load opens url in the browser, waits until ready (a JavaScript
// expression) holds, and returns the page's status, text and script count.
func load(t *testing.T, ctx context.Context, url, ready string) browserPage {
	t.Helper()
	return follow(t, ctx, chromedp.Navigate(url), ready)
}

// follow runs an action that loads a page (navigating, clicking a link),
// waits until ready (a JavaScript expression) holds, and returns the
// page's status, text and script count.
func follow(t *testing.T, ctx context.Context, action chromedp.Action, ready string) browserPage {
	t.Helper()
	resp, err := chromedp.RunResponse(ctx, action)
	if err != nil {
		t.Fatalf("loading a page: %v", err)
	}
	p := browserPage{Status: resp.Status}
	var ok bool
	if err := chromedp.Run(ctx,
		chromedp.Poll(ready, &ok, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`document.body.innerText`, &p.Text),
		chromedp.Evaluate(`document.scripts.length`, &p.Scripts),
		chromedp.Evaluate(`location.pathname + location.search`, &p.Path),
	); err != nil {
		t.Fatalf("%s: waiting for %s: %v", resp.URL, ready, err)
	}
	return p
}

// chartsDrawn is the ready condition of a page with n charts.
func chartsDrawn(n int) string {
	return fmt.Sprintf(`document.body.getAttribute('data-charts-drawn') === '%d'`, n)
}

const loaded = `document.readyState === 'complete'`

// checkCharts fails t unless every chart of the page painted many pixels.
func checkCharts(t *testing.T, ctx context.Context, name string, want int) {
	t.Helper()
	var painted map[string]int
	if err := chromedp.Run(ctx, chromedp.Evaluate(paintedJS, &painted)); err != nil {
		t.Fatal(err)
	}
	if len(painted) != want {
		t.Errorf("%s: charts %v, want %d", name, painted, want)
	}
	for id, n := range painted {
		if n < 2000 {
			t.Errorf("%s: chart %s: %d painted pixels", name, id, n)
		}
	}
}

// screenshot saves the page in $IOLENS_TEST_ARTIFACTS (or a temporary
// directory) as name.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var shot []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&shot, 100)); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("IOLENS_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestUIInChromium browses the UI in headless Chromium: every page loads
// without console errors or requests to other origins, the charts draw,
// the filter form and the job rows work, untrusted names are text, and a
// user behind the user header cannot open another user's job.
func TestUIInChromium(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{}, 0)
	auth := f.handler(t, Options{UserHeader: "X-Remote-User", LookupUID: func(name string) (int64, error) {
		if name == "alice" {
			return uidAlice, nil
		}
		return 0, fmt.Errorf("no user %s", name)
	}}, 0)
	ctx, problems, requests := fixture.Browser(t)
	if err := chromedp.Run(ctx, network.Enable(), runtime.Enable(), page.Enable()); err != nil {
		t.Fatal(err)
	}

	// The overview: totals and both charts.
	p := load(t, ctx, srv.URL+"/", chartsDrawn(2))
	checkCharts(t, ctx, "overview", 2)
	for _, want := range []string{"JOBS\n12", "USERS\n2", "APPLICATIONS\n3", "Most common insights", "P06"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("overview: no %q in\n%s", want, p.Text)
		}
	}
	if p.Scripts != 4 {
		t.Errorf("overview: %d scripts, want 4", p.Scripts)
	}
	screenshot(t, ctx, "web-overview.png")

	// The job list: the untrusted application name is text.
	p = load(t, ctx, srv.URL+"/jobs", loaded)
	var bold int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('main b').length`, &bold)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, evilApp) || p.Scripts != 1 || bold != 0 {
		t.Errorf("job list: %d scripts, %d b elements, untrusted name shown: %v", p.Scripts, bold, strings.Contains(p.Text, evilApp))
	}
	if !strings.Contains(p.Text, "1–12 of 12") {
		t.Errorf("job list:\n%s", p.Text)
	}
	screenshot(t, ctx, "web-jobs.png")

	// Submitting the filter form lists alice's jobs, with a clean URL.
	if err := chromedp.Run(ctx, chromedp.SetValue(`#filters input[name="user"]`, "alice", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	p = follow(t, ctx, chromedp.Click(`#filters button[type="submit"]`, chromedp.ByQuery), loaded)
	var ids []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('#job-table tbody tr')].map(r => r.dataset.job)`, &ids)); err != nil {
		t.Fatal(err)
	}
	if p.Path != "/jobs?user=alice" {
		t.Errorf("the filter form went to %s", p.Path)
	}
	if diff := cmp.Diff(f.expected(func(j jobSpec) bool { return j.uid == uidAlice }, nil), ids); diff != "" {
		t.Errorf("after filtering by user alice (-want +got):\n%s", diff)
	}

	// Sorting by I/O time, then clicking a row (not its link) opens the
	// report of the job with the most I/O time.
	p = follow(t, ctx, chromedp.Click(`#job-table th[title="summed over ranks"] a`, chromedp.ByQuery), loaded)
	if p.Path != "/jobs?order=desc&sort=io_time&user=alice" {
		t.Errorf("sorting by I/O time went to %s", p.Path)
	}
	p = follow(t, ctx, chromedp.Click(`#job-table tbody tr:first-child td:nth-child(5)`, chromedp.ByQuery), `window.iolens && window.iolens.ready`)
	var summary string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('#summary h2').textContent + ' / ' + document.getElementById('iolens-serve-bar').innerText`, &summary)); err != nil {
		t.Fatal(err)
	}
	if p.Path != "/jobs/"+f.ids[107] || !strings.HasPrefix(summary, "Job / ") || !strings.Contains(summary, "application sim") {
		t.Errorf("clicking the first row sorted by I/O time opened %s (%q), want the report of job 107 (/jobs/%s)", p.Path, summary, f.ids[107])
	}
	screenshot(t, ctx, "web-job.png")

	// The page of the application: both charts, the regression in red.
	p = load(t, ctx, srv.URL+"/apps/sim", chartsDrawn(2))
	checkCharts(t, ctx, "application", 2)
	var flagged int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`iolensCharts['app-io'].getOption().series.find(s => s.name === 'regression').data.length`, &flagged)); err != nil {
		t.Fatal(err)
	}
	if flagged != 1 || !strings.Contains(p.Text, "REGRESSIONS\n1") {
		t.Errorf("application sim: %d regression points drawn:\n%s", flagged, p.Text)
	}
	screenshot(t, ctx, "web-app.png")
	p = load(t, ctx, srv.URL+"/apps/"+strings.ReplaceAll(evilApp, `"`, "%22"), chartsDrawn(2))
	if !strings.Contains(p.Text, "application "+evilApp) || p.Scripts != 4 {
		t.Errorf("untrusted application: %d scripts:\n%s", p.Scripts, p.Text)
	}

	// A job whose log is gone: what the dataset knows, names as text.
	p = load(t, ctx, srv.URL+"/jobs/"+f.ids[301], loaded)
	if p.Status != 410 || !strings.Contains(p.Text, evilFile) || !strings.Contains(p.Text, "--title "+evilArg) || !strings.Contains(p.Text, f.logs[301]) || p.Scripts != 1 {
		t.Errorf("missing log: status %d, %d scripts:\n%s", p.Status, p.Scripts, p.Text)
	}
	screenshot(t, ctx, "web-gone.png")

	// Unknown pages.
	if p = load(t, ctx, srv.URL+"/jobs/0123456789abcdef", loaded); p.Status != 404 || !strings.Contains(p.Text, "no such job") {
		t.Errorf("unknown job: %d\n%s", p.Status, p.Text)
	}

	// Alice, behind the proxy, opens her job but not bob's.
	if err := chromedp.Run(ctx, network.SetExtraHTTPHeaders(network.Headers{"X-Remote-User": "alice"})); err != nil {
		t.Fatal(err)
	}
	if p = load(t, ctx, auth.URL+"/jobs/"+f.ids[201], loaded); p.Status != 403 || !strings.Contains(p.Text, "belongs to another user") {
		t.Errorf("alice opening bob's job: %d\n%s", p.Status, p.Text)
	}
	if p = load(t, ctx, auth.URL+"/jobs/"+f.ids[101], `window.iolens && window.iolens.ready`); p.Status != 200 {
		t.Errorf("alice opening her job: %d", p.Status)
	}
	if p = load(t, ctx, auth.URL+"/", chartsDrawn(2)); !strings.Contains(p.Text, "JOBS\n8") || strings.Contains(p.Text, "post.py") {
		t.Errorf("alice's overview:\n%s", p.Text)
	}

	for _, pr := range problems() {
		t.Error(pr)
	}
	reqs := requests()
	if len(reqs) < 10 {
		t.Errorf("%d requests seen: the network listener does not work", len(reqs))
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, srv.URL+"/") && !strings.HasPrefix(r, auth.URL+"/") && !strings.HasPrefix(r, "data:") {
			t.Errorf("request to another origin: %s", r)
		}
	}
	if !slices.Contains(reqs, srv.URL+"/static/echarts.min.js") {
		t.Error("ECharts was not loaded from the server")
	}
}
