package fortran

import (
	"fmt"
	"sort"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// dump renders a file's IR as indented text, for debugging failed tests.
func dump(f *ir.File) string {
	var b strings.Builder
	keys := make([]string, 0, len(f.Consts))
	for k := range f.Consts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "const %s = %s\n", k, exprString(f.Consts[k]))
	}
	for _, v := range f.Globals {
		fmt.Fprintf(&b, "global %s\n", varString(v))
	}
	for _, fn := range f.Funcs {
		fmt.Fprintf(&b, "%s %s (module %q) lines %d-%d\n", fn.Kind, fn.Name, fn.Module, fn.Pos.Line, fn.EndLine)
		for _, v := range fn.Params {
			fmt.Fprintf(&b, "  param %s\n", varString(v))
		}
		dumpBlock(&b, fn.Body, "  ")
	}
	for _, e := range f.Errors {
		fmt.Fprintf(&b, "error %v\n", e)
	}
	return b.String()
}

func varString(v *ir.Var) string {
	s := fmt.Sprintf("%s %s size=%d", v.Name, v.Type.Name, v.Type.Size)
	if len(v.Type.Dims) > 0 {
		s += " dims=" + exprsString(v.Type.Dims)
	}
	if v.Init != nil {
		s += " init=" + exprString(v.Init)
	}
	if v.Const {
		s += " const"
	}
	return s
}

func dumpBlock(b *strings.Builder, blk ir.Block, ind string) {
	for _, s := range blk {
		fmt.Fprintf(b, "%s%d: ", ind, s.Position().Line)
		switch s := s.(type) {
		case *ir.Loop:
			fmt.Fprintf(b, "loop %s %s=%s,%s,%s cond=%s end=%d\n", s.Kind, s.Var, exprString(s.Lo),
				exprString(s.Hi), exprString(s.Step), exprString(s.Cond), s.EndLine)
			dumpBlock(b, s.Body, ind+"  ")
		case *ir.If:
			fmt.Fprintf(b, "if %s\n", exprString(s.Cond))
			dumpBlock(b, s.Then, ind+"  ")
			if s.Else != nil {
				fmt.Fprintf(b, "%selse\n", ind)
				dumpBlock(b, s.Else, ind+"  ")
			}
		case *ir.Switch:
			fmt.Fprintf(b, "switch %s\n", exprString(s.Tag))
			for _, c := range s.Cases {
				fmt.Fprintf(b, "%scase\n", ind)
				dumpBlock(b, c, ind+"  ")
			}
		case *ir.Call:
			fmt.Fprintf(b, "call %s(%s) recv=%s result=%q\n", s.Callee, exprsString(s.Args), exprString(s.Receiver), s.Result)
		case *ir.Assign:
			fmt.Fprintf(b, "%s %s %s partial=%v\n", s.Target, s.Op, exprString(s.Value), s.Partial)
		case *ir.Decl:
			fmt.Fprintf(b, "decl %s\n", varString(s.Var))
		case *ir.Return:
			fmt.Fprintf(b, "return %s\n", exprString(s.Value))
		case *ir.Jump:
			fmt.Fprintf(b, "jump %s %s\n", s.Kind, s.Label)
		case *ir.FortranIO:
			keys := make([]string, 0, len(s.Specs))
			for k := range s.Specs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var specs []string
			for _, k := range keys {
				specs = append(specs, k+"="+exprString(s.Specs[k]))
			}
			fmt.Fprintf(b, "io %s unit=%s [%s] items=%s\n", s.Op, exprString(s.Unit), strings.Join(specs, " "), exprsString(s.Items))
		}
	}
}

func exprsString(xs []ir.Expr) string {
	var s []string
	for _, x := range xs {
		s = append(s, exprString(x))
	}
	return strings.Join(s, ", ")
}

func exprString(x ir.Expr) string {
	switch x := x.(type) {
	case nil:
		return "_"
	case ir.Int:
		return fmt.Sprint(x.V)
	case ir.Float:
		return fmt.Sprintf("%g", x.V)
	case ir.Str:
		return fmt.Sprintf("%q", x.V)
	case ir.Ref:
		return x.Name
	case ir.Index:
		return exprString(x.X) + "[" + exprsString(x.Idx) + "]"
	case ir.Field:
		return exprString(x.X) + "%" + x.Name
	case ir.Unary:
		return "(" + x.Op + exprString(x.X) + ")"
	case ir.Binary:
		return "(" + exprString(x.L) + " " + x.Op + " " + exprString(x.R) + ")"
	case ir.Cond:
		return "(" + exprString(x.C) + " ? " + exprString(x.T) + " : " + exprString(x.F) + ")"
	case ir.CallExpr:
		return x.Callee + "(" + exprsString(x.Args) + ")"
	case ir.SizeOf:
		return "sizeof(" + exprString(x.X) + ")"
	case ir.ImpliedDo:
		return "(" + exprsString(x.Items) + "; " + x.Var + "=" + exprString(x.Lo) + "," + exprString(x.Hi) + "," + exprString(x.Step) + ")"
	case ir.Unknown:
		return "?{" + x.Text + "}"
	}
	return fmt.Sprintf("%T", x)
}
