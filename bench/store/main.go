// Command store is the facility-scale benchmark of the Darshan log dataset
// (make bench-store). It generates a directory of synthetic, realistic
// Darshan logs laid out as a facility's log directory (YYYY/M/D/):
//
//	go run ./bench/store -gen /tmp/logs -n 100000 -seed 1
//
// and, with -bench, measures on them: ingest from a cold page cache at
// several sizes (logs/s, peak RSS), counter-only logs, two ingest processes
// into one dataset, ten nightly ingests and a compaction, an ingest of
// known logs, the baseline of one parser process per log and of parse
// --json loaded into DuckDB, and the named questions and web pages on a
// dataset of the largest ingest replicated (1,000,000 jobs by default):
//
//	go run ./bench/store -bench /var/tmp/iolens-bench-store -iolens bin/iolens
//
// The generator is in gen.go (generate, generateWith, genConfig), the
// measurements in bench.go.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// main parses the flags, generates the logs and exits 0, 1 on failure or 2
// on bad usage.
func main() {
	dir := flag.String("gen", "", "generate synthetic Darshan logs into `DIR`")
	n := flag.Int("n", 1000, "number of logs to generate")
	seed := flag.Uint64("seed", 1, "seed of the generator (the same seed writes the same logs)")
	work := flag.String("bench", "", "measure ingest and queries in `DIR` (logs generated there once)")
	bin := flag.String("iolens", "bin/iolens", "the iolens `binary` (iolens-facility beside it)")
	sizes := flag.String("sizes", "10000,100000", "numbers of logs ingested from a cold cache (`N,N...`)")
	jobs := flag.Int("j", 2, "decoders of each ingest")
	replicas := flag.Int("replicas", 10, "copies of the largest ingest in the dataset the questions are timed on")
	base := flag.Int("baseline", 1000, "logs parsed by one process each for the baseline")
	parser := flag.String("darshan-parser", os.Getenv("DARSHAN_PARSER"), "darshan-parser `binary` for the baseline (default iolens parse)")
	steps := flag.String("steps", strings.Join(benchSteps, ","), "measurements to make (`S,S...`)")
	flag.Parse()
	if *work != "" {
		c := benchConfig{dir: *work, iolens: *bin, facility: filepath.Join(filepath.Dir(*bin), "iolens-facility"),
			seed: *seed, jobs: *jobs, replicas: *replicas, baseline: *base, parser: *parser, out: os.Stdout,
			steps: map[string]bool{}}
		for _, s := range strings.Split(*steps, ",") {
			if !slices.Contains(benchSteps, s) {
				fmt.Fprintf(os.Stderr, "store: -steps: unknown step %q (one of %s)\n", s, strings.Join(benchSteps, ", "))
				os.Exit(2)
			}
			c.steps[s] = true
		}
		for _, f := range strings.Split(*sizes, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || v <= 0 {
				fmt.Fprintf(os.Stderr, "store: -sizes %q: %q is not a positive number\n", *sizes, f)
				os.Exit(2)
			}
			c.sizes = append(c.sizes, v)
		}
		if err := benchmark(context.Background(), c); err != nil {
			fmt.Fprintln(os.Stderr, "store:", err)
			os.Exit(1)
		}
		return
	}
	if *dir == "" || *n < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: store -gen DIR [-n N] [-seed S] | -bench DIR [-iolens BIN] [-sizes N,N] [-replicas R]")
		flag.PrintDefaults()
		os.Exit(2)
	}
	if err := run(*dir, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "store:", err)
		os.Exit(1)
	}
}

// run generates n logs into dir and reports the count, the bytes written and
// the rate on stderr.
func run(dir string, n int, seed uint64) error {
	start := time.Now()
	step := max(1, n/20)
	err := generate(dir, n, seed, func(done int) {
		if done%step == 0 && done < n {
			fmt.Fprintf(os.Stderr, "generated %d/%d logs (%.0f logs/s)\n", done, n, float64(done)/time.Since(start).Seconds())
		}
	})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	bytes, files, err := treeSize(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "generated %d logs in %s: %d files, %d bytes (%.1f MiB, %.1f KiB/log), %.0f logs/s\n",
		n, elapsed.Round(time.Millisecond), files, bytes, float64(bytes)/(1<<20),
		float64(bytes)/1024/float64(max(n, 1)), float64(n)/elapsed.Seconds())
	return nil
}

// treeSize returns the total size and number of the .darshan files under dir.
func treeSize(dir string) (size int64, files int, err error) {
	logs, err := listLogs(dir)
	if err == nil {
		size, err = totalSize(logs)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("measuring %s: %w", dir, err)
	}
	return size, len(logs), nil
}
