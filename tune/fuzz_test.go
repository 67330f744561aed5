package tune

import (
	"testing"
)

// Space files, configurations and constraints come from users: no input
// may panic, and what parses must read back the same.

func FuzzParseSpace(f *testing.F) {
	f.Add([]byte("[[param]]\nname = \"cb_nodes\"\nkind = \"mpiio\"\nvalues = [\"1\", \"2\"]\n[[constraint]]\nexpr = \"cb_nodes <= ranks\"\n"))
	f.Add([]byte("presets = [\"mpiio\"]\n[vars]\nranks = 4\n"))
	f.Add([]byte("[[param]]\nname = \"s\"\nkind = \"hdf5\"\nkey = \"alignment\"\nrange = {min = \"64K\", max = \"16M\", scale = \"pow2\"}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSpace(b, "fuzz.toml")
		if err != nil {
			return
		}
		again, err := ParseSpace(s.Format(), "formatted.toml")
		if err != nil {
			t.Fatalf("a formatted space does not parse: %v\n%s", err, s.Format())
		}
		if got, want := again.Names(), s.Names(); len(got) != len(want) {
			t.Fatalf("parameters %v after formatting, want %v", got, want)
		}
	})
}

func FuzzParseConfig(f *testing.F) {
	f.Add("cb_nodes=2 romio_ds_write=disable")
	f.Add(`a="x y" b=1M`)
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseConfig(text)
		if err != nil {
			return
		}
		again, err := ParseConfig(c.String())
		if err != nil || again.Key() != c.Key() {
			t.Fatalf("%q: printed as %q, which parses as %v (%v)", text, c.String(), again, err)
		}
	})
}

func FuzzParseConstraint(f *testing.F) {
	f.Add("cb_nodes <= ranks && cb_buffer_size >= 1M")
	f.Add(`!(romio_cb_write == "disable") || nodes * 2 > 3 / ranks`)
	f.Fuzz(func(t *testing.T, expr string) {
		ParseConstraint(expr)
	})
}
