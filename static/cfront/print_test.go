package cfront

import (
	"fmt"
	"sort"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// sprintFile renders a file's IR as indented text, for failure messages
// and debugging.
func sprintFile(f *ir.File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "file %s %s lines=%d\n", f.Path, f.Lang, f.Lines)
	names := make([]string, 0, len(f.Consts))
	for n := range f.Consts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "const %s = %#v\n", n, f.Consts[n])
	}
	for _, g := range f.Globals {
		fmt.Fprintf(&b, "global %#v\n", *g)
	}
	for _, e := range f.Errors {
		fmt.Fprintf(&b, "error %v\n", e)
	}
	for _, fn := range f.Funcs {
		fmt.Fprintf(&b, "func %s kind=%s module=%q line=%d-%d\n", fn.Name, fn.Kind, fn.Module, fn.Pos.Line, fn.EndLine)
		for _, p := range fn.Params {
			fmt.Fprintf(&b, "  param %s %#v const=%v\n", p.Name, p.Type, p.Const)
		}
		printBlock(&b, fn.Body, "  ")
	}
	return b.String()
}

func printBlock(b *strings.Builder, bl ir.Block, ind string) {
	for _, s := range bl {
		switch s := s.(type) {
		case *ir.Loop:
			fmt.Fprintf(b, "%s%d loop %s var=%q lo=%#v hi=%#v step=%#v incl=%v cond=%#v end=%d\n", ind, s.Line, s.Kind, s.Var, s.Lo, s.Hi, s.Step, s.Inclusive, s.Cond, s.EndLine)
			printBlock(b, s.Body, ind+"  ")
		case *ir.If:
			fmt.Fprintf(b, "%s%d if %#v\n", ind, s.Line, s.Cond)
			printBlock(b, s.Then, ind+"  ")
			if s.Else != nil {
				fmt.Fprintf(b, "%selse\n", ind)
				printBlock(b, s.Else, ind+"  ")
			}
		case *ir.Switch:
			fmt.Fprintf(b, "%s%d switch %#v\n", ind, s.Line, s.Tag)
			for _, c := range s.Cases {
				fmt.Fprintf(b, "%scase\n", ind)
				printBlock(b, c, ind+"  ")
			}
		case *ir.Decl:
			fmt.Fprintf(b, "%s%d decl %s %#v const=%v init=%#v\n", ind, s.Line, s.Var.Name, s.Var.Type, s.Var.Const, s.Var.Init)
		default:
			fmt.Fprintf(b, "%s%d %T %+v\n", ind, s.Position().Line, s, s)
		}
	}
}
