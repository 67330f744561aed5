// Package synth writes small Darshan logs with chosen counters, for the
// tests of the packages that read many logs (dataset, query, web): a job
// and records given by counter name.
package synth

import (
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/iolens/iolens/darshan"
)

// Record is one record of a log: a module's counters for one file and rank
// (-1: shared), by counter name.
type Record struct {
	Module    darshan.ModuleID
	File      string
	Rank      int64
	Counters  map[string]int64
	FCounters map[string]float64
}

// Log is a log to write.
type Log struct {
	Job     darshan.Job
	Exe     string
	Records []Record
}

// Write writes the log to path (mode 0600), records in module order.
func (l Log) Write(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	err = l.write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func (l Log) write(f *os.File) error {
	w := darshan.NewWriter(f, darshan.WriterOptions{})
	if err := w.WriteJob(l.Job, l.Exe, []darshan.Mount{{Path: "/", FSType: "ext4"}}); err != nil {
		return err
	}
	names := map[uint64]string{}
	for _, r := range l.Records {
		names[darshan.RecordID(r.File)] = r.File
	}
	if err := w.WriteNames(maps.All(names)); err != nil {
		return err
	}
	recs := slices.Clone(l.Records)
	slices.SortStableFunc(recs, func(a, b Record) int { return int(a.Module) - int(b.Module) })
	cur := darshan.ModuleID(-1)
	for _, r := range recs {
		if r.Module != cur {
			if err := w.BeginModule(r.Module); err != nil {
				return err
			}
			cur = r.Module
		}
		info := r.Module.Info()
		dr := &darshan.Record{Module: r.Module, ID: darshan.RecordID(r.File), Rank: r.Rank,
			Counters: make([]int64, len(info.Counters)), FCounters: make([]float64, len(info.FCounters))}
		for k, v := range r.Counters {
			i := r.Module.CounterIndex(k)
			if i < 0 {
				return fmt.Errorf("no counter %s in module %s", k, r.Module)
			}
			dr.Counters[i] = v
		}
		for k, v := range r.FCounters {
			i := r.Module.FCounterIndex(k)
			if i < 0 {
				return fmt.Errorf("no counter %s in module %s", k, r.Module)
			}
			dr.FCounters[i] = v
		}
		if err := w.WriteRecord(dr); err != nil {
			return err
		}
	}
	return w.Close()
}

// Writes returns a shared POSIX record of n writes of size bytes each to
// file, sequential, taking seconds of write time.
func Writes(file string, n, size int64, seconds float64) Record {
	bin := "POSIX_SIZE_WRITE_" + sizeBin(size)
	return Record{Module: darshan.ModPOSIX, File: file, Rank: -1,
		Counters: map[string]int64{"POSIX_OPENS": 1, "POSIX_WRITES": n, bin: n, "POSIX_BYTES_WRITTEN": n * size,
			"POSIX_MAX_BYTE_WRITTEN": n*size - 1, "POSIX_SEQ_WRITES": n, "POSIX_CONSEC_WRITES": n,
			"POSIX_ACCESS1_ACCESS": size, "POSIX_ACCESS1_COUNT": n},
		FCounters: map[string]float64{"POSIX_F_WRITE_TIME": seconds},
	}
}

// sizeBin returns the name suffix of the size histogram bin of size.
func sizeBin(size int64) string {
	for _, b := range []struct {
		max  int64
		name string
	}{{100, "0_100"}, {1024, "100_1K"}, {10 << 10, "1K_10K"}, {100 << 10, "10K_100K"}, {1 << 20, "100K_1M"},
		{4 << 20, "1M_4M"}, {10 << 20, "4M_10M"}, {100 << 20, "10M_100M"}, {1 << 30, "100M_1G"}} {
		if size <= b.max {
			return b.name
		}
	}
	return "1G_PLUS"
}
