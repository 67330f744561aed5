package knowledge

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

// writeLog writes a Darshan log with the given names and access sequences
// (none: no access region) and opens it.
func writeLog(t *testing.T, names map[uint64]string, seqs []darshan.AccessSequence) *darshan.Log {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.darshan")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := darshan.NewWriter(f, darshan.WriterOptions{})
	job := darshan.Job{UID: 1000, StartTime: 1700000000, EndTime: 1700000100, NProcs: 2, JobID: 42}
	if err := w.WriteJob(job, "./sim", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteNames(func(yield func(uint64, string) bool) {
		for id := uint64(1); id <= uint64(len(names)); id++ {
			if !yield(id, names[id]) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(seqs) > 0 {
		var data []byte
		for i := range seqs {
			data = darshan.AppendAccessRecord(data, &seqs[i])
		}
		if err := w.WriteExtension(darshan.ModAccess, darshan.AccessVersion, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := darshan.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestRunFromLog(t *testing.T) {
	w := newWorld()
	seqs := []darshan.AccessSequence{w.chain(0, "1", "a", "b"), w.chain(1, "1", "b", "c")}
	l := writeLog(t, w.names, seqs)
	run, err := RunFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	if run.Source != l.Name || len(run.Sequences) != 2 {
		t.Fatalf("run from %q with %d sequences, want %q and 2", run.Source, len(run.Sequences), l.Name)
	}
	var fromLog, direct Graph
	if err := fromLog.Accumulate(run.Sequences, run.Names); err != nil {
		t.Fatal(err)
	}
	accumulate(t, &direct, w, seqs...)
	if d := cmp.Diff(&direct, &fromLog, graphOpts); d != "" {
		t.Errorf("graph of the log (-want +got):\n%s", d)
	}

	r := openRepo(t, filepath.Join(t.TempDir(), "k.db"))
	if err := r.Learn("sim", run); err != nil {
		t.Fatal(err)
	}
	infos, err := r.Runs("sim")
	if err != nil || len(infos) != 1 || infos[0].Source != l.Name || infos[0].Ranks != 2 || infos[0].Accesses != 8 {
		t.Errorf("Runs = %+v, %v", infos, err)
	}

	if _, err := RunFromLog(writeLog(t, w.names, nil)); !errors.Is(err, ErrNoSequences) {
		t.Errorf("a log without sequences: %v, want ErrNoSequences", err)
	}
}
