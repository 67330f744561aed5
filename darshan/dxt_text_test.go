package darshan_test

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

// TestDXTTextMatchesReference compares the output with that of
// darshan-dxt-parser for every sample log that has one; where the reference
// stopped at an incomplete module, WriteDXTText must stop too, and print the
// reference output with ShowIncomplete.
func TestDXTTextMatchesReference(t *testing.T) {
	compared := 0
	for _, lg := range fixture.Logs(t) {
		path, status := fixture.Expected(t, lg, "dxt")
		want := fixture.ReadExpected(t, path)
		if want == nil {
			continue
		}
		compared++
		t.Run(lg.Key, func(t *testing.T) {
			l, err := darshan.OpenFile(lg.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			opts := darshan.DXTOptions{Location: time.UTC}
			if status != 0 {
				var out, errOut bytes.Buffer
				err := darshan.WriteDXTText(&out, &errOut, l, opts)
				if !errors.Is(err, darshan.ErrIncomplete) {
					t.Fatalf("reference exits %d; got error %v", status, err)
				}
				if !strings.Contains(errOut.String(), "*ERROR*") || !strings.Contains(errOut.String(), "option to darshan-dxt-parser.") {
					t.Errorf("no error block on stderr: %q", errOut.String())
				}
				if !bytes.HasPrefix(want, out.Bytes()) {
					t.Errorf("output before the error is not a prefix of the reference: %s", fixture.FirstDiff(out.String(), string(want)))
				}
				opts.ShowIncomplete = true
			}
			var out, errOut bytes.Buffer
			if err := darshan.WriteDXTText(&out, &errOut, l, opts); err != nil {
				t.Fatalf("WriteDXTText: %v", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output differs from darshan-dxt-parser: %s", fixture.FirstDiff(out.String(), string(want)))
			}
		})
	}
	if compared == 0 {
		t.Fatal("no sample log has a darshan-dxt-parser reference output")
	}
}

// memLog is an in-memory io.WriterAt for darshan.Writer.
type memLog struct{ b []byte }

func (m *memLog) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

// writeLog writes a log holding the records given per module (in module
// order), with the names of files under a Lustre mount, flags the modules
// in partial as incomplete, and opens it. DXT segments keep their thread
// ids.
func writeLog(t *testing.T, recs map[darshan.ModuleID][]*darshan.Record, names map[uint64]string, partial ...darshan.ModuleID) *darshan.Log {
	t.Helper()
	f := &memLog{}
	w := darshan.NewWriter(f, darshan.WriterOptions{DXTThreads: true})
	job := darshan.Job{UID: 1000, StartTime: 1700000000, EndTime: 1700000010, NProcs: 1, JobID: 42}
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check(w.WriteJob(job, "./app", []darshan.Mount{{Path: "/", FSType: "xfs"}, {Path: "/lus", FSType: "lustre"}}))
	check(w.WriteNames(maps.All(names)))
	for m := darshan.ModuleID(0); m < darshan.MaxModules; m++ {
		if len(recs[m]) == 0 {
			continue
		}
		check(w.BeginModule(m))
		for _, r := range recs[m] {
			check(w.WriteRecord(r))
		}
	}
	for _, m := range partial {
		w.SetPartial(m)
	}
	check(w.Close())
	l, err := darshan.Open(bytes.NewReader(f.b), int64(len(f.b)), "synthetic")
	check(err)
	return l
}

// lustreRecord returns the layout of file id: components given as (stripe
// size, stripe count, extent start, extent end), then the OSTs.
func lustreRecord(id uint64, comps [][4]int64, osts ...int64) *darshan.Record {
	lu := &darshan.Lustre{OSTs: osts}
	for _, c := range comps {
		lu.Components = append(lu.Components, darshan.LustreComponent{
			StripeSize: c[0], StripeCount: c[1], ExtStart: c[2], ExtEnd: c[3], MirrorID: -1})
	}
	return &darshan.Record{Module: darshan.ModLustre, ID: id, Rank: -1, Counters: make([]int64, 2), Lustre: lu}
}

// dxtRecord returns the DXT_POSIX trace of file id on rank 0: writes of
// (offset, length) from threads alternating between two ids, then one read
// of thread 7.
func dxtRecord(id uint64, writes ...[2]int64) *darshan.Record {
	tr := &darshan.Trace{Hostname: "node1", ThreadIDs: true}
	for i, w := range writes {
		tr.Writes = append(tr.Writes, darshan.Segment{Offset: w[0], Length: w[1],
			Start: float64(i), End: float64(i) + 0.25, ThreadID: 140000000000 + uint64(i%2)})
	}
	tr.Reads = []darshan.Segment{{Offset: 0, Length: 10, Start: 9.5, End: 9.75, ThreadID: 7}}
	return &darshan.Record{Module: darshan.ModDXTPOSIX, ID: id, DXT: tr}
}

// dxtText prints l and returns stdout from the first DXT record on, and
// stderr.
func dxtText(t *testing.T, l *darshan.Log, opts darshan.DXTOptions) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	opts.Location = time.UTC
	err := darshan.WriteDXTText(&out, &errOut, l, opts)
	got := out.String()
	if i := strings.Index(got, "\n# mounted file systems"); i >= 0 {
		got = got[i:]
	}
	return got, errOut.String(), err
}

const dxtMounts = `
# mounted file systems (mount point and fs type)
# -------------------------------------------------------
# mount entry:	/lus	lustre
# mount entry:	/	xfs
`

// TestDXTTextLustreOSTs checks the stripe component lines and the OSTs
// printed per segment for two files on Lustre. The first has a layout of
// two components, the first of which has no stripes (an extent not yet
// instantiated) and is passed over. The second has two striped components:
// a segment crossing from one to the other takes its OSTs from both, and
// the count of OSTs printed carries over between them.
func TestDXTTextLustreOSTs(t *testing.T) {
	const mib = 1 << 20
	l := writeLog(t, map[darshan.ModuleID][]*darshan.Record{
		darshan.ModLustre: {
			// [0, 4 MiB) without stripes; [0, EOF) in 1 MiB stripes over 4 OSTs.
			lustreRecord(99, [][4]int64{{mib, 0, 0, 4 * mib}, {mib, 4, 0, -1}}, 20, 21, 22, 23),
			// [0, 2 MiB) over 2 OSTs; [2 MiB, EOF) over 3 OSTs.
			lustreRecord(98, [][4]int64{{mib, 2, 0, 2 * mib}, {mib, 3, 2 * mib, -1}}, 20, 21, 30, 31, 32),
		},
		darshan.ModDXTPOSIX: {
			dxtRecord(99,
				[2]int64{0, 100},            // inside the first stripe
				[2]int64{4 * mib, mib},      // exactly the fifth stripe
				[2]int64{mib / 2, 2 * mib},  // three stripes from the first
				[2]int64{3 * mib, 10 * mib}, // more stripes than OSTs: capped at 4
			),
			dxtRecord(98, [2]int64{3 * mib / 2, 3 * mib}),
		},
	}, map[uint64]string{99: "/lus/a.dat", 98: "/lus/b.dat"})
	got, stderr, err := dxtText(t, l, darshan.DXTOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const header = "# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)   [OST]   Pthread-ID\n"
	want := dxtMounts + `
# ***************************************************
# DXT_POSIX module data
# ***************************************************

# DXT, file_id: 99, file_name: /lus/a.dat
# DXT, rank: 0, hostname: node1
# DXT, number of threads: 3
# DXT, write_count: 4, read_count: 1
# DXT, mnt_pt: /lus, fs_type: lustre
# DXT, Lustre stripe components:
#	[Component 1] stripe_ext: 0 - 4194304, stripe_size: 1048576, stripe_count: 0, OSTs:
#	[Component 2] stripe_ext: 0 - EOF, stripe_size: 1048576, stripe_count: 4, OSTs: 20 21 22 23
` + header + ` X_POSIX       0  write        0               0             100      0.0000      0.2500   [20]   140000000000
 X_POSIX       0  write        1         4194304         1048576      1.0000      1.2500   [20]   140000000001
 X_POSIX       0  write        2          524288         2097152      2.0000      2.2500   [20] [21] [22]   140000000000
 X_POSIX       0  write        3         3145728        10485760      3.0000      3.2500   [23] [20] [21] [22]   140000000001
 X_POSIX       0   read        0               0              10      9.5000      9.7500   [20]      7

# DXT, file_id: 98, file_name: /lus/b.dat
# DXT, rank: 0, hostname: node1
# DXT, number of threads: 2
# DXT, write_count: 1, read_count: 1
# DXT, mnt_pt: /lus, fs_type: lustre
# DXT, Lustre stripe components:
#	[Component 1] stripe_ext: 0 - 2097152, stripe_size: 1048576, stripe_count: 2, OSTs: 20 21
#	[Component 2] stripe_ext: 2097152 - EOF, stripe_size: 1048576, stripe_count: 3, OSTs: 30 31 32
` + header + ` X_POSIX       0  write        0         1572864         3145728      0.0000      0.2500   [21] [30] [31]   140000000000
 X_POSIX       0   read        0               0              10      9.5000      9.7500   [20]      7
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s\n%s", got, want, fixture.FirstDiff(got, want))
	}
	if stderr != "" {
		t.Errorf("unexpected stderr: %q", stderr)
	}
}

// TestDXTTextIncompleteLustre checks that an incomplete LUSTRE module stops
// the output before any DXT banner, or prints its warning there (without a
// banner of its own) with ShowIncomplete.
func TestDXTTextIncompleteLustre(t *testing.T) {
	l := writeLog(t, map[darshan.ModuleID][]*darshan.Record{
		darshan.ModLustre:   {lustreRecord(5, [][4]int64{{1 << 20, 1, 0, -1}}, 3)},
		darshan.ModDXTPOSIX: {dxtRecord(6, [2]int64{0, 1})},
	}, map[uint64]string{6: "/tmp/x"}, darshan.ModLustre)
	got, stderr, err := dxtText(t, l, darshan.DXTOptions{})
	if !errors.Is(err, darshan.ErrIncomplete) {
		t.Fatalf("got error %v, want ErrIncomplete", err)
	}
	if got != dxtMounts {
		t.Errorf("stdout after the mounts: %q", strings.TrimPrefix(got, dxtMounts))
	}
	if !strings.HasPrefix(stderr, "\n# *ERROR*: The LUSTRE module contains incomplete data!\n") ||
		!strings.HasSuffix(stderr, "# Darshan from instrumenting unecessary files.\n\n"+
			"# You can display the (incomplete) data that is\n"+
			"# present in this log using the --show-incomplete\n"+
			"# option to darshan-dxt-parser.\n") {
		t.Errorf("stderr: %q", stderr)
	}
	got, stderr, err = dxtText(t, l, darshan.DXTOptions{ShowIncomplete: true})
	if err != nil || stderr != "" {
		t.Fatalf("error %v, stderr %q", err, stderr)
	}
	rest, ok := strings.CutPrefix(got, dxtMounts+"\n# *WARNING*: The LUSTRE module contains incomplete data!\n")
	if !ok || !strings.Contains(rest, "unecessary files.\n\n# ***************************************************\n# DXT_POSIX module data\n") ||
		!strings.Contains(rest, "\n# DXT, mnt_pt: /, fs_type: xfs\n# Module    Rank") {
		t.Errorf("output after the mounts:\n%s", strings.TrimPrefix(got, dxtMounts))
	}
}

// TestDXTTextNoDXT checks the output of a log without DXT data.
func TestDXTTextNoDXT(t *testing.T) {
	l := writeLog(t, nil, map[uint64]string{1: "/tmp/x"})
	got, stderr, err := dxtText(t, l, darshan.DXTOptions{})
	if err != nil || stderr != "" {
		t.Fatalf("error %v, stderr %q", err, stderr)
	}
	if want := dxtMounts + "\n# no DXT module data available for this Darshan log.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// BenchmarkDXTText measures opening a log and printing its traces, in
// bytes of log file per second.
func BenchmarkDXTText(b *testing.B) {
	dir := fixture.Dir(b)
	for _, name := range []string{
		"partial_data_dxt/partial_data_dxt.darshan",
		"e3sm_io_heatmaps_and_dxt/e3sm_io_heatmap_only.darshan",
		"nonmpi_dxt_anonymized/nonmpi_dxt_anonymized.darshan",
	} {
		path := filepath.Join(dir, "darshan-logs", name)
		b.Run(filepath.Base(name), func(b *testing.B) {
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				l, err := darshan.OpenFile(path)
				if err != nil {
					b.Fatal(err)
				}
				err = darshan.WriteDXTText(io.Discard, io.Discard, l, darshan.DXTOptions{ShowIncomplete: true, Location: time.UTC})
				l.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
