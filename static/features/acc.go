package features

import "maps"

// part accumulates the parameters of a block along with what Params
// cannot sum: the bytes moved per file and the files' known extents (for
// P8, the largest file extent), the distinct files opened (P9), and the
// causes.
type part struct {
	p       Params
	files   map[string]float64 // file key → bytes read and written
	extents map[string]float64 // file key → largest extent a read found
	opened  map[string]bool    // keys of the files opened
	causes  []Cause
}

func (a *part) add(b part) {
	a.p.Add(b.p)
	for k, v := range b.files {
		if a.files == nil {
			a.files = map[string]float64{}
		}
		a.files[k] += v
	}
	for k, v := range b.extents {
		if a.extents == nil {
			a.extents = map[string]float64{}
		}
		a.extents[k] = max(a.extents[k], v)
	}
	for k := range b.opened {
		if a.opened == nil {
			a.opened = map[string]bool{}
		}
		a.opened[k] = true
	}
	a.causes = append(a.causes, b.causes...)
}

// scaled returns a copy of a with its dynamic counts multiplied by n.
func (a part) scaled(n float64) part {
	s := part{p: a.p, extents: a.extents, opened: a.opened}
	s.p.Scale(n)
	if a.files != nil {
		s.files = make(map[string]float64, len(a.files))
		for k, v := range a.files {
			s.files[k] = v * n
		}
	}
	s.causes = make([]Cause, len(a.causes))
	for i, c := range a.causes {
		c.Weight *= n
		s.causes[i] = c
	}
	return s
}

// clone returns a copy of a that shares nothing mutable with it.
func (a part) clone() part {
	return part{p: a.p, files: maps.Clone(a.files), extents: maps.Clone(a.extents), opened: maps.Clone(a.opened),
		causes: append([]Cause(nil), a.causes...)}
}

// params returns the block's Params: FileSize from the per-file bytes,
// each at most the file's extent when known (a file read again and again
// stays in the page cache), Files from the distinct files opened, and the
// system side when the block does I/O.
func (a part) params(sys System) Params {
	p := a.p
	p.Files = float64(len(a.opened))
	for k, b := range a.files {
		if e := a.extents[k]; e > 0 {
			b = min(b, e)
		}
		p.FileSize = max(p.FileSize, b)
	}
	if p.HasIO() {
		p.Procs = sys.procsPerTarget()
		p.Storage = sys.StorageScore
	} else {
		p.Procs, p.Storage = 0, 0
	}
	return p
}

// acc is the accumulation of a node both inclusively (callees' parameters
// included) and exclusively (the function's own statements only).
type acc struct {
	inc, self part
}

func (a *acc) add(b acc) {
	a.inc.add(b.inc)
	a.self.add(b.self)
}

func (a acc) scaled(n float64) acc { return acc{a.inc.scaled(n), a.self.scaled(n)} }

// both returns an acc whose inclusive and exclusive parts are p.
func both(p part) acc { return acc{p, p.clone()} }

// heavier reports whether a weighs more than b in I/O: calls (data,
// flushes and metadata), then bytes, then work.
func heavier(a, b Params) bool {
	ca, cb := a.Calls+a.Metadata, b.Calls+b.Metadata
	if ca != cb {
		return ca > cb
	}
	if a.Bytes != b.Bytes {
		return a.Bytes > b.Bytes
	}
	return a.Work > b.Work
}
