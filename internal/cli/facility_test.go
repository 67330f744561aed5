package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// iolens runs iolens-facility for the facility commands: found beside it,
// with the arguments, streams and exit status passed through; without it,
// a message says how to get it.
func TestFacilityDispatch(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "iolens")
	if b, err := exec.Command("go", "build", "-o", bin, "github.com/iolens/iolens/cmd/iolens").CombinedOutput(); err != nil {
		t.Fatalf("building iolens: %v\n%s", err, b)
	}
	out, err := exec.Command(bin, "top", "--help").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "the facility commands are in iolens-facility") {
		t.Errorf("without iolens-facility: %v\n%s", err, out)
	}
	if b, err := exec.Command("go", "build", "-o", filepath.Join(dir, FacilityBinary), "github.com/iolens/iolens/cmd/iolens-facility").CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", FacilityBinary, err, b)
	}
	out, err = exec.Command(bin, "top", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "iolens top --by small-writes --group user --since 30d") {
		t.Errorf("iolens top --help: %v\n%s", err, out)
	}
	store := t.TempDir()
	cmd := exec.Command(bin, "query", "--store", store, "--csv", "SELECT 6 * 7 AS answer")
	out, err = cmd.Output()
	if err != nil || string(out) != "answer\n42\n" {
		t.Errorf("iolens query: %v %q", err, out)
	}
	out, err = exec.Command(bin, "top", "--store", store, "--by", "speed").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), `unknown metric "speed"`) {
		t.Errorf("bad usage through iolens: %v\n%s", err, out)
	}
}
