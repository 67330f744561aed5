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

// partitionDir returns the directory of a table's date partition.
func partitionDir(dir, table, date string) string {
	return filepath.Join(dir, table, "date="+date)
}

// partitions are the rows of one table, by date partition.
type partitions[T any] map[string][]T

// A Batch collects the rows of many logs; Write adds them to a dataset as
// one new Parquet file per table and date partition. The zero Batch is
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
	d := r.Job.Date()
	add(&b.jobs, d, r.Job)
	add(&b.files, d, r.Files...)
	add(&b.insights, d, r.Insights...)
	add(&b.ranks, d, r.Ranks...)
	b.logs++
	b.rows += 1 + len(r.Files) + len(r.Insights) + len(r.Ranks)
}

// AddError records a log that could not be ingested, or only in part.
func (b *Batch) AddError(e Error) {
	add(&b.errors, e.Ingested.UTC().Format(time.DateOnly), e)
	b.rows++
}

// Logs returns the number of logs added; Rows the number of rows.
func (b *Batch) Logs() int { return b.logs }

// Rows returns the number of rows in the batch.
func (b *Batch) Rows() int { return b.rows }

func add[T any](p *partitions[T], date string, rows ...T) {
	if len(rows) == 0 {
		return
	}
	if *p == nil {
		*p = partitions[T]{}
	}
	(*p)[date] = append((*p)[date], rows...)
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
	dates := make([]string, 0, len(p))
	for d := range p {
		dates = append(dates, d)
	}
	slices.Sort(dates)
	for _, d := range dates {
		pd := partitionDir(dir, table, d)
		if err := os.MkdirAll(pd, 0o750); err != nil {
			return fmt.Errorf("dataset %s: %w", dir, err)
		}
		final := filepath.Join(pd, name+".parquet")
		tmp := filepath.Join(pd, "."+name+".parquet.tmp")
		if err := writeParquet(tmp, p[d]); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("dataset %s: table %s: %w", dir, table, err)
		}
		*files = append(*files, pending{tmp, final})
	}
	return nil
}

// writeParquet writes rows to a new Parquet file at path, synced to disk.
func writeParquet[T any](path string, rows []T) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}))
	_, err = w.Write(rows)
	err = errors.Join(err, w.Close())
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
