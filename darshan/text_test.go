package darshan_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/sharedtest"
)

// readExpected returns the decompressed reference output, or nil if there
// is none for this log and mode.
func readExpected(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "identical"
}

func itoa(i int) string { return strconv.Itoa(i) }

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
	for _, lg := range sharedtest.Logs(t) {
		for _, mode := range modes {
			t.Run(lg.Key+"/"+mode.name, func(t *testing.T) {
				path, status := sharedtest.Expected(t, lg, mode.name)
				want := readExpected(t, path)
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
					t.Errorf("output differs from darshan-parser --%s: %s", mode.name, firstDiff(out.Bytes(), want))
				}
			})
		}
	}
}
