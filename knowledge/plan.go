package knowledge

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"

	"github.com/iolens/iolens/darshan"
)

// A prefetch plan is the compact form of a graph that the preload library
// maps read-only in every process of `iolens run --prefetch` (its layout is
// collector/c/plan.h): the vertices sorted by the hash of their key, each
// with its out-edges, most preferred first, and its file extents.

const (
	planMagic      = "IOLPLAN\x01"
	planVersion    = 1
	planHeaderSize = 64
	planVertexSize = 40
	planEdgeSize   = 16
	planExtentSize = 24
	planFileSize   = 8
	// DefaultPlanDepth is the number of accesses the collector looks
	// ahead when the plan does not say otherwise; the bytes prefetched and
	// not yet read (IOLENS_PREFETCH_MAX) bound it too.
	DefaultPlanDepth = 32
)

// ErrBadPlan is wrapped by the errors of ReadPlan.
var ErrBadPlan = errors.New("not a valid prefetch plan")

// KeyHash returns the hash the plan and the collector identify vertex key k
// by: 64-bit FNV-1a of its canonical text (see collector/c/plan.h).
func KeyHash(k VertexKey) uint64 {
	h := fnv.New64a()
	io.WriteString(h, k.id())
	return h.Sum64()
}

// PlanOptions configure WritePlan.
type PlanOptions struct {
	// Depth is how many accesses ahead the collector prefetches
	// (DefaultPlanDepth when 0).
	Depth int
}

// Plan is a decoded prefetch plan.
type Plan struct {
	Depth    int
	Vertices []PlanVertex // sorted by Key
}

// PlanVertex is a vertex of a plan.
type PlanVertex struct {
	Key     uint64
	Op      darshan.Op
	Bytes   int64 // mean bytes of a visit
	Edges   []PlanEdge
	Extents []Extent
}

// PlanEdge is an out-edge of a plan vertex.
type PlanEdge struct {
	To    int // index in Plan.Vertices
	Count int64
	Gap   float64 // mean seconds between the accesses
}

// WritePlan writes the prefetch plan of g to w.
func WritePlan(w io.Writer, g *Graph, opts PlanOptions) error {
	b, err := encodePlan(g, opts)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func encodePlan(g *Graph, opts PlanOptions) ([]byte, error) {
	depth := opts.Depth
	if depth <= 0 {
		depth = DefaultPlanDepth
	}
	n := len(g.Vertices)
	order := make([]int, n) // plan index -> vertex id
	keys := make([]uint64, n)
	for i := range g.Vertices {
		order[i] = i
		keys[i] = KeyHash(g.Vertices[i].VertexKey)
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	at := make([]int, n) // vertex id -> plan index
	for i, id := range order {
		if i > 0 && keys[id] == keys[order[i-1]] {
			return nil, fmt.Errorf("prefetch plan: vertices %q and %q have the same key hash", g.Vertices[id].String(), g.Vertices[order[i-1]].String())
		}
		at[id] = i
	}
	le := binary.LittleEndian
	var vertices, edges, extents, files, strs []byte
	fileIndex := make(map[string]int)
	var nedges, nextents int
	for _, id := range order {
		v := &g.Vertices[id]
		out := g.Out(id)
		firstEdge, firstExtent := nedges, nextents
		for _, e := range out {
			edges = le.AppendUint32(edges, uint32(at[e.To]))
			edges = le.AppendUint32(edges, uint32(min(e.Count, math.MaxUint32)))
			edges = le.AppendUint64(edges, math.Float64bits(e.MeanGap()))
			nedges++
		}
		for _, x := range v.Extents {
			fi, ok := fileIndex[x.File]
			if !ok {
				fi = len(fileIndex)
				fileIndex[x.File] = fi
				files = le.AppendUint32(files, uint32(len(strs)))
				files = le.AppendUint32(files, uint32(len(x.File)))
				strs = append(strs, x.File...)
			}
			extents = le.AppendUint32(extents, uint32(fi))
			extents = le.AppendUint32(extents, 0)
			extents = le.AppendUint64(extents, uint64(x.Offset))
			extents = le.AppendUint64(extents, uint64(x.Length))
			nextents++
		}
		vertices = le.AppendUint64(vertices, keys[id])
		vertices = le.AppendUint32(vertices, uint32(firstEdge))
		vertices = le.AppendUint32(vertices, uint32(len(out)))
		vertices = le.AppendUint32(vertices, uint32(firstExtent))
		vertices = le.AppendUint32(vertices, uint32(len(v.Extents)))
		vertices = le.AppendUint32(vertices, uint32(v.Op))
		vertices = le.AppendUint32(vertices, 0)
		vertices = le.AppendUint64(vertices, uint64(v.MeanBytes()))
	}
	body := make([]byte, 0, len(vertices)+len(edges)+len(extents)+len(files)+len(strs)+32)
	for _, part := range [][]byte{vertices, edges, extents, files, strs} {
		body = append(body, part...)
		for len(body)%8 != 0 {
			body = append(body, 0)
		}
	}
	h := fnv.New64a()
	h.Write(body)
	hdr := make([]byte, 0, planHeaderSize)
	hdr = append(hdr, planMagic...)
	hdr = le.AppendUint32(hdr, planVersion)
	hdr = le.AppendUint32(hdr, planHeaderSize)
	hdr = le.AppendUint64(hdr, uint64(planHeaderSize+len(body)))
	hdr = le.AppendUint32(hdr, uint32(n))
	hdr = le.AppendUint32(hdr, uint32(nedges))
	hdr = le.AppendUint32(hdr, uint32(nextents))
	hdr = le.AppendUint32(hdr, uint32(len(fileIndex)))
	hdr = le.AppendUint64(hdr, uint64(len(strs)))
	hdr = le.AppendUint64(hdr, h.Sum64())
	hdr = le.AppendUint32(hdr, uint32(depth))
	hdr = le.AppendUint32(hdr, 0)
	return append(hdr, body...), nil
}

// ReadPlan decodes and validates a prefetch plan, with the checks the
// collector makes before it uses one.
func ReadPlan(b []byte) (*Plan, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadPlan, fmt.Sprintf(format, args...))
	}
	le := binary.LittleEndian
	if len(b) < planHeaderSize || !bytes.Equal(b[:8], []byte(planMagic)) {
		return nil, bad("no plan header")
	}
	if v := le.Uint32(b[8:]); v != planVersion {
		return nil, bad("version %d (this reader knows %d)", v, planVersion)
	}
	if le.Uint32(b[12:]) != planHeaderSize || le.Uint64(b[16:]) != uint64(len(b)) {
		return nil, bad("header says %d bytes, the plan has %d", le.Uint64(b[16:]), len(b))
	}
	nv, ne, nx, nf := uint64(le.Uint32(b[24:])), uint64(le.Uint32(b[28:])), uint64(le.Uint32(b[32:])), uint64(le.Uint32(b[36:]))
	ns := le.Uint64(b[40:])
	sizes := []uint64{nv * planVertexSize, ne * planEdgeSize, nx * planExtentSize, nf * planFileSize, ns}
	var at [5]uint64
	off := uint64(planHeaderSize)
	for i, s := range sizes {
		if s > uint64(len(b)) || off > uint64(len(b))-s {
			return nil, bad("tables run past the end")
		}
		at[i] = off
		off = (off + s + 7) &^ 7
	}
	if off != (uint64(len(b))+7)&^7 {
		return nil, bad("%d bytes after the tables", uint64(len(b))-off)
	}
	h := fnv.New64a()
	h.Write(b[planHeaderSize:])
	if h.Sum64() != le.Uint64(b[48:]) {
		return nil, bad("checksum mismatch")
	}
	p := &Plan{Depth: int(le.Uint32(b[56:]))}
	strs := b[at[4] : at[4]+ns]
	names := make([]string, nf)
	for i := range names {
		f := b[at[3]+planFileSize*uint64(i):]
		o, l := uint64(le.Uint32(f)), uint64(le.Uint32(f[4:]))
		if o > ns || l > ns-o {
			return nil, bad("file name %d out of range", i)
		}
		names[i] = string(strs[o : o+l])
	}
	for i := range nv {
		v := b[at[0]+planVertexSize*i:]
		pv := PlanVertex{Key: le.Uint64(v), Op: darshan.Op(le.Uint32(v[24:])), Bytes: int64(le.Uint64(v[32:]))}
		if i > 0 && p.Vertices[i-1].Key >= pv.Key {
			return nil, bad("vertices not sorted by key")
		}
		fe, cnt, fx, cx := uint64(le.Uint32(v[8:])), uint64(le.Uint32(v[12:])), uint64(le.Uint32(v[16:])), uint64(le.Uint32(v[20:]))
		if fe > ne || cnt > ne-fe || fx > nx || cx > nx-fx {
			return nil, bad("vertex %d out of range", i)
		}
		for k := fe; k < fe+cnt; k++ {
			e := b[at[1]+planEdgeSize*k:]
			to := uint64(le.Uint32(e))
			if to >= nv {
				return nil, bad("edge %d out of range", k)
			}
			pv.Edges = append(pv.Edges, PlanEdge{To: int(to), Count: int64(le.Uint32(e[4:])), Gap: math.Float64frombits(le.Uint64(e[8:]))})
		}
		for k := fx; k < fx+cx; k++ {
			x := b[at[2]+planExtentSize*k:]
			fi := uint64(le.Uint32(x))
			off, n := int64(le.Uint64(x[8:])), int64(le.Uint64(x[16:]))
			if fi >= nf || off < 0 || n < 0 {
				return nil, bad("extent %d out of range", k)
			}
			pv.Extents = append(pv.Extents, Extent{File: names[fi], Offset: off, Length: n})
		}
		p.Vertices = append(p.Vertices, pv)
	}
	return p, nil
}
