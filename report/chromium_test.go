package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/iolens/iolens/internal/sharedtest"
)

// TestHTMLInChromium opens a report in headless Chromium and checks that
// it loads without console errors or network requests, that the charts
// draw, that zooming changes the visible time range and that untrusted
// names are shown as text. It saves a screenshot in $IOLENS_TEST_ARTIFACTS
// (or the test's temporary directory).
func TestHTMLInChromium(t *testing.T) {
	browser := sharedtest.Tool(t, "chromium")
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(writeHTML(t, synthReport(4), synthLog(t, 4, 1000), HTMLOptions{})), 0o644); err != nil {
		t.Fatal(err)
	}

	// The profile lives outside the test's directory: Chromium's helper
	// processes may still write to it for a moment after the browser exits.
	profile, err := os.MkdirTemp("", "iolens-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()

	var mu sync.Mutex
	var problems, requests []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("console %s: %s", e.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Error())
		case *page.EventJavascriptDialogOpening:
			problems = append(problems, "dialog opened: "+e.Message)
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(false))
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		case *network.EventLoadingFailed:
			problems = append(problems, "loading failed: "+e.ErrorText)
		}
	})

	pageURL := (&url.URL{Scheme: "file", Path: file}).String()
	var ready bool
	err = chromedp.Run(ctx,
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

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	if len(requests) == 0 {
		t.Error("no request seen: the network listener does not work")
	}
	for _, r := range requests {
		if !strings.HasPrefix(r, "file:") && !strings.HasPrefix(r, "data:") {
			t.Errorf("network request to %s", r)
		}
	}
}
