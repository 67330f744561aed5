package features

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/pdg"
)

// The cause codes.
const (
	// CodeFlushInLoop: fflush, fsync, MPI_File_sync, FLUSH, std::endl...
	// executed in every iteration of a loop.
	CodeFlushInLoop = "flush-in-loop"
	// CodeOpenCloseInLoop: a file opened or closed in every iteration.
	CodeOpenCloseInLoop = "open-close-in-loop"
	// CodeMetadataInLoop: stat, unlink, set_view... in every iteration.
	CodeMetadataInLoop = "metadata-in-loop"
	// CodeSmallWritesInLoop, CodeSmallReadsInLoop: buffered transfers
	// smaller than the small threshold in a loop.
	CodeSmallWritesInLoop = "small-writes-in-loop"
	CodeSmallReadsInLoop  = "small-reads-in-loop"
	// CodeUnbufferedSmallIO: small transfers that reach the kernel each
	// time (POSIX read/write, unbuffered STDIO) in a loop.
	CodeUnbufferedSmallIO = "unbuffered-small-io"
	// CodeRandomAccess: accesses after a seek or at explicit offsets.
	CodeRandomAccess = "random-access"
	// CodeIndependentMPIIO, CodeIndependentHDF5, CodeIndependentPnetCDF:
	// independent accesses to a file opened by all processes, where a
	// collective form exists.
	CodeIndependentMPIIO   = "independent-mpiio"
	CodeIndependentHDF5    = "independent-hdf5"
	CodeIndependentPnetCDF = "independent-pnetcdf"
	// CodeFormattedIO: many items converted to text (fprintf, formatted
	// WRITE, <<) per invocation.
	CodeFormattedIO = "formatted-io"
)

// FormattedItemsThreshold is the number of formatted items per invocation
// of a function from which formatted I/O is a cause.
const FormattedItemsThreshold = 1000

// maxCauses bounds the causes kept per block.
const maxCauses = 8

// causesOf returns the causes one execution of an I/O call contributes,
// each of weight 1 (or its items for formatted-io); loops scale them. loop
// is the innermost loop around the call within its function and mult the
// product of the trip counts around it.
func causesOf(io *pdg.IO, n *pdg.Node, loop *pdg.Node, mult float64, sys System) []Cause {
	base := Cause{Routine: io.Routine, FileName: io.FileLabel(), Call: n.Pos, Weight: 1,
		bytes: io.Bytes, op: string(io.Sem.Op)}
	if loop != nil {
		base.Loop, base.LoopEnd, base.Trip = loop.Pos, loop.EndLine, loop.Trip
	}
	with := func(code string) Cause {
		c := base
		c.Code = code
		return c
	}
	var out []Cause
	op := io.Sem.Op
	inLoop := loop != nil && loop.Trip > 1
	switch {
	case inLoop && (op.IsFlush() || io.Flushes):
		out = append(out, with(CodeFlushInLoop))
	case inLoop && (op == iosem.Open || op == iosem.Close) && io.File != nil && io.File.Kind == pdg.FileHandle:
		out = append(out, with(CodeOpenCloseInLoop))
	case inLoop && op == iosem.Stat:
		out = append(out, with(CodeMetadataInLoop))
	}
	if !op.IsData() {
		return out
	}
	if io.Random {
		c := with(CodeRandomAccess)
		c.seek = io.SeekedBy
		out = append(out, c)
	}
	if c, ok := independent(io, with); ok {
		out = append(out, c)
	}
	if inLoop && io.Small(sys.SmallThreshold) {
		switch {
		case io.Unbuffered:
			out = append(out, with(CodeUnbufferedSmallIO))
		case op == iosem.Write:
			out = append(out, with(CodeSmallWritesInLoop))
		default:
			out = append(out, with(CodeSmallReadsInLoop))
		}
	}
	if !io.Binary && io.Items > 0 && float64(io.Items)*mult >= FormattedItemsThreshold {
		c := with(CodeFormattedIO)
		c.Weight = float64(io.Items)
		out = append(out, c)
	}
	return out
}

// independent returns the cause of an independent access to a file that
// all processes opened, when a collective form exists.
func independent(io *pdg.IO, with func(string) Cause) (Cause, bool) {
	if !io.Parallel || io.Collective || io.Async {
		return Cause{}, false
	}
	var c Cause
	switch io.Sem.Interface {
	case iosem.MPIIO, iosem.PnetCDF:
		alt, ok := iosem.CollectiveVariant(io.Sem.Routine)
		if !ok {
			return Cause{}, false
		}
		code := CodeIndependentMPIIO
		if io.Sem.Interface == iosem.PnetCDF {
			code = CodeIndependentPnetCDF
		}
		c = with(code)
		c.alt = alt
	case iosem.HDF5:
		c = with(CodeIndependentHDF5)
		c.alt = "H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE)"
	default:
		return Cause{}, false
	}
	return c, true
}

// describe writes the message of a cause from its fields and weight.
func describe(c Cause) string {
	n := count(c.Weight)
	routine := c.Routine
	if c.Via != "" {
		routine += " in " + c.Via + "()"
	}
	switch c.Code {
	case CodeFlushInLoop, CodeOpenCloseInLoop, CodeMetadataInLoop:
		return fmt.Sprintf("%s inside a loop of %d iterations (%s calls)", routine, c.Trip, n)
	case CodeSmallWritesInLoop, CodeSmallReadsInLoop:
		return fmt.Sprintf("%s %ss (%s) in a loop of %d iterations (%s calls)",
			size(c.bytes), c.op, routine, c.Trip, n)
	case CodeUnbufferedSmallIO:
		return fmt.Sprintf("unbuffered %s %ss (%s) in a loop of %d iterations (%s calls)",
			size(c.bytes), c.op, routine, c.Trip, n)
	case CodeRandomAccess:
		if c.seek != "" {
			return fmt.Sprintf("random seeks before %ss (%s %s)", c.op, n, c.seek)
		}
		return fmt.Sprintf("random accesses: %ss at explicit offsets (%s %s)", c.op, n, c.Routine)
	case CodeIndependentMPIIO:
		return fmt.Sprintf("independent MPI-IO %ss (%s) where collective ones exist (%s), %s calls",
			c.op, c.Routine, c.alt, n)
	case CodeIndependentPnetCDF:
		return fmt.Sprintf("independent PnetCDF %ss (%s) where collective ones exist (%s), %s calls",
			c.op, c.Routine, c.alt, n)
	case CodeIndependentHDF5:
		return fmt.Sprintf("independent HDF5 %ss (%s) on a file opened with the MPI-IO driver; use %s, %s calls",
			c.op, c.Routine, c.alt, n)
	case CodeFormattedIO:
		return fmt.Sprintf("formatted %s of %s items", c.Routine, n)
	}
	return c.Code
}

// finish merges the causes of the same code at the same call, writes
// their messages and keeps the heaviest.
func finish(cs []Cause) []Cause {
	if len(cs) == 0 {
		return nil
	}
	// Merge the causes of the same code at the same call: by a linear
	// search while there are few, as in most blocks, else by an index.
	type key struct {
		code, file string
		line       int
	}
	var out []Cause
	var idx map[key]int
	for _, c := range cs {
		k := key{c.Code, c.Call.File, c.Call.Line}
		i := -1
		if idx != nil {
			if j, ok := idx[k]; ok {
				i = j
			}
		} else {
			i = slices.IndexFunc(out, func(o Cause) bool { return key{o.Code, o.Call.File, o.Call.Line} == k })
		}
		if i >= 0 {
			out[i].Weight += c.Weight
			continue
		}
		out = append(out, c)
		if idx == nil && len(out) > 32 {
			idx = make(map[key]int, 2*len(out))
			for j, o := range out {
				idx[key{o.Code, o.Call.File, o.Call.Line}] = j
			}
		} else if idx != nil {
			idx[k] = len(out) - 1
		}
	}
	slices.SortStableFunc(out, func(a, b Cause) int { return cmp.Compare(b.Weight, a.Weight) })
	if len(out) > maxCauses {
		out = out[:maxCauses]
	}
	for i := range out {
		out[i].Message = describe(out[i])
	}
	return out
}

// count spells a count with thousands separators: 1,000,000.
func count(f float64) string {
	s := strconv.FormatInt(int64(f+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// size spells a byte count: 80 B, 4 KiB, 1.5 MiB.
func size(b int64) string {
	units := []string{"B", "KiB", "MiB", "GiB"}
	f := float64(b)
	u := 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d %s", int64(f), units[u])
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// loopCodes are the causes that exist only because of a loop.
var loopCodes = map[string]bool{
	CodeFlushInLoop: true, CodeOpenCloseInLoop: true, CodeMetadataInLoop: true,
	CodeSmallWritesInLoop: true, CodeSmallReadsInLoop: true, CodeUnbufferedSmallIO: true,
}

// maxViaDepth bounds how deep calls are followed from a loop for causes.
const maxViaDepth = 4

// viaCauses returns the loop causes of the I/O calls that one execution
// of a call of function f, made in loop, performs outside f's own loops
// (and outside those of the functions f calls, maxViaDepth deep): fflush
// in a report() called once per step is a flush in the step loop.
func viaCauses(f *pdg.Node, loop *pdg.Node, mult float64, sys System) []Cause {
	var out []Cause
	var walk func(nodes []*pdg.Node, via string, depth int)
	walk = func(nodes []*pdg.Node, via string, depth int) {
		for _, n := range nodes {
			switch n.Kind {
			case pdg.IONode:
				for _, c := range causesOf(n.IO, n, loop, mult, sys) {
					if loopCodes[c.Code] {
						c.Via = via
						out = append(out, c)
					}
				}
			case pdg.BranchNode:
				if n.Taken >= 0 && n.Taken < len(n.Children) {
					walk(n.Children[n.Taken:n.Taken+1], via, depth) // the others never run
				} else {
					walk(n.Children, via, depth)
				}
			case pdg.AltNode:
				walk(n.Children, via, depth)
			case pdg.CallNode:
				if n.Target != nil && depth < maxViaDepth {
					walk(n.Target.Children, n.Target.Name, depth+1)
				}
			}
		}
	}
	walk(f.Children, f.Name, 1)
	return out
}
