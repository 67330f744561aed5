// Package progress draws the progress of long work on a terminal: a bar
// with the share done, the amount, the rate and the time left, on standard
// error, only when it is a terminal and only for work that lasts. Elsewhere
// (a pipe, a file, a test) nothing is drawn.
//
// The bar is drawn here rather than with a library: the one the design
// first chose links net/http and crypto/tls into every iolens binary,
// which costs every command 2.5 MB and close to a millisecond of start-up.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Unit says how the amounts of a bar are printed.
type Unit struct {
	bytes, percent bool
	noun           string
}

// Bytes prints amounts with binary prefixes: "12.0/60.0 MiB, 4.1 MiB/s".
var Bytes = Unit{bytes: true}

// Percent prints only the share done, for work measured in units that
// mean nothing to the user.
var Percent = Unit{percent: true}

// Count prints amounts as counts of noun, with their rate: "37/120 logs,
// 12 logs/s".
func Count(noun string) Unit { return Unit{noun: noun} }

// Delay is how long work runs before its bar appears: shorter work draws
// nothing.
const Delay = 500 * time.Millisecond

// width is the number of cells of the bar itself.
const width = 30

// Bar is the progress of one piece of work. A nil *Bar does nothing, so
// that callers need not care whether a bar is shown. Its methods may be
// called from several goroutines.
type Bar struct {
	mu          sync.Mutex
	w           io.Writer
	desc        string
	unit        Unit
	done, total int64
	start       time.Time
	delay       time.Duration // before the first drawing
	throttle    time.Duration // between drawings
	drawn       time.Time     // of the last drawing; zero before the first
	finished    bool
}

// New returns a bar for work of total units described by desc, drawn on w
// when w is a terminal (and TERM is not "dumb"), else nil.
func New(w io.Writer, total int64, desc string, unit Unit) *Bar {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || os.Getenv("TERM") == "dumb" {
		return nil
	}
	return newBar(w, total, desc, unit, Delay, 100*time.Millisecond)
}

// newBar returns a bar drawn on w, whatever w is, after delay, redrawn at
// most once per throttle.
func newBar(w io.Writer, total int64, desc string, unit Unit, delay, throttle time.Duration) *Bar {
	return &Bar{w: w, desc: desc, unit: unit, total: total, start: time.Now(), delay: delay, throttle: throttle}
}

// Set records that done units of the work are done.
func (b *Bar) Set(done int64) {
	b.move(func(int64) int64 { return done })
}

// Add records that n more units are done.
func (b *Bar) Add(n int64) {
	b.move(func(cur int64) int64 { return cur + n })
}

// move sets the amount done to next(the amount done so far), within the
// total, and draws the bar.
func (b *Bar) move(next func(cur int64) int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = min(max(next(b.done), 0), b.total)
	b.draw()
}

// SetTotal changes the amount of the whole work, when more turns up.
func (b *Bar) SetTotal(total int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total = total
	b.done = min(b.done, total)
	b.draw()
}

// Done removes the bar from the terminal, leaving the line free for what
// follows. Later calls of the bar's methods draw nothing.
func (b *Bar) Done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.drawn.IsZero() && !b.finished {
		io.WriteString(b.w, "\r\x1b[K")
	}
	b.finished = true
}

// draw redraws the bar on its line, once the work has lasted the delay and
// the throttle has passed since the last drawing.
func (b *Bar) draw() {
	now := time.Now()
	if b.finished || now.Sub(b.start) < b.delay || (!b.drawn.IsZero() && now.Sub(b.drawn) < b.throttle) {
		return
	}
	b.drawn = now
	io.WriteString(b.w, "\r"+b.line(now.Sub(b.start))+"\x1b[K")
}

// line renders the bar after elapsed time.
func (b *Bar) line(elapsed time.Duration) string {
	share := 0.0
	if b.total > 0 {
		share = float64(b.done) / float64(b.total)
	}
	fill := int(share * width)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %3d%% [%s%s]", b.desc, int(100*share), strings.Repeat("=", fill), strings.Repeat(" ", width-fill))
	rate := float64(b.done) / elapsed.Seconds()
	switch {
	case b.unit.bytes:
		fmt.Fprintf(&sb, " %s/%s, %s/s", bytesText(float64(b.done)), bytesText(float64(b.total)), bytesText(rate))
	case !b.unit.percent:
		fmt.Fprintf(&sb, " %d/%d %s, %.0f %s/s", b.done, b.total, b.unit.noun, rate, b.unit.noun)
	}
	if b.done > 0 && b.done < b.total {
		left := time.Duration(float64(elapsed) * float64(b.total-b.done) / float64(b.done))
		fmt.Fprintf(&sb, ", %s left", left.Round(time.Second))
	}
	return sb.String()
}

// bytesText prints n bytes with a binary prefix.
func bytesText(n float64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%.0f B", n)
	}
	i := -1
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %ciB", n, units[i])
}

// Poll calls read every interval and sets the bar to the amount it
// returns, until the returned stop function is called; stop waits for the
// last call.
func (b *Bar) Poll(interval time.Duration, read func() int64) (stop func()) {
	if b == nil {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				b.Set(read())
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-finished
		})
	}
}
