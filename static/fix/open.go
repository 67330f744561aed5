package fix

import (
	"fmt"

	"github.com/iolens/iolens/static/ir"
)

// opening is where a stream or descriptor used in a loop is opened.
type opening struct {
	site
	end  int // the line the opening statement ends on
	name string
}

// findOpen locates the one call of an opener (fopen, open...) in the
// function of use whose result is assigned to name, before the loop that
// starts on loopLine, at statement level, with its statement ending on a
// line of its own.
func (f *fixer) findOpen(s *source, use site, name string, loopLine int, openers ...string) (opening, string) {
	var found []site
	for _, o := range f.find(s.path, use.fn.Pos.Line, func(st ir.Stmt) bool {
		c, ok := st.(*ir.Call)
		if !ok || c.Result != name {
			return false
		}
		for _, op := range openers {
			if c.Callee == op {
				return true
			}
		}
		return false
	}) {
		if o.fn == use.fn {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		return opening{}, fmt.Sprintf("%s is not opened exactly once in %s", name, use.fn.Name)
	}
	o := found[0]
	line := o.stmt.Position().Line
	if loopLine > 0 && line >= loopLine {
		return opening{}, fmt.Sprintf("%s is opened inside the loop", name)
	}
	c, ok := s.callAt(line, o.stmt.(*ir.Call).Callee)
	if !ok || !s.boundary(line) {
		return opening{}, fmt.Sprintf("the statement that opens %s (line %d) is not located exactly", name, line)
	}
	end, ok := s.statementEnd(c.name)
	if !ok {
		return opening{}, fmt.Sprintf("the statement that opens %s (line %d) does not end on a line of its own", name, line)
	}
	return opening{site: o, end: end, name: name}, ""
}

// nextStmt returns the statement of the opening's block after the
// opening statement, or nil.
func (o opening) nextStmt() ir.Stmt {
	for _, st := range o.block[o.index+1:] {
		if st.Position().Line > o.end {
			return st
		}
	}
	return nil
}

// failureTest tells whether cond tests the opened name for failure, alone
// or in a chain of ||: !f, f == NULL, f == 0, fd < 0, fd == -1.
func failureTest(cond ir.Expr, name string) bool {
	isName := func(e ir.Expr) bool { r, ok := e.(ir.Ref); return ok && r.Name == name }
	isNull := func(e ir.Expr) bool {
		switch e := e.(type) {
		case ir.Ref:
			return e.Name == "NULL" || e.Name == "nullptr"
		case ir.Int:
			return e.V == 0 || e.V == -1
		case ir.Float:
			return e.V == 0 || e.V == -1
		case ir.Unary:
			i, ok := e.X.(ir.Int)
			return ok && e.Op == "-" && i.V == 1
		case ir.Cast:
			i, ok := e.X.(ir.Int)
			return ok && i.V == 0
		}
		return false
	}
	switch c := cond.(type) {
	case ir.Unary:
		return c.Op == "!" && isName(c.X)
	case ir.Binary:
		switch c.Op {
		case "||":
			return failureTest(c.L, name) || failureTest(c.R, name)
		case "==", "<":
			return isName(c.L) && isNull(c.R) || c.Op == "==" && isName(c.R) && isNull(c.L)
		}
	}
	return false
}

// afterCheck returns the line after which code that needs the opening to
// have succeeded goes: the end of the failure test right after the
// opening when it leaves the function, else the opening itself when the
// function tests it nowhere.
func (f *fixer) afterCheck(s *source, o opening) (int, string) {
	if st, ok := o.nextStmt().(*ir.If); ok && failureTest(st.Cond, o.name) {
		if !leaves(st.Then) || len(st.Else) > 0 {
			return 0, fmt.Sprintf("the test of %s at line %d does not leave the function", o.name, st.Line)
		}
		end, ok := s.ifEnd(st.Line)
		if !ok {
			return 0, fmt.Sprintf("the end of the test of %s at line %d is not located exactly", o.name, st.Line)
		}
		return end, ""
	}
	tested := false
	walk(o.fn.Body, nil, func(x site) {
		if st, ok := x.stmt.(*ir.If); ok && failureTest(st.Cond, o.name) {
			tested = true
		}
	})
	if tested {
		return 0, fmt.Sprintf("%s is tested for failure, but not right after it is opened", o.name)
	}
	return o.end, ""
}
