package darshan

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleAccessSequences() []AccessSequence {
	nc := RecordID("/data/in.nc:temperature")
	file := RecordID("/data/in.nc")
	return []AccessSequence{
		{Rank: 0, Accesses: []Access{
			{Module: ModPnetCDFVar, Op: OpRead, ID: nc, File: file, Parent: -1, Offset: -1, Length: 4000,
				Start: []int64{0, 0, 0}, Count: []int64{1, 10, 100}, StartTime: 0.5, EndTime: 0.75},
			{Module: ModPOSIX, Op: OpRead, ID: file, File: file, Parent: 0, Offset: 8192, Length: 4000, StartTime: 0.6, EndTime: 0.7},
			{Module: ModPOSIX, Op: OpWrite, ID: RecordID("/out"), File: RecordID("/out"), Parent: -1, Offset: 0, Length: 12, StartTime: 1, EndTime: 1.5},
		}},
		{Rank: 3, Partial: true, Accesses: []Access{
			{Module: ModH5D, Op: OpWrite, ID: RecordID("/h.h5:/g/d"), File: RecordID("/h.h5"), Parent: -1, Offset: -1, Length: 8,
				Start: []int64{7}, Count: []int64{1}, StartTime: 2, EndTime: 3},
		}},
		{Rank: 4},
	}
}

func TestAccessRecordsRoundTrip(t *testing.T) {
	want := sampleAccessSequences()
	var b []byte
	for i := range want {
		b = AppendAccessRecord(b, &want[i])
	}
	// 3 headers, 4 accesses, 4 dimensions in all.
	if wantLen := 3*accessRecordHeader + 4*accessFixed + 16*4; len(b) != wantLen {
		t.Errorf("encoded %d bytes, want %d", len(b), wantLen)
	}
	got, err := DecodeAccessRecords(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, exactRecords); d != "" {
		t.Errorf("decoded sequences differ (-want +got):\n%s", d)
	}
}

func TestAccessRecordsKeepInnermostDims(t *testing.T) {
	s := AccessSequence{Accesses: []Access{{Module: ModPnetCDFVar, Op: OpRead, Parent: -1,
		Start: []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Count: []int64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20}}}}
	got, err := DecodeAccessRecords(AppendAccessRecord(nil, &s))
	if err != nil {
		t.Fatal(err)
	}
	a := got[0].Accesses[0]
	if !cmp.Equal(a.Start, []int64{3, 4, 5, 6, 7, 8, 9, 10}) || !cmp.Equal(a.Count, []int64{13, 14, 15, 16, 17, 18, 19, 20}) {
		t.Errorf("start %v count %v, want the 8 innermost dimensions", a.Start, a.Count)
	}
}

func TestAccessRecordsCorrupt(t *testing.T) {
	seqs := sampleAccessSequences()
	good := AppendAccessRecord(nil, &seqs[0])
	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
		want error
	}{
		{"truncated header", func(b []byte) []byte { return b[:20] }, ErrTruncated},
		{"truncated access", func(b []byte) []byte { return b[:len(b)-10] }, ErrTruncated},
		{"wrong id", func(b []byte) []byte { b[0] ^= 1; return b }, ErrCorrupt},
		{"huge count", func(b []byte) []byte { b[16+7] = 0x10; return b }, ErrCorrupt},
		{"bad op", func(b []byte) []byte { b[accessRecordHeader+2] = 9; return b }, ErrCorrupt},
		{"too many dims", func(b []byte) []byte { b[accessRecordHeader+3] = 40; return b }, ErrCorrupt},
		{"later parent", func(b []byte) []byte { b[accessRecordHeader+24] = 5; return b }, ErrCorrupt},
	} {
		b := tc.edit(bytes.Clone(good))
		if _, err := DecodeAccessRecords(b); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

func FuzzDecodeAccessRecords(f *testing.F) {
	seqs := sampleAccessSequences()
	for i := range seqs {
		f.Add(AppendAccessRecord(nil, &seqs[i]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeAccessRecords(b)
		if err != nil {
			return
		}
		var again []byte
		for i := range got {
			again = AppendAccessRecord(again, &got[i])
		}
		back, err := DecodeAccessRecords(again)
		if err != nil {
			t.Fatalf("decoding a re-encoded region: %v", err)
		}
		if d := cmp.Diff(got, back, exactRecords); d != "" {
			t.Fatalf("re-encoding changed the sequences (-first +second):\n%s", d)
		}
	})
}

// writeWithAccesses writes a log with one POSIX record and an access
// region.
func writeWithAccesses(t *testing.T, seqs []AccessSequence) *writerBuffer {
	t.Helper()
	f := &writerBuffer{}
	w := NewWriter(f, WriterOptions{})
	if err := w.WriteJob(handBuiltJob(), "app", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteNames(func(yield func(uint64, string) bool) { yield(RecordID("/data/in.nc"), "/data/in.nc") }); err != nil {
		t.Fatal(err)
	}
	if err := w.BeginModule(ModPOSIX); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord(countedRecord(ModPOSIX, RecordID("/data/in.nc"), 0, 1)); err != nil {
		t.Fatal(err)
	}
	var data []byte
	for i := range seqs {
		data = AppendAccessRecord(data, &seqs[i])
	}
	if err := w.WriteExtension(ModAccess, AccessVersion, data); err != nil {
		t.Fatal(err)
	}
	if err := w.BeginModule(ModSTDIO); err == nil || !errors.Is(err, ErrWriteOrder) {
		t.Errorf("a Darshan module after an extension region: error %v, want ErrWriteOrder", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestLogAccessSequences(t *testing.T) {
	want := sampleAccessSequences()
	f := writeWithAccesses(t, want)
	l := f.open(t)
	if v := l.Header.ModuleVersions[ModAccess]; v != AccessVersion {
		t.Errorf("version %d, want %d", v, AccessVersion)
	}
	got, err := l.AccessSequences()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, exactRecords); d != "" {
		t.Errorf("sequences differ (-want +got):\n%s", d)
	}
	// The Darshan counters are untouched, and darshan-parser's text names
	// the region as a module it does not know.
	var out, errOut strings.Builder
	if err := WriteParserText(&out, &errOut, l, ParserOptions{Base: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "# <UNKNOWN> module (id 63): ") || !strings.Contains(out.String(), "POSIX_READS") {
		t.Errorf("text output lacks the unknown module line or the POSIX counters:\n%s", out.String())
	}
	if got, want := errOut.String(), "# Warning: module id 63 is unknown. You may need a newer version of the Darshan utilities to parse it.\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}

	// convert keeps the region as it is.
	c := &writerBuffer{}
	if err := Convert(c, l, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err = c.open(t).AccessSequences()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, exactRecords); d != "" {
		t.Errorf("converted sequences differ (-want +got):\n%s", d)
	}
}

func TestLogWithoutAccessSequences(t *testing.T) {
	f := writeHandBuilt(t, WriterOptions{}, nil, nil, nil)
	got, err := f.open(t).AccessSequences()
	if err != nil || got != nil {
		t.Errorf("got %v, %v; want no sequences and no error", got, err)
	}
}

func TestLogAccessSequencesCorrupt(t *testing.T) {
	seqs := sampleAccessSequences()
	f := writeWithAccesses(t, seqs)
	l := f.open(t)
	g := l.Header.Modules[ModAccess]
	b := bytes.Clone(f.b)
	b[g.Off+g.Len-3] ^= 0xff // inside the compressed stream's checksum
	l2, err := Open(bytes.NewReader(b), int64(len(b)), "bad.darshan")
	if err != nil {
		t.Fatal(err)
	}
	_, err = l2.AccessSequences()
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "bad.darshan") || !strings.Contains(err.Error(), "63") {
		t.Errorf("error %v: want a FormatError naming the log and the module", err)
	}
	if _, _, err := l.Extension(ModPOSIX); !errors.Is(err, ErrUnknownModule) {
		t.Errorf("Extension(POSIX): error %v, want ErrUnknownModule", err)
	}
}
