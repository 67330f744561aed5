package fortran

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// doConstruct parses a DO loop (block or labelled, counted, DO WHILE,
// DO CONCURRENT or endless) with its body. Calls in the bounds are
// hoisted before the loop; calls in a WHILE condition to the start of
// the body.
func (p *parser) doConstruct() ir.Block {
	pos := p.here()
	p.next()
	label := ""
	if p.peek().kind == tInt {
		label = trimLabel(p.next().s)
		p.acceptOp(",")
	}
	loops := []*ir.Loop{{Pos: pos}}
	var mask ir.Expr
	var before, first ir.Block
	switch {
	case p.atEnd():
		loops[0].Kind = ir.DoForever
	case p.acceptName("while"):
		loops[0].Kind = ir.While
		p.expectOp("(")
		loops[0].Cond = p.expr()
		p.expectOp(")")
		first = p.takeHoist()
	case p.acceptName("concurrent"):
		loops, mask = p.concurrentHeader(pos)
	default:
		p.doControl(loops[0])
	}
	before = p.takeHoist()
	p.report()
	p.advance()
	if label != "" {
		p.doLabels = append(p.doLabels, label)
	}
	body := p.block(true)
	end := 0
	if label != "" {
		p.doLabels = p.doLabels[:len(p.doLabels)-1]
		if p.pending == label {
			end = p.lastLine()
		}
	}
	if end == 0 {
		end = p.closeConstruct("do")
	}
	return append(before, nest(loops, mask, append(first, body...), end))
}

// doControl parses "v = lo, hi [, step]" of a counted DO.
func (p *parser) doControl(l *ir.Loop) {
	l.Kind, l.Inclusive = ir.Do, true
	l.Var = p.name()
	p.expectOp("=")
	l.Lo = p.expr()
	p.expectOp(",")
	l.Hi = p.expr()
	l.Step = ir.Int{V: 1}
	if p.acceptOp(",") {
		l.Step = p.expr()
	}
}

// concurrentHeader parses the header of DO CONCURRENT and FORALL:
// ([type ::] i = lo:hi[:step], ... [, mask]), as one loop per index.
func (p *parser) concurrentHeader(pos ir.Pos) ([]*ir.Loop, ir.Expr) {
	var loops []*ir.Loop
	var mask ir.Expr
	p.expectOp("(")
	if j := p.find("::"); j >= 0 {
		p.i = j + 1
	}
	for !p.atEnd() && !p.isOp(")") && p.bad == "" {
		if p.peek().kind == tName && p.isOpAt(1, "=") {
			l := &ir.Loop{Pos: pos, Kind: ir.Do, Inclusive: true, Var: p.next().s, Step: ir.Int{V: 1}}
			p.next()
			l.Lo = p.expr()
			p.expectOp(":")
			l.Hi = p.expr()
			if p.acceptOp(":") {
				l.Step = p.expr()
			}
			loops = append(loops, l)
		} else {
			mask = p.expr()
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	if len(loops) == 0 {
		loops = []*ir.Loop{{Pos: pos, Kind: ir.DoForever}}
	}
	return loops, mask
}

// nest nests loops (outermost first) around body, under mask if any.
func nest(loops []*ir.Loop, mask ir.Expr, body ir.Block, end int) *ir.Loop {
	if mask != nil {
		body = ir.Block{&ir.If{Pos: loops[0].Pos, Cond: mask, Then: body}}
	}
	for i := len(loops) - 1; i >= 0; i-- {
		loops[i].Body, loops[i].EndLine = body, end
		body = ir.Block{loops[i]}
	}
	return loops[0]
}

// closeConstruct consumes the END statement of a construct and returns
// its line; a missing END is reported and the block ends where it
// stopped.
func (p *parser) closeConstruct(word string) int {
	if p.pending == "" && !p.eof() {
		if c := p.classify(); c.kind == kEndConstruct && c.word == word {
			line := p.ln
			p.advance()
			return line
		}
	}
	p.errorf("missing END %s", strings.ToUpper(word))
	return p.lastLine()
}

// isBlockIf reports whether the IF statement at the current token is
// "IF (cond) THEN".
func (p *parser) isBlockIf() bool {
	if !p.isOpAt(1, "(") {
		return false
	}
	j := matchParen(p.toks, p.i+1)
	return j == len(p.toks)-1 && p.toks[j].kind == tName && p.toks[j].s == "then"
}

// isBlockHead reports whether the WHERE or FORALL statement at the
// current token has no action statement, so it opens a construct.
func (p *parser) isBlockHead() bool {
	return p.isOpAt(1, "(") && matchParen(p.toks, p.i+1) == len(p.toks)
}

// cond parses a parenthesised condition.
func (p *parser) cond() ir.Expr {
	p.expectOp("(")
	x := p.expr()
	p.expectOp(")")
	return x
}

// ifConstruct parses IF (c) THEN ... [ELSE IF (c) THEN ...] [ELSE ...]
// END IF into a chain of Ifs.
func (p *parser) ifConstruct() ir.Block {
	s := &ir.If{Pos: p.here()}
	p.next()
	s.Cond = p.cond()
	p.i = len(p.toks)
	before := p.takeHoist()
	p.report()
	p.advance()
	p.chain(s, "if")
	return append(before, s)
}

// whereConstruct parses WHERE (mask) ... ELSEWHERE ... END WHERE as an
// If on the (array) mask.
func (p *parser) whereConstruct() ir.Block {
	s := &ir.If{Pos: p.here()}
	p.next()
	s.Cond = p.cond()
	before := p.takeHoist()
	p.report()
	p.advance()
	p.chain(s, "where")
	return append(before, s)
}

// chain parses the blocks of an IF or WHERE construct after its first
// line: ELSE IF / masked ELSEWHERE nest an If in Else.
func (p *parser) chain(s *ir.If, end string) {
	s.Then = p.block(true)
	for !p.eof() && p.pending == "" {
		c := p.classify()
		switch {
		case c.kind == kElseIf && end == "if" || c.kind == kElseWhere && end == "where" && p.isOp("("):
			n := &ir.If{Pos: p.here(), Cond: p.cond()}
			p.i = len(p.toks) // THEN and the construct name
			s.Else = append(p.takeHoist(), n)
			p.report()
			p.advance()
			n.Then = p.block(true)
			s = n
		case c.kind == kElse && end == "if" || c.kind == kElseWhere && end == "where":
			p.advance()
			s.Else = append(s.Else, p.block(true)...)
		default:
			p.closeConstruct(end)
			return
		}
	}
	p.closeConstruct(end)
}

// logicalIf parses IF (c) action and the arithmetic IF (e) l1, l2, l3.
func (p *parser) logicalIf() ir.Block {
	s := &ir.If{Pos: p.here()}
	p.next()
	s.Cond = p.cond()
	if p.peek().kind == tInt {
		return p.finish(p.arithmeticIf(s))
	}
	before := p.takeHoist()
	if p.bad != "" {
		p.report()
		return nil
	}
	c := p.classifyHere()
	if c.kind != kOther && c.kind != kAssign {
		p.fail("bad action of a logical IF")
		p.report()
		return nil
	}
	s.Then = p.simple(c)
	return append(before, s)
}

// arithmeticIf completes IF (e) l1, l2, l3: e<0 goes to l1, e==0 to l2,
// e>0 to l3.
func (p *parser) arithmeticIf(s *ir.If) ir.Stmt {
	var labels [3]string
	for k := range labels {
		if k > 0 && !p.acceptOp(",") {
			labels[k] = labels[k-1]
			continue
		}
		labels[k] = trimLabel(p.next().s)
	}
	jump := func(l string) ir.Block { return ir.Block{&ir.Jump{Pos: s.Pos, Kind: "goto", Label: l}} }
	e := s.Cond
	s.Cond = ir.Binary{Op: "<", L: e, R: ir.Int{V: 0}}
	s.Then = jump(labels[0])
	s.Else = ir.Block{&ir.If{Pos: s.Pos, Cond: ir.Binary{Op: "==", L: e, R: ir.Int{V: 0}},
		Then: jump(labels[1]), Else: jump(labels[2])}}
	return s
}

// whereStmt parses WHERE (mask) assignment.
func (p *parser) whereStmt() ir.Block {
	s := &ir.If{Pos: p.here()}
	p.next()
	s.Cond = p.cond()
	before := p.takeHoist()
	if p.bad != "" {
		p.report()
		return nil
	}
	s.Then = p.simple(p.classifyHere())
	return append(before, s)
}

// forallConstruct parses FORALL (i = lo:hi, ..., mask) ... END FORALL
// as nested counted loops.
func (p *parser) forallConstruct() ir.Block {
	pos := p.here()
	p.next()
	loops, mask := p.concurrentHeader(pos)
	before := p.takeHoist()
	p.report()
	p.advance()
	body := p.block(true)
	return append(before, nest(loops, mask, body, p.closeConstruct("forall")))
}

// forallStmt parses FORALL (i = lo:hi, ...) assignment.
func (p *parser) forallStmt() ir.Block {
	pos := p.here()
	p.next()
	loops, mask := p.concurrentHeader(pos)
	before := p.takeHoist()
	if p.bad != "" {
		p.report()
		return nil
	}
	body := p.simple(p.classifyHere())
	return append(before, nest(loops, mask, body, pos.Line))
}

// inlineConstruct parses ASSOCIATE, BLOCK, CRITICAL and CHANGE TEAM,
// whose bodies are kept inline.
func (p *parser) inlineConstruct(word string) ir.Block {
	if word == "change" {
		word = "team"
	}
	p.i = len(p.toks)
	p.advance()
	body := p.block(true)
	p.closeConstruct(word)
	return body
}

// skipTo skips an INTERFACE block, a derived-type or an ENUM definition,
// up to its END.
func (p *parser) skipTo(word string) {
	depth := 0
	for p.advance(); !p.eof(); p.advance() {
		c := p.classify()
		switch {
		case c.kind == kEndConstruct && c.word == word:
			if depth == 0 {
				p.advance()
				return
			}
			depth--
		case word == "interface" && (c.word == "interface" || c.word == "abstract"):
			depth++
		}
	}
	p.errorf("missing END %s", strings.ToUpper(word))
}

// selectConstruct parses SELECT CASE (and SELECT TYPE / SELECT RANK) into
// a Switch with one block per CASE; the case values are not kept.
func (p *parser) selectConstruct() ir.Block {
	s := &ir.Switch{Pos: p.here()}
	if p.next().s == "select" {
		p.next() // CASE, TYPE or RANK
	}
	p.expectOp("(")
	if p.peek().kind == tName && p.isOpAt(1, "=>") {
		p.i += 2 // associate name
	}
	s.Tag = p.expr()
	p.expectOp(")")
	before := p.takeHoist()
	p.report()
	p.advance()
	if pre := p.block(true); len(pre) > 0 {
		p.errorf("statements before the first CASE")
	}
	for !p.eof() && p.pending == "" && p.classify().kind == kCase {
		p.advance()
		s.Cases = append(s.Cases, p.block(true))
	}
	p.closeConstruct("select")
	return append(before, s)
}
