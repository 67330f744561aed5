package web

import (
	"fmt"
	"net/http"
	"os/user"
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/dataset/query"
)

// viewer is who makes a request, and what they may see.
type viewer struct {
	// Name is the user name the proxy gave, "" without a user header.
	Name string
	// Admin is set for the administrators.
	Admin bool
	// uid restricts the viewer to the jobs of that uid; nil sees all.
	uid *int64
}

// Restricted reports whether the viewer sees only their own jobs.
func (v viewer) Restricted() bool { return v.uid != nil }

// scope restricts a filter to the jobs the viewer may see.
func (v viewer) scope(f query.Filter) query.Filter {
	f.UID = v.uid
	return f
}

// mayView reports whether the viewer may see the job of uid.
func (v viewer) mayView(uid int64) bool { return v.uid == nil || *v.uid == uid }

// authenticator identifies viewers from the header an authenticating
// reverse proxy sets.
type authenticator struct {
	header    string
	admins    []string
	lookupUID func(name string) (int64, error)
}

func newAuthenticator(opts Options) authenticator {
	a := authenticator{header: opts.UserHeader, admins: slices.Clone(opts.Admins), lookupUID: opts.LookupUID}
	if a.lookupUID == nil {
		a.lookupUID = systemUID
	}
	return a
}

// identify returns the viewer of r: everyone sees everything without a
// user header; with one, a request without it is refused (401), an admin
// sees everything and any other user the jobs of their uid (403 when the
// name has none).
func (a authenticator) identify(r *http.Request) (viewer, error) {
	if a.header == "" {
		return viewer{}, nil
	}
	name := strings.TrimSpace(r.Header.Get(a.header))
	if name == "" {
		return viewer{}, &httpError{status: http.StatusUnauthorized,
			msg: fmt.Sprintf("No user: this server expects the authenticating proxy in front of it to set the header %s.", a.header)}
	}
	if slices.Contains(a.admins, name) {
		return viewer{Name: name, Admin: true}, nil
	}
	uid, err := a.lookupUID(name)
	if err != nil {
		return viewer{Name: name}, &httpError{status: http.StatusForbidden,
			msg: fmt.Sprintf("The user %q has no uid on this server, so it has no jobs to show.", name),
			err: fmt.Errorf("looking up the uid of %q: %w", name, err)}
	}
	return viewer{Name: name, uid: &uid}, nil
}

// systemUID returns the uid of a user name from the user database of this
// machine.
func systemUID(name string) (int64, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return 0, err
	}
	uid, err := strconv.ParseInt(u.Uid, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
	}
	return uid, nil
}
