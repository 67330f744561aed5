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

// last returns the last drawing of the bar in out.
func last(out string) string {
	i := strings.LastIndex(out, "\r")
	return strings.TrimSuffix(out[i+1:], "\x1b[K")
}

func TestDraw(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 10, "merging", Count("stores"), 0, 0)
	b.Set(4)
	b.Add(3)
	if got := last(buf.String()); !strings.HasPrefix(got, "merging  70% [=====================         ] 7/10 stores, ") ||
		!strings.Contains(got, " stores/s") || !strings.HasSuffix(got, "s left") {
		t.Errorf("bar %q", got)
	}
	b.Done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Errorf("Done did not clear the line: %q", buf.String())
	}
	n := buf.Len()
	b.Set(9)
	b.Done()
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
	if got := last(buf.String()); !strings.HasPrefix(got, "reading  25% [=======                       ] 2.0 MiB/8.0 MiB, ") {
		t.Errorf("bar %q", got)
	}
	b.Set(1 << 40) // past the total: at the total
	if got := last(buf.String()); !strings.HasPrefix(got, "reading 100% [==============================] 8.0 MiB/8.0 MiB, ") || strings.Contains(got, "left") {
		t.Errorf("bar %q", got)
	}
}

func TestPercent(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 200, "analysing", Percent, 0, 0)
	b.Set(50)
	if got := last(buf.String()); !strings.HasPrefix(got, "analysing  25% [=======                       ], ") || strings.Contains(got, "50") {
		t.Errorf("bar %q: want 25%% and no count", got)
	}
}

func TestDelayAndThrottle(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 10, "quick", Count("files"), time.Hour, 0)
	b.Set(10)
	b.Done()
	if buf.Len() != 0 {
		t.Errorf("short work drew %q", buf.String())
	}
	b = newBar(&buf, 10, "throttled", Count("files"), 0, time.Hour)
	b.Set(1)
	b.Set(2)
	if n := strings.Count(buf.String(), "\r"); n != 1 {
		t.Errorf("%d drawings within the throttle, want 1: %q", n, buf.String())
	}
}

func TestBytesText(t *testing.T) {
	for n, want := range map[float64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1.5 * (1 << 30): "1.5 GiB"} {
		if got := bytesText(n); got != want {
			t.Errorf("bytesText(%v) = %q, want %q", n, got, want)
		}
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
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done != 42 {
		t.Errorf("done = %d after polling, want 42", b.done)
	}
}
