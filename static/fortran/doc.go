// Package fortran is the Fortran front-end of the static analysis: it
// turns fixed- and free-form Fortran source into the language-neutral IR
// of package ir.
//
// It is a hand-written parser for the structure I/O prediction needs, not
// a compiler front-end. Source goes through four stages:
//
//   - preprocessing (cpp.go): directive lines are removed; of each
//     #if/#elif/#else chain only the first branch is kept ("#if 0" counts
//     as not taken), so that statements stay balanced; object-like
//     #define macros become File.Consts, under lower-case names as every
//     Fortran name that refers to them;
//   - joining (source.go): comments, continuation lines, labels and ";"
//     separators of the fixed or free form give logical statements, each
//     with the line it starts on;
//   - lexing (lex.go): statements become tokens, names in lower case;
//   - parsing: program units (units.go), statements and constructs
//     (block.go, construct.go), declarations (decl.go, types.go),
//     expressions (expr.go) and I/O statements (io.go).
//
// # What becomes what
//
// PROGRAM, SUBROUTINE and FUNCTION (external, module and internal) are
// Funcs; module procedures carry their module's name. Module variables are
// File.Globals; PARAMETERs of modules and main programs are File.Consts
// (a main program's also stay Decls); other declarations are Decls with
// element sizes from the type and kind (KIND=, *n, SELECTED_REAL_KIND,
// ISO_FORTRAN_ENV and ISO_C_BINDING names, and the customary dp/sp/qp/wp
// when their definition is in another file) and dimensions as extents
// (a(0:n) has extent n+1; assumed and deferred extents are nil). Dummy
// arguments are Params, typed by their declarations or the IMPLICIT rules.
// COMMON and DIMENSION declare their variables in the procedure.
//
// DO loops (block, labelled with shared terminal statements, DO WHILE,
// endless DO, DO CONCURRENT and FORALL as one loop per index) are Loops;
// IF constructs, logical IF and WHERE/ELSEWHERE are If chains (WHERE on its
// array mask); the arithmetic IF (e) l1, l2, l3 is
// if e<0 goto l1 else if e==0 goto l2 else goto l3; SELECT CASE, SELECT
// TYPE and SELECT RANK are Switches without their case values. EXIT,
// CYCLE, GO TO and STOP/ERROR STOP are Jumps of kind "exit", "cycle",
// "goto" and "stop" (computed and assigned GO TO have no label); RETURN is
// a Return. ASSOCIATE, BLOCK and CRITICAL bodies are kept inline.
// ALLOCATE and DEALLOCATE are Calls of "allocate" and "deallocate" whose
// arguments are the objects, with extents for ALLOCATE.
//
// A reference name(args) is an array element (Index) when name is a
// declared array in scope (its own, its host's or a module's of the same
// file), when an argument is a section (a:b), or in a READ item list; an
// intrinsic function otherwise stays a CallExpr (MERGE becomes Cond,
// SIZEOF and C_SIZEOF a SizeOf, STORAGE_SIZE a SizeOf times 8); anything
// else is a call, hoisted into a Call before the statement. Calls in DO
// bounds are hoisted before the loop, calls in a DO WHILE condition to the
// start of its body, calls in an ELSE IF condition into the enclosing
// Else.
//
// # Not modelled
//
// These degrade instead of failing: keyword argument names are dropped
// (values are kept in order); a subscript range lo:hi is Binary{":"} (a
// nil side for an omitted bound), but a bare ":" and strided triplets,
// array constructors, complex literals and defined
// operators are Unknown with their source text; CASE values are dropped;
// INTERFACE blocks and ENUM definitions are skipped, and so are the
// type-bound procedures and type parameters of a derived type (its
// components are File.Types); DATA, EQUIVALENCE, NAMELIST, FORMAT, ENTRY
// and the attribute statements are ignored; USE of a module from another
// file, and ONLY/rename lists, are not followed (an array of such a
// module is taken for a function unless the reference is a section or a
// READ item); statement functions look like array-element assignments;
// fixed-form source with no blanks between keywords and names (DO10I=1,N)
// is not recognised; #include files are not read and macros are not
// expanded. Syntax the parser does not understand is reported in
// File.Errors with its line and the statement is dropped; parsing goes
// on with the next statement.
package fortran
