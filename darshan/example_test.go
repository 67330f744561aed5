package darshan_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"

	"github.com/iolens/iolens/darshan"
)

// sample is one of the sample logs under testdata/darshan-logs.
const sample = "../testdata/darshan-logs/release_logs/mpi-io-test-x86_64-3.5.0.darshan"

func ExampleOpenFile() {
	l, err := darshan.OpenFile(sample)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	fmt.Println("format", l.Header.Version, "written by", l.Job.NProcs, "processes")
	err = l.Each(darshan.ModPOSIX, func(r *darshan.Record) error {
		name, _ := l.RecordName(r.ID)
		opens, _ := r.Counter("POSIX_OPENS")
		written, _ := r.Counter("POSIX_BYTES_WRITTEN")
		fmt.Printf("rank %d %s: %d opens, %d bytes written\n", r.Rank, name, opens, written)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// format 3.41 written by 4 processes
	// rank -1 /home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat: 16 opens, 67108864 bytes written
}

func ExampleLog_Records() {
	l, err := darshan.OpenFile(sample)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	// Records are reused by Next: Clone those to keep.
	var kept []*darshan.Record
	rr, err := l.Records(darshan.ModHeatmap)
	if err != nil {
		log.Fatal(err)
	}
	for {
		r, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		kept = append(kept, r.Clone())
	}
	first := kept[0]
	name, _ := l.RecordName(first.ID)
	fmt.Printf("%d heatmap records; rank %d %s: %d bins of %gs, %d bytes written in the first\n",
		len(kept), first.Rank, name, len(first.Heatmap.Write), first.Heatmap.BinWidth, first.Heatmap.Write[0])
	// Output:
	// 9 heatmap records; rank 0 heatmap:POSIX: 1 bins of 0.1s, 16777216 bytes written in the first
}

func ExampleModuleID_Info() {
	m := darshan.ModPOSIX.Info()
	fmt.Println(m.Name, "record version", m.Version)
	fmt.Println(len(m.Counters), "counters, starting with", m.Counters[:3])
	fmt.Println(len(m.FCounters), "floating-point counters, starting with", m.FCounters[:2])
	// Output:
	// POSIX record version 4
	// 69 counters, starting with [POSIX_OPENS POSIX_FILENOS POSIX_DUPS]
	// 17 floating-point counters, starting with [POSIX_F_OPEN_START_TIMESTAMP POSIX_F_READ_START_TIMESTAMP]
}

func ExampleWriteJSON() {
	l, err := darshan.OpenFile(sample)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	var buf bytes.Buffer
	if err := darshan.WriteJSON(&buf, l); err != nil {
		log.Fatal(err)
	}

	// Read the first record back; id_str keeps the exact 64-bit record id.
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	sc.Scan() // the job
	sc.Scan()
	var rec struct {
		Module   string
		Rank     int64
		ID       string `json:"id_str"`
		Name     *string
		Counters map[string]int64
	}
	if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Module, rec.Rank, rec.ID, *rec.Name, rec.Counters["POSIX_WRITES"])
	// Output:
	// POSIX -1 9347516096890457488 /home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat 4
}
