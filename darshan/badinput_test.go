package darshan_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

// badName is the file name the bad-input tests give to Open.
const badName = "bad.darshan"

// patched returns a copy of b with the bytes at off replaced by p.
func patched(b []byte, off int, p []byte) []byte {
	c := bytes.Clone(b)
	copy(c[off:], p)
	return c
}

func u64(bo binary.ByteOrder, v uint64) []byte {
	b := make([]byte, 8)
	bo.PutUint64(b, v)
	return b
}

// wantError fails unless err is a *darshan.FormatError for file wrapping
// want, whose message names the part.
func wantError(tb testing.TB, err error, file string, want error, part string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("no error, want %v in %s", want, part)
	}
	checkFormatError(tb, err, file)
	if !errors.Is(err, want) {
		tb.Fatalf("error %q does not wrap %q", err, want)
	}
	if !strings.Contains(err.Error(), part) {
		tb.Fatalf("error %q does not name %q", err, part)
	}
}

// TestOpenBadInput opens files that are not valid logs, both from memory
// and from disk, and checks the error: its kind, and that it names the file
// and the part at fault.
func TestOpenBadInput(t *testing.T) {
	le := binary.LittleEndian
	sample := readSample(t, "mpi-io-test-x86_64-3.5.0.darshan") // 3.41, names at 1783
	old := readSample(t, "mpi-io-test-x86_64-3.4.0.darshan")    // 3.21, names at 898
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	cases := []struct {
		name string
		data []byte
		want error
		part string
	}{
		{"empty file", nil, darshan.ErrNotDarshan, "header"},
		{"3 bytes of a log", sample[:3], darshan.ErrTruncated, "header"},
		{"3 bytes of text", []byte("abc"), darshan.ErrNotDarshan, "header"},
		{"version and half the magic", sample[:12], darshan.ErrTruncated, "header"},
		{"random bytes", random, darshan.ErrNotDarshan, "header"},
		{"text file", []byte(strings.Repeat("This is a text file, not a Darshan log.\n", 50)), darshan.ErrNotDarshan, "header"},
		{"version 3.40", patched(sample, 0, []byte("3.40")), darshan.ErrVersion, "header"},
		{"version 2.06", patched(sample, 0, []byte("2.06")), darshan.ErrVersion, "header"},
		{"bad magic", patched(sample, 8, u64(le, 6567224)), darshan.ErrNotDarshan, "header"},
		{"unknown compression", patched(sample, 16, []byte{7}), darshan.ErrCorrupt, "header"},
		{"header cut short", sample[:1000], darshan.ErrTruncated, "header"},
		{"old header cut short", old[:200], darshan.ErrTruncated, "header"},
		{"job region overlaps the header", patched(sample, 32, u64(le, 1000)), darshan.ErrCorrupt, "job region"},
		{"job region past the end", patched(sample, 32, u64(le, 1<<40)), darshan.ErrTruncated, "job region"},
		{"job region not zlib", patched(sample, 1328, []byte{0xff, 0xff}), darshan.ErrCorrupt, "job region"},
		{"job region too short", buildShortJob(le), darshan.ErrTruncated, "job region"},
		{"name region length past the end", patched(sample, 40, u64(le, 1<<62)), darshan.ErrTruncated, "name region"},
		{"old name region length past the end", patched(old, 32, u64(le, 1<<62)), darshan.ErrTruncated, "name region"},
		{"name region not zlib", patched(sample, 1783, []byte{0x12, 0x34}), darshan.ErrCorrupt, "name region"},
		{"stray bytes after the names", buildLog(le, append(nameEntry(le, 1, "/a"), 1, 2, 3)), darshan.ErrCorrupt, "name region"},
		{"name not terminated", buildLog(le, nameEntry(le, 1, "/a")[:10]), darshan.ErrTruncated, "name region"},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := darshan.Open(bytes.NewReader(c.data), int64(len(c.data)), badName)
			if err == nil {
				l.Close()
			}
			wantError(t, err, badName, c.want, c.part)

			path := filepath.Join(dir, "case"+strconv.Itoa(i)+".darshan")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			l, err = darshan.OpenFile(path)
			if err == nil {
				l.Close()
			}
			wantError(t, err, path, c.want, c.part)
		})
	}
}

// buildShortJob returns a log whose job region holds only the job record,
// without the text that must follow it.
func buildShortJob(bo binary.ByteOrder) []byte {
	b := buildLog(bo, nil)
	return b[:headerSize+jobRecordSize]
}

// TestOpenFileBadPath covers errors of the file system: a directory, a
// missing file and an unreadable file.
func TestOpenFileBadPath(t *testing.T) {
	dir := t.TempDir()
	_, err := darshan.OpenFile(dir)
	wantError(t, err, dir, darshan.ErrNotDarshan, "directory")

	missing := filepath.Join(dir, "missing.darshan")
	_, err = darshan.OpenFile(missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: got %v, want an error naming %s and wrapping fs.ErrNotExist", err, missing)
	}

	if os.Geteuid() == 0 {
		t.Log("running as root, which reads files of any mode: unreadable-file case skipped")
		return
	}
	locked := filepath.Join(dir, "locked.darshan")
	if err := os.WriteFile(locked, readSample(t, "mpi-io-test-x86_64-3.5.0.darshan"), 0o000); err != nil {
		t.Fatal(err)
	}
	_, err = darshan.OpenFile(locked)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), locked) {
		t.Errorf("unreadable file: got %v, want an error naming %s and wrapping fs.ErrPermission", err, locked)
	}
}

// firstError opens data and reads every module and the parser text of it,
// returning the first error (the error of Open, else the first record
// error, else the text error).
func firstError(data []byte, name string) error {
	l, err := darshan.Open(bytes.NewReader(data), int64(len(data)), name)
	if err != nil {
		return err
	}
	if _, errs := readAll(l); len(errs) > 0 {
		return errs[0]
	}
	opts := darshan.ParserOptions{Base: true, Total: true, File: true, Perf: true, ShowIncomplete: true}
	return darshan.WriteParserText(io.Discard, io.Discard, l, opts)
}

// TestTruncatedSamples cuts every sample log inside its header, its job
// region, its name region and each of its module regions: opening or
// reading the cut log must fail with ErrTruncated or ErrCorrupt, naming the
// part that was cut.
func TestTruncatedSamples(t *testing.T) {
	for _, lg := range fixture.Logs(t) {
		data := readFile(t, lg.Path)
		l, err := darshan.OpenFile(lg.Path)
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		h := &l.Header
		type cut struct {
			at   uint64
			part string
		}
		cuts := []cut{{10, "header"}, {uint64(h.Size) / 2, "header"}, {uint64(h.Size) - 1, "header"},
			{l.JobRegion.Off + l.JobRegion.Len/2, "job region"}}
		if h.Names.Len > 0 {
			cuts = append(cuts, cut{h.Names.Off + h.Names.Len/2, "name region"}, cut{h.Names.Off + h.Names.Len - 1, "name region"})
		}
		for m, g := range h.Modules {
			if g.Len > 0 {
				part := "module " + darshan.ModuleID(m).String()
				cuts = append(cuts, cut{g.Off + g.Len/2, part}, cut{g.Off + g.Len - 1, part})
			}
		}
		for _, c := range cuts {
			err := firstError(data[:c.at], badName)
			if err == nil {
				t.Errorf("%s cut at byte %d (in %s): no error", lg.Key, c.at, c.part)
				continue
			}
			if !errors.Is(err, darshan.ErrTruncated) && !errors.Is(err, darshan.ErrCorrupt) {
				t.Errorf("%s cut at byte %d (in %s): %v does not wrap ErrTruncated or ErrCorrupt", lg.Key, c.at, c.part, err)
			}
			var fe *darshan.FormatError
			if !errors.As(err, &fe) || fe.Part != c.part || !strings.Contains(err.Error(), badName) {
				t.Errorf("%s cut at byte %d: error %q does not name the file and %s", lg.Key, c.at, err, c.part)
			}
		}
	}
}

// setCount returns region with the 8-byte count at off set to v.
func setCount(region []byte, bo binary.ByteOrder, off int, v uint64) []byte {
	return patched(region, off, u64(bo, v))
}

// TestCorruptCounts gives variable-size records counts far larger than the
// bytes present: reading them must fail with ErrCorrupt without allocating
// from the count.
func TestCorruptCounts(t *testing.T) {
	dxt, dxtVer, dxtBO := sampleModule(t, "mpi-io-test-x86_64-3.1.3.darshan", darshan.ModDXTPOSIX)
	lustre2, lustre2Ver, lustre2BO := sampleModule(t, "mpi-io-test-x86_64-3.5.0.darshan", darshan.ModLustre)
	lustre1, lustre1Ver, lustre1BO := sampleModule(t, "skew-app.darshan", darshan.ModLustre)
	heat, heatVer, heatBO := sampleModule(t, "mpi-io-test-x86_64-3.5.0.darshan", darshan.ModHeatmap)
	le := binary.LittleEndian
	cases := []struct {
		name string
		bo   binary.ByteOrder
		reg  testRegion
	}{
		{"DXT write_count 2^60", dxtBO, testRegion{darshan.ModDXTPOSIX, dxtVer, setCount(dxt, dxtBO, 88, 1<<60)}},
		{"DXT read_count 2^60", dxtBO, testRegion{darshan.ModDXTPOSIX, dxtVer, setCount(dxt, dxtBO, 96, 1<<60)}},
		{"DXT write_count -1", dxtBO, testRegion{darshan.ModDXTPOSIX, dxtVer, setCount(dxt, dxtBO, 88, 1<<64-1)}},
		{"DXT_MPIIO 3 counts 2^59 each", le, testRegion{darshan.ModDXTMPIIO, 3, setCount(setCount(make([]byte, 200), le, 88, 1<<59), le, 96, 1<<59)}},
		{"LUSTRE 2 num_stripes 2^62", lustre2BO, testRegion{darshan.ModLustre, lustre2Ver, setCount(lustre2, lustre2BO, 24, 1<<62)}},
		{"LUSTRE 2 num_comps 2^62", lustre2BO, testRegion{darshan.ModLustre, lustre2Ver, setCount(lustre2, lustre2BO, 16, 1<<62)}},
		{"LUSTRE 1 stripe width 2^62", lustre1BO, testRegion{darshan.ModLustre, lustre1Ver, setCount(lustre1, lustre1BO, 48, 1<<62)}},
		{"HEATMAP nbins 2^40", heatBO, testRegion{darshan.ModHeatmap, heatVer, setCount(heat, heatBO, 24, 1<<40)}},
		{"MDHIM servers 2^50", le, testRegion{darshan.ModMDHIM, 1, setCount(mdhimRecord(le, 3), le, 48, 1<<50)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := buildLog(c.bo, nil, c.reg)
			part := "module " + c.reg.mod.String()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			l, err := darshan.Open(bytes.NewReader(data), int64(len(data)), badName)
			if err != nil {
				t.Fatal(err)
			}
			_, errs := readAll(l)
			runtime.ReadMemStats(&after)
			if len(errs) != 1 {
				t.Fatalf("got errors %v, want one", errs)
			}
			wantError(t, errs[0], badName, darshan.ErrCorrupt, part)
			if n := after.TotalAlloc - before.TotalAlloc; n >= 1<<20 {
				t.Errorf("reading allocated %d bytes, want < 1 MiB", n)
			}
			if c.reg.mod == darshan.ModDXTPOSIX || c.reg.mod == darshan.ModDXTMPIIO {
				return // darshan-parser output leaves DXT out
			}
			var errOut bytes.Buffer
			err = darshan.WriteParserText(io.Discard, &errOut, l, darshan.ParserOptions{ShowIncomplete: true})
			wantError(t, err, badName, darshan.ErrCorrupt, part)
			if !strings.Contains(errOut.String(), "Error: failed to parse "+c.reg.mod.String()+" module record.") {
				t.Errorf("stderr of the parser text: %q", errOut.String())
			}
		})
	}
}

// TestUnknownModule: a region of a module id this package does not know is
// an error for Records, a warning for the parser text.
func TestUnknownModule(t *testing.T) {
	le := binary.LittleEndian
	data := buildLog(le, nameEntry(le, 7, "/tmp/a"),
		testRegion{darshan.ModPOSIX, 4, posixRecord(le, 7)},
		testRegion{40, 1, bytes.Repeat([]byte{0xab}, 64)})
	l, err := darshan.Open(bytes.NewReader(data), int64(len(data)), badName)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Records(40)
	wantError(t, err, badName, darshan.ErrUnknownModule, "40")
	var out, errOut bytes.Buffer
	if err := darshan.WriteParserText(&out, &errOut, l, darshan.ParserOptions{ShowIncomplete: true}); err != nil {
		t.Fatalf("WriteParserText: %v", err)
	}
	const warning = "# Warning: module id 40 is unknown. You may need a newer version of the Darshan utilities to parse it.\n"
	if errOut.String() != warning {
		t.Errorf("stderr %q, want %q", errOut.String(), warning)
	}
	if !strings.Contains(out.String(), "POSIX\t0\t7\tPOSIX_OPENS\t1\t/tmp/a\t/\txfs\n") {
		t.Errorf("the POSIX record is missing from the output:\n%s", out.String())
	}
}

// TestModuleVersion: a module region of a record version newer than this
// package knows, or of version 0, is ErrModuleVersion.
func TestModuleVersion(t *testing.T) {
	le := binary.LittleEndian
	for _, ver := range []uint32{0, 5, 1 << 31} {
		t.Run(strconv.Itoa(int(ver)), func(t *testing.T) {
			data := buildLog(le, nil, testRegion{darshan.ModPOSIX, ver, posixRecord(le, 7)})
			l, err := darshan.Open(bytes.NewReader(data), int64(len(data)), badName)
			if err != nil {
				t.Fatal(err)
			}
			_, err = l.Records(darshan.ModPOSIX)
			wantError(t, err, badName, darshan.ErrModuleVersion, "module POSIX")
			err = darshan.WriteParserText(io.Discard, io.Discard, l, darshan.ParserOptions{ShowIncomplete: true})
			wantError(t, err, badName, darshan.ErrModuleVersion, "module POSIX")
		})
	}
}

// TestModuleRegionErrors: module regions that extend past the end of the
// file or do not decompress.
func TestModuleRegionErrors(t *testing.T) {
	le := binary.LittleEndian
	sample := readSample(t, "mpi-io-test-x86_64-3.5.0.darshan") // POSIX region at 1945, len 156
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"length past the end", patched(sample, 56+16*int(darshan.ModPOSIX), u64(le, 1<<62)), darshan.ErrTruncated},
		{"offset past the end", patched(sample, 48+16*int(darshan.ModPOSIX), u64(le, 1<<62)), darshan.ErrTruncated},
		{"not zlib", patched(sample, 1945, []byte{0xde, 0xad}), darshan.ErrCorrupt},
		{"bad zlib checksum", patched(sample, 1945+156-2, []byte{0xde, 0xad}), darshan.ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, firstError(c.data, badName), badName, c.want, "module POSIX")
		})
	}
}

// heatmapRecord returns a HEATMAP record of the given rank, bin width and
// write and read bins (of equal length).
func heatmapRecord(bo binary.ByteOrder, rank int64, width float64, write, read []int64) []byte {
	b := make([]byte, 48, 48+16*len(write))
	bo.PutUint64(b, 1)
	bo.PutUint64(b[8:], uint64(rank))
	bo.PutUint64(b[16:], math.Float64bits(width))
	bo.PutUint64(b[24:], uint64(len(write)))
	for _, v := range append(slices.Clone(write), read...) {
		b = append(b, u64(bo, uint64(v))...)
	}
	return b
}

// TestHeatmapRecordOneBinShort: a heatmap record with no bins after a
// record with one bin of the same width is padded to one bin (a slice
// bounds panic of the reference-quirk path once).
func TestHeatmapRecordOneBinShort(t *testing.T) {
	le := binary.LittleEndian
	region := append(heatmapRecord(le, 0, 0.1, []int64{5}, []int64{6}), heatmapRecord(le, 1, 0.1, nil, nil)...)
	data := buildLog(le, nil, testRegion{darshan.ModHeatmap, 1, region})
	l, err := darshan.Open(bytes.NewReader(data), int64(len(data)), badName)
	if err != nil {
		t.Fatal(err)
	}
	var got [][2][]int64
	err = l.Each(darshan.ModHeatmap, func(r *darshan.Record) error {
		got = append(got, [2][]int64{slices.Clone(r.Heatmap.Write), slices.Clone(r.Heatmap.Read)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2][]int64{{{5}, {6}}, {{0}, {0}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("bins (write, read) %v, want %v", got, want)
	}
	var out bytes.Buffer
	if err := darshan.WriteParserText(&out, io.Discard, l, darshan.ParserOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"HEATMAP\t1\t1\tHEATMAP_READ_BIN_0\t0\t", "HEATMAP\t1\t1\tHEATMAP_WRITE_BIN_0\t0\t"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
}

// TestReaderShorterThanSize: a reader holding fewer bytes than the size
// given to Open (a file that shrank) is a truncated log.
func TestReaderShorterThanSize(t *testing.T) {
	sample := readSample(t, "mpi-io-test-x86_64-3.5.0.darshan") // POSIX region at 1945
	size := int64(len(sample))
	_, err := darshan.Open(bytes.NewReader(sample[:100]), size, badName)
	wantError(t, err, badName, darshan.ErrTruncated, "header")
	wantError(t, firstError(sample[:2000], badName), badName, darshan.ErrTruncated, "module POSIX")
	l, err := darshan.Open(bytes.NewReader(sample[:2000]), size, badName)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Records(darshan.ModPOSIX)
	wantError(t, err, badName, darshan.ErrTruncated, "module POSIX")
	_, err = darshan.Open(bytes.NewReader(sample), -1, badName)
	if err == nil || !strings.Contains(err.Error(), badName) {
		t.Errorf("negative size: got %v, want an error naming %s", err, badName)
	}
}
