// Package ir is the language-neutral representation of source code that the
// static analysis works on. The C/C++ and Fortran front-ends produce it; the
// program dependency graph, the I/O decorator and the feature extraction read
// it.
//
// The IR keeps only what I/O prediction needs: functions, loops with their
// bounds, branches with their alternatives, calls with their arguments,
// assignments (for constant propagation), declarations (for sizes) and
// Fortran I/O statements. Everything else in a function body is dropped,
// except that its line span still counts towards the function's size.
//
// Conventions every front-end follows:
//   - Calls nested in expressions are hoisted into Call statements placed
//     before the statement that contains them, innermost first, and the
//     expression refers to the call with a CallExpr. Calls in a loop's
//     condition or step are hoisted to the start of the loop body, since they
//     run once per iteration.
//   - Operators use C spelling: + - * / % ** (power) < <= > >= == != && || !
//     & | ^ << >> ~, plus unary "-" and "&" (address-of) and "*" (deref).
//     Fortran's .LT., .AND., /= and friends are mapped to them.
//   - Names of functions and variables keep their source spelling, except in
//     Fortran, which is case-insensitive: there every name is lower case.
package ir

import "strconv"

// Lang is a source language.
type Lang string

// The languages with a front-end.
const (
	C       Lang = "c"
	CPP     Lang = "c++"
	Fortran Lang = "fortran"
)

// Pos is a position in a source file. Lines start at 1.
type Pos struct {
	File string
	Line int
}

// Position returns p; it lets every statement that embeds a Pos satisfy
// Stmt's Position method.
func (p Pos) Position() Pos { return p }

// Program is a set of parsed source files analysed together.
type Program struct {
	Files []*File
}

// File is one parsed source file.
type File struct {
	Path  string
	Lang  Lang
	Lines int // number of source lines
	// Consts maps a name to the expression of a compile-time constant
	// defined in the file: object-like #define macros, enumerators,
	// file-scope const variables, Fortran PARAMETERs (including those of
	// modules). Function-local constants are Decls with Var.Const set.
	Consts map[string]Expr
	// Globals are file-scope (C) or module (Fortran) variables.
	Globals []*Var
	Funcs   []*Func
	// Namelists are the Fortran NAMELIST groups of the file: the names of
	// a group's variables, in order, by group name.
	Namelists map[string][]string
	// Types are the Fortran derived types defined in the file, by
	// lower-case name: their components in order, each with its type and
	// default initialisation (Init).
	Types map[string][]*Var
	// Structs are the data members, in order, of the C and C++ structures,
	// unions and classes defined in the file, by the type names
	// declarations use ("struct cell", a typedef name, a class name).
	Structs map[string][]*Var
	// Errors are problems the front-end recovered from (syntax it could
	// not parse), with their positions. A file with errors is still used.
	Errors []Error
}

// Error is a recoverable problem found while parsing.
type Error struct {
	Pos Pos
	Msg string
}

func (e Error) Error() string { return e.Pos.File + ":" + strconv.Itoa(e.Pos.Line) + ": " + e.Msg }

// FuncKind tells what kind of procedure a Func is.
type FuncKind string

// The kinds of procedures.
const (
	Function    FuncKind = "function"   // C/C++ function, Fortran FUNCTION
	Subroutine  FuncKind = "subroutine" // Fortran SUBROUTINE
	MainProgram FuncKind = "program"    // Fortran PROGRAM (C's main is a Function)
	Method      FuncKind = "method"     // C++ member function
	// Lambda is a C++ lambda a local variable holds ("auto update =
	// [&](std::vector<double> &e) {...}"), named after its function and
	// variable ("cpue_index$update"); the variable's initial value names
	// it, and it sees the enclosing function's variables.
	Lambda FuncKind = "lambda"
)

// Func is a function, subroutine, method or main program.
type Func struct {
	Name    string // source name: "main", "write_checkpoint", "Grid::dump"
	Kind    FuncKind
	Pos     Pos // line of the header
	EndLine int // last line of the body
	Params  []*Var
	Body    Block
	// Module is the Fortran module or C++ class/namespace the procedure
	// belongs to, if any.
	Module string
	// Members are the data members of a C++ method's class, which its
	// body sees by name (a constructor's member initialisers are
	// lowered at the start of its Body).
	Members []*Var
}

// Var is a declared variable or parameter.
type Var struct {
	Pos   Pos
	Name  string
	Type  Type
	Init  Expr // initial value, or nil
	Const bool // const-qualified, or a Fortran PARAMETER
}

// Type is what the analysis needs to know about a variable's type.
type Type struct {
	// Name is the base type as written ("int", "double", "char",
	// "struct cell", "real(kind=8)", "MPI_File", "hid_t"); pointers and
	// arrays are not part of it.
	Name string
	// Size is the size in bytes of one element of the base type, or 0 when
	// unknown (structs the front-end cannot measure, typedefs it does not
	// know).
	Size int64
	// Pointer counts levels of indirection (char **argv: 2).
	Pointer int
	// Dims are the array dimensions, outermost first; nil entries are
	// unknown extents (int a[], Fortran assumed shape).
	Dims []Expr
	// Lower are the lower bounds of a Fortran array's Dims, one per
	// dimension (a nil entry is 1), or nil when all are 1.
	Lower []Expr
}

// Block is a sequence of statements.
type Block []Stmt

// Stmt is a statement of the IR.
type Stmt interface {
	Position() Pos
	stmt()
}

// LoopKind tells which construct a Loop comes from.
type LoopKind string

// The loop constructs.
const (
	For       LoopKind = "for"        // C for
	While     LoopKind = "while"      // C while, Fortran DO WHILE
	DoWhile   LoopKind = "do-while"   // C do … while
	Do        LoopKind = "do"         // Fortran counted DO (block or labelled)
	DoForever LoopKind = "do-forever" // Fortran DO without control
	RangeFor  LoopKind = "range-for"  // C++ for (x : container)
)

// Loop is a loop. For counted loops (C for loops of the canonical form
// "for (i = lo; i < hi; i += step)", Fortran DO) Var, Lo, Hi and Step are
// set and Inclusive tells whether Hi is part of the range (Fortran, or C's
// <=). Other loops have only Cond (which may be nil: for (;;)). Step is
// negative for counting down.
type Loop struct {
	Pos
	Kind      LoopKind
	Var       string
	Lo, Hi    Expr
	Step      Expr
	Inclusive bool
	Cond      Expr
	Body      Block
	EndLine   int
}

// If is a two-way branch; an else-if chain nests an If in Else. Fortran
// IF … ELSE IF … is represented the same way; an arithmetic or one-line
// logical IF is an If with a one-statement Then.
type If struct {
	Pos
	Cond Expr
	Then Block
	Else Block
}

// Switch is a multi-way branch (C switch, Fortran SELECT CASE). Each case
// is one alternative; fall-through is not modelled.
type Switch struct {
	Pos
	Tag   Expr
	Cases []Block
}

// Call is a call of a function or subroutine, or of a library routine.
type Call struct {
	Pos
	// Callee is the called name as written (member calls: "obj.method"
	// becomes "method" with Receiver set; qualified C++ names keep their
	// qualifier: "std::fwrite"). Empty when the call is indirect.
	Callee   string
	Receiver Expr // object of a C++ member call, or nil
	Indirect bool // through a function pointer or expression; not resolved
	// Via names the variable an indirect call goes through when the
	// pointer is a plain variable or parameter (fn in "fn(x)" or
	// "(*fn)(x)"): its value, when known, is the function called.
	Via  string
	Args []Expr
	// Result is the variable the result is assigned to, when the call is
	// the whole right-hand side of an assignment or initialisation
	// ("fd = open(...)", "FILE *f = fopen(...)"), else "".
	Result string
}

// Assign assigns Value to Target ("x = v", "x += v": Op is "=" or "+=",
// "-=", ...; "x++" is Op "+=" with Value 1). Target is the assigned
// variable's name; assignments to array elements or fields name the base
// variable and set Partial. Field names the member an assignment to a
// member stores into (x.f = v, p->f = v, x%f = v; not x.f[i] = v).
// Element is the array element a C or C++ assignment stores into (a[i],
// p->v[i + 1]), or nil.
type Assign struct {
	Pos
	Target  string
	Op      string
	Value   Expr
	Partial bool
	Field   string
	Element Expr
}

// Decl declares a local variable (with its initial value, if any).
type Decl struct {
	Pos
	Var *Var
}

// Return leaves the function.
type Return struct {
	Pos
	Value Expr
}

// Jump is a break, continue, goto, Fortran EXIT/CYCLE/GOTO/STOP, or C exit().
type Jump struct {
	Pos
	Kind  string // "break", "continue", "goto", "exit", "cycle", "stop"
	Label string
}

// FortranIO is a Fortran I/O statement: OPEN, CLOSE, READ, WRITE, PRINT,
// FLUSH, INQUIRE, REWIND, BACKSPACE, ENDFILE, WAIT.
type FortranIO struct {
	Pos
	Op string // lower case: "open", "write", ...
	// Unit is the unit expression (UNIT= or the first positional
	// specifier); "*" (the default unit) is Str{"*"}; nil for PRINT.
	Unit Expr
	// Specs holds the control specifiers by lower-case keyword: "file",
	// "form", "access", "status", "recl", "fmt", "rec", "pos", "iostat",
	// "asynchronous", "action", "position", "newunit". A positional format
	// becomes "fmt"; list-directed is Str{"*"}.
	Specs map[string]Expr
	// Items are the data transfer items. An implied DO ((a(i), i=1,n))
	// is an ImpliedDo expression.
	Items []Expr
}

func (*Loop) stmt()      {}
func (*If) stmt()        {}
func (*Switch) stmt()    {}
func (*Call) stmt()      {}
func (*Assign) stmt()    {}
func (*Decl) stmt()      {}
func (*Return) stmt()    {}
func (*Jump) stmt()      {}
func (*FortranIO) stmt() {}

// Expr is an expression.
type Expr interface{ expr() }

// Int is an integer literal; Char marks a C character literal ('a'),
// whose value is its code.
type Int struct {
	V    int64
	Char bool
}

// Float is a floating-point literal.
type Float struct{ V float64 }

// Str is a string or character literal.
type Str struct{ V string }

// Ref names a variable, constant, macro or function.
type Ref struct{ Name string }

// Index is an array element a[i][j] or a(i, j).
type Index struct {
	X   Expr
	Idx []Expr
}

// Field is a member access x.f or x->f (Fortran x%f).
type Field struct {
	X    Expr
	Name string
}

// Unary is a prefix operation.
type Unary struct {
	Op string
	X  Expr
}

// Binary is an infix operation.
type Binary struct {
	Op   string
	L, R Expr
}

// Cond is the conditional expression c ? t : f (Fortran MERGE).
type Cond struct{ C, T, F Expr }

// CallExpr is the value of a call hoisted into a Call statement, or of an
// intrinsic the front-end keeps as an expression (Fortran SIZE, MIN...).
type CallExpr struct {
	Callee string
	Args   []Expr
}

// SizeOf is C's sizeof of a type (X nil) or of an expression (Type zero),
// or Fortran's STORAGE_SIZE/SIZEOF.
type SizeOf struct {
	Type Type
	X    Expr
}

// Cast converts X to Type.
type Cast struct {
	Type Type
	X    Expr
}

// ImpliedDo is a Fortran implied-DO list (items, var = lo, hi [, step]).
type ImpliedDo struct {
	Items        []Expr
	Var          string
	Lo, Hi, Step Expr
}

// Unknown is an expression the front-end does not model; Text is its
// source.
type Unknown struct{ Text string }

// List is the brace-enclosed list of scalar elements that initialises an
// array ({4096, 20000, 65536}).
type List struct{ Elems []Expr }

func (Int) expr()       {}
func (Float) expr()     {}
func (Str) expr()       {}
func (Ref) expr()       {}
func (Index) expr()     {}
func (Field) expr()     {}
func (Unary) expr()     {}
func (Binary) expr()    {}
func (Cond) expr()      {}
func (CallExpr) expr()  {}
func (SizeOf) expr()    {}
func (Cast) expr()      {}
func (ImpliedDo) expr() {}
func (Unknown) expr()   {}
func (List) expr()      {}

// Any reports whether f holds for x or for any expression inside it (the
// operands, indices, arguments and items of x, recursively).
func Any(x Expr, f func(Expr) bool) bool { return anyIn(x, f, true) }

// AnyEvaluated is Any without the operands of sizeof, which are not
// evaluated: "p = malloc(n * sizeof *p)" does not read p.
func AnyEvaluated(x Expr, f func(Expr) bool) bool { return anyIn(x, f, false) }

func anyIn(x Expr, f func(Expr) bool, sizeofs bool) bool {
	if x == nil {
		return false
	}
	if f(x) {
		return true
	}
	in := func(y Expr) bool { return anyIn(y, f, sizeofs) }
	anyOf := func(xs []Expr) bool {
		for _, y := range xs {
			if in(y) {
				return true
			}
		}
		return false
	}
	switch x := x.(type) {
	case Index:
		return in(x.X) || anyOf(x.Idx)
	case Field:
		return in(x.X)
	case Unary:
		return in(x.X)
	case Binary:
		return in(x.L) || in(x.R)
	case Cond:
		return in(x.C) || in(x.T) || in(x.F)
	case CallExpr:
		return anyOf(x.Args)
	case List:
		return anyOf(x.Elems)
	case SizeOf:
		return sizeofs && in(x.X)
	case Cast:
		return in(x.X)
	case ImpliedDo:
		return anyOf(x.Items) || in(x.Lo) || in(x.Hi) || in(x.Step)
	}
	return false
}
