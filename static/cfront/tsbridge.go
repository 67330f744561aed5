package cfront

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
)

// node is one node of a flattened syntax tree, in preorder. Its children
// follow it: the first at index+1 when nkids > 0, the others through next.
type node struct {
	sym     uint16 // grammar symbol (symError: ERROR)
	field   uint8  // field id within the parent, 0 if none
	flags   uint8  // flagNamed | flagMissing
	start   uint32 // byte offsets
	end     uint32
	line    uint32 // 0-based rows
	endLine uint32
	next    int32 // index of the next sibling, -1 if none
	nkids   int32 // number of children kept
}

const (
	flagNamed   = 1
	flagMissing = 2
	symError    = math.MaxUint16
)

// Per-symbol properties of a language, read once so that the walk needs no
// call into tree-sitter for them.
const (
	symNamed      = 1 << iota // a named node (IsNamed)
	symMaybeExtra             // a named node that can be an extra (a comment)
	symLeaf                   // an anonymous token: never has children
)

// walkTables holds what the flattening walk needs to know about one
// language's symbols and fields.
type walkTables struct {
	lang   *sitter.Language
	syms   []uint8          // symNamed | symMaybeExtra, by symbol id
	fields map[string]uint8 // field id by name
	reader *treeReader      // reads trees in place; nil: walk with a cursor
}

func newWalkTables(lang *sitter.Language) *walkTables {
	n := lang.SymbolCount()
	w := &walkTables{lang: lang, syms: make([]uint8, n), fields: make(map[string]uint8)}
	for s := uint32(0); s < n; s++ {
		switch lang.SymbolType(sitter.Symbol(s)) {
		case sitter.SymbolTypeAnonymous:
			// Anonymous nodes are tokens: neither grammar aliases a
			// rule to an anonymous name.
			w.syms[s] = symLeaf
			continue
		case sitter.SymbolTypeAuxiliary:
			continue
		}
		w.syms[s] = symNamed
		// The only named extras of the C and C++ grammars are comments:
		// their parse tables shift no other symbol as an extra.
		if lang.SymbolName(sitter.Symbol(s)) == "comment" {
			w.syms[s] |= symMaybeExtra
		}
	}
	for id := 1; id <= math.MaxUint8; id++ {
		name := lang.FieldName(id)
		if name == "" {
			break
		}
		w.fields[name] = uint8(id)
	}
	if r := newTreeReader(w); r != nil && r.agrees(selfCheckSource) {
		w.reader = r
	}
	return w
}

// sym returns the properties of symbol s.
func (w *walkTables) sym(s uint16) uint8 {
	if int(s) < len(w.syms) {
		return w.syms[s]
	}
	if s == symError {
		return symNamed
	}
	return 0
}

// tables holds the lazily built walk tables of C and C++.
var tables = [2]func() *walkTables{
	sync.OnceValue(func() *walkTables { return newWalkTables(language(false)) }),
	sync.OnceValue(func() *walkTables { return newWalkTables(language(true)) }),
}

// parser is a tree-sitter parser for one language. The binding releases its
// C memory when it is garbage collected.
type parser struct {
	ts  *sitter.Parser
	tab *walkTables
}

func newParser(isCPP bool) (*parser, error) {
	tab := tables[0]()
	if isCPP {
		tab = tables[1]()
	}
	p := sitter.NewParser()
	p.SetLanguage(tab.lang)
	return &parser{ts: p, tab: tab}, nil
}

// flatTree is a parsed file flattened into one array.
type flatTree struct {
	nodes []node
}

// free releases the tree's nodes; the tree must not be used afterwards.
func (t *flatTree) free() { t.nodes = nil }

// errorCount returns the number of ERROR and missing nodes of the tree.
func (t *flatTree) errorCount() int {
	n := 0
	for i := range t.nodes {
		if t.nodes[i].sym == symError || t.nodes[i].flags&flagMissing != 0 {
			n++
		}
	}
	return n
}

// errTimeout reports a parse abandoned because it took too long, which
// tree-sitter's error recovery can on long stretches of garbage.
var errTimeout = errors.New("tree-sitter gave up: parse took too long")

// parseTimeout bounds the time tree-sitter may spend on src: far more than
// any real source needs (they parse at megabytes per second).
func parseTimeout(src []byte) time.Duration {
	return 10*time.Second + time.Duration(len(src))*20*time.Microsecond
}

// parse parses src into a flattened tree.
func (p *parser) parse(src []byte) (*flatTree, error) {
	return p.parseWithin(src, parseTimeout(src))
}

// parseWithin parses src into a flattened tree, giving up after timeout.
func (p *parser) parseWithin(src []byte, timeout time.Duration) (*flatTree, error) {
	if uint64(len(src)) >= math.MaxInt32 {
		return nil, fmt.Errorf("source of %d bytes is too large", len(src))
	}
	// tree-sitter's own clock rather than a context: a cancellable context
	// makes the binding start a goroutine per parse that can leave the
	// parser's cancellation flag set after the parse has finished.
	p.ts.SetOperationLimit(max(int(timeout.Microseconds()), 1))
	ts, err := p.ts.ParseCtx(context.Background(), nil, src)
	if err != nil {
		p.ts.Reset() // do not resume the abandoned parse next time
		if errors.Is(err, sitter.ErrOperationLimit) {
			return nil, errTimeout
		}
		return nil, fmt.Errorf("tree-sitter: %w", err)
	}
	defer ts.Close()
	return &flatTree{nodes: p.tab.flatten(ts, src)}, nil
}

// flatten returns the nodes of ts, the tree of src, in preorder, comments
// (named extras) left out with their subtrees: read in place when the
// language's reader is usable, else walked with the binding's cursor.
func (w *walkTables) flatten(ts *sitter.Tree, src []byte) []node {
	if w.reader != nil {
		if nodes, ok := w.reader.flatten(ts, src); ok {
			return nodes
		}
	}
	return w.walk(ts, src, cacheSpan)
}

// frame is an open node of the walk: its index, that of its last kept
// child, and the position of the child the walk is on among its children.
type frame struct {
	parentLink
	pos int32
}

// parentLink is the node a walk adds children to and its last child.
type parentLink struct{ node, last int32 }

// flatNodes accumulates the nodes of a flattened tree, in preorder.
type flatNodes struct {
	lines []uint32 // offsets of the source's lines
	nodes []node
	row   int // row of the last start offset: offsets grow in preorder
}

func newFlatNodes(src []byte) flatNodes {
	return flatNodes{lines: lineStarts(src), nodes: make([]node, 0, len(src)/2+16)}
}

// add appends a node of symbol sym, whose properties are props (see
// walkTables.sym), spanning bytes [start, end), as the next child of p
// (nil for the root), and returns its index. missing tells whether the
// node is a missing token.
func (f *flatNodes) add(sym uint16, props, field uint8, start, end uint32, missing bool, p *parentLink) int32 {
	var flags uint8
	if props&symNamed != 0 {
		flags = flagNamed
	}
	if missing {
		flags |= flagMissing
	}
	f.row = rowOf(f.lines, f.row, start)
	i := int32(len(f.nodes))
	f.nodes = append(f.nodes, node{
		sym:     sym,
		field:   field,
		flags:   flags,
		start:   start,
		end:     end,
		line:    uint32(f.row),
		endLine: uint32(rowOf(f.lines, f.row, end)),
		next:    none,
	})
	if p != nil {
		if p.last >= 0 {
			f.nodes[p.last].next = i
		}
		p.last = i
		f.nodes[p.node].nkids++
	}
	return i
}

// cacheSpan is how many nodes the walk asks one copy of the tree for
// before it moves to a fresh copy (see cursor).
const cacheSpan = 1024

// cursor is a tree cursor that keeps the binding's node cache small.
//
// The binding hands out nodes through a map per *sitter.Tree that keeps
// every node asked for until the tree is garbage: on a large file the map
// grows to hundreds of thousands of entries, and inserting into it, and
// the garbage collector scanning it, take a good part of the walk. A copy
// of the tree (ts_tree_copy only takes a reference to the shared syntax
// tree) comes with an empty map, so every span nodes the walk moves to the
// same node in a fresh copy and lets the previous copy and its map go.
type cursor struct {
	*sitter.TreeCursor
	tree  *sitter.Tree // the parsed tree
	view  *sitter.Tree // the copy the cursor walks, nil while on tree
	span  int          // nodes to ask of a copy before the next
	asked int          // nodes asked of the current copy
}

// newCursor returns a cursor on the root of ts that moves to a fresh copy
// of ts every span nodes.
func newCursor(ts *sitter.Tree, span int) *cursor {
	return &cursor{TreeCursor: sitter.NewTreeCursor(ts.RootNode()), tree: ts, span: span}
}

// node returns the cursor's current node.
func (c *cursor) node() *sitter.Node {
	c.asked++
	return c.CurrentNode()
}

// refresh moves the cursor to the same node of a fresh copy of the tree
// when span nodes have been asked of the current one. The cursor's node
// must start at byte start and not be empty; path holds its ancestors,
// the root first, each with the position of the next one (or of the node)
// among its children.
func (c *cursor) refresh(path []frame, start uint32) {
	if c.asked < c.span {
		return
	}
	c.asked = 0
	fresh := c.tree.Copy()
	tc := sitter.NewTreeCursor(fresh.RootNode())
	// At every depth, the first child that ends after start is the one
	// holding the node, since the node is not empty and siblings do not
	// overlap; check that it is at the expected position all the same,
	// and stay on the current copy if not.
	for _, f := range path {
		if tc.GoToFirstChildForByte(start+1) != int64(f.pos) {
			tc.Close()
			fresh.Close()
			return
		}
	}
	c.Close()
	c.release()
	c.TreeCursor, c.view = tc, fresh
}

// release closes the copy the cursor was on, if any.
func (c *cursor) release() {
	if c.view != nil {
		c.view.Close()
		c.view = nil
	}
}

// close releases the cursor and the copy it is on.
func (c *cursor) close() {
	c.Close()
	c.release()
}

// walk walks ts, the tree of src, in preorder with one cursor and returns
// its nodes, comments (named extras) left out with their subtrees.
//
// Every accessor of the binding is a cgo call, so the walk asks for little:
// the cursor's moves, the node, its symbol, its byte range and field name.
// Whether a node is named comes from the symbol, rows from the byte offsets
// (tree-sitter counts rows by '\n'), IsMissing and IsExtra are asked only
// of the nodes that can be missing (empty ones) or extra (comments), and
// tokens are not asked for children. The walk moves to a fresh copy of ts
// every span nodes (see cursor).
func (w *walkTables) walk(ts *sitter.Tree, src []byte, span int) []node {
	f := newFlatNodes(src)
	stack := make([]frame, 0, 64)
	cur := newCursor(ts, span)
	defer cur.close()
	for {
		n := cur.node()
		sym := uint16(n.Symbol())
		props := w.sym(sym)
		if props&symMaybeExtra == 0 || !n.IsExtra() {
			start, end := n.StartByte(), n.EndByte()
			var field uint8
			if name := cur.CurrentFieldName(); name != "" {
				field = w.fields[name]
			}
			var parent *parentLink
			if len(stack) > 0 {
				parent = &stack[len(stack)-1].parentLink
			}
			i := f.add(sym, props, field, start, end, start == end && n.IsMissing(), parent)
			if end > start {
				cur.refresh(stack, start)
			}
			if props&symLeaf == 0 && cur.GoToFirstChild() {
				stack = append(stack, frame{parentLink: parentLink{node: i, last: none}})
				continue
			}
		}
		for !cur.GoToNextSibling() {
			if !cur.GoToParent() {
				return f.nodes
			}
			stack = stack[:len(stack)-1]
		}
		stack[len(stack)-1].pos++
	}
}

// lineStarts returns the offsets at which the lines of src start.
func lineStarts(src []byte) []uint32 {
	lines := make([]uint32, 1, len(src)/24+2)
	for i, c := range src {
		if c == '\n' {
			lines = append(lines, uint32(i+1))
		}
	}
	return lines
}

// rowOf returns the 0-based row of offset off, searching from row from,
// which must not be after it.
func rowOf(lines []uint32, from int, off uint32) int {
	if from >= len(lines) || lines[from] > off {
		from = 0
	}
	if from+1 >= len(lines) || lines[from+1] > off {
		return from // the common case: the same row
	}
	// Binary search for the last line starting at or before off.
	lo, hi := from+1, len(lines)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if lines[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// language returns the tree-sitter language whose symbol and field names
// describe the trees of the C (cpp false) or C++ grammar.
func language(isCPP bool) *sitter.Language {
	if isCPP {
		return cpp.GetLanguage()
	}
	return c.GetLanguage()
}

// parserPool hands out parsers of one language.
type parserPool struct {
	cpp  bool
	pool sync.Pool
}

func (pp *parserPool) get() (*parser, error) {
	if p, ok := pp.pool.Get().(*parser); ok {
		return p, nil
	}
	return newParser(pp.cpp)
}

func (pp *parserPool) put(p *parser) { pp.pool.Put(p) }
