package pdg

import (
	"math"
	"strings"
	"sync"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// mathCosts are the operation counts charged for math library calls and
// intrinsics. One operation is about one cycle (sysprof.CyclesPerOp); the
// math library's are the cycles one call takes in a loop over an array of
// arguments (glibc 2.36, x86-64: calls in a loop overlap, so this is less
// than one call's latency).
var mathCosts = sync.OnceValue(func() map[string]float64 {
	return map[string]float64{
		"sqrt": 4, "dsqrt": 4, "sqrtf": 4, "cbrt": 25,
		"exp": 10, "dexp": 10, "expf": 7, "log": 10, "dlog": 10, "logf": 8, "log10": 15, "log2": 9,
		"pow": 28, "powf": 15, "sin": 12, "cos": 12, "tan": 14, "dsin": 12, "dcos": 12, "asin": 12,
		"acos": 12, "atan": 13, "atan2": 25, "sinh": 24, "cosh": 14, "tanh": 24, "erf": 25, "fmod": 19,
		"hypot": 10, "fabs": 1, "abs": 1, "floor": 1, "ceil": 1, "fmin": 1, "fmax": 1,
		"min": 1, "max": 1, "mod": 2, "sign": 1, "dot_product": 2, "matmul": 2, "sum": 1,
		"round": 2, "lround": 2, "llround": 2, "rint": 1, "lrint": 1, "llrint": 1, "nearbyint": 1,
		"trunc": 1, "nint": 2, "anint": 2, "aint": 1, "copysign": 1, "fma": 1, "isnan": 1, "isinf": 1,
		"isfinite": 1, "exp2": 6, "log1p": 13, "expm1": 17,
	}
})

// libraryCosts are the operation counts charged for common C library and
// MPI routines that do no file I/O. They are typical costs of one call on
// short arguments; the routines whose cost grows with an argument are in
// sizedCosts. MPI start-up and tear-down are compute as the collector sees
// them: they are not file I/O.
var libraryCosts = sync.OnceValue(func() map[string]float64 {
	return map[string]float64{
		"strtod": 250, "strtof": 200, "strtold": 300, "atof": 250,
		"strtol": 60, "strtoul": 60, "strtoll": 60, "strtoull": 60, "atoi": 50, "atol": 50, "atoll": 50,
		"sscanf": 800, "sprintf": 800, "snprintf": 800, "vsnprintf": 800, "vsprintf": 800,
		"rand": 20, "random": 20, "rand_r": 15, "drand48": 25, "erand48": 25, "lrand48": 25, "srand": 10,
		"malloc": 60, "calloc": 80, "realloc": 100, "free": 40, "new": 60, "new[]": 60, "delete": 40, "delete[]": 40,
		"strlen": 20, "strcmp": 20, "strncmp": 20, "strcpy": 30, "strncpy": 30, "strcat": 40, "strchr": 20,
		"strdup": 100, "strtok": 40, "isdigit": 2, "isspace": 2, "toupper": 2, "tolower": 2,
		"clock_gettime": 30, "gettimeofday": 30, "time": 10, "clock": 200,
		// C++ string conversions and string streams: a stream's
		// construction sets up its buffer and locale; std::getline on a
		// string stream (a file stream's is I/O) scans a short line.
		"stod": 250, "stof": 200, "stold": 300, "stoi": 60, "stol": 60, "stoll": 60, "stoul": 60, "stoull": 60,
		"to_string": 150, "stringstream": 1000, "istringstream": 1000, "ostringstream": 1000, "getline": 150,
		"regex_search": RegexMatchOps, "regex_match": RegexMatchOps, "regex_replace": 2 * RegexMatchOps,
		"regex": RegexCompileOps, "basic_regex": RegexCompileOps,
		"mpi_init": 2e8, "mpi_init_thread": 2e8, "mpi_finalize": 4e7,
		"mpi_barrier": 2e4, "mpi_bcast": 2e4, "mpi_reduce": 2e4, "mpi_allreduce": 3e4,
		"mpi_gather": 3e4, "mpi_allgather": 3e4, "mpi_scatter": 3e4, "mpi_alltoall": 5e4,
		"mpi_scan": 2e4, "mpi_exscan": 2e4, "mpi_reduce_scatter": 3e4, "mpi_reduce_scatter_block": 3e4,
		"mpi_gatherv": 3e4, "mpi_allgatherv": 3e4, "mpi_scatterv": 3e4, "mpi_alltoallv": 5e4, "mpi_alltoallw": 5e4,
		"mpi_send": 5e3, "mpi_recv": 5e3, "mpi_sendrecv": 8e3, "mpi_wtime": 30,
		"mpi_isend": 3e3, "mpi_irecv": 3e3, "mpi_wait": 3e3, "mpi_waitall": 5e3,
	}
})

// Costs of C++ regular expressions (<regex>): libstdc++ runs a match
// through a backtracking executor that allocates its state on each call,
// about a microsecond on a short line, and compiles a pattern into an
// automaton when the regex is constructed.
const (
	RegexMatchOps   = 2000
	RegexCompileOps = 20000
)

// memoryFormatter is a printf- or scanf-family routine that formats into
// or scans from memory: the argument holding its format, and its cost
// beyond its conversions.
type memoryFormatter struct {
	format int
	scan   bool
	base   float64
}

// StringFormatOps is the cost of a sprintf-family call beyond its
// conversions: glibc sets up a stream over the caller's buffer. The
// scanf family's own cost is in iosem.FormatCost.
const StringFormatOps = 120

// memoryFormatters are costed by the conversions of their format, like
// their stream counterparts (iosem.FormatCost), when the format is known;
// libraryCosts has their cost otherwise.
var memoryFormatters = map[string]memoryFormatter{
	"sprintf": {1, false, StringFormatOps}, "vsprintf": {1, false, StringFormatOps},
	"snprintf": {2, false, StringFormatOps}, "vsnprintf": {2, false, StringFormatOps},
	"sscanf": {1, true, 0}, "vsscanf": {1, true, 0},
}

// sizedCost is the cost of a routine whose work grows with an argument:
// perElem operations per unit of Args[arg] (times Args[arg2] when arg2 is
// not negative), plus a log factor for sorts.
type sizedCost struct {
	arg, arg2 int
	perElem   float64
	nlogn     bool
}

// sizedCosts are the routines whose cost grows with an argument: memory and string
// routines at about 16 bytes per cycle, sorts at n log n comparisons
// through a function pointer.
var sizedCosts = sync.OnceValue(func() map[string]sizedCost {
	return map[string]sizedCost{
		"memcpy": {2, -1, 1.0 / 16, false}, "memmove": {2, -1, 1.0 / 16, false},
		"memset": {2, -1, 1.0 / 16, false}, "memcmp": {2, -1, 1.0 / 16, false},
		"qsort": {1, -1, 20, true},
	}
})

// CallOps is the cost of a call of a function the program defines: the
// call and return, and the entry and exit hooks that the
// -finstrument-functions builds the collector measures run around every
// such call (inlined ones included). It is about 15 ns in the corpus's
// measurements: a loop calling a 13-operation function a million times
// spends 20 ms outside the callee's arithmetic.
const CallOps = 40

// defaultCallCost is the cost of a call of a routine that is neither in
// the tables nor defined by the program.
const defaultCallCost = 20

// callCost returns the operations charged for a call of a math, library
// or unknown routine, with the arguments' values from env for the sized
// ones.
func callCost(c *ir.Call, env *Env) float64 {
	name := strings.ToLower(strings.TrimPrefix(c.Callee, "std::"))
	if v, ok := mathCosts()[name]; ok {
		return v
	}
	if f, ok := memoryFormatters[name]; ok && f.format < len(c.Args) {
		if format, ok := formatText(c.Args[f.format], env); ok {
			return f.base + iosem.FormatCost(iosem.Conversions(format), 0, f.scan)
		}
	}
	if v, ok := libraryCosts()[name]; ok {
		return v
	}
	if b, ok := constructedBytes(c, env); ok {
		return max(float64(b)*sizedCosts()["memset"].perElem, defaultCallCost) // at memset's speed
	}
	if s, ok := sizedCosts()[name]; ok && s.arg >= 0 && s.arg < len(c.Args) {
		n, ok := Eval(c.Args[s.arg], env).Float()
		if ok && s.arg2 >= 0 && s.arg2 < len(c.Args) {
			m, ok2 := Eval(c.Args[s.arg2], env).Float()
			n, ok = n*m, ok2
		}
		if ok && n > 0 {
			cost := n * s.perElem
			if s.nlogn && n > 1 {
				cost *= math.Log2(n)
			}
			return max(cost, defaultCallCost)
		}
	}
	return defaultCallCost
}

// constructedBytes returns the bytes of the elements a container
// constructed with a count holds ("std::vector<Obs> w(n)",
// "std::vector<double> v(n, 0.0)"), all of which it writes. It reports
// false for other calls.
func constructedBytes(c *ir.Call, env *Env) (int64, bool) {
	if c.Result == "" || !isContainer(c.Callee) || len(c.Args) == 0 || len(c.Args) > 2 {
		return 0, false
	}
	e, ok := containerElem(ir.Type{Name: c.Callee})
	n, known := Eval(c.Args[0], env).Int()
	if !ok || !known || n <= 0 {
		return 0, false // a copy, an iterator range, or an unknown count
	}
	size, ok := env.typeSize(e)
	if !ok {
		if size, ok = env.structSize(className(e.Name)); !ok {
			return 0, false
		}
	}
	return n * size, true
}

// Fresh memory: glibc's malloc maps an allocation of MmapThreshold bytes
// or more from the kernel, whose pages fault in on their first write, at
// about 1.5 µs (PageFaultOps cycles) per page on the virtual machines the
// corpus was measured on, eight times the cost of writing the page again.
const (
	MmapThreshold = 128 << 10
	PageBytes     = 4096
	PageFaultOps  = 3000
)

// freshFill returns the page faults of the elements a container
// constructed with a count writes (see constructedBytes) when they are
// fresh memory, and false for other calls.
func freshFill(c *ir.Call, env *Env) (float64, bool) {
	bytes, ok := constructedBytes(c, env)
	if !ok || bytes < MmapThreshold {
		return 0, false
	}
	return math.Ceil(float64(bytes)/PageBytes) * PageFaultOps, true
}

// structSize returns the size of the C or C++ structure name: the sum of
// its data members' sizes (padding aside), when all are known.
func (e *Env) structSize(name string) (int64, bool) {
	members, ok := e.shared.structs[name]
	if !ok || len(members) == 0 {
		return 0, false
	}
	var n int64
	for _, m := range members {
		k, ok := e.typeSize(m.Type)
		if !ok {
			return 0, false
		}
		n += k
	}
	return n, true
}

// divisionOps is the cost of a division or a remainder, several times
// that of other arithmetic.
const divisionOps = 5

// ops counts the operations of an expression: one per operator (divisionOps
// for divisions), plus the
// cost of intrinsic calls kept in expressions (Fortran: intrinsics is
// true). Calls hoisted by the front-end are counted at their Call
// statement, not here.
func ops(x ir.Expr, intrinsics bool) float64 {
	switch x := x.(type) {
	case ir.Binary:
		n := 1.0
		if x.Op == "/" || x.Op == "%" {
			n = divisionOps
		}
		return n + ops(x.L, intrinsics) + ops(x.R, intrinsics)
	case ir.Unary:
		if x.Op == "&" {
			return ops(x.X, intrinsics)
		}
		return 1 + ops(x.X, intrinsics)
	case ir.Cond:
		return 1 + ops(x.C, intrinsics) + ops(x.T, intrinsics) + ops(x.F, intrinsics)
	case ir.Index:
		n := ops(x.X, intrinsics)
		for _, i := range x.Idx {
			n += subscriptOps(i, intrinsics)
		}
		return n
	case ir.Field:
		return ops(x.X, intrinsics)
	case ir.Cast:
		return ops(x.X, intrinsics)
	case ir.CallExpr:
		var n float64
		if intrinsics {
			if c, ok := mathCosts()[strings.ToLower(x.Callee)]; ok {
				n = c
			}
		}
		for _, a := range x.Args {
			n += ops(a, intrinsics)
		}
		return n
	}
	return 0
}

// subscriptOps counts the operations of an array subscript. Compilers
// fold the additions, multiplications and shifts that make an address
// into addressing modes or strength-reduce them into pointer increments
// across a loop (c[j*NX + i + 1]); divisions, remainders, calls, values
// converted to an index and the loads of nested subscripts (a[idx[k]])
// remain.
func subscriptOps(x ir.Expr, intrinsics bool) float64 {
	switch x := x.(type) {
	case ir.Binary:
		if x.Op == "/" || x.Op == "%" {
			return ops(x, intrinsics)
		}
		return subscriptOps(x.L, intrinsics) + subscriptOps(x.R, intrinsics)
	case ir.Unary:
		return subscriptOps(x.X, intrinsics)
	}
	return ops(x, intrinsics) // a converted value (h[(int)(v * scale)]) is computed
}

// Costs, in operations, of the member calls of C++ standard strings and
// containers that the table of routines does not know by name. Searches
// in a string scan a short line; a substring allocates and copies. A
// lookup or insertion in a hash table hashes the key and probes a table
// that rarely fits in the caches; one in an ordered tree walks about
// twenty nodes, comparing keys.
const (
	stringScanOps  = 60
	stringCopyOps  = 80
	hashLookupOps  = 150
	treeLookupOps  = 300
	sequenceAddOps = 5
)

// memberCost returns the operations charged for a call of method on a
// value of the C++ standard type typeName (a string, a hash table, an
// ordered tree, a sequence), or false when it has no such cost.
func memberCost(typeName, method string) (float64, bool) {
	t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(typeName), "const "), "std::")
	switch {
	case t == "string" || strings.HasPrefix(t, "basic_string"):
		switch method {
		case "find", "rfind", "find_first_of", "find_first_not_of", "find_last_of", "find_last_not_of",
			"erase", "insert", "replace", "compare":
			return stringScanOps, true
		case "substr", "append", "operator+=", "push_back", "assign":
			return stringCopyOps, true
		}
	case strings.HasPrefix(t, "unordered_"):
		if lookupMethod(method) {
			return hashLookupOps, true
		}
	case strings.HasPrefix(t, "map<") || strings.HasPrefix(t, "set<") || strings.HasPrefix(t, "multimap<") || strings.HasPrefix(t, "multiset<"):
		if lookupMethod(method) {
			return treeLookupOps, true
		}
	case isContainer(t):
		switch method {
		case "push_back", "emplace_back", "pop_back", "push_front", "emplace_front", "pop_front":
			return sequenceAddOps, true
		}
	}
	return 0, false
}

// lookupMethod reports whether method looks up, inserts or removes a key
// of an associative container.
func lookupMethod(method string) bool {
	switch method {
	case "find", "count", "contains", "at", "insert", "emplace", "try_emplace", "insert_or_assign", "erase", "operator[]",
		"lower_bound", "upper_bound", "equal_range":
		return true
	}
	return false
}

// accessCost returns the operations of the accesses in x that ops does
// not count: subscripts of associative containers (counts[word]), each a
// lookup (memberCost of operator[]), and Fortran intrinsics reducing or
// searching a whole array or section (sum, maxval, maxloc...), by its
// elements.
func (w *walker) accessCost(x ir.Expr) float64 {
	cost := 0.0
	ir.Any(x, func(y ir.Expr) bool {
		switch y := y.(type) {
		case ir.Index:
			if c, ok := memberCost(w.typeName(baseName(y.X)), "operator[]"); ok {
				cost += c
			}
		case ir.CallExpr:
			cost += w.reductionOps(y)
		}
		return false
	})
	return cost
}

// reductionCosts are the operations per element of the Fortran
// intrinsics that reduce or search an array.
var reductionCosts = sync.OnceValue(func() map[string]float64 {
	return map[string]float64{
		"sum": 1, "product": 1, "maxval": 1, "minval": 1, "maxloc": 2, "minloc": 2, "count": 1, "any": 1, "all": 1,
		"dot_product": 2, "norm2": 2, "findloc": 2,
	}
})

// reductionOps returns the operations of a Fortran reduction of an array
// or section of known size (maxloc(prof, 1), sum(series(2, :))), 0 for
// other calls.
func (w *walker) reductionOps(c ir.CallExpr) float64 {
	per, ok := reductionCosts()[strings.ToLower(c.Callee)]
	if !ok || !w.fortran() || len(c.Args) == 0 {
		return 0
	}
	arg := c.Args[0]
	for { // sum(real(t(k, s, :), dp)): the elements of the section converted
		e, ok := arg.(ir.CallExpr)
		if !ok || !elementalIntrinsics[strings.ToLower(e.Callee)] || len(e.Args) == 0 {
			break
		}
		arg, per = e.Args[0], per+1
	}
	v := w.designated(arg)
	if v == nil || len(v.Type.Dims) == 0 {
		// sum(max(0.0_dp, zl - b)): an expression of arrays, element by
		// element.
		if n := w.sectionElems(arg); n > 1 {
			return (per + ops(arg, true)) * float64(n)
		}
		return 0
	}
	n, ok := w.designatedElems(arg, v)
	if !ok || n <= 1 {
		return 0
	}
	return per * float64(n)
}

// elementalIntrinsics are the Fortran intrinsics converting or mapping an
// array argument element by element, whose result a reduction takes.
var elementalIntrinsics = map[string]bool{
	"real": true, "dble": true, "int": true, "nint": true, "abs": true, "float": true, "sngl": true,
	"sqrt": true, "exp": true, "log": true, "aimag": true, "conjg": true,
}
