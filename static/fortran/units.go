package fortran

import "github.com/iolens/iolens/static/ir"

// units parses the program units of the file: main programs, modules,
// external procedures and block data.
func (p *parser) units() {
	for !p.eof() {
		c := p.classify()
		switch c.kind {
		case kProgram:
			p.next()
			fn := &ir.Func{Name: p.name(), Kind: ir.MainProgram, Pos: p.here()}
			p.report()
			p.advance()
			p.unit(fn, newScope(nil))
		case kModule:
			p.module(c.word)
		case kProc:
			p.procedure(nil)
		case kBlockData:
			p.skipUnit()
		case kOther, kAssign:
			// A main program without a PROGRAM statement.
			p.unit(&ir.Func{Name: "main", Kind: ir.MainProgram, Pos: p.here()}, newScope(nil))
		default:
			p.errorf("%q outside a program unit", clip(p.src))
			p.advance()
		}
	}
}

// module parses a MODULE or SUBMODULE: its declarations become the file's
// globals and constants, its procedures belong to it.
func (p *parser) module(word string) {
	p.next()
	if word == "submodule" {
		p.skipParens()
	}
	name := p.name()
	p.report()
	sc := newScope(nil)
	sc.module = name
	p.modules[name] = sc
	p.advance()
	saved := p.sc
	p.sc = sc
	defer func() { p.sc = saved }()
	p.block(false)
	for !p.eof() {
		switch c := p.classify(); c.kind {
		case kContains:
			p.advance()
			p.contained(sc)
			continue
		case kEndUnit:
			p.advance()
		default:
			p.errorf("missing END MODULE %s", name)
		}
		return
	}
}

// procedure parses a SUBROUTINE or FUNCTION whose header is the current
// statement; host is the scope of the enclosing module or procedure.
func (p *parser) procedure(host *scope) {
	fn := &ir.Func{Pos: p.here()}
	sc := newScope(host)
	p.header(fn, sc)
	fn.Module = sc.module
	p.report()
	p.advance()
	p.unit(fn, sc)
}

// unit parses the body of a procedure or main program up to its END,
// including internal procedures after CONTAINS.
func (p *parser) unit(fn *ir.Func, sc *scope) {
	sc.kind = fn.Kind
	p.file.Funcs = append(p.file.Funcs, fn)
	saved, savedLabels := p.sc, p.doLabels
	p.sc, p.doLabels, p.pending = sc, nil, ""
	defer func() { p.sc, p.doLabels = saved, savedLabels }()
	fn.Body = p.block(false)
	if sc.result != nil {
		// The result is a local of the function, of the type its
		// declaration completed: a character result written by an
		// internal WRITE is an internal file.
		fn.Body = append(ir.Block{&ir.Decl{Pos: fn.Pos, Var: sc.result}}, fn.Body...)
	}
	for !p.eof() {
		switch c := p.classify(); c.kind {
		case kContains:
			p.advance()
			p.contained(sc)
			continue
		case kEndUnit:
			fn.EndLine = p.ln
			p.advance()
		default:
			p.errorf("missing END for %s %s", fn.Kind, fn.Name)
		}
		break
	}
	if fn.EndLine == 0 {
		fn.EndLine = p.lastLine()
	}
	for _, v := range sc.dummies {
		if v.Type.Name == "" {
			t := sc.implicitType(v.Name)
			t.Dims, t.Pointer = v.Type.Dims, v.Type.Pointer
			v.Type = t
		}
	}
}

// contained parses the procedures after CONTAINS up to the END of the
// host, which it leaves for the caller.
func (p *parser) contained(host *scope) {
	for !p.eof() {
		switch c := p.classify(); c.kind {
		case kProc:
			p.procedure(host)
		case kEndUnit, kProgram, kModule, kBlockData:
			return
		default:
			p.errorf("unexpected statement after CONTAINS")
			p.advance()
		}
	}
}

// lastLine is the line of the last statement consumed.
func (p *parser) lastLine() int {
	if p.cur > 0 && p.cur <= len(p.stmts) {
		return p.stmts[p.cur-1].line
	}
	return 0
}

// skipUnit skips a program unit that yields no IR (BLOCK DATA).
func (p *parser) skipUnit() {
	for p.advance(); !p.eof(); p.advance() {
		if p.classify().kind == kEndUnit {
			p.advance()
			return
		}
	}
}

// header parses a SUBROUTINE or FUNCTION statement into fn and declares
// the dummy arguments and the function result in sc.
func (p *parser) header(fn *ir.Func, sc *scope) {
	var result ir.Type
	for !p.atEnd() {
		w := p.peek().s
		switch {
		case w == "subroutine" || w == "procedure":
			fn.Kind = ir.Subroutine
		case w == "function":
			fn.Kind = ir.Function
		case prefixWords[w]:
			p.next()
			continue
		case typeWords[w]:
			result = p.typeSpec()
			continue
		default:
			p.fail("bad procedure header")
			return
		}
		break
	}
	p.next()
	fn.Name = p.name()
	sc.dummies = map[string]*ir.Var{}
	if p.acceptOp("(") {
		for !p.isOp(")") && !p.atEnd() {
			if p.acceptOp("*") { // alternate return
			} else if n := p.name(); n != "" {
				v := &ir.Var{Pos: fn.Pos, Name: n}
				fn.Params = append(fn.Params, v)
				sc.vars[n], sc.dummies[n] = v, v
			}
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	if fn.Kind != ir.Function {
		p.skipSuffixes()
		return
	}
	res := fn.Name
	for p.peek().kind == tName {
		switch p.next().s {
		case "result":
			p.expectOp("(")
			res = p.name()
			p.expectOp(")")
		default:
			p.skipParens()
		}
	}
	v := &ir.Var{Pos: fn.Pos, Name: res, Type: result}
	sc.vars[res], sc.dummies[res] = v, v
	sc.result = v
}

// skipSuffixes skips BIND(C, ...) after a subroutine's arguments.
func (p *parser) skipSuffixes() {
	for p.peek().kind == tName {
		p.next()
		p.skipParens()
	}
}
