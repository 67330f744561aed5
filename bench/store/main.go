// Command store is the facility-scale benchmark of the Darshan log dataset:
// it generates a directory of synthetic, realistic Darshan logs laid out as a
// facility's log directory (YYYY/M/D/), to measure ingest and queries on.
//
//	go run ./bench/store -gen /tmp/logs -n 100000 -seed 1
//
// The generator itself is in gen.go (generate, generateWith, genConfig).
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// main parses the flags, generates the logs and exits 0, 1 on failure or 2
// on bad usage.
func main() {
	dir := flag.String("gen", "", "generate synthetic Darshan logs into `DIR`")
	n := flag.Int("n", 1000, "number of logs to generate")
	seed := flag.Uint64("seed", 1, "seed of the generator (the same seed writes the same logs)")
	flag.Parse()
	if *dir == "" || *n < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: store -gen DIR [-n N] [-seed S]")
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
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".darshan" {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		size += info.Size()
		files++
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("measuring %s: %w", dir, err)
	}
	return size, files, nil
}
