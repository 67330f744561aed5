package web

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/dataset"
	"github.com/iolens/iolens/dataset/query"
	"github.com/iolens/iolens/report"
)

// goneFiles bounds the files the page of a job without its log lists.
const goneFiles = 200

// errLogReplaced is the error of a log path that now holds another job's
// log.
var errLogReplaced = errors.New("the file now holds the log of another job")

// job is the page /jobs/{id}: the `iolens report` page of the job's log,
// or, when the log is gone, what the dataset knows of the job (410).
func (s *server) job(w http.ResponseWriter, r *http.Request, v viewer) error {
	id := r.PathValue("id")
	j, err := s.db.Job(r.Context(), id)
	if errors.Is(err, query.ErrNotFound) {
		return errNotFound("job")
	}
	if err != nil {
		return fmt.Errorf("job %s: %w", id, err)
	}
	if !v.mayView(j.UID) {
		return &httpError{status: http.StatusForbidden, msg: "This job belongs to another user."}
	}
	page, err := s.reportPage(j, v)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errLogReplaced):
		return s.gone(w, r, v, j, err)
	case err != nil:
		return err
	}
	w.Header().Set("Content-Security-Policy", reportCSP)
	writePage(w, http.StatusOK, page)
	return nil
}

// reportPage returns the report page of the log of j, with a navigation
// bar back to the UI. The log must still be that of j (same uid and start
// time): a path reused for another job's log gives errLogReplaced.
func (s *server) reportPage(j *query.Job, v viewer) ([]byte, error) {
	l, err := darshan.OpenFile(j.Log)
	if err != nil {
		return nil, fmt.Errorf("job %s: opening its log: %w", j.ID, err)
	}
	defer l.Close()
	if l.Job.UID != j.UID || l.Job.StartTime != j.Start.Unix() {
		return nil, fmt.Errorf("job %s: log %s: %w", j.ID, j.Log, errLogReplaced)
	}
	rep, err := analysis.Analyze(l, j.Log, analysis.DefaultConfig())
	if err != nil {
		return nil, fmt.Errorf("job %s: analysing %s: %w", j.ID, j.Log, err)
	}
	var page bytes.Buffer
	if err := report.HTML(&page, rep, l, report.HTMLOptions{}); err != nil {
		return nil, fmt.Errorf("job %s: report of %s: %w", j.ID, j.Log, err)
	}
	var bar bytes.Buffer
	if err := s.pages.reportBar.Execute(&bar, pageData{Viewer: v, View: j}); err != nil {
		return nil, fmt.Errorf("job %s: navigation bar: %w", j.ID, err)
	}
	const body = "<body>"
	return bytes.Replace(page.Bytes(), []byte(body), append([]byte(body), bar.Bytes()...), 1), nil
}

// goneView is what the page of a job without its log shows.
type goneView struct {
	Job      *query.Job
	Reason   string
	Files    []dataset.File
	More     bool // more files than listed
	Insights []dataset.Insight
}

// gone writes the page of a job whose log is not there any more (why):
// the job, its files and its insights as the dataset has them, with 410.
func (s *server) gone(w http.ResponseWriter, r *http.Request, v viewer, j *query.Job, why error) error {
	ctx := r.Context()
	view := goneView{Job: j, Reason: "is not there any more"}
	if errors.Is(why, errLogReplaced) {
		view.Reason = "now holds the log of another job"
	}
	var err error
	if view.Files, err = s.db.Files(ctx, j.ID, goneFiles+1); err != nil {
		return fmt.Errorf("job %s: files: %w", j.ID, err)
	}
	if len(view.Files) > goneFiles {
		view.Files, view.More = view.Files[:goneFiles], true
	}
	if view.Insights, err = s.db.JobInsights(ctx, j.ID); err != nil {
		return fmt.Errorf("job %s: insights: %w", j.ID, err)
	}
	return s.show(w, http.StatusGone, "gone", pageData{Title: "Job " + j.ID, Viewer: v, View: view})
}
