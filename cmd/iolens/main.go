// Command iolens captures, diagnoses, predicts, learns and tunes the I/O of
// HPC applications. Run "iolens --help" for the commands.
package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/iolens/iolens/internal/cli"
)

// quietHeap is the heap below which iolens does not collect garbage: most
// commands end before reaching it, and a collection costs a short process
// more than it saves.
const quietHeap = 64 << 20

func main() {
	deferGC()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// deferGC turns garbage collection off until the heap reaches quietHeap,
// then back to the usual pacing (GOGC=100, no memory limit), unless GOGC or
// GOMEMLIMIT set it otherwise.
func deferGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(quietHeap)
	// The first collection, when the heap reaches the limit, frees the
	// sentinel: its finalizer restores the usual pacing.
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
