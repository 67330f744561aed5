package sharedtest

import (
	"os"
	"os/exec"
	"testing"
)

// Tool returns the path of a program a test needs (a compiler, mpiexec,
// python3...). When it is missing the test is skipped, or failed under CI,
// which installs every dependency.
func Tool(tb testing.TB, name string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is required in CI: %v", name, err)
		}
		tb.Skipf("%s not available: %v", name, err)
	}
	return p
}
