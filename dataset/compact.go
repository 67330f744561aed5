package dataset

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
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
	Partitions int // month partitions merged
	FilesIn    int // files replaced
	FilesOut   int // files written
	Duplicates int // duplicate jobs removed
}

// Compact merges, in every month partition of the dataset in dir, the
// files of the batches older than opts.MinAge into one file per table, and
// removes duplicate jobs (a log ingested by two ingesters at once): of the
// batches holding a job, the one first in name order keeps it, in every
// table. Rows of files, insights and ranks whose job row is in no batch
// (an ingest that stopped before renaming its jobs file) are dropped; the
// log is ingested again by the next ingest. Rows are streamed, so memory
// stays bounded whatever the size of a partition. Readers may see the
// merged rows twice for the moment between the rename of a merged file and
// the removal of the files it replaces.
//
// The daily partitions of a dataset written by an earlier version
// ("date=2026-11-25") are merged into their month in the same way, and
// removed once empty; readers do not see their rows until then. Jobs
// files of an earlier version without the insight summary of each job
// (insight_codes, insight_levels) are merged, alone if need be, and their
// jobs get it from the insights table.
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
	months := map[string]bool{}
	daily := map[string]bool{}                  // months with files in daily partitions
	stale := map[string]bool{}                  // months with jobs files without insight summary
	sources := map[string]map[string][]string{} // table -> month -> files
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
			m, old, ok := partitionOf(filepath.Base(filepath.Dir(f)))
			if !ok {
				continue
			}
			sources[table][m] = append(sources[table][m], f)
			months[m] = true
			daily[m] = daily[m] || old
			if table == TableJobs {
				has, err := hasColumn(f, summaryColumn)
				if err != nil {
					return st, fmt.Errorf("dataset %s: %w", dir, err)
				}
				stale[m] = stale[m] || !has
			}
		}
	}
	for _, m := range slices.Sorted(maps.Keys(months)) {
		merge := daily[m] || stale[m]
		for _, table := range Tables() {
			merge = merge || len(sources[table][m]) > 1
		}
		if !merge {
			continue
		}
		if err := compactPartition(dir, m, sources, now(), &st); err != nil {
			return st, err
		}
		st.Partitions++
		if daily[m] {
			// Remove the daily partitions now empty (one with a young batch
			// stays).
			for _, table := range Tables() {
				for _, f := range sources[table][m] {
					if _, old, _ := partitionOf(filepath.Base(filepath.Dir(f))); old {
						os.Remove(filepath.Dir(f))
					}
				}
			}
		}
	}
	return st, nil
}

// partitionOf returns the month of a partition directory's name
// ("month=2026-11"), and whether it is the daily partition of an earlier
// layout ("date=2026-11-25"); ok is false for any other name.
func partitionOf(name string) (month string, daily, ok bool) {
	if m, found := strings.CutPrefix(name, PartitionColumn+"="); found {
		_, err := time.Parse("2006-01", m)
		return m, false, err == nil
	}
	if d, found := strings.CutPrefix(name, "date="); found {
		t, err := time.Parse(time.DateOnly, d)
		return Month(t), true, err == nil
	}
	return "", false, false
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

// compactPartition merges the sources of month m in every table.
func compactPartition(dir, m string, sources map[string]map[string][]string, now time.Time, st *CompactStats) error {
	// The batch that keeps each job: the first holding it.
	winner := map[string]string{}
	for _, f := range sources[TableJobs][m] {
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
	// Jobs written by a version without the insight summary get it from
	// their rows of the insights table, read as those are merged.
	summaries, err := unsummarised(sources[TableJobs][m])
	if err != nil {
		return fmt.Errorf("dataset %s: %w", dir, err)
	}
	found := map[string][]Insight{}
	name := NewBatchName(now)
	var files []pending
	// The tables are merged in the order of the arguments: the insights
	// before the jobs that summarise them.
	err = errors.Join(
		mergeTable(dir, TableFiles, m, name, sources, func(r *File, f string) bool { return keep(r.Job, f) }, &files),
		mergeTable(dir, TableInsights, m, name, sources, func(r *Insight, f string) bool {
			if !keep(r.Job, f) {
				return false
			}
			if summaries[r.Job] {
				found[r.Job] = append(found[r.Job], Insight{Code: r.Code, Level: r.Level})
			}
			return true
		}, &files),
		mergeTable(dir, TableRanks, m, name, sources, func(r *Rank, f string) bool { return keep(r.Job, f) }, &files),
		mergeTable(dir, TableErrors, m, name, sources, func(*Error, string) bool { return true }, &files),
		mergeTable(dir, TableJobs, m, name, sources, func(r *Job, f string) bool {
			if summaries[r.ID] {
				r.InsightCodes, r.InsightLevels = summarise(found[r.ID])
			}
			return keep(r.ID, f)
		}, &files),
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
		for _, f := range sources[table][m] {
			if err := os.Remove(f); err != nil {
				return fmt.Errorf("dataset %s: %w", dir, err)
			}
			st.FilesIn++
		}
	}
	return nil
}

// mergeTable streams the rows of a table's sources in month m that keep
// accepts (and may update) into one temporary file, appended to files.
func mergeTable[T any](dir, table, m, name string, sources map[string]map[string][]string, keep func(*T, string) bool, files *[]pending) error {
	srcs := sources[table][m]
	if len(srcs) == 0 {
		return nil
	}
	pd := partitionDir(dir, table, m)
	if err := os.MkdirAll(pd, 0o750); err != nil {
		return fmt.Errorf("dataset %s: %w", dir, err)
	}
	final := filepath.Join(pd, name+".parquet")
	tmp := filepath.Join(pd, "."+name+".parquet.tmp")
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("dataset %s: %w", dir, err)
	}
	w := parquet.NewGenericWriter[T](out, writerOptions(table)...)
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
func copyRows[T any](src string, w *parquet.GenericWriter[T], buf []T, keep func(*T, string) bool) error {
	f, pf, err := openParquet(src)
	if err != nil {
		return err
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	for {
		n, err := r.Read(buf)
		kept := buf[:0]
		for i := range buf[:n] {
			if keep(&buf[i], src) {
				kept = append(kept, buf[i])
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

// summaryColumn is the column of the jobs table that datasets written by
// earlier versions lack.
const summaryColumn = "insight_codes"

// unsummarised returns the ids of the jobs in the jobs files without the
// insight_codes column (written by an earlier version).
func unsummarised(jobFiles []string) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, f := range jobFiles {
		ok, err := hasColumn(f, summaryColumn)
		if err != nil {
			return nil, err
		}
		if ok {
			continue
		}
		if err := readColumn(f, "id", func(v parquet.Value) { ids[v.String()] = true }); err != nil {
			return nil, err
		}
	}
	return ids, nil
}
