package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"net/http"
)

// assets are the templates, style sheet and scripts of the UI.
//
//go:embed assets
var assets embed.FS

// pageNames are the pages, each assets/<name>.html.tmpl rendered inside
// assets/base.html.tmpl.
var pageNames = []string{"overview", "jobs", "app", "gone", "error"}

// templates are the parsed pages, and the bar added to report pages.
type templates struct {
	pages     map[string]*template.Template
	reportBar *template.Template
}

// pageData is what every page template gets.
type pageData struct {
	Title string
	// Section is the navigation entry of the page ("overview", "jobs"),
	// "" for none.
	Section string
	Viewer  viewer
	// Charts is the data of the page's charts, embedded as JSON for
	// charts.js; nil for a page without charts.
	Charts any
	// View is the page's own data.
	View any
}

// parseTemplates parses every page with the base layout.
func parseTemplates() (*templates, error) {
	t := &templates{pages: map[string]*template.Template{}}
	for _, name := range pageNames {
		p, err := template.New("base.html.tmpl").Funcs(templateFuncs()).ParseFS(assets, "assets/base.html.tmpl", "assets/"+name+".html.tmpl")
		if err != nil {
			return nil, fmt.Errorf("parsing template %s: %w", name, err)
		}
		t.pages[name] = p
	}
	bar, err := template.New("reportbar.html.tmpl").Funcs(templateFuncs()).ParseFS(assets, "assets/reportbar.html.tmpl")
	if err != nil {
		return nil, fmt.Errorf("parsing template reportbar: %w", err)
	}
	t.reportBar = bar
	return t, nil
}

// render writes the page name with data.
func (t *templates) render(w io.Writer, name string, data pageData) error {
	p, ok := t.pages[name]
	if !ok {
		return fmt.Errorf("no page template %q", name)
	}
	if err := p.Execute(w, data); err != nil {
		return fmt.Errorf("rendering page %s: %w", name, err)
	}
	return nil
}

// show renders the page name with data and writes it with status.
func (s *server) show(w http.ResponseWriter, status int, name string, data pageData) error {
	var b bytes.Buffer
	if err := s.pages.render(&b, name, data); err != nil {
		return err
	}
	writePage(w, status, b.Bytes())
	return nil
}
