package features

import (
	"github.com/iolens/iolens/static/ir"
)

// DefaultSmallThreshold is the size below which an access is small (P13).
const DefaultSmallThreshold = 4096

// System holds the system-side inputs of the model.
type System struct {
	Procs          int     // processes of the run
	StorageTargets int     // storage targets (OSTs) the files are spread over; 0: one
	StorageScore   float64 // storage class score (P15)
	// SmallThreshold is the size in bytes below which an access is small;
	// 0 means DefaultSmallThreshold.
	SmallThreshold int64
}

func (s System) withDefaults() System {
	if s.SmallThreshold <= 0 {
		s.SmallThreshold = DefaultSmallThreshold
	}
	return s
}

// procsPerTarget is P14.
func (s System) procsPerTarget() float64 {
	if s.StorageTargets <= 0 {
		return float64(s.Procs)
	}
	return float64(s.Procs) / float64(s.StorageTargets)
}

// The kinds of blocks.
const (
	FileBlock     = "file"
	FunctionBlock = "function"
	LoopBlock     = "loop"
	CallBlock     = "call"
)

// Block is a code block with its parameters: a file, a function, a loop,
// or a call (of a library I/O routine, or of a program function).
//
// Params count what one invocation of the enclosing function does:
// a call block inside loops of 10 and 100 iterations counts 1000 calls,
// and a function block counts one invocation of the function, its callees
// included. A file block counts what the functions defined in the file do
// themselves (callees excluded) over the whole run from the entry, each
// weighed by how often it is invoked; functions not reachable from the
// entry are reported as blocks but not counted in their file's totals.
//
// Branches: the alternatives of a two-way branch whose condition is not
// a compile-time constant count for the parent weighed by their odds
// (pdg.Node.Odds), and their calls count as Conditional (P5). Of the
// alternatives of a branch on the rank or of a switch, the heaviest in
// I/O (calls, then bytes, then work) counts; blocks inside the others
// are still listed, with Conditional set and their own parameters, but
// add nothing to their parents.
type Block struct {
	Kind    string // FileBlock, FunctionBlock, LoopBlock, CallBlock
	Name    string // file path, function name, loop kind, callee
	File    string
	Line    int
	EndLine int
	Params  Params
	Causes  []Cause
	// Children are the functions of a file, and the loops and calls of a
	// function or loop (those of branch alternatives included).
	Children []Block
	// Trip and TripSource describe a loop block's trip count.
	Trip       int64  `json:",omitempty"`
	TripSource string `json:",omitempty"`
	// Conditional marks blocks under a branch whose condition is not known.
	Conditional bool `json:",omitempty"`
	// Unreachable marks functions not reached from the program's entry.
	Unreachable bool `json:",omitempty"`
	// Invocations is, for a function block, how many times the function
	// runs in one run of the program, all its call contexts together (0
	// when it is not reached); Run the parameters of its own statements,
	// its callees' left out, summed over those invocations.
	Invocations float64 `json:",omitempty"`
	Run         Params  `json:"-"`
}

// Cause is a dominant reason for a block's I/O cost, located so that a
// fix can patch it.
type Cause struct {
	Code     string  // e.g. "flush-in-loop"; see the Code* constants
	Message  string  // human-readable, e.g. "fflush inside a loop of 2000 iterations"
	Weight   float64 // occurrences per invocation of the block: calls, or items for formatted-io
	Routine  string  // the I/O routine or statement
	FileName string  `json:",omitempty"` // the file accessed, when known
	Call     ir.Pos  // the call
	// Loop is the innermost loop around the call (zero when none), with
	// its last line and trip count.
	Loop    ir.Pos
	LoopEnd int   `json:",omitempty"`
	Trip    int64 `json:",omitempty"`
	// Via is, for a call made in a function that a loop calls (fflush in
	// report(), called once per step), that function: the loop is the
	// caller's.
	Via string `json:",omitempty"`

	bytes int64 // bytes per call, for messages
	op    string
	alt   string // the collective routine, for independent-* causes
	seek  string // the seek before a random access
}
