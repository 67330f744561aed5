package web

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iolens/iolens/report"
)

// response is what a request got.
type response struct {
	status int
	header http.Header
	body   string
}

// get requests path from srv with the given headers (name, value pairs).
func get(t *testing.T, srvURL, method, path string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, srvURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

var (
	jobRowRE   = regexp.MustCompile(`<tr class="row-link[^"]*" data-job="([0-9a-f]+)"`)
	chartRE    = regexp.MustCompile(`(?s)<script type="application/json" id="chart-data">(.*?)</script>`)
	tagRE      = regexp.MustCompile(`<[^>]*>`)
	rangeRE    = regexp.MustCompile(`<span class="range">([^<]*)</span>`)
	prevNextRE = regexp.MustCompile(`<a class="(prev|next)" rel="(?:prev|next)" href="([^"]*)"`)
)

// rows returns the job ids of the rows of a page, in order.
func rows(body string) []string {
	out := []string{}
	for _, m := range jobRowRE.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// text returns the text of the element with id in body (tags removed).
func text(t *testing.T, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)id="` + regexp.QuoteMeta(id) + `"[^>]*>(.*?)</d[dt]>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no element %s", id)
	}
	return html.UnescapeString(tagRE.ReplaceAllString(m[1], ""))
}

// chartData decodes the chart data of a page into v.
func chartData(t *testing.T, body string, v any) {
	t.Helper()
	m := chartRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no chart data")
	}
	if err := json.Unmarshal([]byte(m[1]), v); err != nil {
		t.Fatalf("chart data %q: %v", m[1], err)
	}
}

// expected returns the dataset ids of the jobs keep selects, sorted by
// less (by start time, latest first, when nil).
func (f *facility) expected(keep func(jobSpec) bool, less func(a, b jobSpec) int) []string {
	var sel []jobSpec
	for _, j := range f.jobs {
		if keep == nil || keep(j) {
			sel = append(sel, j)
		}
	}
	if less == nil {
		less = func(a, b jobSpec) int { return b.start.Compare(a.start) }
	}
	slices.SortStableFunc(sel, less)
	out := []string{}
	for _, j := range sel {
		out = append(out, f.ids[j.jobID])
	}
	return out
}

func TestOverview(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{}, 0)
	r := get(t, srv.URL, "GET", "/")
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	for name, want := range map[string]string{
		"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Content-Type":            "text/html; charset=utf-8",
	} {
		if got := r.header.Get(name); got != want {
			t.Errorf("header %s: %q, want %q", name, got, want)
		}
	}
	var read, written int64
	var io float64
	for _, j := range f.jobs {
		read += j.read
		written += j.bytesWritten()
		io += j.ioTime
	}
	for id, want := range map[string]string{
		"total-jobs": "12", "total-users": "2", "total-apps": "3",
		"total-read": report.Bytes(read), "total-written": report.Bytes(written), "total-io-time": duration(io),
		"total-errors": "0",
	} {
		if got := text(t, r.body, id); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if want := "4 min 07 s"; duration(io) != want { // 246.5 s
		t.Errorf("total I/O time %s, want %s", duration(io), want)
	}

	var c overviewCharts
	chartData(t, r.body, &c)
	if diff := cmp.Diff([]string{"2026-01-05", "2026-01-06", "2026-01-07", "2026-01-08", "2026-01-09", "2026-01-10"}, c.Days.Dates); diff != "" {
		t.Errorf("days (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{2, 3, 2, 2, 2, 1}, c.Days.Jobs); diff != "" {
		t.Errorf("jobs per day (-want +got):\n%s", diff)
	}
	if c.Interfaces.Names[0] != "POSIX" || c.Interfaces.Times[0] != io {
		t.Errorf("interfaces %+v, want POSIX first with %g s", c.Interfaces, io)
	}

	// The common insights: M01 in every job, P06 in three, each linking
	// to its job list, with example jobs (those with the most I/O time).
	for _, want := range []string{
		`<a class="code" href="/jobs?code=M01">M01</a>`,
		`<a class="code" href="/jobs?code=P06">P06</a>`,
		`<td class="num"><a href="/jobs?code=P06">3</a></td>`,
		fmt.Sprintf(`<a class="id" href="/jobs/%s">`, f.ids[203]),
		fmt.Sprintf(`<a class="id" href="/jobs/%s">`, f.ids[107]),
		`<a href="/apps/sim">sim</a>`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the overview lacks %s", want)
		}
	}
	if strings.Index(r.body, ">M01</a>") > strings.Index(r.body, ">P06</a>") {
		t.Error("M01 (12 jobs) is not listed before P06 (3 jobs)")
	}
}

func TestJobListFilters(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{}, 0)
	cases := []struct {
		query string
		keep  func(jobSpec) bool
	}{
		{"", nil},
		{"user=alice", func(j jobSpec) bool { return j.uid == uidAlice }},
		{"app=post.py", func(j jobSpec) bool { return j.app == "post.py" }},
		{"app=" + url.QueryEscape(evilApp), func(j jobSpec) bool { return j.jobID == 301 }},
		{"code=P06", func(j jobSpec) bool { return j.smallWrites > 0 }},
		{"user=alice&code=P06", func(j jobSpec) bool { return j.jobID == 104 }},
		{"since=2026-01-08&until=2026-01-09", func(j jobSpec) bool { return j.start.Day() == 8 || j.start.Day() == 9 }},
		{"since=2026-01-09", func(j jobSpec) bool { return j.start.Day() >= 9 }},
		{"min_bytes=2G", func(j jobSpec) bool { return j.app == "post.py" }},
		{"min_bytes=1342177280", func(j jobSpec) bool { return j.read+j.bytesWritten() >= 1342177280 }},
		{"user=&app=&since=&until=&code=&min_bytes=", nil}, // an empty form
		{"user=nobody", func(jobSpec) bool { return false }},
	}
	for _, c := range cases {
		r := get(t, srv.URL, "GET", "/jobs?"+c.query)
		if r.status != http.StatusOK {
			t.Errorf("%s: status %d", c.query, r.status)
			continue
		}
		want := f.expected(c.keep, nil)
		if diff := cmp.Diff(want, rows(r.body)); diff != "" {
			t.Errorf("%s: job rows (-want +got):\n%s", c.query, diff)
		}
		n := len(want)
		wantRange := fmt.Sprintf("1–%d of %d", n, n)
		if n == 0 {
			wantRange = "no jobs match this filter"
		}
		if m := rangeRE.FindStringSubmatch(r.body); m == nil || m[1] != wantRange {
			t.Errorf("%s: range %v, want %q", c.query, m, wantRange)
		}
	}
	// The form shows the filter given.
	r := get(t, srv.URL, "GET", "/jobs?user=alice&code=P06")
	for _, want := range []string{`name="user" list="users" value="alice"`, `name="code" list="codes" value="P06"`, `<option value="post.py">`, `<option value="P06">`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
}

func TestJobListSort(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{}, 0)
	byIO := func(a, b jobSpec) int { return cmpFloat(a.ioTime, b.ioTime) }
	// Ties are broken by start time, in the same order.
	byApp := func(a, b jobSpec) int {
		if c := strings.Compare(a.app, b.app); c != 0 {
			return c
		}
		return a.start.Compare(b.start)
	}
	cases := []struct {
		query string
		less  func(a, b jobSpec) int
	}{
		{"sort=io_time&order=asc", byIO},
		{"sort=io_time", func(a, b jobSpec) int { return byIO(b, a) }},
		{"sort=io_time&order=desc", func(a, b jobSpec) int { return byIO(b, a) }},
		{"sort=start_time&order=asc", func(a, b jobSpec) int { return a.start.Compare(b.start) }},
		{"sort=app&order=asc", byApp},
		{"sort=app&order=desc", func(a, b jobSpec) int { return byApp(b, a) }},
	}
	for _, c := range cases {
		r := get(t, srv.URL, "GET", "/jobs?"+c.query)
		if diff := cmp.Diff(f.expected(nil, c.less), rows(r.body)); diff != "" {
			t.Errorf("%s: job rows (-want +got):\n%s", c.query, diff)
		}
	}
	if got := f.expected(nil, byIO); got[0] != f.ids[301] || got[11] != f.ids[107] {
		t.Fatal("the I/O times of the facility changed")
	}
	// The header of the sorted column reverses the order and keeps the
	// filter; the others sort by themselves.
	r := get(t, srv.URL, "GET", "/jobs?user=alice&sort=io_time&order=desc")
	for _, want := range []string{
		`<th class="num" title="summed over ranks" aria-sort="descending"><a href="/jobs?order=asc&amp;sort=io_time&amp;user=alice">I/O time</a></th>`,
		`<th class="num"><a href="/jobs?order=desc&amp;sort=nprocs&amp;user=alice">ranks</a></th>`,
		`<th><a href="/jobs?order=asc&amp;sort=user&amp;user=alice">user</a></th>`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the headers lack %s", want)
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestJobListPages(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{}, 3)
	alice := f.expected(func(j jobSpec) bool { return j.uid == uidAlice }, nil)
	cases := []struct {
		query      string
		rows       []string
		rng        string
		prev, next string
	}{
		{"user=alice", alice[0:3], "1–3 of 8", "", "/jobs?page=2&user=alice"},
		{"user=alice&page=2", alice[3:6], "4–6 of 8", "/jobs?user=alice", "/jobs?page=3&user=alice"},
		{"user=alice&page=3", alice[6:8], "7–8 of 8", "/jobs?page=2&user=alice", ""},
		{"user=alice&page=4", []string{}, "no jobs on page 4 of 3", "/jobs?page=3&user=alice", ""},
		{"page=4&sort=io_time&order=asc", f.expected(nil, func(a, b jobSpec) int { return cmpFloat(a.ioTime, b.ioTime) })[9:12], "10–12 of 12",
			"/jobs?order=asc&page=3&sort=io_time", ""},
	}
	for _, c := range cases {
		r := get(t, srv.URL, "GET", "/jobs?"+c.query)
		if diff := cmp.Diff(c.rows, rows(r.body)); diff != "" {
			t.Errorf("%s: rows (-want +got):\n%s", c.query, diff)
		}
		if m := rangeRE.FindStringSubmatch(r.body); m == nil || m[1] != c.rng {
			t.Errorf("%s: range %v, want %q", c.query, m, c.rng)
		}
		links := map[string]string{}
		for _, m := range prevNextRE.FindAllStringSubmatch(r.body, -1) {
			links[m[1]] = html.UnescapeString(m[2])
		}
		if links["prev"] != c.prev || links["next"] != c.next {
			t.Errorf("%s: previous %q, next %q; want %q, %q", c.query, links["prev"], links["next"], c.prev, c.next)
		}
	}
	// 50 a page by default.
	r := get(t, f.handler(t, Options{}, 0).URL, "GET", "/jobs")
	if m := rangeRE.FindStringSubmatch(r.body); m == nil || m[1] != "1–12 of 12" || len(rows(r.body)) != 12 {
		t.Errorf("default page: %v, %d rows", m, len(rows(r.body)))
	}
}

func TestErrors(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{}, 0)
	cases := []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/jobs?since=notadate", 400, "since=&#34;notadate&#34;"},
		{"GET", "/jobs?until=2026-13-01", 400, "until=&#34;2026-13-01&#34;"},
		{"GET", "/jobs?page=-1", 400, "page=&#34;-1&#34;"},
		{"GET", "/jobs?page=0", 400, "page=&#34;0&#34;"},
		{"GET", "/jobs?page=many", 400, "page=&#34;many&#34;"},
		{"GET", "/jobs?page=99999999999999999999", 400, "page="},
		{"GET", "/jobs?sort=evil", 400, "sort=&#34;evil&#34;"},
		{"GET", "/jobs?sort=" + url.QueryEscape("io_time; DROP TABLE jobs"), 400, "sort="},
		{"GET", "/jobs?order=up", 400, "order=&#34;up&#34;"},
		{"GET", "/jobs?min_bytes=lots", 400, "min_bytes=&#34;lots&#34;"},
		{"GET", "/jobs?min_bytes=-5", 400, "min_bytes="},
		{"GET", "/jobs/0123456789abcdef", 404, "no such job"},
		{"GET", "/jobs/" + url.PathEscape("' OR 1=1 --"), 404, "no such job"},
		{"GET", "/apps/nope", 404, "no such application"},
		{"GET", "/nope", 404, "no such page"},
		{"GET", "/static/nope.js", 404, "no such file"},
		{"POST", "/jobs", 405, "read-only"},
		{"DELETE", "/", 405, "read-only"},
	}
	for _, c := range cases {
		r := get(t, srv.URL, c.method, c.path)
		if r.status != c.status || !strings.Contains(r.body, c.want) {
			t.Errorf("%s %s: status %d, want %d with %q:\n%.2000s", c.method, c.path, r.status, c.status, c.want, r.body)
		}
		if r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: no nosniff header", c.method, c.path)
		}
	}
	if r := get(t, srv.URL, "HEAD", "/jobs"); r.status != 200 || r.body != "" {
		t.Errorf("HEAD /jobs: %d, %d bytes", r.status, len(r.body))
	}
}

func TestJobPages(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{}, 0)

	r := get(t, srv.URL, "GET", "/jobs/"+f.ids[104])
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %.2000s", r.status, r.body)
	}
	if got, want := r.header.Get("Content-Security-Policy"), "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"; got != want {
		t.Errorf("report CSP %q, want %q", got, want)
	}
	for _, want := range []string{"<h1>iolens report</h1>", `id="iolens-serve-bar"`, `<a href="/apps/sim"`, `data-code="P06"`, f.logs[104]} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the report page lacks %s", want)
		}
	}

	// The log of job 301 was deleted: the page says so and shows what
	// the dataset knows, escaped.
	r = get(t, srv.URL, "GET", "/jobs/"+f.ids[301])
	if r.status != http.StatusGone {
		t.Fatalf("missing log: status %d", r.status)
	}
	for _, want := range []string{
		`<code class="path" id="log-path">` + html.EscapeString(f.logs[301]) + `</code>`,
		"is not there any more",
		`<td class="file">/scratch/&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;.dat</td>`,
		`<td class="exe">/opt/&lt;b&gt;evil&amp;&#34;&#39; --title &lt;script&gt;alert(1)&lt;/script&gt;</td>`,
		`<a href="/apps/%3Cb%3Eevil&amp;%22%27">&lt;b&gt;evil&amp;&#34;&#39;</a>`,
		`<a class="code" href="/jobs?code=M01">M01</a>`,
		`<tr><th>user</th><td>bob (uid 1002)</td></tr>`,
		"1.0 MiB read, 4.0 KiB written (read operations: 1, write operations: 1)",
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the missing-log page lacks %s", want)
		}
	}
	if strings.Contains(r.body, evilArg) || strings.Contains(r.body, "<b>evil") {
		t.Error("the missing-log page has untrusted markup unescaped")
	}

	// A log path that now holds another job's log is not shown as this job.
	t.Run("replaced", func(t *testing.T) {
		j := f.jobs[0]
		writeLog(t, f.logs[j.jobID], jobSpec{jobID: 999, uid: uidBob, exe: "/bin/other", start: day(20, 0), runTime: 1, nprocs: 1, file: "/x", read: mib, written: mib, ioTime: 1})
		r := get(t, srv.URL, "GET", "/jobs/"+f.ids[j.jobID])
		if r.status != http.StatusGone || !strings.Contains(r.body, "now holds the log of another job") || strings.Contains(r.body, "/bin/other") {
			t.Errorf("replaced log: status %d:\n%.3000s", r.status, r.body)
		}
	})
}

func TestAppPage(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{}, 0)
	r := get(t, srv.URL, "GET", "/apps/sim")
	if r.status != http.StatusOK {
		t.Fatalf("status %d", r.status)
	}
	var c appCharts
	chartData(t, r.body, &c)
	if diff := cmp.Diff(f.idsOf(101, 102, 103, 104, 105, 106, 107, 108), c.IDs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, false, false, false, false, false, true, false}, c.Regression); diff != "" {
		t.Errorf("regressions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{9, 10, 11, 10.5, 9.5, 10.2, 100, 9.8}, c.IOTime); diff != "" {
		t.Errorf("I/O times (-want +got):\n%s", diff)
	}
	if c.Start[0] != day(5, 8).UnixMilli() || c.Bytes[0] != 1280*mib {
		t.Errorf("first run at %d with %d bytes", c.Start[0], c.Bytes[0])
	}
	// The one regression, against the median of the 6 runs before (10.1 s).
	want := fmt.Sprintf(`<tr class="row-link regression" data-job="%s" data-href="/jobs/%s">
<td><a class="id" href="/jobs/%s">%s</a></td>
<td>2026-01-08 08:00</td>
<td>alice</td>
<td class="num">1 min 40 s</td>
<td class="num" title="median of the runs before">10.1 s</td>
<td class="num">9.9×</td>
</tr>`, f.ids[107], f.ids[107], f.ids[107], f.ids[107])
	if !strings.Contains(r.body, want) {
		t.Errorf("the regressions table lacks\n%s\n%s", want, r.body)
	}
	if got := rows(r.body); len(got) != 1 {
		t.Errorf("%d regression rows, want 1", len(got))
	}
	if got := text(t, r.body, "app-regressions"); got != "1" {
		t.Errorf("regressions: %q", got)
	}
	for _, want := range []string{`<a class="code" href="/jobs?app=sim&amp;code=P06">P06</a>`, `<td class="num">13%</td>`, `<td class="num">100%</td>`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the insight table lacks %s", want)
		}
	}

	// An untrusted application name is text.
	r = get(t, srv.URL, "GET", "/apps/"+url.PathEscape(evilApp))
	if r.status != http.StatusOK || !strings.Contains(r.body, `<h1><span class="muted">application</span> &lt;b&gt;evil&amp;&#34;&#39;</h1>`) || strings.Contains(r.body, "<b>evil") {
		t.Errorf("status %d:\n%.3000s", r.status, r.body)
	}
}

func TestAccessControl(t *testing.T) {
	f := newFacility(t)
	uids := map[string]int64{"alice": uidAlice, "bob": uidBob, "carol": 1003}
	srv := f.handler(t, Options{
		UserHeader: "X-Remote-User",
		Admins:     []string{"root"},
		LookupUID: func(name string) (int64, error) {
			if uid, ok := uids[name]; ok {
				return uid, nil
			}
			return 0, fmt.Errorf("no user %s", name)
		},
	}, 0)
	as := func(user, path string) response {
		t.Helper()
		if user == "" {
			return get(t, srv.URL, "GET", path)
		}
		return get(t, srv.URL, "GET", path, "X-Remote-User", user)
	}

	// No user: 401 everywhere.
	for _, p := range []string{"/", "/jobs", "/jobs/" + f.ids[101], "/apps/sim"} {
		if r := as("", p); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "X-Remote-User") {
			t.Errorf("%s without user: %d", p, r.status)
		}
	}

	bobs := f.idsOf(201, 202, 203, 301)
	alices := f.idsOf(101, 102, 103, 104, 105, 106, 107, 108)
	pages := []string{"/", "/jobs", "/jobs?page=2", "/jobs?user=bob", "/jobs?code=P06", "/jobs?code=M01&sort=io_time", "/apps/sim", "/apps/post.py",
		"/jobs/" + f.ids[101], "/jobs/" + f.ids[201], "/jobs/" + f.ids[301]}
	for _, p := range pages {
		r := as("alice", p)
		for _, id := range bobs {
			if strings.Contains(r.body, id) {
				t.Errorf("alice sees bob's job %s in %s", id, p)
			}
		}
		for _, s := range []string{"post.py", "evil", "/home/bob", "uid 1002", `<option value="bob">`, "<td>bob</td>"} {
			if strings.Contains(r.body, s) {
				t.Errorf("alice sees %s in %s", s, p)
			}
		}
	}
	if got := rows(as("alice", "/jobs").body); !cmp.Equal(got, f.expected(func(j jobSpec) bool { return j.uid == uidAlice }, nil)) {
		t.Errorf("alice's jobs: %v", got)
	}
	if got := rows(as("alice", "/jobs?code=P06").body); !cmp.Equal(got, f.idsOf(104)) {
		t.Errorf("alice's P06 jobs: %v", got)
	}
	r := as("alice", "/")
	if text(t, r.body, "total-jobs") != "8" || text(t, r.body, "total-users") != "1" || text(t, r.body, "total-apps") != "1" || strings.Contains(r.body, `id="total-errors"`) {
		t.Errorf("alice's overview: %s jobs, %s users, %s apps", text(t, r.body, "total-jobs"), text(t, r.body, "total-users"), text(t, r.body, "total-apps"))
	}
	for _, c := range []struct {
		user, path string
		status     int
	}{
		{"alice", "/jobs/" + f.ids[101], http.StatusOK},
		{"alice", "/jobs/" + f.ids[201], http.StatusForbidden},
		{"alice", "/jobs/" + f.ids[301], http.StatusForbidden}, // its log is gone: still not hers
		{"alice", "/apps/post.py", http.StatusNotFound},
		{"alice", "/apps/sim", http.StatusOK},
		{"bob", "/jobs/" + f.ids[101], http.StatusForbidden},
		{"bob", "/jobs/" + f.ids[201], http.StatusOK},
		{"carol", "/", http.StatusOK},
		{"carol", "/apps/sim", http.StatusNotFound},
		{"mallory", "/", http.StatusForbidden},
		{"root", "/jobs/" + f.ids[201], http.StatusOK},
		{"root", "/jobs/" + f.ids[101], http.StatusOK},
	} {
		if r := as(c.user, c.path); r.status != c.status {
			t.Errorf("%s %s: status %d, want %d", c.user, c.path, r.status, c.status)
		}
	}
	if r := as("alice", "/jobs/"+f.ids[201]); !strings.Contains(r.body, "belongs to another user") {
		t.Error("the 403 page does not say why")
	}
	if got := text(t, as("carol", "/").body, "total-jobs"); got != "0" {
		t.Errorf("carol sees %s jobs", got)
	}
	if got := rows(as("bob", "/jobs").body); !cmp.Equal(got, f.expected(func(j jobSpec) bool { return j.uid == uidBob }, nil)) {
		t.Errorf("bob's jobs: %v", got)
	}
	// The admin sees everything.
	if got := rows(as("root", "/jobs").body); !cmp.Equal(got, f.expected(nil, nil)) {
		t.Errorf("root's jobs: %v", got)
	}
	r = as("root", "/")
	if text(t, r.body, "total-jobs") != "12" || !strings.Contains(r.body, `root <span class="tag">admin</span>`) {
		t.Error("root's overview")
	}
	for _, id := range append(bobs[:3], alices...) {
		if !strings.Contains(as("root", "/jobs").body, id) {
			t.Errorf("root does not see %s", id)
		}
	}
}

func TestStatic(t *testing.T) {
	f := newFacility(t)
	srv := f.handler(t, Options{UserHeader: "X-Remote-User"}, 0)
	r := get(t, srv.URL, "GET", "/static/echarts.min.js")
	if r.status != 200 || r.body != string(report.ECharts()) || r.header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
		r.header.Get("Cache-Control") != "public, max-age=86400" {
		t.Fatalf("echarts: %d, %d bytes, %v", r.status, len(r.body), r.header)
	}
	if r := get(t, srv.URL, "GET", "/static/echarts.min.js", "If-None-Match", r.header.Get("ETag")); r.status != http.StatusNotModified {
		t.Errorf("revalidation: %d", r.status)
	}
	for _, name := range []string{"style.css", "ui.js", "charts.js"} {
		r := get(t, srv.URL, "GET", "/static/"+name)
		if r.status != 200 || len(r.body) < 500 || r.header.Get("Cache-Control") != "no-cache" || r.header.Get("ETag") == "" {
			t.Errorf("%s: %d, %d bytes, %v", name, r.status, len(r.body), r.header)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1048576": 1 << 20, "1K": 1 << 10, "2G": 2 << 30, "3 MiB": 3 << 20, "4t": 4 << 40, "5B": 5, "10 gib": 10 << 30} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "-1", "1.5G", "1X", "1KK", "9999999999T", "1e9"} {
		if got, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", in, got)
		}
	}
}

func TestDuration(t *testing.T) {
	for in, want := range map[float64]string{0: "0 s", 0.0123: "0.0123 s", 1.5: "1.5 s", 9.87: "9.87 s", 10.1: "10.1 s", 100: "1 min 40 s", 246.5: "4 min 07 s", 7380: "2 h 03 min"} {
		if got := duration(in); got != want {
			t.Errorf("duration(%g) = %q, want %q", in, got, want)
		}
	}
	if got := count(1234567); got != "1,234,567" {
		t.Errorf("count: %q", got)
	}
}
