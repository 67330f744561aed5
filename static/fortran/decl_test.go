package fortran

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/static/ir"
)

func TestDeclarations(t *testing.T) {
	n, m := ref("n"), ref("m")
	ty := func(name string, size int64, dims ...ir.Expr) ir.Type {
		return ir.Type{Name: name, Size: size, Dims: dims}
	}
	tests := []struct {
		src  string
		want []*ir.Var // Pos is ignored
	}{
		{"integer :: a", []*ir.Var{{Name: "a", Type: integer}}},
		{"INTEGER A, B", []*ir.Var{{Name: "a", Type: integer}, {Name: "b", Type: integer}}},
		{"integer(8) :: a", []*ir.Var{{Name: "a", Type: ty("integer(kind=8)", 8)}}},
		{"integer*8 a", []*ir.Var{{Name: "a", Type: ty("integer(kind=8)", 8)}}},
		{"integer(kind=int64) :: a", []*ir.Var{{Name: "a", Type: ty("integer(kind=int64)", 8)}}},
		{"integer(selected_int_kind(9)) :: a", []*ir.Var{{Name: "a", Type: ty("integer(kind=selected_int_kind(9))", 4)}}},
		{"real :: a", []*ir.Var{{Name: "a", Type: real4}}},
		{"real(8) :: a", []*ir.Var{{Name: "a", Type: ty("real(kind=8)", 8)}}},
		{"REAL(KIND=8) :: a", []*ir.Var{{Name: "a", Type: ty("real(kind=8)", 8)}}},
		{"real*4 a", []*ir.Var{{Name: "a", Type: ty("real(kind=4)", 4)}}},
		{"real(kind=selected_real_kind(15, 307)) :: a", []*ir.Var{{Name: "a", Type: ty("real(kind=selected_real_kind(15, 307))", 8)}}},
		{"real(c_double) :: a", []*ir.Var{{Name: "a", Type: ty("real(kind=c_double)", 8)}}},
		{"real(unknown_kind) :: a", []*ir.Var{{Name: "a", Type: ty("real(kind=unknown_kind)", 0)}}},
		{"double precision a(n, 0:m)", []*ir.Var{{Name: "a", Type: lowered(ty("double precision", 8, n, bin("+", m, num(1))), nil, num(0))}}},
		{"doubleprecision :: a(2:n)", []*ir.Var{{Name: "a", Type: lowered(ty("double precision", 8, bin("+", bin("-", n, num(2)), num(1))), num(2))}}},
		{"real :: a(1:n)", []*ir.Var{{Name: "a", Type: ty("real", 4, n)}}},
		{"complex :: c", []*ir.Var{{Name: "c", Type: ty("complex", 8)}}},
		{"complex(8) :: c", []*ir.Var{{Name: "c", Type: ty("complex(kind=8)", 16)}}},
		{"complex*16 c", []*ir.Var{{Name: "c", Type: ty("complex(kind=8)", 16)}}},
		{"double complex c", []*ir.Var{{Name: "c", Type: ty("double complex", 16)}}},
		{"logical :: l", []*ir.Var{{Name: "l", Type: logical}}},
		{"logical(1) :: l", []*ir.Var{{Name: "l", Type: ty("logical(kind=1)", 1)}}},
		{"character :: c", []*ir.Var{{Name: "c", Type: ty("character", 1)}}},
		{"character(len=20) :: s", []*ir.Var{{Name: "s", Type: ty("character(len=20)", 20)}}},
		{"character(20) s", []*ir.Var{{Name: "s", Type: ty("character(len=20)", 20)}}},
		{"character*20 s", []*ir.Var{{Name: "s", Type: ty("character(len=20)", 20)}}},
		{"character*(*) s", []*ir.Var{{Name: "s", Type: ty("character(len=*)", 0)}}},
		{"character(len=*) :: s", []*ir.Var{{Name: "s", Type: ty("character(len=*)", 0)}}},
		{"character(len=:), allocatable :: s", []*ir.Var{{Name: "s", Type: ty("character(len=:)", 0)}}},
		{"character(kind=1, len=5) :: s", []*ir.Var{{Name: "s", Type: ty("character(len=5)", 5)}}},
		{"character(len=2*4) :: s", []*ir.Var{{Name: "s", Type: ty("character(len=2*4)", 8)}}},
		{"character name*12, c", []*ir.Var{{Name: "name", Type: ty("character(len=12)", 12)}, {Name: "c", Type: ty("character", 1)}}},
		{"real, dimension(10, 20) :: a, b(5)", []*ir.Var{{Name: "a", Type: ty("real", 4, num(10), num(20))}, {Name: "b", Type: ty("real", 4, num(5))}}},
		{"real, allocatable, target :: a(:,:)", []*ir.Var{{Name: "a", Type: ty("real", 4, nil, nil)}}},
		{"real(8), intent(in) :: a(*)", []*ir.Var{{Name: "a", Type: ty("real(kind=8)", 8, nil)}}},
		{"real, pointer :: p(:) => null()", []*ir.Var{{Name: "p", Type: ir.Type{Name: "real", Size: 4, Pointer: 1, Dims: []ir.Expr{nil}}, Init: call("null")}}},
		{"integer, parameter :: k = 10, l = 2*k", []*ir.Var{{Name: "k", Type: integer, Init: num(10), Const: true}, {Name: "l", Type: integer, Init: bin("*", num(2), ref("k")), Const: true}}},
		{"integer :: i = 5", []*ir.Var{{Name: "i", Type: integer, Init: num(5)}}},
		{"integer n /5/", []*ir.Var{{Name: "n", Type: integer}}},
		{"type(cell) :: c(3)", []*ir.Var{{Name: "c", Type: ty("type(cell)", 0, num(3))}}},
		{"class(*), allocatable :: x", []*ir.Var{{Name: "x", Type: ty("class(*)", 0)}}},
		{"dimension x(10)", []*ir.Var{{Name: "x", Type: ty("real", 4, num(10))}}},
		{"common /blk/ x(3), i, /other/ y\ncommon z", []*ir.Var{{Name: "x", Type: ty("real", 4, num(3))}, {Name: "i", Type: integer}, {Name: "y", Type: real4}, {Name: "z", Type: real4}}},
		{"parameter (np = 4)", []*ir.Var{{Name: "np", Type: integer, Init: num(4), Const: true}}},
		{"integer np\nparameter (np = 4)", []*ir.Var{{Name: "np", Type: integer, Init: num(4), Const: true}}},
		{"implicit double precision (a-h, o-z)\ndimension x(2)\ncommon k", []*ir.Var{{Name: "x", Type: ty("double precision", 8, num(2))}, {Name: "k", Type: integer}}},
		{"implicit real*8 (a-h,o-z), integer (i-n)\ncommon x", []*ir.Var{{Name: "x", Type: ty("real(kind=8)", 8)}}},
		{"implicit real(8) (x)\ncommon x", []*ir.Var{{Name: "x", Type: ty("real(kind=8)", 8)}}},
		{"external f\nreal, external :: g", nil},
	}
	for _, tt := range tests {
		var got []*ir.Var
		for _, s := range body(t, tt.src) {
			if d, ok := s.(*ir.Decl); ok {
				got = append(got, d.Var)
			} else {
				t.Errorf("%q: unexpected %T", tt.src, s)
			}
		}
		if diff := cmp.Diff(tt.want, got, ignorePos); diff != "" {
			t.Errorf("declarations of %q (-want +got):\n%s", tt.src, diff)
		}
	}
}

// TestParameterScopes checks where PARAMETERs go: module and main
// program constants are file constants (main's are Decls as well),
// procedure-local ones only Decls with Const set.
func TestParameterScopes(t *testing.T) {
	src := `module m
  integer, parameter :: mconst = 1
end module m
program p
  integer, parameter :: pconst = 2
end program p
subroutine s(a, i)
  integer, parameter :: sconst = 3
  dimension a(sconst)
end subroutine s
`
	f, err := Parse("scopes.f90", []byte(src))
	if err != nil || len(f.Errors) > 0 {
		t.Fatalf("Parse: %v %v", err, f.Errors)
	}
	if diff := cmp.Diff(map[string]ir.Expr{"mconst": num(1), "pconst": num(2)}, f.Consts); diff != "" {
		t.Errorf("Consts (-want +got):\n%s", diff)
	}
	if len(fn(t, f, "p").Body) != 1 {
		t.Errorf("program p: want the Decl of pconst, got %s", dump(f))
	}
	s := fn(t, f, "s")
	wantParams := []*ir.Var{
		{Pos: ir.Pos{File: "scopes.f90", Line: 7}, Name: "a", Type: withDims(real4, ref("sconst"))},
		{Pos: ir.Pos{File: "scopes.f90", Line: 7}, Name: "i", Type: integer},
	}
	if diff := cmp.Diff(wantParams, s.Params); diff != "" {
		t.Errorf("implicitly typed params (-want +got):\n%s", diff)
	}
	wantBody := ir.Block{&ir.Decl{Pos: ir.Pos{File: "scopes.f90", Line: 8}, Var: &ir.Var{Pos: ir.Pos{File: "scopes.f90", Line: 8},
		Name: "sconst", Type: integer, Init: num(3), Const: true}}}
	if diff := cmp.Diff(wantBody, s.Body); diff != "" {
		t.Errorf("s body (-want +got):\n%s", diff)
	}
}

// TestProcedureHeaders checks prefixes, result types and RESULT names.
func TestProcedureHeaders(t *testing.T) {
	src := `recursive integer(8) function fact(n) result(r)
  r = 1
end function fact
pure elemental real function sq(x)
  sq = x*x
end
double precision function dot(a, b)
end
subroutine noargs
end
subroutine cbind(x) bind(c, name='cb')
  real(c_double), value :: x
end subroutine
module procedure_owner
contains
  module subroutine sep(k)
  end subroutine sep
end module
`
	f, err := Parse("headers.f90", []byte(src))
	if err != nil || len(f.Errors) > 0 {
		t.Fatalf("Parse: %v %v", err, f.Errors)
	}
	type summary struct {
		Name   string
		Kind   ir.FuncKind
		Params []string
		Module string
		End    int
	}
	var got []summary
	for _, fn := range f.Funcs {
		s := summary{Name: fn.Name, Kind: fn.Kind, Module: fn.Module, End: fn.EndLine}
		for _, v := range fn.Params {
			s.Params = append(s.Params, v.Name+":"+v.Type.Name)
		}
		got = append(got, s)
	}
	want := []summary{
		{"fact", ir.Function, []string{"n:integer"}, "", 3},
		{"sq", ir.Function, []string{"x:real"}, "", 6},
		{"dot", ir.Function, []string{"a:real", "b:real"}, "", 8},
		{"noargs", ir.Subroutine, nil, "", 10},
		{"cbind", ir.Subroutine, []string{"x:real(kind=c_double)"}, "", 13},
		{"sep", ir.Subroutine, []string{"k:integer"}, "procedure_owner", 17},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("procedures (-want +got):\n%s", diff)
	}
}

// TestKindConstants checks kinds given by named constants of the same
// file, through USE and host association.
func TestKindConstants(t *testing.T) {
	src := `module prec
  use iso_fortran_env
  integer, parameter :: rk = real64, sk = kind(1.0), qk = selected_real_kind(30)
  integer, parameter :: ck = kind(1.0_rk)
end module prec
subroutine s
  use prec
  real(rk) :: a
  real(sk) :: b
  real(qk) :: c
  complex(ck) :: d
end subroutine s
`
	f, err := Parse("kinds.f90", []byte(src))
	if err != nil || len(f.Errors) > 0 {
		t.Fatalf("Parse: %v %v", err, f.Errors)
	}
	var got []int64
	for _, s := range fn(t, f, "s").Body {
		got = append(got, s.(*ir.Decl).Var.Type.Size)
	}
	if diff := cmp.Diff([]int64{8, 4, 16, 16}, got); diff != "" {
		t.Errorf("sizes (-want +got):\n%s", diff)
	}
}

// TestNamelists checks that NAMELIST groups keep their variables, from a
// module and from procedures, with a group declared twice kept once.
func TestNamelists(t *testing.T) {
	src := `module m
  integer :: nx, ny
  real :: dt
  namelist /grid/ nx, ny /time/ dt
end module m
subroutine w()
  use m
  integer :: steps
  namelist /run/ steps, nx
end subroutine w
subroutine r()
  use m
  integer :: steps
  namelist /run/ steps, nx
  namelist /grid/ nx, ny, /time/ dt
end subroutine r
`
	f, err := Parse("nml.f90", []byte(src))
	if err != nil || len(f.Errors) > 0 {
		t.Fatalf("Parse: %v %v", err, f.Errors)
	}
	want := map[string][]string{"grid": {"nx", "ny"}, "time": {"dt"}, "run": {"steps", "nx"}}
	if diff := cmp.Diff(want, f.Namelists); diff != "" {
		t.Errorf("Namelists (-want +got):\n%s", diff)
	}
	bad, _ := Parse("bad.f90", []byte("subroutine s()\n  namelist x, y\nend subroutine s\n"))
	if len(bad.Errors) != 1 || bad.Namelists != nil {
		t.Errorf("a namelist without a group: errors %v, groups %v", bad.Errors, bad.Namelists)
	}
}

func TestDerivedTypes(t *testing.T) {
	src := `module m
  integer, parameter :: nd = 31
  type :: month_rec
     sequence
     integer :: station, year = 1950
     real :: tday(nd)
     character(len=8) :: id
  end type month_rec
  type, extends(month_rec) :: flagged_rec
     integer, allocatable :: flags(:)
     real(8), pointer :: next => null()
  contains
     procedure :: show
  end type flagged_rec
  type cell
     real :: v
  end type
contains
  subroutine show(r)
    class(flagged_rec) :: r
  end subroutine show
end module m
`
	f, err := Parse("types.f90", []byte(src))
	if err != nil || len(f.Errors) > 0 {
		t.Fatalf("Parse: %v %v", err, f.Errors)
	}
	base := []*ir.Var{
		{Name: "station", Type: integer},
		{Name: "year", Type: integer, Init: num(1950)},
		{Name: "tday", Type: withDims(real4, ref("nd"))},
		{Name: "id", Type: ir.Type{Name: "character(len=8)", Size: 8}},
	}
	want := map[string][]*ir.Var{
		"month_rec": base,
		"flagged_rec": append(base[:4:4],
			&ir.Var{Name: "flags", Type: withDims(integer, nil)},
			&ir.Var{Name: "next", Type: ir.Type{Name: "real(kind=8)", Size: 8, Pointer: 1}, Init: call("null")}),
		"cell": {{Name: "v", Type: real4}},
	}
	if diff := cmp.Diff(want, f.Types, ignorePos); diff != "" {
		t.Errorf("Types (-want +got):\n%s", diff)
	}
	if len(f.Funcs) != 1 || f.Funcs[0].Name != "show" {
		t.Errorf("the procedures after the types: %v", f.Funcs)
	}
	bad, _ := Parse("bad.f90", []byte("module b\n  type :: t\n    integer :: i\n"))
	if len(bad.Errors) == 0 || len(bad.Types["t"]) != 1 {
		t.Errorf("a type without END TYPE: errors %v, types %v", bad.Errors, bad.Types)
	}
}
