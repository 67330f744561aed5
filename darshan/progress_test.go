package darshan_test

import (
	"testing"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

// TestProgress reads every module of every sample log and checks that the
// progress reaches exactly the size of the module regions.
func TestProgress(t *testing.T) {
	for _, lg := range fixture.Logs(t) {
		l, err := darshan.OpenFile(lg.Path)
		if err != nil {
			t.Fatal(err)
		}
		var want int64
		for m, g := range l.Header.Modules {
			want += int64(g.Len)
			if g.Len > 0 && !darshan.ModuleID(m).Known() {
				t.Fatalf("%s: module id %d unknown", lg.Key, m)
			}
		}
		if done, total := l.Progress(); done != 0 || total != want {
			t.Errorf("%s: progress %d of %d before reading, want 0 of %d", lg.Key, done, total, want)
		}
		for m, g := range l.Header.Modules {
			if g.Len == 0 {
				continue
			}
			if err := l.Each(darshan.ModuleID(m), func(*darshan.Record) error { return nil }); err != nil {
				t.Errorf("%s: %v", lg.Key, err)
			}
		}
		if done, total := l.Progress(); done != total {
			t.Errorf("%s: progress %d of %d after reading every module", lg.Key, done, total)
		}
		l.Close()
	}
}
