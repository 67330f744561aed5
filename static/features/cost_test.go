package features

import (
	"testing"

	"github.com/iolens/iolens/static/pdg"
)

// TestDrained checks the share of a system call one buffered stdio
// transfer costs, with the library's buffer and with the buffer setvbuf
// gave the stream.
func TestDrained(t *testing.T) {
	cases := []struct {
		name string
		io   pdg.IO
		want float64
	}{
		{"64 B, default buffer", pdg.IO{Bytes: 64, BytesKnown: true}, 64.0 / StdioBuffer},
		{"64 B, 256 B buffer", pdg.IO{Bytes: 64, BytesKnown: true, Buffer: 256}, 0.25},
		{"unknown size, default buffer", pdg.IO{}, unknownDrained},
		{"unknown size, 256 B buffer", pdg.IO{Buffer: 256}, 1},
		{"unknown size, 1 MiB buffer", pdg.IO{Buffer: 1 << 20}, unknownDrained / 256},
		{"line buffered", pdg.IO{Bytes: 40, BytesKnown: true, Buffer: 1}, 1},
		{"64 KiB, 1 MiB buffer", pdg.IO{Bytes: 64 << 10, BytesKnown: true, Buffer: 1 << 20}, 1.0 / 16},
		{"64 KiB, default buffer", pdg.IO{Bytes: 64 << 10, BytesKnown: true}, 1},
		{"unbuffered", pdg.IO{Bytes: 8, BytesKnown: true, Unbuffered: true, Buffer: 256}, 1},
		{"3 formatted items, 120 B buffer", pdg.IO{Items: 3, Buffer: 120}, 36.0 / 120},
	}
	for _, c := range cases {
		if got := drained(&c.io, StdioBuffer); got != c.want {
			t.Errorf("%s: %g, want %g", c.name, got, c.want)
		}
	}
}
