package darshan_test

import (
	"bytes"
	"errors"
	"os"
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

// TestParserTextSkipsTraces corrupts the trace regions of every sample log
// that has some: the darshan-parser output, which does not print traces,
// must not read them, so it is unchanged, while the DXT output fails.
func TestParserTextSkipsTraces(t *testing.T) {
	tested := 0
	for _, lg := range fixture.Logs(t) {
		l, err := darshan.OpenFile(lg.Path)
		if err != nil {
			t.Fatal(err)
		}
		h := l.Header
		l.Close()
		if h.Modules[darshan.ModDXTPOSIX].Len == 0 && h.Modules[darshan.ModDXTMPIIO].Len == 0 {
			continue
		}
		if _, status := fixture.Expected(t, lg, "base"); status != 0 {
			continue
		}
		tested++
		b, err := os.ReadFile(lg.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []darshan.ModuleID{darshan.ModDXTPOSIX, darshan.ModDXTMPIIO} {
			g := h.Modules[m]
			for i := g.Off; i < g.Off+g.Len; i++ {
				b[i] = 0xA5
			}
		}
		corrupt, err := darshan.Open(bytes.NewReader(b), int64(len(b)), lg.Key)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"base", "total", "file", "perf"} {
			path, _ := fixture.Expected(t, lg, mode)
			want := fixture.ReadExpected(t, path)
			opts := darshan.ParserOptions{Location: time.UTC, Base: mode == "base", Total: mode == "total", File: mode == "file", Perf: mode == "perf"}
			var out, errOut bytes.Buffer
			if err := darshan.WriteParserText(&out, &errOut, corrupt, opts); err != nil || !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s --%s with corrupt traces: %v; %s", lg.Key, mode, err, fixture.FirstDiff(out.String(), string(want)))
			}
		}
		var out, errOut bytes.Buffer
		if err := darshan.WriteDXTText(&out, &errOut, corrupt, darshan.DXTOptions{}); err == nil {
			t.Errorf("%s: the DXT output of corrupt traces did not fail", lg.Key)
		}
	}
	if tested < 5 {
		t.Fatalf("%d sample logs with traces, want at least 5", tested)
	}
}
