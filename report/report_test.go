package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/iolens/iolens/analysis"
)

func sampleReport() *analysis.Report {
	rank := int64(3)
	return &analysis.Report{
		Job: analysis.Job{
			Log: "/logs/app.darshan", Exe: "./app \x1b[31mred\x1b[0m --in data", JobID: 42, NProcs: 4, Nodes: 2,
			Start: 1700000000, End: 1700000010, RunTime: 10, LibVer: "3.5.0",
			Modules: []analysis.Module{{Name: "POSIX", Files: 2, BytesRead: 1 << 20, BytesWritten: 3 << 30, Reads: 10, Writes: 3000, Time: 1.5}},
			Hints:   []analysis.Hint{{Key: "cb_nodes", Value: "4"}},
		},
		Insights: []analysis.Insight{
			{Code: "P08", Level: analysis.LevelWarn, Message: "Application issues a high number (3000) of small write requests",
				Details: []string{"100% of write requests are smaller than 1 MiB"},
				Subjects: []analysis.Subject{{File: "/data/out\x07.dat", Value: 3000, Unit: "requests"},
					{Rank: &rank, Value: 2.5, Unit: "seconds"}},
				Recommendation: "Aggregate small writes into larger ones.", Snippet: "MPI_File_write_all(fh, buf, n, MPI_BYTE, &st);"},
			{Code: "M02", Level: analysis.LevelHigh, Message: "No collective writes"},
			{Code: "P01", Level: analysis.LevelOK, Message: "Reads are sequential"},
		},
	}
}

func TestTextPlain(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sampleReport(), TextOptions{Width: 80}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("control characters reach the terminal:\n%q", out)
	}
	for _, want := range []string{`./app \x1b[31mred\x1b[0m --in data`, `/data/out\a.dat: 3000 requests`, "rank 3: 2.500 s",
		"4 on 2 node(s)", "cb_nodes=4", "3.0 GiB", "MPI_File_write_all"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Most severe first.
	if h, w, o := strings.Index(out, "M02"), strings.Index(out, "P08"), strings.Index(out, "P01"); !(h < w && w < o) {
		t.Errorf("insights not ordered HIGH, WARN, OK:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 80 && !strings.Contains(line, "MPI_File") {
			t.Errorf("line of %d runes exceeds the width: %q", n, line)
		}
	}
}

func TestTextColor(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sampleReport(), TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[") {
		t.Fatal("no colour with Color set")
	}
	// The only escape sequences are ours: the exe's are still escaped.
	if !strings.Contains(b.String(), `\x1b[31mred`) {
		t.Error("escape sequence from the log reached the terminal")
	}
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"job", "insights", "phases", "files"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %q in %s", k, b.String())
		}
	}
	if string(doc["phases"]) != "[]" || string(doc["files"]) != "[]" {
		t.Errorf("empty lists: phases %s, files %s", doc["phases"], doc["files"])
	}
	var ins []struct {
		Code, Level, Message, Recommendation string
		Details                              []string
	}
	if err := json.Unmarshal(doc["insights"], &ins); err != nil {
		t.Fatal(err)
	}
	if len(ins) != 3 || ins[0].Code != "P08" || ins[0].Level != "WARN" || ins[1].Details == nil {
		t.Errorf("insights: %+v", ins)
	}
	var back analysis.Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Job.Exe != sampleReport().Job.Exe {
		t.Errorf("round trip: %v, exe %q", err, back.Job.Exe)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 30: "3.0 GiB", 1536: "1.5 KiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain/path.dat": "plain/path.dat",
		"a\x1b[2Jb":      `a\x1b[2Jb`,
		"tab\there":      `tab\there`,
		"bad\xffutf8":    `bad\xffutf8`,
		"café":           "café",
		"\u202eevil":     `\u202eevil`,
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
