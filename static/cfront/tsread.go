package cfront

import (
	"context"
	"math"
	"slices"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// This file reads tree-sitter's syntax trees in place, in Go, instead of
// asking the binding for every node. Each call into the binding is a cgo
// call costing 60–90 ns here, and the walk needs about seven per node, so
// asking the binding takes longer than tree-sitter's parse itself; reading
// the tree's memory takes a few nanoseconds per node.
//
// The layouts below are those of the tree-sitter runtime the pinned
// binding compiles (ABI of language version 14, 64-bit little-endian).
// They are facts about that runtime's data, checked before use: a reader
// is made only for a language whose header agrees with the binding's own
// accessors, and only after it has flattened a sample of the language into
// exactly the nodes the binding's cursor gives (see newTreeReader). If a
// later binding changed the layouts, the front-end would fall back to the
// cursor walk and the tests comparing the two would fail.

// languageABI is the only language ABI version whose layout the reader
// knows.
const languageABI = 14

// tsLength mirrors the runtime's Length: a byte count and a row/column
// extent.
type tsLength struct {
	bytes, row, column uint32
}

// heapSubtree mirrors the start of the runtime's SubtreeHeapData, the
// representation of inner nodes, errors and large leaves. The children of
// a heap subtree are the child_count subtrees stored just before it.
type heapSubtree struct {
	refCount     uint32
	padding      tsLength // whitespace and extras before the node
	size         tsLength
	lookahead    uint32
	errorCost    uint32
	childCount   uint32
	symbol       uint16
	parseState   uint16
	flags        [2]uint8 // heapVisible… in flags[0], heapMissing in flags[1]
	_            [2]uint8
	visibleKids  uint32 // the next four fields are valid when childCount > 0
	namedKids    uint32
	visibleDesc  uint32
	dynamicPrec  int32
	repeatDepth  uint16
	productionID uint16
}

// Bits of heapSubtree.flags.
const (
	heapVisible = 1 << 0 // flags[0]
	heapExtra   = 1 << 2 // flags[0]
	heapMissing = 1 << 1 // flags[1]
)

// A subtree is stored in 8 bytes: a pointer to a heapSubtree, or, for a
// small leaf, the leaf itself, told apart by the lowest bit (set for an
// inline leaf, which no aligned pointer has). Inline leaves hold their
// flags in byte 0, the symbol in byte 1, the padding's byte count in byte
// 6 and the size in byte 7.
const (
	inlineBit     = 1 << 0
	inlineVisible = 1 << 1
	inlineExtra   = 1 << 3
	inlineMissing = 1 << 5
)

// languageHeader mirrors the start of the runtime's TSLanguage.
type languageHeader struct {
	version            uint32
	symbolCount        uint32
	aliasCount         uint32
	tokenCount         uint32
	externalTokenCount uint32
	stateCount         uint32
	largeStateCount    uint32
	productionIDCount  uint32
	fieldCount         uint32
	maxAliasSequence   uint16
	parseTable         unsafe.Pointer
	smallParseTable    unsafe.Pointer
	smallParseTableMap unsafe.Pointer
	parseActions       unsafe.Pointer
	symbolNames        unsafe.Pointer
	fieldNames         unsafe.Pointer
	fieldMapSlices     unsafe.Pointer // [productionIDCount]fieldSlice
	fieldMapEntries    unsafe.Pointer // []fieldEntry
	symbolMetadata     unsafe.Pointer
	publicSymbolMap    unsafe.Pointer // [symbolCount+aliasCount]uint16
	aliasMap           unsafe.Pointer
	aliasSequences     unsafe.Pointer // [productionIDCount*maxAliasSequence]uint16
}

// fieldSlice is the range of a production's entries in the field map.
type fieldSlice struct{ index, length uint16 }

// fieldEntry gives the field of one child of a production; inherited
// entries are fields of a hidden child's children, which the reader finds
// on the hidden child itself.
type fieldEntry struct {
	field     uint16
	child     uint8
	inherited bool
}

// tsNodeValue mirrors the runtime's TSNode, the first field of the
// binding's Node.
type tsNodeValue struct {
	context [4]uint32
	id      unsafe.Pointer // the node's subtree
	tree    unsafe.Pointer
}

// bindingLanguage mirrors the binding's Language, a pointer to the
// runtime's language.
type bindingLanguage struct{ ptr unsafe.Pointer }

// treeReader flattens trees of one language by reading them in place.
type treeReader struct {
	w          *walkTables
	public     []uint16 // public symbol by symbol
	aliases    []uint16 // alias of each child of each production, 0 if none
	maxAlias   int
	slices     []fieldSlice
	entries    []fieldEntry
	fieldCount int
	lang       unsafe.Pointer
}

// newTreeReader returns a reader for w's language, or nil when the
// language's header does not match what the binding reports of it.
func newTreeReader(w *walkTables) *treeReader {
	ptr := (*bindingLanguage)(unsafe.Pointer(w.lang)).ptr
	if ptr == nil {
		return nil
	}
	h := (*languageHeader)(ptr)
	if h.version != languageABI ||
		h.symbolCount+h.aliasCount != w.lang.SymbolCount() ||
		int(h.fieldCount) != len(w.fields) ||
		h.publicSymbolMap == nil || (h.productionIDCount > 0 && h.aliasSequences == nil) {
		return nil
	}
	r := &treeReader{
		w:          w,
		public:     unsafe.Slice((*uint16)(h.publicSymbolMap), h.symbolCount+h.aliasCount),
		maxAlias:   int(h.maxAliasSequence),
		fieldCount: int(h.fieldCount),
		lang:       ptr,
	}
	if h.aliasSequences != nil {
		r.aliases = unsafe.Slice((*uint16)(h.aliasSequences), int(h.productionIDCount)*r.maxAlias)
	}
	if h.fieldCount > 0 {
		if h.fieldMapSlices == nil || h.fieldMapEntries == nil {
			return nil
		}
		r.slices = unsafe.Slice((*fieldSlice)(h.fieldMapSlices), h.productionIDCount)
		n := 0
		for _, s := range r.slices {
			n = max(n, int(s.index)+int(s.length))
		}
		r.entries = unsafe.Slice((*fieldEntry)(h.fieldMapEntries), n)
	}
	return r
}

// alias returns the alias of the structural child k of production prod.
func (r *treeReader) alias(prod uint16, k int) uint16 {
	if prod == 0 || k >= r.maxAlias {
		return 0
	}
	if i := int(prod)*r.maxAlias + k; i < len(r.aliases) {
		return r.aliases[i]
	}
	return 0
}

// field returns the field of the structural child k of production prod,
// 0 if it has none of its own.
func (r *treeReader) field(prod uint16, k int) uint8 {
	if int(prod) >= len(r.slices) {
		return 0
	}
	s := r.slices[prod]
	for _, e := range r.entries[s.index : int(s.index)+int(s.length)] {
		if !e.inherited && int(e.child) == k {
			return uint8(e.field)
		}
	}
	return 0
}

// publicSymbol maps a symbol to the one the binding reports for it.
func (r *treeReader) publicSymbol(s uint16) uint16 {
	if s == symError || int(s) >= len(r.public) { // ERROR has no entry
		return s
	}
	return r.public[s]
}

// subtree is a subtree as stored: a pointer to its 8 bytes.
type subtree struct{ slot unsafe.Pointer }

func (s subtree) bits() uint64 { return *(*uint64)(s.slot) }

// info returns what the reader needs of s: its symbol, padding and size in
// bytes, whether it is visible, extra or missing, and its heap form.
func (s subtree) info() (sym uint16, padding, size uint32, visible, extra, missing bool, h *heapSubtree) {
	v := s.bits()
	if v&inlineBit != 0 {
		return uint16(v >> 8 & 0xff), uint32(v >> 48 & 0xff), uint32(v >> 56),
			v&inlineVisible != 0, v&inlineExtra != 0, v&inlineMissing != 0, nil
	}
	h = *(**heapSubtree)(s.slot)
	return h.symbol, h.padding.bytes, h.size.bytes,
		h.flags[0]&heapVisible != 0, h.flags[0]&heapExtra != 0, h.flags[1]&heapMissing != 0, h
}

// child returns child i of the heap subtree h, which has n children.
func child(h *heapSubtree, n, i int) subtree {
	return subtree{unsafe.Add(unsafe.Pointer(h), 8*(i-n))}
}

// flatWalk is the state of one flattening by a treeReader.
type flatWalk struct {
	flatNodes
	r *treeReader
}

// root returns the subtree and start offset of the binding's root node of
// ts, or false when the root node does not look like the reader expects:
// its symbol, range and children must be those the binding reports.
func (r *treeReader) root(ts *sitter.Tree) (subtree, uint32, bool) {
	n := ts.RootNode()
	v := (*tsNodeValue)(unsafe.Pointer(n))
	if v.id == nil || v.tree == nil || *(*unsafe.Pointer)(unsafe.Add(v.tree, 8)) != r.lang {
		return subtree{}, 0, false
	}
	s := subtree{v.id}
	sym, padding, size, _, _, _, h := s.info()
	kids := uint32(0)
	if h != nil && h.childCount > 0 {
		kids = h.visibleKids
	}
	start := v.context[0]
	ok := padding == start && start+size == n.EndByte() &&
		r.publicSymbol(sym) == uint16(n.Symbol()) && kids == n.ChildCount()
	return s, start, ok
}

// flatten flattens ts, the tree of src, like walkTables.flatten's cursor
// walk; it returns false, and no nodes, when the tree's root is not as
// expected.
func (r *treeReader) flatten(ts *sitter.Tree, src []byte) ([]node, bool) {
	s, start, ok := r.root(ts)
	if !ok {
		return nil, false
	}
	f := &flatWalk{flatNodes: newFlatNodes(src), r: r}
	f.node(s, start, 0, 0, nil)
	return f.nodes, true
}

// node adds the visible node s, which starts at byte start and has the
// given alias and field, as a child of p (nil for the root), then its
// children, unless it is a comment.
func (f *flatWalk) node(s subtree, start uint32, alias uint16, field uint8, p *parentLink) {
	sym, _, size, _, extra, missing, h := s.info()
	if alias != 0 {
		sym = alias
	}
	sym = f.r.publicSymbol(sym)
	props := f.r.w.sym(sym)
	if props&symMaybeExtra != 0 && extra {
		return
	}
	end := start + size
	i := f.add(sym, props, field, start, end, start == end && missing, p)
	if props&symLeaf == 0 && h != nil && h.childCount > 0 {
		f.children(h, start, 0, &parentLink{node: i, last: none})
	}
}

// children adds the visible nodes among the children of h, which starts
// at byte pos, as children of p: hidden children are replaced by their own
// visible children. outer is the field h has in its parent when h is
// hidden, which its children without a field of their own take.
func (f *flatWalk) children(h *heapSubtree, pos uint32, outer uint8, p *parentLink) {
	prod := h.productionID
	k := 0 // structural index: extras do not count
	n := int(h.childCount)
	for i := range n {
		c := child(h, n, i)
		_, padding, size, visible, extra, _, ch := c.info()
		if i > 0 {
			pos += padding
		}
		var alias uint16
		var field uint8
		if !extra {
			alias = f.r.alias(prod, k)
			if field = f.r.field(prod, k); field == 0 {
				field = outer
			}
			k++
		}
		switch {
		case visible || alias != 0:
			f.node(c, pos, alias, field, p)
		case ch != nil && ch.childCount > 0 && ch.visibleKids > 0:
			f.children(ch, pos, field, p)
		}
		pos += size
	}
}

// selfCheckSource is what a reader must flatten exactly as the binding's
// cursor does before the front-end uses it: comments, the preprocessor,
// aliased and hidden nodes, fields, string and character literals, C++
// classes, templates and lambdas (errors to the C grammar), and a missing
// token.
const selfCheckSource = `/* header */
#include <stdio.h>
#define N (4 * 2)
#define SQ(x) ((x) * (x))
#if defined(BIG) && N > 2
static long big[N];
#elif 0
#else
// nothing
#endif
struct point { int x, y; double w[N]; };
typedef struct point point_t;
static const char *names[] = { "a\n", "b" "c", 0 };
int f(point_t *p, int n, ...)
{
	int i = 0, s = 'x' + L'y';
	for (i = 0; i < n; i++) {
		s += p[i].x * SQ(p->y) /* inline */ - (int)sizeof(point_t);
		if (s > 10) continue; else if (s < -10) break;
	}
	while (n-- > 0) s ^= n ? n << 1 : ~n;
	switch (s) { case 1: s++; /* fall */ default: s = -s; }
	point_t q = { .x = 1, .y = (int){2} };
	fprintf(stderr, "%d %s\n", s, names[0]);
	return s + q.x
}
namespace ns {
template <typename T> class Box : public Base<T> {
public:
	explicit Box(T v) : v_(v) {}
	T get() const { return v_; }
	auto twice() { return [this](int k) -> T { return v_ * k; }(2); }
private:
	T v_;
};
}
int main(int argc, char **argv) {
	std::vector<int> v{1, 2, 3};
	for (const auto &x : v) std::cout << x << std::endl;
	return f(nullptr, argc);
}
`

// agrees reports whether r flattens the tree of src exactly as the
// binding's cursor walk does.
func (r *treeReader) agrees(src string) bool {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(r.w.lang)
	ts, err := p.ParseCtx(context.Background(), nil, []byte(src))
	if err != nil {
		return false
	}
	defer ts.Close()
	got, ok := r.flatten(ts, []byte(src))
	return ok && slices.Equal(got, r.w.walk(ts, []byte(src), math.MaxInt))
}
