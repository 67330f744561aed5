package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Budget of the initialisation of this module's packages, before main
// runs: every command pays it.
const (
	initBudgetMS    = 0.5
	initBudgetBytes = 64 << 10
)

// TestStartupBudget builds iolens and checks, with GODEBUG=inittrace=1,
// what the initialisation of this module's packages costs: tables are to
// be built on first use, not at start-up.
func TestStartupBudget(t *testing.T) {
	goTool := needTool(t, "go")
	bin := filepath.Join(t.TempDir(), "iolens")
	if out, err := exec.Command(goTool, "build", "-o", bin, "github.com/iolens/iolens/cmd/iolens").CombinedOutput(); err != nil {
		t.Fatalf("building iolens: %v\n%s", err, out)
	}
	const prefix = "github.com/iolens/iolens/"
	bestMS, bestBytes := -1.0, int64(-1)
	var worst string
	for range 5 {
		cmd := exec.Command(bin, "version")
		var stderr bytes.Buffer
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("iolens version: %v\n%s", err, stderr.String())
		}
		inits, err := parseInitTrace(stderr.String(), prefix)
		if err != nil {
			t.Fatal(err)
		}
		if len(inits) == 0 {
			t.Fatalf("no initialisation of a package of %s in the trace:\n%s", prefix, stderr.String())
		}
		var ms float64
		var b int64
		for _, in := range inits {
			ms += in.ms
			b += in.bytes
		}
		if bestMS < 0 || ms < bestMS {
			bestMS = ms
		}
		if bestBytes < 0 || b < bestBytes {
			bestBytes = b
			slices.SortFunc(inits, func(x, y pkgInit) int { return int(y.bytes - x.bytes) })
			var sb strings.Builder
			for _, in := range inits[:min(5, len(inits))] {
				fmt.Fprintf(&sb, "\n  %s: %.3f ms, %d bytes", in.pkg, in.ms, in.bytes)
			}
			worst = sb.String()
		}
	}
	t.Logf("initialisation of %s*: %.3f ms, %d bytes", prefix, bestMS, bestBytes)
	if bestMS > initBudgetMS || bestBytes > initBudgetBytes {
		t.Errorf("initialisation of %s* takes %.3f ms and %d bytes, over the budget of %.1f ms and %d bytes; the largest:%s",
			prefix, bestMS, bestBytes, initBudgetMS, initBudgetBytes, worst)
	}
}

// pkgInit is one line of GODEBUG=inittrace=1.
type pkgInit struct {
	pkg   string
	ms    float64
	bytes int64
}

// parseInitTrace returns the initialisations of packages under prefix in
// trace, whose lines read "init PKG @T ms, C ms clock, B bytes, A allocs".
func parseInitTrace(trace, prefix string) ([]pkgInit, error) {
	var out []pkgInit
	for _, line := range strings.Split(trace, "\n") {
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], prefix) {
			continue
		}
		if f[5] != "ms" || f[6] != "clock," || f[8] != "bytes," {
			return nil, fmt.Errorf("unexpected inittrace line %q", line)
		}
		ms, err1 := strconv.ParseFloat(f[4], 64)
		b, err2 := strconv.ParseInt(f[7], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("unexpected inittrace line %q", line)
		}
		out = append(out, pkgInit{f[1], ms, b})
	}
	return out, nil
}
