package knowledge

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/iolens/iolens/darshan"
)

// graphOpts compares graphs by their exported content.
var graphOpts = cmp.Options{cmpopts.IgnoreUnexported(Graph{})}

// world is the record names of a simulated run: every run uses its own
// date and step in its paths, so its own record ids.
type world struct {
	names map[uint64]string
	ids   map[string]uint64
}

func newWorld() *world { return &world{names: map[uint64]string{}, ids: map[string]uint64{}} }

// id returns the record id of name, allocating one.
func (w *world) id(name string) uint64 {
	if id, ok := w.ids[name]; ok {
		return id
	}
	id := uint64(len(w.ids) + 1)
	w.ids[name] = id
	w.names[id] = name
	return id
}

func (w *world) lookup(id uint64) (string, bool) { s, ok := w.names[id]; return s, ok }

// file is the path of the input file of a run of the given date.
func inFile(date string) string { return fmt.Sprintf("/scratch/run_%s/in_0001.nc", date) }

// read returns a top-level PnetCDF read of variable v of file f, of the
// selection start+count (one dimension), moving bytes between t0 and t1.
func (w *world) read(f, v string, start, count int64, bytes int64, t0, t1 float64) darshan.Access {
	return darshan.Access{
		Module: darshan.ModPnetCDFVar, Op: darshan.OpRead,
		ID: w.id(f + ":" + v), File: w.id(f), Parent: -1,
		Offset: -1, Length: bytes,
		Start: []int64{start}, Count: []int64{count},
		StartTime: t0, EndTime: t1,
	}
}

// posix returns a POSIX access of file f serving access parent (or
// top-level for -1).
func (w *world) posix(op darshan.Op, f string, parent int, off, length int64, t0, t1 float64) darshan.Access {
	id := w.id(f)
	return darshan.Access{Module: darshan.ModPOSIX, Op: op, ID: id, File: id, Parent: parent, Offset: off, Length: length, StartTime: t0, EndTime: t1}
}

// chain returns one rank reading the variables vars of the input file of
// date in turn: each read takes 1 s and moves 80 bytes, with a 0.5 s gap
// before the next, and is served by one POSIX extent of 80 bytes at
// 1000*(i+1).
func (w *world) chain(rank int64, date string, vars ...string) darshan.AccessSequence {
	f := inFile(date)
	s := darshan.AccessSequence{Rank: rank}
	t := 0.0
	for i, v := range vars {
		parent := len(s.Accesses)
		s.Accesses = append(s.Accesses,
			w.read(f, v, 0, 10, 80, t, t+1),
			w.posix(darshan.OpRead, f, parent, int64(1000*(i+1)), 80, t+0.25, t+0.75))
		t += 1.5
	}
	return s
}

// hv returns the expected vertex of the chain read of variable v (file
// index 0), visited n times, and seen at position i of the chain.
func hv(id int, v string, n int64, ext ...Extent) Vertex {
	return Vertex{
		ID: id,
		VertexKey: VertexKey{
			Object: "/scratch/run_#/in_#.nc[0]:" + v,
			Module: darshan.ModPnetCDFVar, Op: darshan.OpRead,
			Start: []int64{0}, Count: []int64{10}, Offset: -1,
		},
		Visits: n, Bytes: 80 * n, Time: float64(n),
		Extents: ext,
	}
}

// ext returns the extent of the input file at off of 80 bytes.
func ext(off int64) Extent { return Extent{File: "/scratch/run_#/in_#.nc[0]", Offset: off, Length: 80} }
