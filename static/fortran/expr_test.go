package fortran

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/static/ir"
)

func TestExpressions(t *testing.T) {
	a, b, c := ref("a"), ref("b"), ref("c")
	tests := []struct {
		src  string
		want ir.Expr
	}{
		{"a .lt. b", bin("<", a, b)},
		{"a.LE.b", bin("<=", a, b)},
		{"a .gt. b", bin(">", a, b)},
		{"a .Ge. b", bin(">=", a, b)},
		{"a .eq. b", bin("==", a, b)},
		{"a .ne. b", bin("!=", a, b)},
		{"a /= b", bin("!=", a, b)},
		{"a == b", bin("==", a, b)},
		{"a < b", bin("<", a, b)},
		{"a >= b", bin(">=", a, b)},
		{".not. a .and. b", bin("&&", ir.Unary{Op: "!", X: a}, b)},
		{".not. a == b", ir.Unary{Op: "!", X: bin("==", a, b)}},
		{"a .or. b .and. c", bin("||", a, bin("&&", b, c))},
		{"a .eqv. b .or. c", bin("==", a, bin("||", b, c))},
		{"a .neqv. b", bin("!=", a, b)},
		{"a // 'x' // b", bin("//", bin("//", a, str("x")), b)},
		{"a + b // c", bin("//", bin("+", a, b), c)},
		{"-a**2", ir.Unary{Op: "-", X: bin("**", a, num(2))}},
		{"2**3**2", bin("**", num(2), bin("**", num(3), num(2)))},
		{"a - b - c", bin("-", bin("-", a, b), c)},
		{"a * -b", bin("*", a, ir.Unary{Op: "-", X: b})},
		{"-a + b", bin("+", ir.Unary{Op: "-", X: a}, b)},
		{"(a + b) * c", bin("*", bin("+", a, b), c)},
		{"a / b * c", bin("*", bin("/", a, b), c)},
		{"-1", num(-1)},
		{"+2.5", flt(2.5)},
		{"1.5d3", flt(1500)},
		{"1.0e-2_dp", flt(0.01)},
		{"1.D0", flt(1)},
		{".5", flt(0.5)},
		{"3_8", num(3)},
		{"1.eq.1", bin("==", num(1), num(1))},
		{".true.", num(1)},
		{".FALSE.", num(0)},
		{"'it''s'", str("it's")},
		{`"say ""hi"""`, str(`say "hi"`)},
		{"'Mixed Case'", str("Mixed Case")},
		{"z'ff' + B'101' + o'17'", bin("+", bin("+", num(255), num(5)), num(15))},
		{"99999999999999999999", ir.Unknown{Text: "99999999999999999999"}},
		{"merge(a, b, c > 0)", ir.Cond{C: bin(">", c, num(0)), T: a, F: b}},
		{"sizeof(a)", ir.SizeOf{X: a}},
		{"min(a, b) + MAX(a, b, c)", bin("+", call("min", a, b), call("max", a, b, c))},
		{"size(a, dim=1)", call("size", a, num(1))},
		{"real(a, kind=8)", call("real", a, num(8))},
		{"x%y%z", ir.Field{X: ir.Field{X: ref("x"), Name: "y"}, Name: "z"}},
		{"s(1:3)", idx("s", ir.Binary{Op: ":", L: num(1), R: num(3)})},
		{"s(2:)", idx("s", ir.Binary{Op: ":", L: num(2)})},
		{"s(:n)", idx("s", ir.Binary{Op: ":", R: ref("n")})},
		{"s(:)", idx("s", ir.Unknown{Text: ":"})},
		{"s(1:9:2)", idx("s", ir.Unknown{Text: "1:9:2"})},
		{"(/ 1, 2 /)", ir.List{Elems: []ir.Expr{num(1), num(2)}}},
		{"[a, b]", ir.List{Elems: []ir.Expr{a, b}}},
		{"[a / 2, -b]", ir.List{Elems: []ir.Expr{bin("/", a, num(2)), ir.Unary{Op: "-", X: b}}}},
		{"(/ (i, i = 1, 3) /)", ir.Unknown{Text: "(/ (i, i = 1, 3) /)"}},
		{"[character(len=8) :: 'a', 'b']", ir.Unknown{Text: "[character(len=8) :: 'a', 'b']"}},
		{"[integer ::]", ir.Unknown{Text: "[integer ::]"}},
		{"(1.0, 2.0)", ir.Unknown{Text: "(1.0, 2.0)"}},
		{"a .myop. b", ir.Unknown{Text: "a .myop. b"}},
	}
	for _, tt := range tests {
		want := ir.Block{&ir.Assign{Target: "x", Op: "=", Value: tt.want}}
		checkBody(t, "x = "+tt.src, want)
	}
}

// TestReferences checks how name(args) is told apart: declared arrays
// (also of the host and of modules used) are elements, intrinsics stay
// expressions, everything else is a call hoisted before the statement.
func TestReferences(t *testing.T) {
	src := `module m
  real :: grid(10)
end module m
subroutine s(n)
  use m
  integer :: n
  real :: arr(10), y
  character(len=8) :: name
  external size
  y = arr(2) + f(g(n)) + sqrt(y) + name(1:2) + grid(n) + size(arr)
  n = f(1)
  arr(f(2)) = 0
  n = max(n)
contains
  subroutine inner
    y = arr(1) + len(name)
  end subroutine inner
  integer function max(i)
    integer :: i
    max = i
  end function max
end subroutine s
`
	f, err := Parse("refs.f90", []byte(src))
	if err != nil || len(f.Errors) > 0 {
		t.Fatalf("Parse: %v %v", err, f.Errors)
	}
	callF := func(name, result string, args ...ir.Expr) *ir.Call {
		return &ir.Call{Callee: name, Args: args, Result: result}
	}
	want := ir.Block{
		callF("g", "", ref("n")),
		callF("f", "", call("g", ref("n"))),
		callF("size", "", ref("arr")),
		&ir.Assign{Target: "y", Op: "=", Value: bin("+", bin("+", bin("+", bin("+", bin("+",
			idx("arr", num(2)), call("f", call("g", ref("n")))), call("sqrt", ref("y"))),
			idx("name", ir.Binary{Op: ":", L: num(1), R: num(2)})), idx("grid", ref("n"))), call("size", ref("arr")))},
		callF("f", "n", num(1)),
		&ir.Assign{Target: "n", Op: "=", Value: call("f", num(1))},
		callF("f", "", num(2)),
		&ir.Assign{Target: "arr", Op: "=", Value: num(0), Partial: true},
		callF("max", "n", ref("n")),
		&ir.Assign{Target: "n", Op: "=", Value: call("max", ref("n"))},
	}
	got := fn(t, f, "s").Body[3:] // after the declarations
	if diff := cmp.Diff(want, got, ignorePos); diff != "" {
		t.Errorf("s (-want +got):\n%s", diff)
	}
	inner := ir.Block{&ir.Assign{Target: "y", Op: "=", Value: bin("+", idx("arr", num(1)), call("len", ref("name")))}}
	if diff := cmp.Diff(inner, fn(t, f, "inner").Body, ignorePos); diff != "" {
		t.Errorf("inner (-want +got):\n%s", diff)
	}
}
