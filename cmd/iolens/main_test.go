package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestDeferGC checks that no collection happens before the heap reaches
// quietHeap, and that the usual pacing is back after the first one.
func TestDeferGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.NumGC

	deferGC()
	var keep [][]byte
	for range quietHeap / (4 << 20) / 2 { // half the quiet heap
		keep = append(keep, make([]byte, 4<<20))
	}
	runtime.ReadMemStats(&ms)
	if ms.NumGC != before {
		t.Errorf("%d collections below the quiet heap, want none", ms.NumGC-before)
	}
	for i := 0; ms.NumGC == before && i < 1000; i++ {
		keep = append(keep[:0], make([]byte, 4<<20))
		runtime.ReadMemStats(&ms)
	}
	if ms.NumGC == before {
		t.Fatal("no collection after allocating 4 GiB")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		percent := debug.SetGCPercent(100)
		if percent == 100 {
			break
		}
		debug.SetGCPercent(percent)
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d after the first collection, want 100", percent)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if limit := debug.SetMemoryLimit(-1); limit < 1<<62 {
		t.Errorf("memory limit %d after the first collection, want none", limit)
	}
	runtime.KeepAlive(keep)
}
