package facility

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/internal/cli"
	"github.com/iolens/iolens/internal/fixture"
)

// iolens runs the facility command line in this process and returns its
// exit status, stdout and stderr.
func iolens(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.MainWith(args, strings.NewReader(stdin), &out, &errb, Commands)
	return code, out.String(), errb.String()
}

func samples(t *testing.T) string { return filepath.Join(fixture.Dir(t), "darshan-logs") }

func TestIngestQueryTopApp(t *testing.T) {
	store := t.TempDir()
	code, out, errs := iolens(t, "", "ingest", "--store", store, samples(t))
	if code != 0 || !strings.Contains(out, ": 84 logs ingested (0 in part), 0 already there, 0 unreadable") {
		t.Fatalf("ingest: %d\n%s%s", code, out, errs)
	}
	// Again, through a list on stdin: nothing new.
	list := filepath.Join(samples(t), "imbalanced_io", "imbalanced-io.darshan") + "\n\n" + filepath.Join(samples(t), "empty_log") + "\n"
	code, out, _ = iolens(t, list, "ingest", "--store", store, "-")
	if code != 0 || !strings.Contains(out, ": 0 logs ingested (0 in part), 2 already there, 0 unreadable") {
		t.Errorf("second ingest: %d %s", code, out)
	}
	code, out, errs = iolens(t, "", "query", "--store", store, "--csv", "SELECT app, nprocs, bytes_written FROM jobs WHERE log LIKE '%imbalanced-io.darshan'")
	if code != 0 || out != "app,nprocs,bytes_written\n407752450,496,52939622490\n" {
		t.Errorf("query --csv: %d %q %s", code, out, errs)
	}
	code, out, _ = iolens(t, "", "query", "--store", store, "--json", "SELECT count(*) AS jobs, count(DISTINCT app) AS apps FROM jobs")
	if code != 0 || out != "[\n  {\"jobs\": 84, \"apps\": 17}\n]\n" {
		t.Errorf("query --json: %d %q", code, out)
	}
	code, out, _ = iolens(t, "", "top", "--store", store, "--by", "jobs", "--group", "app", "-n", "1", "--json")
	var top []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &top) != nil || len(top) != 1 || top[0]["app"] != "mpi-io-test" || top[0]["jobs"] != 40.0 {
		t.Errorf("top --json: %d %s", code, out)
	}
	code, out, _ = iolens(t, "", "top", "--store", store, "--by", "insights", "-n", "2")
	if code != 0 || !strings.HasPrefix(out, "code  level  jobs  users  apps  message") || strings.Count(out, "\n") != 3 {
		t.Errorf("top --by insights: %d\n%s", code, out)
	}
	code, out, _ = iolens(t, "", "app", "--store", store, "mpi-io-test")
	if code != 0 || !strings.HasPrefix(out, "mpi-io-test: 40 runs, ") {
		t.Errorf("app: %d\n%s", code, out)
	}
	code, out, _ = iolens(t, "", "store", "compact", "--store", store, "--min-age", "0s")
	if code != 0 || !strings.Contains(out, "0 duplicate jobs removed") {
		t.Errorf("store compact: %d %s", code, out)
	}
	code, out, _ = iolens(t, "", "query", "--store", store, "--csv", "SELECT count(*) FROM jobs")
	if code != 0 || out != "count_star()\n84\n" {
		t.Errorf("jobs after compaction: %d %q", code, out)
	}
}

func TestBadInput(t *testing.T) {
	store := t.TempDir()
	missing := filepath.Join(t.TempDir(), "none")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"top", "--store", store, "--since", "yesterday"}, 2, `--since: "yesterday" is neither a date`},
		{[]string{"top", "--store", store, "--by", "speed"}, 2, `unknown metric "speed"`},
		{[]string{"query", "--store", store}, 2, "want one SQL statement"},
		{[]string{"query", "--store", store, "--json", "--csv", "SELECT 1"}, 2, "--json and --csv exclude each other"},
		{[]string{"query", "--store", store, "SELEKT 1"}, 1, "query: "},
		{[]string{"query", "--store", missing, "SELECT 1"}, 1, "dataset " + missing},
		{[]string{"app", "--store", store, "nothing"}, 1, `no runs of application "nothing"`},
		{[]string{"ingest", "--store", store}, 2, "missing PATH argument"},
	} {
		code, _, errs := iolens(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	// A log that is not one is recorded, and the exit status is still 0.
	code, out, errs := iolens(t, "", "ingest", "--store", store, "/etc/hostname", missing)
	if code != 0 || !strings.Contains(out, "0 logs ingested (0 in part), 0 already there, 2 unreadable") || !strings.Contains(errs, "2 logs could not be read") {
		t.Errorf("ingest of bad logs: %d %s %s", code, out, errs)
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                     {},
		"2026-11-01":           time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"2026-11-01T06:00:00Z": time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC),
		"36h":                  now.Add(-36 * time.Hour),
		"2d":                   now.Add(-48 * time.Hour),
		"1w":                   now.Add(-7 * 24 * time.Hour),
	} {
		got, err := ParseTime(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"tomorrow", "-3d", "3x", "2026-13-01"} {
		if _, err := ParseTime(bad, now); err == nil {
			t.Errorf("ParseTime(%q) accepted", bad)
		}
	}
}

// serve listens where --addr says, warns that every job is visible without
// --user-header, serves the pages and stops on SIGINT.
func TestServe(t *testing.T) {
	store := t.TempDir()
	if code, out, errs := iolens(t, "", "ingest", "--store", store, filepath.Join(samples(t), "imbalanced_io")); code != 0 {
		t.Fatalf("ingest: %s%s", out, errs)
	}
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := cli.MainWith([]string{"serve", "--store", store, "--addr", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, pw, Commands)
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	var lines []string
	var base string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if _, u, ok := strings.Cut(sc.Text(), " on http://"); ok && base == "" {
			base = "http://" + strings.TrimSuffix(u, "/ (Ctrl-C stops)")
		}
		if strings.Contains(sc.Text(), "every job is visible") {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if base == "" {
		t.Fatalf("no address in %q", lines)
	}
	resp, err := http.Get(base + "/jobs?app=407752450")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "1–1 of 1") {
		t.Errorf("GET /jobs: %d\n%s", resp.StatusCode, body)
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited with %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGINT")
	}
}

// TestHelp checks that every facility command, and each subcommand, has
// help with an example.
func TestHelp(t *testing.T) {
	var check func(path []string, cmds []*cobra.Command)
	check = func(path []string, cmds []*cobra.Command) {
		for _, c := range cmds {
			args := append(append([]string{}, path...), c.Name())
			code, out, errOut := iolens(t, "", append(args, "--help")...)
			if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "iolens "+strings.Join(args, " ")) {
				t.Errorf("%v --help: exit %d, no example of its own:\n%s%s", args, code, out, errOut)
			}
			check(args, c.Commands())
		}
	}
	check(nil, Commands(cli.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}))
}
