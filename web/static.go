package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/iolens/iolens/report"
)

// staticFile is a file served under /static/.
type staticFile struct {
	body         []byte
	contentType  string
	etag         string
	cacheControl string
}

// staticFiles returns the files served under /static/: the style sheet and
// scripts of the UI, which browsers revalidate, and Apache ECharts, which
// they keep for a day.
func staticFiles() (map[string]staticFile, error) {
	files := map[string]staticFile{
		"echarts.min.js": newStaticFile(report.ECharts(), "text/javascript; charset=utf-8", "public, max-age=86400"),
	}
	for name, ctype := range map[string]string{
		"style.css": "text/css; charset=utf-8",
		"ui.js":     "text/javascript; charset=utf-8",
		"charts.js": "text/javascript; charset=utf-8",
	} {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			return nil, fmt.Errorf("static file %s: %w", name, err)
		}
		files[name] = newStaticFile(b, ctype, "no-cache")
	}
	return files, nil
}

func newStaticFile(body []byte, contentType, cacheControl string) staticFile {
	sum := sha256.Sum256(body)
	return staticFile{body: body, contentType: contentType, cacheControl: cacheControl,
		etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// serveStatic serves a file of /static/, answering 304 to a request that
// has it already (If-None-Match).
func (s *server) serveStatic(w http.ResponseWriter, r *http.Request) {
	f, ok := s.static[r.PathValue("file")]
	if !ok {
		s.fail(w, r, viewer{}, errNotFound("file"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Cache-Control", f.cacheControl)
	h.Set("ETag", f.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
