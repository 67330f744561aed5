package dataset

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// PartitionColumn is the Hive partition column of every table: the
// directory "month=2026-11" of a table holds the rows of that month.
const PartitionColumn = "month"

// Month returns the partition of a time: its month (UTC), as "2026-11".
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// partitionDir returns the directory of a table's month partition.
func partitionDir(dir, table, month string) string {
	return filepath.Join(dir, table, PartitionColumn+"="+month)
}

// partitions are the rows of one table, by month partition.
type partitions[T any] map[string][]T

// A Batch collects the rows of many logs; Write adds them to a dataset as
// one new Parquet file per table and month partition. The zero Batch is
// empty and ready to use.
type Batch struct {
	jobs     partitions[Job]
	files    partitions[File]
	insights partitions[Insight]
	ranks    partitions[Rank]
	errors   partitions[Error]
	logs     int
	rows     int
}

// Add adds the rows of one log.
func (b *Batch) Add(r Rows) {
	m := r.Job.Month()
	add(&b.jobs, m, r.Job)
	add(&b.files, m, r.Files...)
	add(&b.insights, m, r.Insights...)
	add(&b.ranks, m, r.Ranks...)
	b.logs++
	b.rows += 1 + len(r.Files) + len(r.Insights) + len(r.Ranks)
}

// AddError records a log that could not be ingested, or only in part.
func (b *Batch) AddError(e Error) {
	add(&b.errors, Month(e.Ingested), e)
	b.rows++
}

// Logs returns the number of logs added; Rows the number of rows.
func (b *Batch) Logs() int { return b.logs }

// Rows returns the number of rows in the batch.
func (b *Batch) Rows() int { return b.rows }

func add[T any](p *partitions[T], month string, rows ...T) {
	if len(rows) == 0 {
		return
	}
	if *p == nil {
		*p = partitions[T]{}
	}
	(*p)[month] = append((*p)[month], rows...)
}

// NewBatchName returns a name for the files of a new batch, unique among
// the ingesters of a dataset (several processes, several hosts) and
// sorting by creation time: UTC time, host, process and random digits.
func NewBatchName(now time.Time) string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, host)
	var rnd [4]byte
	rand.Read(rnd[:])
	return fmt.Sprintf("%s-%s-%d-%s", now.UTC().Format("20060102T150405.000000Z"), host, os.Getpid(), hex.EncodeToString(rnd[:]))
}

// pending is a file written under a temporary name, to rename into place.
type pending struct{ tmp, final string }

// Write adds the batch to the dataset in dir under the batch name name
// (NewBatchName) and empties it. Every file is first written under a
// hidden temporary name next to its final place, then all are renamed into
// place, the jobs table last: a reader never sees part of a file, and sees
// a job only once its other rows are in place. On error no file of the
// batch is left in place but those already renamed.
func (b *Batch) Write(dir, name string) error {
	var files []pending
	err := errors.Join(
		writeTable(dir, TableFiles, name, b.files, &files),
		writeTable(dir, TableInsights, name, b.insights, &files),
		writeTable(dir, TableRanks, name, b.ranks, &files),
		writeTable(dir, TableErrors, name, b.errors, &files),
		writeTable(dir, TableJobs, name, b.jobs, &files),
	)
	for i, f := range files {
		if err != nil {
			os.Remove(f.tmp)
			continue
		}
		if err = os.Rename(f.tmp, f.final); err != nil {
			err = fmt.Errorf("dataset %s: %w", dir, err)
			for _, g := range files[i+1:] {
				os.Remove(g.tmp)
			}
			break
		}
	}
	if err != nil {
		return err
	}
	*b = Batch{}
	return nil
}

// writeTable writes the partitions of one table under temporary names and
// appends them to files.
func writeTable[T any](dir, table, name string, p partitions[T], files *[]pending) error {
	months := make([]string, 0, len(p))
	for m := range p {
		months = append(months, m)
	}
	slices.Sort(months)
	for _, m := range months {
		pd := partitionDir(dir, table, m)
		if err := os.MkdirAll(pd, 0o750); err != nil {
			return fmt.Errorf("dataset %s: %w", dir, err)
		}
		final := filepath.Join(pd, name+".parquet")
		tmp := filepath.Join(pd, "."+name+".parquet.tmp")
		if err := writeParquet(tmp, table, p[m]); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("dataset %s: table %s: %w", dir, table, err)
		}
		*files = append(*files, pending{tmp, final})
	}
	return nil
}

// rowGroupRows bounds the row groups of the dataset's files. A reader
// scans the row groups of a file in parallel and skips those that the
// statistics or bloom filter of a column rule out; a writer holds one row
// group in memory.
const rowGroupRows = 100_000

// writerOptions returns the options of the Parquet writer of a table:
// zstd, bounded row groups, and a bloom filter of the job id, so that the
// rows of one job are found without reading the row groups of the others.
// A job has one row in jobs (10 bits per row: about 1% false positives)
// and usually several in files, insights and ranks, where 3 bits per row
// give each job 3 bits per row it has.
func writerOptions(table string) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		parquet.MaxRowsPerRowGroup(rowGroupRows),
	}
	switch table {
	case TableJobs:
		opts = append(opts, parquet.BloomFilters(parquet.SplitBlockFilter(10, "id")))
	case TableFiles, TableInsights, TableRanks:
		opts = append(opts, parquet.BloomFilters(parquet.SplitBlockFilter(3, "job")))
	}
	return opts
}

// writeParquet writes rows of a table to a new Parquet file at path,
// synced to disk.
func writeParquet[T any](path, table string, rows []T) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[T](f, writerOptions(table)...)
	_, err = w.Write(rows)
	err = errors.Join(err, w.Close())
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
