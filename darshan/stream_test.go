package darshan

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/iolens/iolens/internal/fixture"
)

// recordsOf reads every record of module m with a streaming reader (or,
// with whole, one that decompresses the region at once) and returns clones.
func recordsOf(t testing.TB, l *Log, m ModuleID, whole bool) ([]*Record, error) {
	t.Helper()
	rr := &RecordReader{log: l}
	if err := rr.open(m, whole); err != nil {
		return nil, err
	}
	var out []*Record
	for {
		r, err := rr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r.Clone())
	}
}

// TestStreamingMatchesWholeRegion checks that decompressing regions
// through the window gives the records of decompressing them at once, for
// every module of every sample log, errors included.
func TestStreamingMatchesWholeRegion(t *testing.T) {
	for _, lg := range fixture.Logs(t) {
		l, err := OpenFile(lg.Path)
		if err != nil {
			continue // bad logs are covered by the bad-input tests
		}
		want, got := map[ModuleID][]*Record{}, map[ModuleID][]*Record{}
		for m := ModuleID(0); m < NumKnownModules; m++ {
			w, werr := recordsOf(t, l, m, true)
			g, gerr := recordsOf(t, l, m, false)
			want[m], got[m] = w, g
			if (werr == nil) != (gerr == nil) {
				t.Errorf("%s: module %s: streaming error %v, whole-region error %v", lg.Path, m, gerr, werr)
			}
		}
		diffRecordSets(t, lg.Path, want, got)
		l.Close()
	}
}

// TestStreamingLargeRecords writes records around the window geometry: DXT
// records of a few segments up to several chunks, between many small fixed
// records crossing chunk boundaries, with every compression method.
func TestStreamingLargeRecords(t *testing.T) {
	recs := map[ModuleID][]*Record{}
	names := map[uint64]string{}
	for i := range 3000 {
		id := uint64(1000 + i)
		names[id] = "/scratch/f" + string(rune('a'+i%26))
		recs[ModPOSIX] = append(recs[ModPOSIX], countedRecord(ModPOSIX, id, int64(i%7), int64(i)))
	}
	for i, segs := range []int{0, 1, 2040, 2050, reserve / 32, reserve/32 + 1, chunkSize / 32, 3 * chunkSize / 32, 5, 100000} {
		tr := &Trace{Hostname: "node1"}
		for j := range segs {
			s := Segment{Offset: int64(j) * 4096, Length: 4096, Start: float64(j), End: float64(j) + 0.5}
			if j%3 == 0 {
				tr.Reads = append(tr.Reads, s)
			} else {
				tr.Writes = append(tr.Writes, s)
			}
		}
		recs[ModDXTPOSIX] = append(recs[ModDXTPOSIX], &Record{Module: ModDXTPOSIX, ID: uint64(1000 + i), Rank: int64(i), DXT: tr})
	}
	for _, comp := range writerCompressions {
		f := writeHandBuilt(t, WriterOptions{Compression: comp}, recs, names, nil)
		l := f.open(t)
		for _, m := range []ModuleID{ModPOSIX, ModDXTPOSIX} {
			w, err := recordsOf(t, l, m, true)
			if err != nil {
				t.Fatalf("%s: %s whole: %v", comp, m, err)
			}
			g, err := recordsOf(t, l, m, false)
			if err != nil {
				t.Fatalf("%s: %s streaming: %v", comp, m, err)
			}
			if len(w) != len(recs[m]) {
				t.Fatalf("%s: %s: %d records, want %d", comp, m, len(w), len(recs[m]))
			}
			diffRecordSets(t, comp.String(), map[ModuleID][]*Record{m: w}, map[ModuleID][]*Record{m: g})
		}
	}
}

// TestStreamingDamage zeroes the tail of a zlib region from several points
// and checks that
// an error naming the module ends the records.
func TestStreamingDamage(t *testing.T) {
	recs := map[ModuleID][]*Record{}
	for i := range 5000 {
		recs[ModPOSIX] = append(recs[ModPOSIX], countedRecord(ModPOSIX, uint64(i+1), int64(i), int64(i)*3))
	}
	f := writeHandBuilt(t, WriterOptions{}, recs, map[uint64]string{}, nil)
	l := f.open(t)
	g := l.Header.Modules[ModPOSIX]
	for _, keep := range []uint64{g.Len / 2, g.Len - 5, 100} {
		b := bytes.Clone(f.b)
		// Damage the tail of the region: zero the bytes after keep.
		clear(b[g.Off+keep : g.Off+g.Len])
		dl, err := Open(bytes.NewReader(b), int64(len(b)), "damaged.darshan")
		if err != nil {
			t.Fatal(err)
		}
		got, err := recordsOf(t, dl, ModPOSIX, false)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Part != "module POSIX" || !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTruncated) {
			t.Errorf("damage after %d bytes: error %v, want a corrupt or truncated POSIX region", keep, err)
		}
		// Deflate finds some damage only at the checksum that ends the
		// stream: the records decoded before the error are those of the
		// intact part, possibly followed by some from the damaged part.
		intact := 0
		for intact < len(got) && intact < len(recs[ModPOSIX]) && got[intact].ID == recs[ModPOSIX][intact].ID {
			intact++
		}
		if intact == 0 && keep > 1000 {
			t.Errorf("damage after %d bytes: no intact record before the error", keep)
		}
	}
}
