package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/iolens/iolens/dataset/query"
)

// overviewView is what the overview shows besides query.Overview.
type overviewView struct {
	*query.Overview
	TopApps  []topRow
	TopUsers []topRow // only for viewers who see every user
	// ShowErrors is set for viewers who see the whole dataset, whose
	// unreadable logs Overview.Errors counts.
	ShowErrors bool
}

// overviewCharts is the data of the overview's charts.
type overviewCharts struct {
	Days struct {
		Dates   []string `json:"dates"`
		Jobs    []int64  `json:"jobs"`
		Read    []int64  `json:"read"`
		Written []int64  `json:"written"`
	} `json:"days"`
	Interfaces struct {
		Names []string  `json:"names"`
		Times []float64 `json:"times"`
	} `json:"interfaces"`
}

// overview is the page /: the facility at a glance.
func (s *server) overview(w http.ResponseWriter, r *http.Request, v viewer) error {
	ctx := r.Context()
	f := v.scope(query.Filter{})
	o, err := s.db.Overview(ctx, f)
	if err != nil {
		return fmt.Errorf("overview: %w", err)
	}
	view := overviewView{Overview: o, ShowErrors: !v.Restricted()}
	if view.TopApps, err = s.top(ctx, "app", f, 10); err != nil {
		return err
	}
	if !v.Restricted() {
		if view.TopUsers, err = s.top(ctx, "user", f, 10); err != nil {
			return err
		}
	}
	var c overviewCharts
	for _, d := range o.Days {
		c.Days.Dates = append(c.Days.Dates, d.Date.UTC().Format(time.DateOnly))
		c.Days.Jobs = append(c.Days.Jobs, d.Jobs)
		c.Days.Read = append(c.Days.Read, d.BytesRead)
		c.Days.Written = append(c.Days.Written, d.BytesWritten)
	}
	for _, in := range o.Interfaces {
		c.Interfaces.Names = append(c.Interfaces.Names, in.Name)
		c.Interfaces.Times = append(c.Interfaces.Times, in.Time)
	}
	return s.show(w, http.StatusOK, "overview", pageData{Title: "Overview", Section: "overview", Viewer: v, Charts: c, View: view})
}

// topRow is a user or an application ranked by I/O time.
type topRow struct {
	Name   string
	UID    int64
	Jobs   int64
	IOTime float64
	Bytes  int64
}

// top returns the n users or applications (group "user" or "app") of the
// jobs f selects with the most I/O time.
func (s *server) top(ctx context.Context, group string, f query.Filter, n int) ([]topRow, error) {
	t, err := s.db.Top(ctx, "io-time", group, f, n)
	if err != nil {
		return nil, fmt.Errorf("top %ss: %w", group, err)
	}
	out := make([]topRow, len(t.Rows))
	for i, row := range t.Rows {
		for k, col := range t.Columns {
			switch x := row[k].(type) {
			case string:
				if col == group {
					out[i].Name = x
				}
			case int64:
				switch col {
				case "uid":
					out[i].UID = x
				case "jobs":
					out[i].Jobs = x
				case "bytes":
					out[i].Bytes = x
				case "io_time":
					out[i].IOTime = float64(x)
				}
			case float64:
				if col == "io_time" {
					out[i].IOTime = x
				}
			}
		}
	}
	return out, nil
}

// appView is what the page of an application shows.
type appView struct {
	*query.AppHistory
	Flagged     []query.Run // the regressions
	Users       int
	First, Last time.Time
	IOTime      float64 // total
	Bytes       int64   // total
}

// appCharts is the data of an application's charts: one element per run.
type appCharts struct {
	IDs        []string  `json:"ids"`
	Start      []int64   `json:"start"` // milliseconds since the epoch
	IOTime     []float64 `json:"io_time"`
	Usual      []float64 `json:"usual"` // 0: too few runs before
	Bytes      []int64   `json:"bytes"`
	Regression []bool    `json:"regression"`
}

// app is the page /apps/{name}: the runs of an application over time.
func (s *server) app(w http.ResponseWriter, r *http.Request, v viewer) error {
	name := r.PathValue("name")
	h, err := s.db.App(r.Context(), name, v.scope(query.Filter{}))
	if errors.Is(err, query.ErrNotFound) {
		return errNotFound("application")
	}
	if err != nil {
		return fmt.Errorf("application %q: %w", name, err)
	}
	view := appView{AppHistory: h, First: h.Runs[0].Start, Last: h.Runs[len(h.Runs)-1].Start}
	var c appCharts
	users := map[string]bool{}
	for _, run := range h.Runs {
		users[run.User] = true
		view.IOTime += run.IOTime
		view.Bytes += run.Bytes
		if run.Regression {
			view.Flagged = append(view.Flagged, run)
		}
		c.IDs = append(c.IDs, run.ID)
		c.Start = append(c.Start, run.Start.UnixMilli())
		c.IOTime = append(c.IOTime, run.IOTime)
		c.Usual = append(c.Usual, run.Usual)
		c.Bytes = append(c.Bytes, run.Bytes)
		c.Regression = append(c.Regression, run.Regression)
	}
	view.Users = len(users)
	return s.show(w, http.StatusOK, "app", pageData{Title: name, Viewer: v, Charts: c, View: view})
}
