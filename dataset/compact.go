package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// DefaultMinAge is the age below which Compact leaves a batch alone: an
// ingest may still be renaming its files into place.
const DefaultMinAge = 10 * time.Minute

// CompactOptions configure Compact.
type CompactOptions struct {
	// MinAge: batches younger than this (by the time in their name) are
	// left alone; 0 means DefaultMinAge.
	MinAge time.Duration
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
}

// CompactStats count what Compact did.
type CompactStats struct {
	Partitions int // date partitions merged
	FilesIn    int // files replaced
	FilesOut   int // files written
	Duplicates int // duplicate jobs removed
}

// Compact merges, in every date partition of the dataset in dir, the files
// of the batches older than opts.MinAge into one file per table, and
// removes duplicate jobs (a log ingested by two ingesters at once): of the
// batches holding a job, the one first in name order keeps it, in every
// table. Rows of files, insights and ranks whose job row is in no batch
// (an ingest that stopped before renaming its jobs file) are dropped; the
// log is ingested again by the next ingest. Rows are streamed, so memory
// stays bounded whatever the size of a partition. Readers may see the
// merged rows twice for the moment between the rename of a merged file and
// the removal of the files it replaces.
func Compact(dir string, opts CompactOptions) (CompactStats, error) {
	var st CompactStats
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	minAge := opts.MinAge
	if minAge <= 0 {
		minAge = DefaultMinAge
	}
	cutoff := now().Add(-minAge)
	dates := map[string]bool{}
	sources := map[string]map[string][]string{} // table -> date -> files
	for _, table := range Tables() {
		files, err := DataFiles(dir, table)
		if err != nil {
			return st, err
		}
		sources[table] = map[string][]string{}
		for _, f := range files {
			t, ok := batchTime(filepath.Base(f))
			if !ok || !t.Before(cutoff) {
				continue
			}
			d := strings.TrimPrefix(filepath.Base(filepath.Dir(f)), "date=")
			sources[table][d] = append(sources[table][d], f)
			dates[d] = true
		}
	}
	for _, d := range slices.Sorted(func(yield func(string) bool) {
		for d := range dates {
			if !yield(d) {
				return
			}
		}
	}) {
		merge := false
		for _, table := range Tables() {
			merge = merge || len(sources[table][d]) > 1
		}
		if !merge {
			continue
		}
		if err := compactPartition(dir, d, sources, now(), &st); err != nil {
			return st, err
		}
		st.Partitions++
	}
	return st, nil
}

// batchTime returns the time in the name of a batch's file.
func batchTime(name string) (time.Time, bool) {
	stamp, _, ok := strings.Cut(name, "-")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102T150405.000000Z", stamp)
	return t, err == nil
}

// compactPartition merges the sources of date d in every table.
func compactPartition(dir, d string, sources map[string]map[string][]string, now time.Time, st *CompactStats) error {
	// The batch that keeps each job: the first holding it.
	winner := map[string]string{}
	for _, f := range sources[TableJobs][d] {
		err := readColumn(f, "id", func(v parquet.Value) {
			id := v.String()
			if _, ok := winner[id]; ok {
				st.Duplicates++
				return
			}
			winner[id] = filepath.Base(f)
		})
		if err != nil {
			return fmt.Errorf("dataset %s: %w", dir, err)
		}
	}
	keep := func(job, file string) bool { return winner[job] == filepath.Base(file) }
	name := NewBatchName(now)
	var files []pending
	err := errors.Join(
		mergeTable(dir, TableFiles, d, name, sources, func(r File, f string) bool { return keep(r.Job, f) }, &files),
		mergeTable(dir, TableInsights, d, name, sources, func(r Insight, f string) bool { return keep(r.Job, f) }, &files),
		mergeTable(dir, TableRanks, d, name, sources, func(r Rank, f string) bool { return keep(r.Job, f) }, &files),
		mergeTable(dir, TableErrors, d, name, sources, func(Error, string) bool { return true }, &files),
		mergeTable(dir, TableJobs, d, name, sources, func(r Job, f string) bool { return keep(r.ID, f) }, &files),
	)
	if err != nil {
		for _, f := range files {
			os.Remove(f.tmp)
		}
		return err
	}
	for i, f := range files {
		if err := os.Rename(f.tmp, f.final); err != nil {
			for _, g := range files[i+1:] {
				os.Remove(g.tmp)
			}
			return fmt.Errorf("dataset %s: %w", dir, err)
		}
		st.FilesOut++
	}
	for _, table := range Tables() {
		if len(sources[table][d]) < 1 {
			continue
		}
		for _, f := range sources[table][d] {
			if err := os.Remove(f); err != nil {
				return fmt.Errorf("dataset %s: %w", dir, err)
			}
			st.FilesIn++
		}
	}
	return nil
}

// mergeTable streams the rows of a table's sources in partition d that
// keep accepts into one temporary file, appended to files.
func mergeTable[T any](dir, table, d, name string, sources map[string]map[string][]string, keep func(T, string) bool, files *[]pending) error {
	srcs := sources[table][d]
	if len(srcs) == 0 {
		return nil
	}
	pd := partitionDir(dir, table, d)
	final := filepath.Join(pd, name+".parquet")
	tmp := filepath.Join(pd, "."+name+".parquet.tmp")
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("dataset %s: %w", dir, err)
	}
	w := parquet.NewGenericWriter[T](out, parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}))
	buf := make([]T, 4096)
	for _, src := range srcs {
		if err = copyRows(src, w, buf, keep); err != nil {
			break
		}
	}
	err = errors.Join(err, w.Close())
	if err == nil {
		err = out.Sync()
	}
	if err = errors.Join(err, out.Close()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("dataset %s: table %s: %w", dir, table, err)
	}
	*files = append(*files, pending{tmp, final})
	return nil
}

// copyRows writes the rows of the Parquet file src that keep accepts to w.
func copyRows[T any](src string, w *parquet.GenericWriter[T], buf []T, keep func(T, string) bool) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	for {
		n, err := r.Read(buf)
		kept := buf[:0]
		for _, row := range buf[:n] {
			if keep(row, src) {
				kept = append(kept, row)
			}
		}
		if _, werr := w.Write(kept); werr != nil {
			return werr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
	}
}
