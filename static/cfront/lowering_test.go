package cfront

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

// TestLowering checks the IR of one-line functions, one construct each.
func TestLowering(t *testing.T) {
	p := ir.Pos{File: "t.c", Line: 1}
	loop := func(v string, lo, hi, step ir.Expr, incl bool, body ...ir.Stmt) *ir.Loop {
		return &ir.Loop{Pos: p, Kind: ir.For, Var: v, Lo: lo, Hi: hi, Step: step, Inclusive: incl, Body: body, EndLine: 1}
	}
	assign := func(target, op string, v ir.Expr) *ir.Assign {
		return &ir.Assign{Pos: p, Target: target, Op: op, Value: v}
	}
	call := func(callee string, args ...ir.Expr) *ir.Call { return &ir.Call{Pos: p, Callee: callee, Args: args} }
	decl := func(name string, ty ir.Type, init ir.Expr) *ir.Decl {
		return &ir.Decl{Pos: p, Var: &ir.Var{Pos: p, Name: name, Type: ty, Init: init}}
	}
	tests := []struct {
		name string
		lang ir.Lang
		src  string
		want ir.Block
	}{
		{"literals", ir.C,
			`void f(void) { x = 0x1FUL; x = 017; x = 10ll; x = 'A'; x = '\n'; x = 1.5e3f; x = "a" "b\tc"; }`,
			ir.Block{assign("x", "=", num(31)), assign("x", "=", num(15)), assign("x", "=", num(10)),
				assign("x", "=", ir.Int{V: 65, Char: true}), assign("x", "=", ir.Int{V: 10, Char: true}), assign("x", "=", ir.Float{V: 1500}),
				assign("x", "=", str("ab\tc"))}},
		{"hoisting order", ir.C,
			`void f(void) { x = f(g(y), h()) + k(); }`,
			ir.Block{call("g", ref("y")), call("h"), call("f", callx("g", ref("y")), callx("h")), call("k"),
				assign("x", "=", bin("+", callx("f", callx("g", ref("y")), callx("h")), callx("k")))}},
		{"result through cast", ir.C,
			`void f(int n) { double *p; p = (double *)malloc(n); }`,
			ir.Block{decl("p", ptr("double", 8, 1), nil),
				&ir.Call{Pos: p, Callee: "malloc", Args: []ir.Expr{ref("n")}, Result: "p"},
				assign("p", "=", ir.Cast{Type: ptr("double", 8, 1), X: callx("malloc", ref("n"))})}},
		{"sizeof a typedef read as a name", ir.C,
			`typedef struct { long key, payload; } rec; void f(int n) { x = n * (int)sizeof(rec); }`,
			ir.Block{assign("x", "=", bin("*", ref("n"), ir.Cast{Type: ir.Type{Name: "int", Size: 4}, X: sizeofT("rec", 16)}))}},
		{"struct with arrays sized by macros and enumerators", ir.C,
			`#define NCH 8
#define NAME (NCH * 4 + 1)
enum { NTAG = 3 };
typedef struct { unsigned seq; float ch[NCH]; char name[NAME]; short tag[NTAG - 1]; } rec; void f(int n) { x = sizeof(rec); }`,
			ir.Block{&ir.Assign{Pos: ir.Pos{File: "t.c", Line: 4}, Target: "x", Op: "=", Value: sizeofT("rec", 76)}}}, // 4 + 32 + 33, a byte of padding, 4, two of tail padding
		{"calloc result", ir.C,
			`void f(int n) { int *a = calloc(n, sizeof(int)); }`,
			ir.Block{&ir.Call{Pos: p, Callee: "calloc", Args: []ir.Expr{ref("n"), sizeofT("int", 4)}, Result: "a"},
				decl("a", ptr("int", 4, 1), callx("calloc", ref("n"), sizeofT("int", 4)))}},
		{"calls on the right of && and ||", ir.C,
			`void f(void) { if (full && flush(o)) x = 1; y = ok || retry(o); }`,
			ir.Block{&ir.If{Pos: p, Cond: ref("full"), Then: ir.Block{call("flush", ref("o"))}},
				&ir.If{Pos: p, Cond: bin("&&", ref("full"), callx("flush", ref("o"))), Then: ir.Block{assign("x", "=", num(1))}},
				&ir.If{Pos: p, Cond: ref("ok"), Else: ir.Block{call("retry", ref("o"))}},
				assign("y", "=", bin("||", ref("ok"), callx("retry", ref("o"))))}},
		{"calls in conditional expressions", ir.C,
			`void f(int w) { k = w ? put(n) : get(n); }`,
			ir.Block{&ir.If{Pos: p, Cond: ref("w"), Then: ir.Block{call("put", ref("n"))}, Else: ir.Block{call("get", ref("n"))}},
				assign("k", "=", ir.Cond{C: ref("w"), T: callx("put", ref("n")), F: callx("get", ref("n"))})}},
		{"calls in initialiser lists", ir.C,
			`void f(int n) { struct h x = {n, sum(b, n), {g()}}; struct h y = {.a = k(n), .b = {m()}}; }`,
			ir.Block{call("sum", ref("b"), ref("n")), call("g"),
				decl("x", ir.Type{Name: "struct h"}, ir.Unknown{Text: "{n, sum(b, n), {g()}}"}),
				call("k", ref("n")), call("m"),
				decl("y", ir.Type{Name: "struct h"}, ir.Unknown{Text: "{.a = k(n), .b = {m()}}"})}},
		{"counted loops", ir.C,
			`void f(int n) { for (i = 0; i <= n; i += 4) ; for (i = n; i > 0; i--) ; for (i = 0; n > i; ++i) ; for (i = 0; i != n; i = i + 2) ; }`,
			ir.Block{
				assign("i", "=", num(0)), loop("i", num(0), ref("n"), num(4), true),
				assign("i", "=", ref("n")), loop("i", ref("n"), num(0), num(-1), false),
				assign("i", "=", num(0)), loop("i", num(0), ref("n"), num(1), false),
				assign("i", "=", num(0)), loop("i", num(0), ref("n"), num(2), false),
			}},
		{"non-canonical loops", ir.C,
			`void f(int n) { for (i = 0; i < n; i--) ; for (;;) break; for (p = h; p; p = p->next) g(p); }`,
			ir.Block{
				assign("i", "=", num(0)),
				&ir.Loop{Pos: p, Kind: ir.For, Cond: bin("<", ref("i"), ref("n")), EndLine: 1,
					Body: ir.Block{assign("i", "-=", num(1))}},
				&ir.Loop{Pos: p, Kind: ir.For, EndLine: 1, Body: ir.Block{&ir.Jump{Pos: p, Kind: "break"}}},
				assign("p", "=", ref("h")),
				&ir.Loop{Pos: p, Kind: ir.For, Cond: ref("p"), EndLine: 1,
					Body: ir.Block{call("g", ref("p")), assign("p", "=", ir.Field{X: ref("p"), Name: "next"})}},
			}},
		{"calls in loop condition and step", ir.C,
			`void f(void) { for (i = 0; i < count(); i = next(i)) ; do { x++; } while (more(x)); }`,
			ir.Block{
				assign("i", "=", num(0)),
				&ir.Loop{Pos: p, Kind: ir.For, Cond: bin("<", ref("i"), callx("count")), EndLine: 1,
					Body: ir.Block{call("count"),
						&ir.Call{Pos: p, Callee: "next", Args: []ir.Expr{ref("i")}, Result: "i"},
						assign("i", "=", callx("next", ref("i")))}},
				&ir.Loop{Pos: p, Kind: ir.DoWhile, Cond: callx("more", ref("x")), EndLine: 1,
					Body: ir.Block{call("more", ref("x")), assign("x", "+=", num(1))}},
			}},
		{"else-if chain and jumps", ir.C,
			`void f(int a) { if (a < 0) abort(); else if (a == 0) goto out; else { continue; } out: return; }`,
			ir.Block{
				&ir.If{Pos: p, Cond: bin("<", ref("a"), num(0)),
					Then: ir.Block{&ir.Jump{Pos: p, Kind: "exit"}},
					Else: ir.Block{&ir.If{Pos: p, Cond: bin("==", ref("a"), num(0)),
						Then: ir.Block{&ir.Jump{Pos: p, Kind: "goto", Label: "out"}},
						Else: ir.Block{&ir.Jump{Pos: p, Kind: "continue"}}}}},
				&ir.Return{Pos: p},
			}},
		{"structures initialised by position and by designator", ir.C,
			`struct cfg { int n; double dt; struct { int a; } in; int every; }; typedef struct { int nx, ny; } grid_t; void f(int m) { struct cfg c = {500, 0.5, {g()}, m}; grid_t d = {.ny = 30, 7}; struct cfg z = {0}; }`,
			ir.Block{
				decl("c", ir.Type{Name: "struct cfg", Size: 24}, ir.Unknown{Text: "{500, 0.5, {g()}, m}"}),
				&ir.Assign{Pos: p, Target: "c", Op: "=", Value: num(500), Partial: true, Field: "n"},
				&ir.Assign{Pos: p, Target: "c", Op: "=", Value: ir.Float{V: 0.5}, Partial: true, Field: "dt"},
				call("g"),
				&ir.Assign{Pos: p, Target: "c", Op: "=", Value: ref("m"), Partial: true, Field: "every"},
				decl("d", ir.Type{Name: "grid_t", Size: 8}, ir.Unknown{Text: "{.ny = 30, 7}"}),
				&ir.Assign{Pos: p, Target: "d", Op: "=", Value: num(30), Partial: true, Field: "ny"},
				decl("z", ir.Type{Name: "struct cfg", Size: 24}, ir.Unknown{Text: "{0}"}),
			}},
		{"offsetof", ir.C,
			`typedef struct { long seq; int a, b; char tag[6]; double v; } rec_t; struct h { char c[6]; double v; int n; }; void f(void) { x = offsetof(rec_t, v); y = offsetof(struct h, n); z = offsetof(struct h, q); }`,
			ir.Block{assign("x", "=", num(24)), assign("y", "=", num(16)),
				assign("z", "=", ir.Unknown{Text: "offsetof(struct h, q)"})}},
		{"namespace aliases", ir.CPP,
			`namespace fs = std::filesystem; void f() { namespace io = ::std::filesystem; fs::create_directories(p); io::remove(q); }`,
			ir.Block{call("std::filesystem::create_directories", ref("p")), call("std::filesystem::remove", ref("q"))}},
		{"an element argument of a constructor read as an array parameter", ir.CPP,
			`void f(char **argv) { std::string dir(argv[1]); }`,
			ir.Block{
				&ir.Call{Pos: p, Callee: "std::string", Args: []ir.Expr{ir.Index{X: ref("argv"), Idx: []ir.Expr{num(1)}}}, Result: "dir"},
				decl("dir", ir.Type{Name: "std::string"}, callx("std::string", ir.Index{X: ref("argv"), Idx: []ir.Expr{num(1)}}))}},
		{"a class with a constructor is no aggregate", ir.CPP,
			`struct Box { Box(int a, int b); int w, h; }; struct P { int x, y; }; void f() { Box b{7, 9}; P q{3, 4}; }`,
			ir.Block{
				decl("b", ir.Type{Name: "Box", Size: 8}, ir.Unknown{Text: "{7, 9}"}),
				decl("q", ir.Type{Name: "P", Size: 8}, ir.Unknown{Text: "{3, 4}"}),
				&ir.Assign{Pos: p, Target: "q", Op: "=", Value: num(3), Partial: true, Field: "x"},
				&ir.Assign{Pos: p, Target: "q", Op: "=", Value: num(4), Partial: true, Field: "y"},
			}},
		{"member and pointer calls", ir.C,
			`void f(struct io *s, void (*cb)(int)) { s->ops->write(s, 1); cb(2); (*cb)(3); s->n = 4; *s->p = 5; }`,
			ir.Block{
				&ir.Call{Pos: p, Callee: "write", Receiver: ir.Field{X: ref("s"), Name: "ops"}, Args: []ir.Expr{ref("s"), num(1)}},
				&ir.Call{Pos: p, Indirect: true, Via: "cb", Args: []ir.Expr{num(2)}},
				&ir.Call{Pos: p, Indirect: true, Via: "cb", Args: []ir.Expr{num(3)}},
				&ir.Assign{Pos: p, Target: "s", Op: "=", Value: num(4), Partial: true, Field: "n"},
				&ir.Assign{Pos: p, Target: "s", Op: "=", Value: num(5), Partial: true},
			}},
		{"printf keeps all arguments", ir.C,
			`void f(FILE *fp) { fprintf(fp, "%d %s\n", n, name); }`,
			ir.Block{call("fprintf", ref("fp"), str("%d %s\n"), ref("n"), ref("name"))}},
		{"ternary statement and comma", ir.C,
			`void f(int c) { c ? g() : h(); i = 0, j = 1; }`,
			ir.Block{
				&ir.If{Pos: p, Cond: ref("c"), Then: ir.Block{call("g")}, Else: ir.Block{call("h")}},
				assign("i", "=", num(0)), assign("j", "=", num(1)),
			}},
		{"declarations", ir.C,
			`void f(void) { unsigned long long a[2][N]; const int k = 3; struct { char c; double d; } s; short *const q = 0; }`,
			ir.Block{
				decl("a", ir.Type{Name: "unsigned long long", Size: 8, Dims: []ir.Expr{num(2), ref("N")}}, nil),
				&ir.Decl{Pos: p, Var: &ir.Var{Pos: p, Name: "k", Type: typ("int", 4), Init: num(3), Const: true}},
				decl("s", typ("struct", 16), nil),
				&ir.Decl{Pos: p, Var: &ir.Var{Pos: p, Name: "q", Type: ptr("short", 2, 1), Init: num(0), Const: true}},
			}},
		{"pointers to arrays index rows", ir.C,
			`void f(void) { char (*rows)[96]; char *names[4]; int (*grid)[3][4]; }`,
			ir.Block{
				decl("rows", ir.Type{Name: "char", Size: 1, Dims: []ir.Expr{nil, num(96)}}, nil),
				decl("names", ir.Type{Name: "char", Size: 1, Pointer: 1, Dims: []ir.Expr{num(4)}}, nil),
				decl("grid", ir.Type{Name: "int", Size: 4, Dims: []ir.Expr{nil, num(3), num(4)}}, nil),
			}},
		{"sizeof forms", ir.C,
			`void f(double v[4]) { n = sizeof(v) + sizeof v[0] + sizeof(int *) + sizeof(struct cell); }`,
			ir.Block{assign("n", "=", bin("+", bin("+", bin("+",
				ir.SizeOf{X: ref("v")},
				ir.SizeOf{X: ir.Index{X: ref("v"), Idx: []ir.Expr{num(0)}}}),
				ir.SizeOf{Type: ptr("int", 4, 1)}),
				sizeofT("struct cell", 0)))}},
		{"assignment in condition", ir.C,
			`void f(void) { if ((fp = fopen("a", "r")) == NULL) return; }`,
			ir.Block{
				&ir.Call{Pos: p, Callee: "fopen", Args: []ir.Expr{str("a"), str("r")}, Result: "fp"},
				assign("fp", "=", callx("fopen", str("a"), str("r"))),
				&ir.If{Pos: p, Cond: bin("==", ref("fp"), num(0)), Then: ir.Block{&ir.Return{Pos: p}}},
			}},
		{"preprocessor chain in body", ir.C,
			"void f(void) {\n#if HAVE_AIO\naio();\n#elif defined(SYNC)\nfsync(1);\n#else\nsync();\n#endif\n}",
			ir.Block{&ir.If{Pos: ir.Pos{File: "t.c", Line: 2}, Cond: ir.Unknown{Text: "HAVE_AIO"},
				Then: ir.Block{&ir.Call{Pos: ir.Pos{File: "t.c", Line: 3}, Callee: "aio"}},
				Else: ir.Block{&ir.If{Pos: ir.Pos{File: "t.c", Line: 4}, Cond: ir.Unknown{Text: "defined(SYNC)"},
					Then: ir.Block{&ir.Call{Pos: ir.Pos{File: "t.c", Line: 5}, Callee: "fsync", Args: []ir.Expr{num(1)}}},
					Else: ir.Block{&ir.Call{Pos: ir.Pos{File: "t.c", Line: 7}, Callee: "sync"}}}}}}},
		{"ifndef in body", ir.C,
			"void f(void) {\n#ifndef NDEBUG\ncheck();\n#endif\n}",
			ir.Block{&ir.If{Pos: ir.Pos{File: "t.c", Line: 2}, Cond: ir.Unknown{Text: "!defined(NDEBUG)"},
				Then: ir.Block{&ir.Call{Pos: ir.Pos{File: "t.c", Line: 3}, Callee: "check"}}}}},
		{"condition declaration", ir.CPP,
			`void f() { if (auto n = read(fd, b, 4)) use(n); }`,
			ir.Block{
				&ir.Call{Pos: p, Callee: "read", Args: []ir.Expr{ref("fd"), ref("b"), num(4)}, Result: "n"},
				decl("n", typ("auto", 0), callx("read", ref("fd"), ref("b"), num(4))),
				&ir.If{Pos: p, Cond: ref("n"), Then: ir.Block{call("use", ref("n"))}},
			}},
		{"stream extraction and casts", ir.CPP,
			`void f(std::ifstream &in) { in >> n >> m; x = static_cast<int>(y); std::exit(2); }`,
			ir.Block{
				&ir.Assign{Pos: p, Target: "in", Op: ">>", Partial: true, Value: bin(">>", bin(">>", ref("in"), ref("n")), ref("m"))},
				assign("x", "=", ir.Cast{Type: typ("int", 4), X: ref("y")}),
				&ir.Jump{Pos: p, Kind: "exit"},
			}},
		{"new and delete", ir.CPP,
			`void f() { auto *c = new Cell(1, 2); delete c; }`,
			ir.Block{
				&ir.Call{Pos: p, Callee: "new", Args: []ir.Expr{sizeofT("Cell", 0), num(1), num(2)}, Result: "c"},
				decl("c", ptr("auto", 0, 1), callx("new", sizeofT("Cell", 0), num(1), num(2))),
				call("delete", ref("c")),
			}},
		{"try and throw", ir.CPP,
			`void f() { try { g(); } catch (const std::exception &e) { throw; } }`,
			ir.Block{
				call("g"),
				&ir.If{Pos: p, Cond: ir.Unknown{Text: "catch (const std::exception &e)"},
					Then: ir.Block{&ir.Jump{Pos: p, Kind: "throw"}}},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseLang("t.c", []byte(tc.src), tc.lang)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Errors) != 0 || len(f.Funcs) != 1 {
				t.Fatalf("Errors %v, %d functions; want none and 1:\n%s", f.Errors, len(f.Funcs), sprintFile(f))
			}
			checkIR(t, "body", tc.want, f.Funcs[0].Body)
		})
	}
}

func TestFileScope(t *testing.T) {
	src := `#define ONE 1
#define MASK (~0x3u << 2)
#define SIZE (sizeof(double) * ONE)
#define MSG "a" "b"
#define FLAG
#define NEG -ONE
#define WEIRD { 1, 2 }
typedef struct { int a; char b; } pair_t;
typedef double real;
enum { A = 2, B, C = A + 4, D };
const real scale = 2.5;
pair_t pairs[8];
static int counter, *cp = 0;
int proto(int);
`
	f, err := Parse("g.c", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	at := posIn("g.c")
	checkIR(t, "Consts", map[string]ir.Expr{
		"ONE":   num(1),
		"MASK":  bin("<<", ir.Unary{Op: "~", X: num(3)}, num(2)),
		"SIZE":  bin("*", sizeofT("double", 8), ref("ONE")),
		"MSG":   str("ab"),
		"NEG":   ir.Unary{Op: "-", X: ref("ONE")},
		"WEIRD": ir.Unknown{Text: "{ 1, 2 }"},
		"A":     num(2),
		"B":     num(3),
		"C":     bin("+", ref("A"), num(4)),
		"D":     bin("+", ref("C"), num(1)),
		"scale": ir.Float{V: 2.5},
	}, f.Consts)
	checkIR(t, "Globals", []*ir.Var{
		{Pos: at(11), Name: "scale", Type: typ("real", 8), Init: ir.Float{V: 2.5}, Const: true},
		{Pos: at(12), Name: "pairs", Type: ir.Type{Name: "pair_t", Size: 8, Dims: []ir.Expr{num(8)}}},
		{Pos: at(13), Name: "counter", Type: typ("int", 4)},
		{Pos: at(13), Name: "cp", Type: ptr("int", 4, 1), Init: num(0)},
	}, f.Globals)
	if f.Lines != 14 || len(f.Funcs) != 0 || len(f.Errors) != 0 {
		t.Errorf("Lines %d, Funcs %d, Errors %v; want 14, 0, none", f.Lines, len(f.Funcs), f.Errors)
	}
}

func TestCPPNames(t *testing.T) {
	src := `namespace a::b { void free_fn() {} }
namespace util { int helper(int x); }
int util::helper(int x) { return x; }
struct Vec { double norm() const { return 0; } };
double Vec::dot(const Vec &o) const { return 0; }
template <typename T> void Box<T>::put(T v) {}
Vec::~Vec() {}
extern "C" { void c_api(void) {} }
namespace { static void hidden() {} }
`
	f, err := ParseLang("n.cc", []byte(src), ir.CPP)
	if err != nil {
		t.Fatal(err)
	}
	type sig struct {
		Name, Module string
		Kind         ir.FuncKind
	}
	var got []sig
	for _, fn := range f.Funcs {
		got = append(got, sig{fn.Name, fn.Module, fn.Kind})
	}
	checkIR(t, "functions", []sig{
		{"a::b::free_fn", "a::b", ir.Function},
		{"util::helper", "util", ir.Function},
		{"Vec::norm", "Vec", ir.Method},
		{"Vec::dot", "Vec", ir.Method},
		{"Box<T>::put", "Box<T>", ir.Method},
		{"Vec::~Vec", "Vec", ir.Method},
		{"c_api", "", ir.Function},
		{"hidden", "", ir.Function},
	}, got)
}

func TestLangOf(t *testing.T) {
	for path, want := range map[string]ir.Lang{
		"a.c": ir.C, "a.h": ir.C, "a.cc": ir.CPP, "a.cpp": ir.CPP, "a.cxx": ir.CPP, "a.c++": ir.CPP,
		"a.C": ir.CPP, "a.hpp": ir.CPP, "a.hh": ir.CPP, "a.hxx": ir.CPP, "dir.d/a": ir.C,
	} {
		if got := LangOf(path); got != want {
			t.Errorf("LangOf(%q) = %q, want %q", path, got, want)
		}
	}
	if _, err := ParseLang("x.f90", nil, ir.Fortran); err == nil {
		t.Error("ParseLang(Fortran) succeeded; want an error")
	}
}

func TestEmptyAndTiny(t *testing.T) {
	for src, lines := range map[string]int{"": 0, "\n": 1, "int x;": 1, "int x;\nint y;\n": 2} {
		f, err := Parse("e.c", []byte(src))
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		if f.Lines != lines || f.Consts == nil {
			t.Errorf("Parse(%q): Lines %d, Consts %v; want %d, non-nil", src, f.Lines, f.Consts, lines)
		}
	}
}

// TestFileScopeConditional keeps the functions of every branch of a
// file-scope #ifdef.
func TestFileScopeConditional(t *testing.T) {
	src := `#ifdef USE_MPI
static void save(void) { MPI_File_write_all(fh, buf, n, MPI_BYTE, &st); }
#elif defined(USE_HDF5)
static void save(void) { H5Dwrite(d, t, s, s, p, buf); }
#else
static void save(void) { fwrite(buf, 1, n, fp); }
#endif
`
	f, err := Parse("c.c", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var callees []string
	for _, fn := range f.Funcs {
		for _, s := range fn.Body {
			if c, ok := s.(*ir.Call); ok {
				callees = append(callees, fn.Name+":"+c.Callee)
			}
		}
	}
	checkIR(t, "calls", []string{"save:MPI_File_write_all", "save:H5Dwrite", "save:fwrite"}, callees)
}
