// Package pdg builds the program dependency graph of the Vidya method: the
// functions of a program, their loops with trip counts, their branches with
// one node per alternative, their calls (resolved to program functions, or
// decorated as library I/O calls by package iosem, or left unknown), and
// the compute work of their statements.
//
// Functions are analysed per calling context: when a call passes constants
// or file handles, the callee is analysed with its parameters bound to them
// (up to Options.MaxContexts contexts per function; further calls share the
// generic context in which parameters are unknown). This carries sizes,
// trip counts and open files across calls. A context holds:
//
//   - the values of the arguments, bound to the parameters (C and C++
//     parameters by value or by reference, Fortran dummy arguments):
//     literals, constants (#define, const, enumerators, PARAMETERs of the
//     program or of a module), variables assigned them, expressions of
//     them, and values from the program arguments (Options.Args);
//   - the extents of the arrays passed to parameters that take them from
//     their argument (Fortran assumed-shape and assumed-size dummies, C
//     arrays without extent, C++ containers), known from declarations,
//     ALLOCATE or the container's construction, so that SIZE, LBOUND,
//     UBOUND, v.size() and range-for loops have counts in the callee;
//   - for a Fortran internal procedure, the values and allocated extents
//     of the host's variables it refers to (host association); the host's
//     PARAMETERs and declarations are visible in every context.
//
// Loops whose counts follow from these get TripParameter, unless they
// depend on the program arguments (TripArgument). After a call, the
// caller forgets what the callee may change (see effects): the variables
// it passes by reference to parameters the callee assigns, reads into or
// passes on, the containers it may resize and the host variables an
// internal procedure assigns; so do loops around such calls.
package pdg

import (
	"github.com/iolens/iolens/static/ir"
)

// Kind is the kind of a graph node.
type Kind string

// The node kinds.
const (
	FileNode    Kind = "file"        // a source file; children: its functions
	FuncNode    Kind = "function"    // a function in one calling context
	LoopNode    Kind = "loop"        // a loop; Trip and TripSource say how often its body runs
	BranchNode  Kind = "branch"      // an if or switch; children: one AltNode per alternative
	AltNode     Kind = "alternative" // one alternative of a branch
	CallNode    Kind = "call"        // a call of a program function; Target is the callee
	IONode      Kind = "io"          // a library I/O call or Fortran I/O statement; IO decorates it
	UnknownNode Kind = "unknown"     // an unresolved or indirect call
)

// TripSource tells how a loop's trip count was found.
type TripSource string

// The sources of trip counts.
const (
	TripLiteral    TripSource = "literal"    // bounds written as numbers
	TripConstant   TripSource = "constant"   // #define, const, enumerator, PARAMETER
	TripPropagated TripSource = "propagated" // variables assigned constants
	// TripParameter is a bound known only in the calling context: it
	// depends on a parameter (C/C++ parameter, Fortran dummy argument)
	// bound to the value a call passes — a literal, a constant, a
	// PARAMETER, a propagated variable or an expression of them, or the
	// extents of an array argument (SIZE, UBOUND, a(n) dummies,
	// v.size()) — or on a host variable a Fortran internal procedure
	// sees by host association. Such a loop has this count in the
	// function instance of that context (Node.Context); values from the
	// program arguments keep TripArgument through calls.
	TripParameter TripSource = "parameter"
	TripArgument  TripSource = "argument" // program arguments (Options.Args)
	// TripBound is the known side of a min or max (CHUNK in "n - i <
	// CHUNK ? n - i : CHUNK"), or the mean of a constant table at an
	// unknown index (sizes[r % 6]), or a bound holding the remainder of
	// a draw, at its mean (1 + rng() % 6: 3.5).
	TripBound   TripSource = "bound"
	TripDefault TripSource = "default" // unknown: Options.DefaultTrip, DefaultWhileTrip or DefaultReadTrip
	// TripOdds is a loop without a condition that leaves on one test
	// whose odds p the analysis knows: 1/p times.
	TripOdds TripSource = "odds"
	// TripTransfer is a loop that repeats a read or write until the
	// request is complete: once, as the call moves all it is asked for.
	TripTransfer TripSource = "transfer"
	// TripWritten is a loop that reads to its end a file the program
	// wrote earlier: as many times as the file has records or lines, or
	// as its bytes hold requests.
	TripWritten TripSource = "written"
)

// Default options.
const (
	// DefaultTrip is the trip count assumed for a counted loop (C for,
	// Fortran DO, range-for) whose bounds are unknown. Such loops usually
	// run over data or time steps; 100 makes an I/O call inside one weigh
	// two orders of magnitude more than one outside, which is how such
	// code behaves at scale, without dwarfing loops whose counts are known.
	DefaultTrip = 100
	// DefaultWhileTrip is the trip count assumed for a loop with only a
	// condition (while, do-while, Fortran DO WHILE and DO without control,
	// for(;;)) when no counter is found. These loops mostly retry, poll,
	// converge, serve messages or read to the end of input; 20 keeps
	// their body visible while admitting that nothing is known (of 3,
	// 10, 20, 30, 40, 60 and 100, it predicted the training programs
	// left out best).
	DefaultWhileTrip = 20
	// DefaultReadTrip is the trip count assumed for a condition-only
	// loop whose condition reads data (while (fgets(...)), while ((n =
	// read(...)) > 0)): such loops run to the end of a file, chunk by
	// chunk or record by record, and files hold many of them.
	DefaultReadTrip = 1000
	// DefaultRowTrip is the trip count assumed for a loop over one row of
	// a compressed sparse matrix or one vertex's adjacency list ("for (k =
	// rowptr[i]; k < rowptr[i + 1]; k++)") whose pointers are not known,
	// and for a C++ range-for of unknown size over a container held in
	// one element of another ("for (int r : papers[i].refs)"):
	// the rows of sparse matrices and the vertices of the graphs programs
	// store this way hold a few to a few tens of entries.
	DefaultRowTrip = 8
	// DefaultReadBytes is the size assumed for a file read to its end
	// by requests of known size: a loop reading 64 KiB blocks runs
	// DefaultReadBytes / 64 KiB times (at most DefaultReadTrip). A
	// record or a line per iteration stays at DefaultReadTrip.
	DefaultReadBytes = 4 << 20
	// DefaultPeriod is the period assumed for a divisibility test whose
	// divisor is unknown (step % every == 0): periodic output, a
	// checkpoint every so many steps, happens once in ten iterations of a
	// loop of DefaultTrip, rather than on every one.
	DefaultPeriod = 10
	// UnknownOdds is the share of executions taking either side of a
	// two-way branch whose condition the analysis cannot weigh: as likely
	// one way as the other.
	UnknownOdds = 0.5
	// DefaultIncrement is the growth assumed for a counter increased by
	// an unknown amount (len += n, n a formatted record's length) when a
	// test compares it with a known bound: a buffer of K bytes filled by
	// such records is flushed once in K/64 of them.
	DefaultIncrement = 64
	// DefaultMaxDepth bounds the call depth followed from a root.
	DefaultMaxDepth = 32
	// DefaultMaxContexts bounds the calling contexts analysed per function.
	DefaultMaxContexts = 8
)

// Options control Build.
type Options struct {
	// Entry is the function the program starts in. When empty, it is
	// "main", or else the Fortran PROGRAM.
	Entry string
	// Args are the program arguments: they give argc, argv[i] (and so
	// atoi(argv[1]), strtol...), and Fortran's COMMAND_ARGUMENT_COUNT,
	// GET_COMMAND_ARGUMENT and GETARG. Nil means unknown.
	Args []string
	// Procs is the number of MPI processes the program runs with, which
	// MPI_Comm_size returns; 0 means unknown.
	Procs int
	// DefaultTrip is the trip count of counted loops with unknown bounds;
	// 0 means the package's DefaultTrip.
	DefaultTrip int
	// DefaultWhileTrip is the trip count of condition-only loops without a
	// recognisable counter; 0 means the package's DefaultWhileTrip.
	DefaultWhileTrip int
	// DefaultReadTrip is the trip count of condition-only loops whose
	// condition reads data; 0 means the package's DefaultReadTrip.
	DefaultReadTrip int
	// MaxDepth bounds the depth of calls followed (recursion is cut
	// anyway); 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxContexts bounds the calling contexts per function; 0 means
	// DefaultMaxContexts.
	MaxContexts int
}

func (o Options) withDefaults() Options {
	if o.DefaultTrip <= 0 {
		o.DefaultTrip = DefaultTrip
	}
	if o.DefaultWhileTrip <= 0 {
		o.DefaultWhileTrip = DefaultWhileTrip
	}
	if o.DefaultReadTrip <= 0 {
		o.DefaultReadTrip = DefaultReadTrip
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxContexts <= 0 {
		o.MaxContexts = DefaultMaxContexts
	}
	return o
}

// Graph is the program dependency graph of a program.
type Graph struct {
	// Files has one FileNode per source file, in program order; each
	// holds one FuncNode per function of the file (the context in which
	// the function was first reached).
	Files []*Node
	// Entry is the entry function, or nil when the program has none.
	Entry *Node
	// Roots are the functions analysed as roots: Entry first, then the
	// functions not reachable from it (or every uncalled function when
	// there is no entry).
	Roots []*Node
	// Funcs are all function nodes, every context included.
	Funcs []*Node
	// Options are the options used, defaults filled in.
	Options Options
}

// Node is a node of the graph.
type Node struct {
	Kind     Kind
	Name     string // function or callee name, loop kind, "then", "else", "case 2"
	Pos      ir.Pos
	EndLine  int
	Children []*Node

	// Work is the number of compute operations of the statements directly
	// in the node (for a loop: per iteration, its condition and step).
	Work float64
	// Stack is the bytes of a function's parameters and local variables.
	Stack float64
	// Space is the bytes allocated by the node (malloc, ALLOCATE, global
	// arrays of a file).
	Space float64

	// Loops.
	LoopKind   ir.LoopKind
	Trip       int64
	TripSource TripSource

	// Taken is, for a branch whose condition is a compile-time constant,
	// the index of the alternative that runs; -1 otherwise.
	Taken int
	// Odds is, for a two-way branch whose condition is not a constant,
	// the share of its executions that take the first alternative: 1/K
	// for a divisibility test ("it % K == 0", "MOD(it, K) == 0"), a
	// counter reaching a bound, once per loop run for a side that leaves
	// the loop, UnknownOdds when nothing is known; 0 for a branch on the
	// rank (RankSplit) and for switches, whose heaviest alternative
	// counts.
	Odds float64
	// RankSplit marks a branch whose condition tests the process's MPI
	// rank (the variable MPI_Comm_rank set): its alternatives are the
	// roles of different ranks, which wait for each other's messages.
	RankSplit bool

	// Calls.
	Target   *Node  // CallNode: the callee's function node (nil when cut)
	Cut      string // why a call was not followed: "recursion" or "depth"
	Indirect bool   // UnknownNode: a call through a pointer
	IO       *IO    // IONode

	// Functions.
	Func      *ir.Func
	Path      string // the source file defining the function
	Lang      ir.Lang
	Context   string // the calling context of this instance (see callContext.key); "" for the generic one
	Reachable bool   // reached from the entry
	// Result is the value the function returns in this context: the
	// value of the last statement of its body when that is a return
	// (earlier returns are most often error paths) of a number that is
	// not negative (-1 is an error code) or of a handle, else unknown.
	Result Value

	// writes is what one call of the instance writes into files it did
	// not open.
	writes writeLog
	// outs are the values a Fortran procedure instance leaves in its
	// dummy arguments, by position, when it returns (unknown when not
	// known): its caller's actual arguments take them.
	outs []Value
	// outShapes are the extents of the arrays a Fortran procedure
	// instance leaves in its dummy arguments, by position (ALLOCATE of an
	// allocatable dummy): its caller's actual arguments take them.
	outShapes []shape
	// memberOuts are what one call of the instance does to the counters
	// of the structures its pointer parameters point to, by parameter
	// and member (see memberChange).
	memberOuts map[int]map[string]memberChange
	// globalsLeft are the values the instance leaves in the followed
	// globals it may assign (see globalUses), by name.
	globalsLeft map[string]Value
	// globalShapesLeft are the extents of the arrays among them, when
	// known at the end of the instance.
	globalShapesLeft map[string]shape
	// resultShape is the extents of the container or array the instance
	// returns, when known.
	resultShape shape
}
