package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	if b := New(&buf, 10, "reading", Count("logs")); b != nil {
		t.Fatalf("a bar on a buffer: %+v", b)
	}
	// A nil bar does nothing.
	var b *Bar
	b.Set(3)
	b.Add(1)
	b.SetTotal(20)
	b.Poll(time.Millisecond, func() int64 { return 1 })()
	b.Done()
}

func TestDraw(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 10, "merging", Count("stores"), 0, 0)
	b.Set(4)
	b.Add(3)
	out := buf.String()
	for _, want := range []string{"merging", "70%", "7/10", "stores/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar %q lacks %q", out, want)
		}
	}
	b.Done()
	if !strings.HasSuffix(buf.String(), "\r") && !strings.Contains(buf.String()[len(out):], "\x1b[") {
		t.Errorf("Done did not clear the bar: %q", buf.String()[len(out):])
	}
	n := buf.Len()
	b.Set(9)
	if buf.Len() != n {
		t.Errorf("a bar drew after Done: %q", buf.String()[n:])
	}
}

func TestBytes(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 4<<20, "reading", Bytes, 0, 0)
	b.Set(1 << 20)
	b.SetTotal(8 << 20)
	b.Set(2 << 20)
	if out := buf.String(); !strings.Contains(out, "MiB") || !strings.Contains(out, "25%") {
		t.Errorf("bar %q: want MiB and 25%%", out)
	}
}

func TestDelay(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 10, "quick", Count("files"), time.Hour, 0)
	b.Set(10)
	b.Done()
	if buf.Len() != 0 {
		t.Errorf("short work drew %q", buf.String())
	}
}

func TestPoll(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 100, "polling", Count("records"), 0, 0)
	calls := make(chan struct{}, 100)
	stop := b.Poll(time.Millisecond, func() int64 {
		select {
		case calls <- struct{}{}:
		default:
		}
		return 42
	})
	<-calls
	<-calls
	stop()
	stop()
	if got := b.pb.State().CurrentNum; got != 42 {
		t.Errorf("done = %d after polling, want 42", got)
	}
}

func TestPercent(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 200, "analysing", Percent, 0, 0)
	b.Set(50)
	if out := buf.String(); !strings.Contains(out, "25%") || strings.Contains(out, "50/200") {
		t.Errorf("bar %q: want 25%% and no count", out)
	}
}
