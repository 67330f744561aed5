// Package progress draws the progress of long work on a terminal: a bar
// with the amount done, the rate and the time left, on standard error,
// only when it is a terminal and only for work that lasts. Elsewhere (a
// pipe, a file, a test) nothing is drawn.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Unit says how the amounts of a bar are printed.
type Unit struct {
	bytes, percent bool
	noun           string
}

// Percent prints only the share done, for work measured in units that
// mean nothing to the user.
var Percent = Unit{percent: true}

// Bytes prints amounts with binary prefixes: "12 MiB/1.0 GiB".
var Bytes = Unit{bytes: true}

// Count prints amounts as counts of noun, with their rate: "37/120
// (12 logs/s)".
func Count(noun string) Unit { return Unit{noun: noun} }

// Delay is how long work runs before its bar appears: shorter work draws
// nothing.
const Delay = 500 * time.Millisecond

// Bar is the progress of one piece of work. A nil *Bar does nothing, so
// that callers need not care whether a bar is shown. Its methods may be
// called from several goroutines.
type Bar struct {
	mu    sync.Mutex
	pb    *progressbar.ProgressBar // nil once done
	gate  *gate
	shown bool // drawn at least once
}

// gate passes writes to w once the work has lasted delay, so that short
// work draws nothing while the bar still measures its rate from the start.
type gate struct {
	w     io.Writer
	start time.Time
	delay time.Duration
}

func (g *gate) open() bool { return time.Since(g.start) >= g.delay }

func (g *gate) Write(p []byte) (int, error) {
	if !g.open() {
		return len(p), nil
	}
	return g.w.Write(p)
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
	g := &gate{w: w, start: time.Now(), delay: delay}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(g),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(throttle),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionUseANSICodes(true),
	}
	switch {
	case unit.bytes:
		opts = append(opts, progressbar.OptionShowCount(), progressbar.OptionShowBytes(true), progressbar.OptionUseIECUnits(true))
	case !unit.percent:
		opts = append(opts, progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString(unit.noun))
	}
	return &Bar{pb: progressbar.NewOptions64(total, opts...), gate: g}
}

// Set records that done units of the work are done.
func (b *Bar) Set(done int64) {
	b.move(func(int64) int64 { return done })
}

// Add records that n more units are done.
func (b *Bar) Add(n int64) {
	b.move(func(cur int64) int64 { return cur + n })
}

// move sets the amount done to next(the amount done so far), at most the
// total, and draws the bar.
func (b *Bar) move(next func(cur int64) int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pb != nil {
		_ = b.pb.Set64(min(next(b.pb.State().CurrentNum), b.pb.GetMax64()))
		b.shown = b.shown || b.gate.open()
	}
}

// SetTotal changes the amount of the whole work, when more turns up.
func (b *Bar) SetTotal(total int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pb != nil {
		b.pb.ChangeMax64(total)
	}
}

// Done removes the bar from the terminal, leaving the line free for what
// follows. Later calls of the bar's methods do nothing.
func (b *Bar) Done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pb != nil && b.shown {
		_ = b.pb.Clear()
	}
	b.pb = nil
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
