package cfront

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

// TestMemberInitializers checks data members with default initializers:
// several initialised declarators in one declaration, which the grammar
// accepts on the last one only, and a lone "= 0", which it takes for a
// pure virtual function's. All are members, in order, with their sizes,
// and lines keep their numbers.
func TestMemberInitializers(t *testing.T) {
	src := `#include <vector>
struct Result {
    int id = 0, period = 0, iters = 0, reserved = 0;  // several
    double dose = 0, cmax = 0;
    long count = 0;
    std::vector<double> t, c;
    virtual void reset() = 0;
    const char *name = "x", *unit = "mg";
};
int main() {
    int a = 1, b = 2;
    for (int i = 0, j = 5; i < j; i++) a += i;
    return a + b + (int)sizeof(Result);
}
`
	f, err := Parse("r.cc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Errors) > 0 {
		t.Errorf("errors: %v", f.Errors)
	}
	var got []string
	for _, m := range f.Structs["Result"] {
		got = append(got, m.Name)
	}
	want := []string{"id", "period", "iters", "reserved", "dose", "cmax", "count", "t", "c", "name", "unit"}
	checkIR(t, "members", want, got)
	if m := f.Structs["Result"]; len(m) == len(want) && (m[1].Type.Name != "int" || m[5].Type.Name != "double" || m[10].Type.Pointer != 1) {
		t.Errorf("member types: period %+v, cmax %+v, unit %+v", m[1].Type, m[5].Type, m[10].Type)
	}
	main := funcNamed(t, f, "main")
	var loop *ir.Loop
	for _, s := range main.Body {
		if l, ok := s.(*ir.Loop); ok {
			loop = l
		}
	}
	if loop == nil || loop.Pos.Line != 12 {
		t.Fatalf("loop: %+v, want one on line 12", loop)
	}
}

// TestSplitDeclarators checks the rewrite of one-line declarations with
// several initialised declarators, and what it leaves alone.
func TestSplitDeclarators(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  int a = 0, b = 0;\n", "  int a = 0; int b = 0;\n"},
		{"struct Acc { double n = 0, sx = 0; };\n", "struct Acc { double n = 0; double sx = 0; };\n"},
		{"static const char *p = \"a,b\", *q = 0;\n", "static const char *p = \"a,b\"; static const char *q = 0;\n"},
		{"std::map<int, int> m = {}, n = {};\n", "std::map<int, int> m = {}; std::map<int, int> n = {};\n"},
		{"int x = f(a, b), y{2};\n", "int x = f(a, b); int y{2};\n"},
		{"for (int i = 0, j = 0; i < n; i++) {}\n", "for (int i = 0, j = 0; i < n; i++) {}\n"},
		{"return a = 1, b = 2;\n", "return a = 1, b = 2;\n"},
		{"int a = 0, b;\n", "int a = 0, b;\n"},
		{"x = g(1, 2);\n", "x = g(1, 2);\n"},
		{"int a = 0, b = 1; // c = 0, d = 1;\n", "int a = 0; int b = 1; // c = 0, d = 1;\n"},
	} {
		if got := string(splitDeclarators([]byte(c.in))); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}
