package web

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/iolens/iolens/dataset/query"
)

// filterParams are the query parameters that select jobs, in the order of
// the filter form.
var filterParams = []string{"user", "app", "since", "until", "code", "min_bytes"}

// maxPage bounds the page parameter (so that offsets cannot overflow).
const maxPage = 1 << 30

// listParams are the parameters of the job list as given: the filter, the
// sort and the page. Empty parameters are absent.
type listParams struct {
	values url.Values // the filter, sort and order parameters given
	filter query.Filter
	sort   string // a column of query.JobSorts
	asc    bool
	page   int // from 1
}

// parseList reads the parameters of the job list; an error names the
// parameter with a bad value (400).
func parseList(q url.Values) (listParams, error) {
	p := listParams{values: url.Values{}, sort: "start_time", page: 1}
	get := func(name string) string {
		v := strings.TrimSpace(q.Get(name))
		if v != "" {
			p.values.Set(name, v)
		}
		return v
	}
	var err error
	if p.filter, err = parseFilter(get); err != nil {
		return p, err
	}
	if v := get("sort"); v != "" {
		if !slices.Contains(query.JobSorts(), v) {
			return p, errBadParam("sort", v, "the list sorts by "+strings.Join(query.JobSorts(), ", "))
		}
		p.sort = v
	}
	switch v := get("order"); v {
	case "", "desc":
	case "asc":
		p.asc = true
	default:
		return p, errBadParam("order", v, "asc or desc")
	}
	if v := strings.TrimSpace(q.Get("page")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPage {
			return p, errBadParam("page", v, "a page number, from 1")
		}
		p.page = n
	}
	return p, nil
}

// parseFilter reads the filter parameters (get returns a parameter's
// value, "" when absent).
func parseFilter(get func(string) string) (query.Filter, error) {
	f := query.Filter{User: get("user"), App: get("app"), Code: get("code")}
	var err error
	if f.Since, err = parseDate("since", get("since")); err != nil {
		return f, err
	}
	if f.Until, err = parseDate("until", get("until")); err != nil {
		return f, err
	}
	if !f.Until.IsZero() {
		f.Until = f.Until.AddDate(0, 0, 1) // the day given is included
	}
	if v := get("min_bytes"); v != "" {
		if f.MinBytes, err = parseBytes(v); err != nil {
			return f, errBadParam("min_bytes", v, "a number of bytes, e.g. 1048576 or 1G (binary units K, M, G, T)")
		}
	}
	return f, nil
}

// parseDate reads a day (YYYY-MM-DD, UTC); the zero time when v is empty.
func parseDate(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return t, errBadParam(name, v, "a date YYYY-MM-DD")
	}
	return t, nil
}

// parseBytes reads a byte count: digits with an optional binary unit
// (K, M, G, T, optionally followed by "iB", or B).
func parseBytes(v string) (int64, error) {
	num := strings.TrimRightFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToUpper(strings.TrimSpace(v[len(num):]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	shift := strings.Index(" KMGT", cmp.Or(unit, " "))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || shift < 0 || len(unit) > 1 || n > (1<<63-1)>>(10*shift) {
		return 0, strconv.ErrSyntax
	}
	return n << (10 * shift), nil
}

// url returns the job list URL of p with the changes set applies to its
// parameters (nil: none); the page is 1 unless set gives one.
func (p listParams) url(set func(url.Values)) string {
	v := url.Values{}
	for k, vs := range p.values {
		v[k] = slices.Clone(vs)
	}
	if set != nil {
		set(v)
	}
	if v.Get("page") == "1" {
		v.Del("page")
	}
	return jobsURL(v)
}
