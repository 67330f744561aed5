package fix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/ir"
)

// mpiioCollective are the independent MPI-IO routines whose collective
// form takes the same arguments.
var mpiioCollective = map[string]bool{
	"mpi_file_write_at": true, "mpi_file_read_at": true, "mpi_file_write": true, "mpi_file_read": true,
}

// allSuffix spells the _all suffix in the case of routine.
func allSuffix(routine string) string {
	if routine == strings.ToUpper(routine) {
		return "_ALL"
	}
	return "_all"
}

// collectiveSite locates the call of an independent access and checks
// that every process makes it.
func (f *fixer) collectiveSite(s *source, c static.Cause) (site, call, string) {
	use, ok := f.findAt(c.File, c.Line, isCall(s.lang, c.Routine))
	if !ok {
		return site{}, call{}, fmt.Sprintf("the call of %s is not located exactly", c.Routine)
	}
	tc, ok := s.callAt(c.Line, use.stmt.(*ir.Call).Callee)
	if !ok {
		return site{}, call{}, fmt.Sprintf("the call of %s is not located exactly on its line", c.Routine)
	}
	if why := f.rankDependent(use, map[*ir.Func]bool{}); why != "" {
		return site{}, call{}, "not every process makes the call: " + why
	}
	return use, tc, ""
}

// mpiio makes an independent MPI-IO access collective.
func (f *fixer) mpiio(s *source, c static.Cause) (Fix, string) {
	if !mpiioCollective[strings.ToLower(c.Routine)] {
		return Fix{}, fmt.Sprintf("no collective form of %s with the same arguments", c.Routine)
	}
	use, tc, why := f.collectiveSite(s, c)
	if why != "" {
		return Fix{}, why
	}
	if fh, ok := refName(use.stmt.(*ir.Call).Args[0], false); ok && f.openedOnSelf(fh) {
		return Fix{}, fmt.Sprintf("%s is opened on MPI_COMM_SELF", fh)
	}
	return Fix{Pattern: PatternCollectiveMPIIO, key: fmt.Sprintf("mpiio:%s:%d", c.File, c.Line),
		Message: fmt.Sprintf("call %s%s instead of %s", c.Routine, allSuffix(c.Routine), c.Routine),
		edits:   []edit{{off: tc.nameEnd, end: tc.nameEnd, text: allSuffix(c.Routine)}}}, ""
}

// openedOnSelf tells whether a file handle of that name is opened with
// MPI_COMM_SELF anywhere in the program.
func (f *fixer) openedOnSelf(fh string) bool {
	return len(f.calls(func(fl *ir.File, c *ir.Call) bool {
		if !sameName(fl.Lang, c.Callee, "MPI_File_open") || len(c.Args) < 5 {
			return false
		}
		n, ok := refName(c.Args[4], fl.Lang != ir.Fortran)
		comm, _ := refName(c.Args[0], false)
		return ok && n == fh && strings.EqualFold(comm, "MPI_COMM_SELF")
	})) > 0
}

// hdf5 gives an independent H5Dwrite or H5Dread of a program that uses
// parallel HDF5 a collective transfer property list, created before the
// loop around it (or the statement) and closed after it.
func (f *fixer) hdf5(s *source, c static.Cause) (Fix, string) {
	if s.lang == ir.Fortran || c.Routine != "H5Dwrite" && c.Routine != "H5Dread" {
		return Fix{}, fmt.Sprintf("no automatic fix for %s", c.Routine)
	}
	if len(f.calls(func(fl *ir.File, c *ir.Call) bool { return c.Callee == "H5Pset_fapl_mpio" })) == 0 {
		return Fix{}, "the program does not open files with the MPI-IO driver (no H5Pset_fapl_mpio)"
	}
	use, tc, why := f.collectiveSite(s, c)
	if why != "" {
		return Fix{}, why
	}
	args := use.stmt.(*ir.Call).Args
	if len(args) != 6 || len(tc.args) != 6 {
		return Fix{}, fmt.Sprintf("%s does not have 6 arguments", c.Routine)
	}
	if n, ok := refName(args[4], false); !ok || n != "H5P_DEFAULT" || s.textOf(tc.args[4]) != "H5P_DEFAULT" {
		return Fix{}, "the transfer property list is not H5P_DEFAULT"
	}
	first, last := c.Line, 0
	if loop := use.innerLoop(); loop != nil {
		if !s.loopEndsAlone(loop, use) {
			return Fix{}, fmt.Sprintf("the end of the loop at line %d is not located exactly", loop.Line)
		}
		first, last = loop.Line, loop.EndLine
	} else if end, ok := s.statementEnd(tc.name); ok {
		last = end
	}
	if last == 0 || !s.boundary(first) {
		return Fix{}, fmt.Sprintf("no statement boundary before line %d", first)
	}
	xfer := s.freshName("xfer", f.taken)
	ind := s.indent(first)
	off, pre := s.afterLine(last)
	return Fix{Pattern: PatternCollectiveHDF5, key: fmt.Sprintf("hdf5:%s:%d", c.File, c.Line),
		Message: fmt.Sprintf("collective transfer property list for %s", c.Routine),
		edits: []edit{
			{off: s.lineStart(first), end: s.lineStart(first), text: s.comment(ind, "iolens: collective MPI-IO transfers for "+c.Routine) +
				fmt.Sprintf("%shid_t %s = H5Pcreate(H5P_DATASET_XFER);\n%sH5Pset_dxpl_mpio(%s, H5FD_MPIO_COLLECTIVE);\n", ind, xfer, ind, xfer)},
			{off: tc.args[4].off, end: tc.args[4].end, text: xfer},
			{off: off, end: off, text: fmt.Sprintf("%s%sH5Pclose(%s);\n", pre, ind, xfer)},
		}}, ""
}

// pnetcdfData matches the PnetCDF data routines with a collective form.
var pnetcdfData = lazyRegexp(`^ncmpi_(put|get)_var[1asmn]?(_[a-z]+)?$`)

// indepDataStmt is a statement entering or leaving PnetCDF's independent
// data mode.
var indepDataStmt = lazyRegexp(`^ncmpi_(begin|end)_indep_data\s*\(.*\)\s*;$`)

// pnetcdf makes the independent PnetCDF accesses between a
// ncmpi_begin_indep_data and ncmpi_end_indep_data of the same block
// collective and removes the two calls, when every access between them
// can be made collective.
func (f *fixer) pnetcdf(s *source, c static.Cause) (Fix, string) {
	if s.lang == ir.Fortran || !pnetcdfData().MatchString(c.Routine) || strings.HasSuffix(c.Routine, "_all") {
		return Fix{}, fmt.Sprintf("no automatic fix for %s", c.Routine)
	}
	use, _, why := f.collectiveSite(s, c)
	if why != "" {
		return Fix{}, why
	}
	begin, end, region, why := f.indepRegion(s, use)
	if why != "" {
		return Fix{}, why
	}
	edits := []edit{
		{off: s.lineStart(begin.Line), end: s.lineStart(begin.Line + 1),
			text: s.comment(s.indent(begin.Line), "iolens: collective data mode: every process makes the ncmpi_*_all calls below")},
		{off: s.lineStart(end.Line), end: s.lineStart(end.Line + 1)},
	}
	var why2 string
	walk(region, nil, func(x site) {
		cl, ok := x.stmt.(*ir.Call)
		if !ok || why2 != "" {
			return
		}
		if _, fn := f.funcByName(cl.Callee); fn != nil {
			why2 = fmt.Sprintf("%s, called in independent data mode, may access data", cl.Callee)
			return
		}
		if !strings.HasPrefix(cl.Callee, "ncmpi_") || strings.HasPrefix(cl.Callee, "ncmpi_inq") {
			return
		}
		if !pnetcdfData().MatchString(cl.Callee) || strings.HasSuffix(cl.Callee, "_all") {
			why2 = fmt.Sprintf("%s (line %d) has no collective form", cl.Callee, cl.Line)
			return
		}
		x.file, x.fn = use.file, use.fn
		tc, ok := s.callAt(cl.Line, cl.Callee)
		if !ok {
			why2 = fmt.Sprintf("the call of %s at line %d is not located exactly", cl.Callee, cl.Line)
			return
		}
		if w := f.rankDependent(x, map[*ir.Func]bool{}); w != "" {
			why2 = fmt.Sprintf("not every process makes the call at line %d: %s", cl.Line, w)
			return
		}
		edits = append(edits, edit{off: tc.nameEnd, end: tc.nameEnd, text: "_all"})
	})
	if why2 != "" {
		return Fix{}, why2
	}
	return Fix{Pattern: PatternCollectivePnetCDF, key: fmt.Sprintf("pnetcdf:%s:%d", c.File, begin.Line), edits: edits,
		Message: fmt.Sprintf("collective data mode from line %d to line %d", begin.Line, end.Line)}, ""
}

// indepCall is a begin or end of independent data mode.
type indepCall struct {
	Line, index int
}

// indepRegion returns the ncmpi_begin_indep_data and ncmpi_end_indep_data
// calls around the access in the body of its function (not nested in a
// loop or branch) and the statements between them.
func (f *fixer) indepRegion(s *source, use site) (begin, end indepCall, region ir.Block, why string) {
	top := use.stmt
	if len(use.path) > 0 {
		top = use.path[0]
	}
	outer, at := use.fn.Body, slices.Index(use.fn.Body, top)
	if at < 0 {
		return begin, end, nil, "the access is not located in its function"
	}
	begin.index, end.index = -1, -1
	for i := at - 1; i >= 0 && begin.index < 0; i-- {
		if cl, ok := outer[i].(*ir.Call); ok && cl.Callee == "ncmpi_begin_indep_data" {
			begin = indepCall{cl.Line, i}
		}
	}
	for i := at + 1; i < len(outer) && end.index < 0; i++ {
		if cl, ok := outer[i].(*ir.Call); ok && cl.Callee == "ncmpi_end_indep_data" {
			end = indepCall{cl.Line, i}
		}
	}
	if begin.index < 0 || end.index < 0 {
		return begin, end, nil, "no ncmpi_begin_indep_data and ncmpi_end_indep_data around the access in the body of its function"
	}
	for _, ic := range []indepCall{begin, end} {
		if outer[ic.index].(*ir.Call).Result != "" || !s.wholeStatement(ic.Line, indepDataStmt()) {
			return begin, end, nil, fmt.Sprintf("the statement at line %d is not a lone call whose result is unused", ic.Line)
		}
	}
	return begin, end, outer[begin.index+1 : end.index], ""
}
