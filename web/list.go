package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/iolens/iolens/dataset/query"
)

// column is a column of the job list: its header and the sort it
// selects ("" for none).
type column struct {
	Label, Title, sort string
	Num                bool
	// URL sorts the list by the column (or reverses the sort); Sorted is
	// "ascending" or "descending" for the column the list is sorted by.
	URL, Sorted string
}

// jobColumns returns the columns of the job list.
func jobColumns() []column {
	return []column{
		{Label: "start (UTC)", sort: "start_time"},
		{Label: "user", sort: "user"},
		{Label: "application", sort: "app"},
		{Label: "job id", Title: "the batch system's job id", Num: true},
		{Label: "ranks", sort: "nprocs", Num: true},
		{Label: "run time", sort: "run_time", Num: true},
		{Label: "I/O time", sort: "io_time", Num: true, Title: "summed over ranks"},
		{Label: "read", sort: "bytes", Num: true, Title: "sorts by bytes moved (read + written)"},
		{Label: "written", sort: "bytes", Num: true, Title: "sorts by bytes moved (read + written)"},
		{Label: "HIGH", Num: true, Title: "insights of level HIGH"},
		{Label: "WARN", Num: true, Title: "insights of level WARN"},
	}
}

// jobsView is what the job list shows.
type jobsView struct {
	Form    map[string]string // the filter parameters given
	Columns []column
	Jobs    []query.Job
	Total   int64
	// First and Last are the positions (from 1) of the jobs shown, Page
	// and Pages the page and the number of pages.
	First, Last, Page, Pages int64
	Prev, Next, Clear        string // URLs; "" when there is none
	Filtered                 bool
	Users, Apps, Codes       []string // suggestions for the form
}

// jobs is the page /jobs: the jobs a filter selects, sorted, a page at a
// time.
func (s *server) jobs(w http.ResponseWriter, r *http.Request, v viewer) error {
	p, err := parseList(r.URL.Query())
	if err != nil {
		return err
	}
	ctx := r.Context()
	size := int64(s.pageSize)
	jobs, total, err := s.db.Jobs(ctx, query.JobsQuery{Filter: v.scope(p.filter), Sort: p.sort, Asc: p.asc,
		Offset: int((int64(p.page) - 1) * size), Limit: s.pageSize})
	if err != nil {
		return fmt.Errorf("job list: %w", err)
	}
	view := jobsView{Form: map[string]string{}, Jobs: jobs, Total: total, Page: int64(p.page),
		Pages: max(1, (total+size-1)/size), Clear: "/jobs"}
	for _, name := range filterParams {
		if val := p.values.Get(name); val != "" {
			view.Form[name] = val
			view.Filtered = true
		}
	}
	if len(jobs) > 0 {
		view.First = (view.Page-1)*size + 1
		view.Last = view.First + int64(len(jobs)) - 1
	}
	page := func(n int64) string {
		return p.url(func(q url.Values) { q.Set("page", fmt.Sprint(n)) })
	}
	if view.Page > 1 {
		view.Prev = page(min(view.Page-1, view.Pages))
	}
	if view.Page < view.Pages {
		view.Next = page(view.Page + 1)
	}
	view.Columns = jobColumns()
	for i := range view.Columns {
		c := &view.Columns[i]
		if c.sort == "" {
			continue
		}
		order := "desc"
		switch {
		case c.sort == p.sort && p.asc:
			c.Sorted = "ascending"
		case c.sort == p.sort:
			c.Sorted, order = "descending", "asc"
		case c.sort == "user" || c.sort == "app":
			order = "asc"
		}
		c.URL = p.url(func(q url.Values) { q.Set("sort", c.sort); q.Set("order", order) })
	}
	if err := s.suggestions(ctx, v, &view); err != nil {
		return err
	}
	return s.show(w, http.StatusOK, "jobs", pageData{Title: "Jobs", Section: "jobs", Viewer: v, View: view})
}

// suggestions fills the users, applications and insight codes the
// viewer's jobs have, offered by the filter form.
func (s *server) suggestions(ctx context.Context, v viewer, view *jobsView) error {
	f := v.scope(query.Filter{})
	var err error
	if view.Users, view.Apps, err = s.db.Names(ctx, f, 500); err != nil {
		return fmt.Errorf("user and application names: %w", err)
	}
	if view.Codes, err = s.db.Codes(ctx, f); err != nil {
		return fmt.Errorf("insight codes: %w", err)
	}
	return nil
}
