package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed header must be what "go generate ./collector" writes.
func TestHeaderUpToDate(t *testing.T) {
	got, err := os.ReadFile("../../c/counters.h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, render()) {
		t.Fatal("collector/c/counters.h is stale: run go generate ./collector")
	}
}
