package collector

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// notAligned counts the offsets that are not multiples of align.
func notAligned(align int64, offsets ...int64) int64 {
	var n int64
	for _, o := range offsets {
		if o%align != 0 {
			n++
		}
	}
	return n
}

func TestPOSIXCounters(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/basic.c")
	dir := t.TempDir()
	var sf syscall.Statfs_t
	if err := syscall.Statfs(dir, &sf); err != nil {
		t.Fatal(err)
	}
	bs := int64(sf.Bsize)
	res := runCollected(t, RunOptions{}, nil, prog, dir)
	if len(res.Logs) != 1 {
		t.Fatalf("%d logs, want 1", len(res.Logs))
	}
	l := res.Logs[0]
	if l.Job.NProcs != 1 {
		t.Errorf("nprocs = %d, want 1", l.Job.NProcs)
	}

	var offsets []int64
	for i := int64(0); i < 1000; i++ {
		offsets = append(offsets, 100*i)
	}
	for i := int64(0); i < 10; i++ {
		offsets = append(offsets, 100*i)
	}
	offsets = append(offsets, 5000, 10000)
	path := filepath.Join(dir, "basic.dat")
	r := record(t, l, darshan.ModPOSIX, path, 0)
	wantCounters(t, r, map[string]int64{
		"POSIX_OPENS": 3, "POSIX_DUPS": 1, "POSIX_FILENOS": 0,
		"POSIX_READS": 12, "POSIX_WRITES": 1000, "POSIX_SEEKS": 1, "POSIX_STATS": 2,
		"POSIX_MMAPS": 0, "POSIX_FSYNCS": 0, "POSIX_RENAME_SOURCES": 1, "POSIX_RENAME_TARGETS": 0,
		"POSIX_MODE":       0o640,
		"POSIX_BYTES_READ": 1300, "POSIX_BYTES_WRITTEN": 100000,
		"POSIX_MAX_BYTE_READ": 10199, "POSIX_MAX_BYTE_WRITTEN": 99999,
		"POSIX_CONSEC_READS": 9, "POSIX_CONSEC_WRITES": 999,
		"POSIX_SEQ_READS": 11, "POSIX_SEQ_WRITES": 999,
		"POSIX_RW_SWITCHES": 1, "POSIX_MEM_NOT_ALIGNED": 0, "POSIX_MEM_ALIGNMENT": 8,
		"POSIX_FILE_ALIGNMENT": bs, "POSIX_FILE_NOT_ALIGNED": notAligned(bs, offsets...),
		"POSIX_SIZE_READ_0_100": 11, "POSIX_SIZE_READ_100_1K": 1, "POSIX_SIZE_WRITE_0_100": 1000,
		"POSIX_SIZE_WRITE_100_1K": 0,
		"POSIX_ACCESS1_ACCESS":    100, "POSIX_ACCESS1_COUNT": 1011,
		"POSIX_ACCESS2_ACCESS": 200, "POSIX_ACCESS2_COUNT": 1,
		"POSIX_ACCESS3_ACCESS": 0, "POSIX_ACCESS3_COUNT": 0,
		"POSIX_STRIDE1_STRIDE": 4900, "POSIX_STRIDE1_COUNT": 1,
		"POSIX_STRIDE2_STRIDE": 4000, "POSIX_STRIDE2_COUNT": 1,
		"POSIX_STRIDE3_STRIDE": 0, "POSIX_STRIDE3_COUNT": 0,
		"POSIX_FASTEST_RANK": 0, "POSIX_SLOWEST_RANK": 0,
	})
	for _, f := range []string{"POSIX_F_OPEN_START_TIMESTAMP", "POSIX_F_WRITE_END_TIMESTAMP", "POSIX_F_READ_END_TIMESTAMP",
		"POSIX_F_CLOSE_END_TIMESTAMP", "POSIX_F_WRITE_TIME", "POSIX_F_READ_TIME", "POSIX_F_META_TIME"} {
		if v := fcounter(t, r, f); v <= 0 || v > 60 {
			t.Errorf("%s = %g, want a time in (0, 60] s", f, v)
		}
	}
	if a, b := fcounter(t, r, "POSIX_F_OPEN_START_TIMESTAMP"), fcounter(t, r, "POSIX_F_CLOSE_END_TIMESTAMP"); a >= b {
		t.Errorf("open start %g not before close end %g", a, b)
	}

	r2 := record(t, l, darshan.ModPOSIX, filepath.Join(dir, "renamed.dat"), 0)
	wantCounters(t, r2, map[string]int64{
		"POSIX_OPENS": 1, "POSIX_WRITES": 2, "POSIX_READS": 0, "POSIX_BYTES_WRITTEN": 26,
		"POSIX_RENAME_TARGETS": 1, "POSIX_RENAMED_FROM": int64(darshan.RecordID(path)),
		"POSIX_FSYNCS": 1, "POSIX_FDSYNCS": 1, "POSIX_MMAPS": 1, "POSIX_MEM_NOT_ALIGNED": 1,
		"POSIX_MAX_BYTE_WRITTEN": 28, "POSIX_SEQ_WRITES": 2, "POSIX_CONSEC_WRITES": 1,
		"POSIX_MODE": 0, "POSIX_SIZE_WRITE_0_100": 2,
		"POSIX_ACCESS1_ACCESS": 16, "POSIX_ACCESS1_COUNT": 1, "POSIX_ACCESS2_ACCESS": 10, "POSIX_ACCESS2_COUNT": 1,
	})
	// The heatmap holds every byte moved.
	hm := record(t, l, darshan.ModHeatmap, "heatmap:POSIX", 0)
	var w, rd int64
	for i := range hm.Heatmap.Write {
		w += hm.Heatmap.Write[i]
		rd += hm.Heatmap.Read[i]
	}
	if w != 100026 || rd != 1300 || hm.Heatmap.BinWidth <= 0 {
		t.Errorf("heatmap: %d bytes written, %d read, bins of %g s; want 100026, 1300", w, rd, hm.Heatmap.BinWidth)
	}
	// Only the workload's files: inherited standard streams that saw no
	// I/O are not in the log.
	if n := len(records(t, l, darshan.ModPOSIX)); n != 2 {
		t.Errorf("%d POSIX records, want 2", n)
	}
	// Nothing but the log is left in the log directory.
	if names := dirNames(t, res.LogDir); len(names) != 1 {
		t.Errorf("log directory holds %q, want only the log", names)
	}
}

func TestPOSIXAsync(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/aio.c")
	dir := t.TempDir()
	l := runCollected(t, RunOptions{DXT: true}, nil, prog, dir).Logs[0]
	name := filepath.Join(dir, "aio.dat")
	wantCounters(t, record(t, l, darshan.ModPOSIX, name, 0), map[string]int64{
		"POSIX_OPENS": 1, "POSIX_WRITES": 3, "POSIX_READS": 1,
		"POSIX_BYTES_WRITTEN": 4296, "POSIX_BYTES_READ": 100,
		"POSIX_MAX_BYTE_WRITTEN": 12287, "POSIX_MAX_BYTE_READ": 8291,
		"POSIX_SIZE_WRITE_0_100": 2, "POSIX_SIZE_WRITE_1K_10K": 1, "POSIX_SIZE_READ_0_100": 1,
		"POSIX_RW_SWITCHES": 1, "POSIX_MEM_NOT_ALIGNED": 0,
	})
	r := record(t, l, darshan.ModDXTPOSIX, name, 0)
	if len(r.DXT.Writes) != 3 || len(r.DXT.Reads) != 1 || r.DXT.Writes[0].Offset != 8192 || r.DXT.Reads[0].Offset != 8192 {
		t.Errorf("DXT segments: writes %+v, reads %+v", r.DXT.Writes, r.DXT.Reads)
	}
}
