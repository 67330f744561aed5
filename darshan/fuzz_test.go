package darshan_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

// This file holds the fuzz targets of the reader and the helpers that the
// bad-input tests and the benchmarks share with them.

// maxFuzzInput bounds the size of a fuzzed input, just above the largest
// sample log (1,171,599 bytes): larger inputs only slow the fuzzer down, and
// since zlib can inflate about 1000-fold, they could make one execution
// decompress gigabytes.
const maxFuzzInput = 1200 << 10

// fuzzName is the file name given to Open by the fuzz targets; every error
// must mention it.
const fuzzName = "fuzz.darshan"

// FuzzOpen feeds arbitrary bytes to Open, reads every module's records and
// prints the log with every darshan-parser option. Nothing may panic, and
// every error must be a *darshan.FormatError that names the file and the
// part of it that is wrong.
func FuzzOpen(f *testing.F) {
	for _, lg := range fixture.Logs(f) {
		f.Add(readFile(f, lg.Path))
	}
	sample := readSample(f, "mpi-io-test-x86_64-3.5.0.darshan")
	f.Add([]byte{})
	f.Add([]byte("3.41\x00\x00\x00\x00"))
	f.Add(sample[:1328]) // header only
	f.Add(buildLog(binary.LittleEndian, nameEntry(binary.LittleEndian, 7, "/tmp/a"),
		testRegion{darshan.ModPOSIX, 4, posixRecord(binary.LittleEndian, 7)}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			t.Skip("input larger than any sample log")
		}
		l, err := darshan.Open(bytes.NewReader(data), int64(len(data)), fuzzName)
		if err != nil {
			checkFormatError(t, err, fuzzName)
			return
		}
		exercise(t, l)
	})
}

// FuzzDecodeRegion decodes arbitrary bytes as the uncompressed region of
// module mod in record version ver of an otherwise valid log, so that the
// fuzzer mutates record bytes directly. Module numbers from 64 up are
// folded onto the known modules.
func FuzzDecodeRegion(f *testing.F) {
	type key struct {
		mod darshan.ModuleID
		ver uint32
		big bool
	}
	seen := map[key]bool{}
	for _, lg := range fixture.Logs(f) {
		l, err := darshan.OpenFile(lg.Path)
		if err != nil {
			f.Fatal(err)
		}
		for m := darshan.ModuleID(0); m < darshan.MaxModules; m++ {
			k := key{m, l.Header.ModuleVersions[m], l.Header.ByteOrder == binary.BigEndian}
			if l.Header.Modules[m].Len == 0 || seen[k] {
				continue
			}
			seen[k] = true
			data := moduleBytes(f, lg.Path, l, m)
			f.Add(uint8(m), uint8(k.ver), k.big, data[:min(len(data), 16<<10)])
		}
		l.Close()
	}
	for _, big := range []bool{false, true} {
		bo := byteOrder(big)
		f.Add(uint8(darshan.ModMDHIM), uint8(1), big, mdhimRecord(bo, 3))
		f.Add(uint8(darshan.ModPOSIX), uint8(4), big, posixRecord(bo, 7))
	}
	f.Fuzz(func(t *testing.T, mod, ver uint8, big bool, data []byte) {
		if len(data) > maxFuzzInput {
			t.Skip("input larger than any sample region")
		}
		m := darshan.ModuleID(mod)
		if m >= darshan.MaxModules {
			m %= darshan.NumKnownModules
		}
		log := buildLog(byteOrder(big), nil, testRegion{m, uint32(ver), data})
		l, err := darshan.Open(bytes.NewReader(log), int64(len(log)), fuzzName)
		if err != nil {
			t.Fatalf("the log built around the region does not open: %v", err)
		}
		exercise(t, l)
	})
}

// exercise reads every record of every module of l and prints l with all
// darshan-parser options, checking every error it gets.
func exercise(t *testing.T, l *darshan.Log) {
	t.Helper()
	_, errs := readAll(l)
	for _, err := range errs {
		fe := checkFormatError(t, err, l.Name)
		if !strings.HasPrefix(fe.Part, "module ") {
			t.Fatalf("a record error names part %q, not a module: %v", fe.Part, err)
		}
	}
	opts := darshan.ParserOptions{Base: true, Total: true, File: true, Perf: true, ShowIncomplete: true}
	if err := darshan.WriteParserText(io.Discard, io.Discard, l, opts); err != nil {
		checkFormatError(t, err, l.Name)
	}
}

// readAll reads every record of every module slot of l. It returns the
// number of records and the error of every module that could not be read.
func readAll(l *darshan.Log) (int, []error) {
	n := 0
	var errs []error
	for m := darshan.ModuleID(0); m < darshan.MaxModules; m++ {
		rr, err := l.Records(m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for {
			_, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				errs = append(errs, err)
				break
			}
			n++
		}
	}
	return n, errs
}

// sentinels are the conditions the reader's errors must wrap.
var sentinels = []error{
	darshan.ErrNotDarshan, darshan.ErrVersion, darshan.ErrTruncated, darshan.ErrCorrupt,
	darshan.ErrModuleVersion, darshan.ErrUnknownModule, darshan.ErrIncomplete,
}

// checkFormatError fails unless err is a *darshan.FormatError for file that
// names a part and wraps one of the sentinel errors.
func checkFormatError(tb testing.TB, err error, file string) *darshan.FormatError {
	tb.Helper()
	var fe *darshan.FormatError
	if !errors.As(err, &fe) {
		tb.Fatalf("error %q is a %T, not a *darshan.FormatError", err, err)
	}
	msg := err.Error()
	if fe.File != file || fe.Part == "" || !strings.Contains(msg, file) || !strings.Contains(msg, fe.Part) {
		tb.Fatalf("error %q does not name the file %q and a part (File %q, Part %q)", msg, file, fe.File, fe.Part)
	}
	if !slices.ContainsFunc(sentinels, func(s error) bool { return errors.Is(err, s) }) {
		tb.Fatalf("error %q wraps none of the sentinel errors", msg)
	}
	return fe
}

func byteOrder(big bool) binary.ByteOrder {
	if big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// testRegion is one module region of a log made by buildLog: its module,
// record version and uncompressed bytes.
type testRegion struct {
	mod  darshan.ModuleID
	ver  uint32
	data []byte
}

// Sizes and offsets of the 3.41 log format used by buildLog.
const (
	headerSize    = 1328
	jobRecordSize = 1080
	magic         = 6567223
)

// buildLog returns an uncompressed (CompressNone) 3.41 log in byte order bo
// with a minimal job region, the raw name region names and the given module
// regions, which must be in increasing module order. Empty regions get no
// entry in the header.
func buildLog(bo binary.ByteOrder, names []byte, regions ...testRegion) []byte {
	b := make([]byte, headerSize, headerSize+jobRecordSize+64+len(names))
	copy(b, "3.41")
	bo.PutUint64(b[8:], magic)
	b[16] = byte(darshan.CompressNone)

	job := make([]byte, jobRecordSize)
	for i, v := range []int64{1000, 1700000000, 0, 1700000010, 500000000, 4, 42} {
		bo.PutUint64(job[8*i:], uint64(v))
	}
	copy(job[56:], "lib_ver=3.5.0\nh=romio_no_indep_rw=true\n")
	b = append(b, job...)
	b = append(b, "/bin/app --fuzz\nlustre\t/scratch\nxfs\t/\x00"...)

	if len(names) > 0 {
		bo.PutUint64(b[32:], uint64(len(b)))
		bo.PutUint64(b[40:], uint64(len(names)))
		b = append(b, names...)
	}
	for _, r := range regions {
		if len(r.data) == 0 {
			continue
		}
		bo.PutUint64(b[48+16*int(r.mod):], uint64(len(b)))
		bo.PutUint64(b[56+16*int(r.mod):], uint64(len(r.data)))
		bo.PutUint32(b[1072+4*int(r.mod):], r.ver)
		b = append(b, r.data...)
	}
	return b
}

// nameEntry returns one entry of a (3.10 and later) name region.
func nameEntry(bo binary.ByteOrder, id uint64, name string) []byte {
	return append(append(u64(bo, id), name...), 0)
}

// posixRecord returns a POSIX version 4 record (704 bytes) of rank 0 for
// the record id, with a few counters set.
func posixRecord(bo binary.ByteOrder, id uint64) []byte {
	b := make([]byte, 704)
	bo.PutUint64(b, id)
	bo.PutUint64(b[16:], 1)      // POSIX_OPENS
	bo.PutUint64(b[16+8*3:], 3)  // POSIX_READS
	bo.PutUint64(b[16+8*4:], 2)  // POSIX_WRITES
	bo.PutUint64(b[16+8*14:], 4) // POSIX_BYTES_READ
	return b
}

// mdhimRecord returns an MDHIM version 1 record with the given number of
// servers and their histogram.
func mdhimRecord(bo binary.ByteOrder, servers int) []byte {
	b := make([]byte, 96+8*max(servers-1, 0))
	bo.PutUint64(b, 99)
	bo.PutUint64(b[16:], 10) // MDHIM_PUTS
	bo.PutUint64(b[48:], uint64(servers))
	for i := 0; i < servers; i++ {
		bo.PutUint64(b[88+8*i:], uint64(i+1))
	}
	return b
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// samplePath returns the path of the sample log with the given base name.
func samplePath(tb testing.TB, base string) string {
	tb.Helper()
	for _, lg := range fixture.Logs(tb) {
		if filepath.Base(lg.Path) == base {
			return lg.Path
		}
	}
	tb.Fatalf("no sample log %s", base)
	return ""
}

// readSample returns the bytes of the sample log with the given base name.
func readSample(tb testing.TB, base string) []byte {
	tb.Helper()
	return readFile(tb, samplePath(tb, base))
}

// sampleModule returns the decompressed region of module m of the sample log
// with the given base name, its record version and the log's byte order.
func sampleModule(tb testing.TB, base string, m darshan.ModuleID) ([]byte, uint32, binary.ByteOrder) {
	tb.Helper()
	path := samplePath(tb, base)
	l, err := darshan.OpenFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	if l.Header.Modules[m].Len == 0 {
		tb.Fatalf("%s has no %s region", base, m)
	}
	return moduleBytes(tb, path, l, m), l.Header.ModuleVersions[m], l.Header.ByteOrder
}

// moduleBytes decompresses the zlib region of module m of the log l opened
// from path, independently of the package's own inflater.
func moduleBytes(tb testing.TB, path string, l *darshan.Log, m darshan.ModuleID) []byte {
	tb.Helper()
	if l.Header.Compression != darshan.CompressZlib {
		tb.Fatalf("%s: compression %s, expected ZLIB", path, l.Header.Compression)
	}
	g := l.Header.Modules[m]
	file := readFile(tb, path)
	src := bytes.NewReader(file[g.Off : g.Off+g.Len])
	var out bytes.Buffer
	for src.Len() > 0 { // one zlib stream after another
		zr, err := zlib.NewReader(src)
		if err != nil {
			tb.Fatalf("%s: module %s: %v", path, m, err)
		}
		if _, err := io.Copy(&out, zr); err != nil {
			tb.Fatalf("%s: module %s: %v", path, m, err)
		}
	}
	return out.Bytes()
}
