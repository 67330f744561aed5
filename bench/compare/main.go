// Command compare times iolens against the reference tools a user would
// otherwise run, as whole processes, start-up included: `iolens parse`
// against darshan-parser and `iolens report` against Drishti, on every log
// given (files, or directories searched for *.darshan). Runs alternate
// between the two commands; the figures are medians. For `report`, it also
// measures the physical floor of a log: the time to inflate its regions,
// in this process.
//
// Usage:
//
//	go run ./bench/compare [-iolens bin/iolens] [-darshan-parser CMD] [-drishti CMD] [-runs N] PATH...
//
// A reference command that is empty or not installed is reported as such,
// and iolens is measured alone. `make bench-compare` runs it on the sample
// logs with DARSHAN_PARSER and DRISHTI from the environment.
package main

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/klauspost/compress/zlib"

	"github.com/iolens/iolens/darshan"
)

func main() {
	iolens := flag.String("iolens", "bin/iolens", "the iolens binary")
	parser := flag.String("darshan-parser", os.Getenv("DARSHAN_PARSER"), "darshan-parser command (default $DARSHAN_PARSER)")
	drishti := flag.String("drishti", os.Getenv("DRISHTI"), "Drishti command (default $DRISHTI)")
	runs := flag.Int("runs", 11, "runs of each command per log")
	minRef := flag.Duration("min", 20*time.Millisecond, "parse goal: logs on which darshan-parser takes at least this long must be 2x faster")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: compare [-iolens BIN] [-darshan-parser CMD] [-drishti CMD] [-runs N] PATH...")
		os.Exit(2)
	}
	logs, err := findLogs(flag.Args())
	if err != nil {
		fmt.Fprintf(os.Stderr, "compare: %v\n", err)
		os.Exit(1)
	}
	if _, err := os.Stat(*iolens); err != nil {
		fmt.Fprintf(os.Stderr, "compare: iolens binary: %v (make build)\n", err)
		os.Exit(1)
	}
	c := &comparison{runs: *runs}
	c.parser = reference("darshan-parser", *parser)
	c.drishti = reference("Drishti", *drishti)
	host, _ := os.Hostname()
	fmt.Printf("%d logs, %d runs each, on %s (%s); medians, alternating runs\n\n", len(logs), *runs, host, cpuModel())
	ok := c.parse(*iolens, logs, *minRef)
	fmt.Println()
	ok = c.report(*iolens, logs) && ok
	if !ok {
		os.Exit(1)
	}
}

// comparison holds the reference commands and the number of runs.
type comparison struct {
	parser, drishti []string // nil when not available
	runs            int
}

// reference splits cmd into a command line, or returns nil (saying why)
// when it is empty or not installed.
func reference(name, cmd string) []string {
	argv := strings.Fields(cmd)
	if len(argv) == 0 {
		fmt.Printf("%s: not given; iolens is measured alone\n", name)
		return nil
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		fmt.Printf("%s: %s is not installed (%v); iolens is measured alone\n", name, argv[0], err)
		return nil
	}
	return argv
}

// parse compares `iolens parse` with darshan-parser and checks the goals:
// at least 2x faster where darshan-parser takes min or more, never slower.
func (c *comparison) parse(iolens string, logs []string, min time.Duration) bool {
	fmt.Println("parse (default output), whole processes")
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "log\tiolens\tdarshan-parser\tspeed-up\t")
	ok := true
	var ratios []float64
	for _, log := range logs {
		mine := []string{iolens, "parse", "--show-incomplete", log}
		if c.parser == nil {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t\n", short(log), ms(c.time(mine)))
			continue
		}
		ref := append(slices.Clone(c.parser), "--show-incomplete", log)
		a, b := c.paired(mine, ref)
		r := float64(b) / float64(a)
		ratios = append(ratios, r)
		mark := ""
		switch {
		case b >= min && r < 2:
			mark, ok = "  below 2x", false
		case r < 1:
			mark, ok = "  slower", false
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2fx%s\t\n", short(log), ms(a), ms(b), r, mark)
	}
	tw.Flush()
	if len(ratios) > 0 {
		fmt.Printf("median speed-up %.2fx; goal: >= 2x where darshan-parser takes >= %v, never slower: %s\n", median(ratios), min, verdict(ok))
	}
	return ok
}

// report compares `iolens report` with Drishti, and with the time to
// inflate the log's regions.
func (c *comparison) report(iolens string, logs []string) bool {
	fmt.Println("report, whole processes; floor = inflating every region of the log, in process")
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "log\tiolens\tDrishti\tspeed-up\tfloor\tiolens/floor\t")
	var ratios []float64
	ok := true
	for _, log := range logs {
		mine := []string{iolens, "report", log}
		var a, b time.Duration
		if c.drishti == nil {
			a = c.time(mine)
		} else {
			a, b = c.paired(mine, append(slices.Clone(c.drishti), log))
		}
		floor, traces, err := inflateFloor(log, c.runs)
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\t\t\t%v\t\t\n", short(log), ms(a), err)
			continue
		}
		ref, speed := "-", "-"
		if c.drishti != nil {
			ref, speed = ms(b), fmt.Sprintf("%.1fx", float64(b)/float64(a))
			ratios = append(ratios, float64(b)/float64(a))
		}
		overFloor := float64(a) / float64(floor)
		mark := ""
		if traces && floor > 50*time.Millisecond && overFloor > 1.5 {
			// Start-up dominates small logs; the floor matters for large traces.
			mark, ok = "  over 1.5x", false
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1fx%s\t\n", short(log), ms(a), ref, speed, ms(floor), overFloor, mark)
	}
	tw.Flush()
	if len(ratios) > 0 {
		m := median(ratios)
		ok = ok && m >= 100
		fmt.Printf("median speed-up over Drishti %.1fx; goal >= 100x", m)
	}
	fmt.Printf("; goal on logs with traces whose floor exceeds 50 ms: iolens <= 1.5x the floor: %s\n", verdict(ok))
	return ok
}

// paired runs a and b alternately and returns their median times.
func (c *comparison) paired(a, b []string) (time.Duration, time.Duration) {
	var ta, tb []time.Duration
	for i := range c.runs {
		if i%2 == 0 {
			ta, tb = append(ta, run(a)), append(tb, run(b))
		} else {
			tb, ta = append(tb, run(b)), append(ta, run(a))
		}
	}
	return medianDur(ta), medianDur(tb)
}

// time returns the median time of argv.
func (c *comparison) time(argv []string) time.Duration {
	var t []time.Duration
	for range c.runs {
		t = append(t, run(argv))
	}
	return medianDur(t)
}

// run times one run of argv, its output discarded. A failing command is
// timed too: darshan-parser fails on some sample logs, as iolens does.
func run(argv []string) time.Duration {
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	_ = cmd.Run()
	return time.Since(start)
}

// inflateFloor returns the median time to inflate every module region of
// the log at path, and whether it has DXT traces.
func inflateFloor(path string, runs int) (time.Duration, bool, error) {
	l, err := darshan.OpenFile(path)
	if err != nil {
		return 0, false, err
	}
	defer l.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false, err
	}
	h := l.Header
	traces := h.Modules[darshan.ModDXTPOSIX].Len+h.Modules[darshan.ModDXTMPIIO].Len > 0
	var t []time.Duration
	for range runs {
		start := time.Now()
		for _, g := range h.Modules {
			if g.Len == 0 || g.Off+g.Len > uint64(len(b)) {
				continue
			}
			if err := inflate(b[g.Off:g.Off+g.Len], h.Compression); err != nil {
				return 0, traces, err
			}
		}
		t = append(t, time.Since(start))
	}
	return medianDur(t), traces, nil
}

// inflate decompresses a region, which may hold several streams, into
// nothing.
func inflate(region []byte, c darshan.Compression) error {
	src := bytes.NewReader(region)
	for src.Len() > 0 {
		var r io.Reader
		switch c {
		case darshan.CompressNone:
			return nil
		case darshan.CompressZlib:
			zr, err := zlib.NewReader(src)
			if err != nil {
				return fmt.Errorf("inflating: %w", err)
			}
			r = zr
		case darshan.CompressBzip2:
			r = bzip2.NewReader(src)
		default:
			return fmt.Errorf("compression %v", c)
		}
		if _, err := io.Copy(io.Discard, r); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("inflating: %w", err)
		}
	}
	return nil
}

// findLogs returns the logs at paths: files as given, directories searched
// for *.darshan.
func findLogs(paths []string) ([]string, error) {
	var logs []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			logs = append(logs, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".darshan") {
				logs = append(logs, path)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if len(logs) == 0 {
		return nil, errors.New("no *.darshan logs in " + strings.Join(paths, " "))
	}
	return logs, nil
}

// cpuModel returns the processor's name, for the record of where figures
// were taken.
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func short(path string) string {
	name := filepath.Base(path)
	if len(name) > 48 {
		name = name[:45] + "..."
	}
	return name
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianDur(v []time.Duration) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
