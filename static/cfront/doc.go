// Package cfront is the C and C++ front-end of the static analysis: it
// parses source with tree-sitter and lowers it to the language-neutral IR
// of package ir.
//
// Parse walks the syntax tree once. It keeps functions (free functions,
// member functions defined in or out of their class, functions in
// namespaces, templates), their parameters and the statements the analysis
// needs: loops with the bounds of canonical counted for loops, branches,
// switches, calls (hoisted out of expressions, following the conventions of
// package ir), assignments, declarations with type sizes, returns and jumps.
// Object-like macros, enumerators and file-scope constants become the
// file's constants; file-scope variables its globals.
//
// The package is pure Go over the go-tree-sitter binding (the project keeps
// C to the LD_PRELOAD collector). Each parse copies tree-sitter's tree into
// a flat array of nodes (preorder, first child next to its parent, siblings
// linked), leaving comments out; the lowering reads only that array. Since
// every accessor of the binding is a cgo call, and a walk with the binding's
// cursor needs about seven per node, the copy reads the tree's memory in
// place, following the layouts of the runtime the pinned binding compiles
// (tsread.go). Those layouts are checked before use: a language's reader
// must first flatten a sample exactly as the cursor walk does, and every
// tree's root must match what the binding reports of it; otherwise the
// cursor walk is used. The walk asks tree-sitter only for what it cannot
// derive: it takes a node's named flag from its symbol and its rows from its
// byte offsets. Parsers are pooled per language; a parse that exceeds its
// time limit resets its parser before it is reused.
//
// The front-end never rejects a file for its content: code tree-sitter
// cannot parse is skipped and reported in File.Errors, and constructs the
// IR does not model degrade to Unknown expressions or are dropped.
//
// Lowering choices beyond the IR's documented conventions:
//   - Both branches of #if/#ifdef/#else blocks are kept, as an If whose
//     condition is Unknown (its text "defined(X)", "!defined(X)" or the #if
//     expression).
//   - An assignment or ++/-- inside an expression is hoisted like a call
//     (an Assign before the statement); the expression then refers to the
//     assigned variable.
//   - A C++ stream statement "s << a << b" (or ">>") becomes an Assign with
//     Op "<<" (">>"), Target the stream variable, Partial set, and Value the
//     whole Binary expression.
//   - Constructor calls "std::ofstream f(path)" and "T x(args)" of class
//     types become a Call of the type name with Result set, followed by the
//     Decl whose Init is the CallExpr. "new T" is a Call of "new" with the
//     argument SizeOf(T); "new T[n]" a Call of "new[]" with arguments n and
//     SizeOf(T); delete a Call of "delete" or "delete[]".
//   - A statement-level "c ? f() : g()" becomes an If.
//   - exit, _exit, _Exit, quick_exit and abort called as statements become
//     Jump "exit"; throw becomes Jump "throw".
//   - The init clause of a for loop is lowered before the loop (an Assign
//     or Decl), counted loops included. Non-canonical for loops keep their
//     update assignments at the end of the body. A range-for loop has Var
//     set to the element variable (declared at the start of the body) and
//     Cond to the range expression.
//   - Call.Result is set when the call, through parentheses and casts, is
//     the whole value assigned to a whole variable; assignments to elements
//     or members ("a[i] = f()") leave it empty.
//   - Initialisers of file-scope variables and constants are not hoisted:
//     calls in them stay CallExprs.
//   - try blocks are inlined; each catch block becomes an If with an
//     Unknown condition.
//   - A lambda that initialises a local variable ("auto f = [&](int x)
//     {...}") becomes a Func of Kind ir.Lambda named after the enclosing
//     function and the variable ("run$f"), and the variable's Init is a
//     Ref to that name, so calls through the variable are indirect calls
//     Via it. Other lambdas (arguments of std::sort...) are
//     Unknown{"lambda"}.
//   - Type.Size is the size of the base type (one element), as package ir
//     documents; pointer variables have Pointer > 0 and occupy 8 bytes.
package cfront
