package darshan_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

func TestParserTextMatchesReference(t *testing.T) {
	modes := []struct {
		name string
		opts darshan.ParserOptions
	}{
		{"base", darshan.ParserOptions{Base: true}},
		{"total", darshan.ParserOptions{Total: true}},
		{"file", darshan.ParserOptions{File: true}},
		{"perf", darshan.ParserOptions{Perf: true}},
	}
	for _, lg := range fixture.Logs(t) {
		for _, mode := range modes {
			t.Run(lg.Key+"/"+mode.name, func(t *testing.T) {
				path, status := fixture.Expected(t, lg, mode.name)
				want := fixture.ReadExpected(t, path)
				if want == nil {
					t.Fatalf("no reference output %s", path)
				}
				l, err := darshan.OpenFile(lg.Path)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				opts := mode.opts
				opts.Location = time.UTC
				if status != 0 {
					var out, errOut bytes.Buffer
					err := darshan.WriteParserText(&out, &errOut, l, opts)
					if !errors.Is(err, darshan.ErrIncomplete) {
						t.Fatalf("reference exits %d; got error %v", status, err)
					}
					if !strings.Contains(errOut.String(), "*ERROR*") {
						t.Errorf("no error block on stderr: %q", errOut.String())
					}
					opts.ShowIncomplete = true
				}
				var out, errOut bytes.Buffer
				if err := darshan.WriteParserText(&out, &errOut, l, opts); err != nil {
					t.Fatalf("WriteParserText: %v", err)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("output differs from darshan-parser --%s: %s", mode.name, fixture.FirstDiff(out.String(), string(want)))
				}
			})
		}
	}
}
