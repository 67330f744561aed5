// Package web is the HTTP user interface over a facility dataset (`iolens
// serve`): an overview of the facility's I/O, the job list with filters,
// sorting and pages, the `iolens report` page of each job, and the runs of
// each application over time with their regressions.
//
// Pages have stable URLs:
//
//	/                 overview: totals, activity per day, I/O time per interface, common insights
//	/jobs             job list (user, app, since, until, code, min_bytes, sort, order, page)
//	/jobs/{id}        the report of a job's log (or what the dataset knows when the log is gone)
//	/apps/{name}      an application's runs over time, regressions, insights
//	/static/...       the style sheet, scripts and Apache ECharts
//
// Everything is served from the binary: no page loads anything from
// another origin, so the UI works offline. Text from logs is untrusted:
// templates escape it and chart data goes to scripts as JSON. With
// Options.UserHeader set, the server trusts an authenticating reverse proxy
// for the user name and shows each user only the jobs of their uid.
package web

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/iolens/iolens/dataset/query"
)

// Options configure the server.
type Options struct {
	// UserHeader names the request header an authenticating reverse proxy
	// sets to the user name; "" serves every job to every request.
	UserHeader string
	// Admins are user names that see every job.
	Admins []string
	// LookupUID returns the uid of a user name (nil: os/user.Lookup).
	LookupUID func(name string) (int64, error)
}

// Content security policies: pages of the UI load scripts and styles from
// the server only; the report page of a job is self-contained, with inline
// scripts and styles, and loads nothing.
const (
	pageCSP   = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'"
	reportCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
)

// defaultPageSize is the number of jobs per page of the job list.
const defaultPageSize = 50

// server is the state of one UI: the dataset, the access rules, the parsed
// templates and the static files. It is read-only once built.
type server struct {
	db       *query.DB
	auth     authenticator
	pages    *templates
	static   map[string]staticFile
	log      *slog.Logger
	pageSize int
}

// New returns the handler of the UI over db (read-only).
func New(db *query.DB, opts Options) (http.Handler, error) {
	s, err := newServer(db, opts)
	if err != nil {
		return nil, err
	}
	return s.routes(), nil
}

// newServer builds the server of New, for tests to adjust before routes.
func newServer(db *query.DB, opts Options) (*server, error) {
	if db == nil {
		return nil, errors.New("web: no dataset")
	}
	pages, err := parseTemplates()
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	static, err := staticFiles()
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	return &server{
		db:       db,
		auth:     newAuthenticator(opts),
		pages:    pages,
		static:   static,
		log:      slog.New(slog.NewTextHandler(os.Stderr, nil)),
		pageSize: defaultPageSize,
	}, nil
}

// routes returns the handler of every URL, wrapped in the security headers
// and the method check.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page(s.overview))
	mux.HandleFunc("GET /jobs", s.page(s.jobs))
	mux.HandleFunc("GET /jobs/{id}", s.page(s.job))
	mux.HandleFunc("GET /apps/{name}", s.page(s.app))
	mux.HandleFunc("GET /static/{file}", s.serveStatic)
	mux.HandleFunc("/", s.page(func(http.ResponseWriter, *http.Request, viewer) error {
		return errNotFound("page")
	}))
	return secure(mux)
}

// secure sets the security headers of every response and answers 405 to
// any method but GET and HEAD.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: this server is read-only", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// handlerFunc is a page handler: it writes a page for the viewer or
// returns an error, which page renders as an error page.
type handlerFunc func(w http.ResponseWriter, r *http.Request, v viewer) error

// page adapts a page handler: it identifies the viewer first, and renders
// the error page of whatever error the handler returns.
func (s *server) page(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := s.auth.identify(r)
		if err == nil {
			err = fn(w, r, v)
		}
		if err != nil {
			s.fail(w, r, v, err)
		}
	}
}

// fail writes the error page of err: its status and message for an
// httpError, 500 and a short message for any other error, whose detail is
// logged; nothing when the request was cancelled.
func (s *server) fail(w http.ResponseWriter, r *http.Request, v viewer, err error) {
	var he *httpError
	switch {
	case r.Context().Err() != nil && errors.Is(err, r.Context().Err()):
		return // the client went away: no one to answer
	case errors.As(err, &he):
		if he.err != nil {
			s.log.Warn("refused request", "method", r.Method, "url", r.URL.String(), "status", he.status, "err", he.err)
		}
	default:
		s.log.Error("serving page", "method", r.Method, "url", r.URL.String(), "err", err)
		he = &httpError{status: http.StatusInternalServerError, msg: "The server could not answer this request. The details are in its log."}
	}
	view := errorView{Status: he.status, StatusText: http.StatusText(he.status), Message: he.msg}
	var b bytes.Buffer
	if terr := s.pages.render(&b, "error", pageData{Title: view.StatusText, Viewer: v, View: view}); terr != nil {
		s.log.Error("rendering the error page", "err", terr)
		http.Error(w, he.msg, he.status)
		return
	}
	writePage(w, he.status, b.Bytes())
}

// writePage writes a rendered HTML page with status.
func writePage(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

// httpError is an error shown to the user with its HTTP status; err, when
// set, is the cause, logged rather than shown.
type httpError struct {
	status int
	msg    string
	err    error
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %s", e.status, e.msg) }

func (e *httpError) Unwrap() error { return e.err }

// errorView is what the error page shows.
type errorView struct {
	Status     int
	StatusText string
	Message    string
}

// errNotFound is the 404 of something (a job, an application, a page).
func errNotFound(what string) error {
	return &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("There is no such %s.", what)}
}

// errBadParam is the 400 of a query parameter with a bad value.
func errBadParam(name, value, why string) error {
	return &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf("Bad query parameter %s=%q: %s.", name, value, why)}
}
