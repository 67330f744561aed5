package knowledge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/iolens/iolens/darshan"
)

// Generalize returns path with every maximal run of ASCII decimal digits
// replaced by a single '#', so that paths that differ only in dates, time
// steps, job ids or ranks share one pattern:
// "/scratch/run_2026-11-25/out_0042.nc" becomes "/scratch/run_#-#-#/out_#.nc".
func Generalize(path string) string {
	var b strings.Builder
	b.Grow(len(path))
	digits := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= '0' && c <= '9' {
			if !digits {
				b.WriteByte('#')
				digits = true
			}
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	return b.String()
}

// Namer turns the concrete file paths of one run into logical names that
// stay the same from run to run: the generalised path (see [Generalize])
// followed by the occurrence index of that pattern in the run, in brackets.
// The first distinct path of a pattern gets index 0, the next distinct one
// 1, and so on, so "in_001.nc" and "in_002.nc" stay two objects
// ("in_#.nc[0]" and "in_#.nc[1]") while another run that reads "in_101.nc"
// then "in_102.nc" names them the same way.
//
// Use one Namer per rank of a run, and feed it the rank's accesses in
// sequence order, as [Graph.Accumulate] and [Evaluate] do (and as the
// collector's prefetch thread names the files of its process). The
// zero Namer is ready to use; a Namer is not safe for concurrent use.
type Namer struct {
	files map[string]string // concrete path -> logical name
	seen  map[string]int    // pattern -> distinct paths named so far
}

// File returns the logical name of the file at path.
func (n *Namer) File(path string) string {
	if name, ok := n.files[path]; ok {
		return name
	}
	if n.files == nil {
		n.files = make(map[string]string)
		n.seen = make(map[string]int)
	}
	pattern := Generalize(path)
	i := n.seen[pattern]
	n.seen[pattern] = i + 1
	name := pattern + "[" + strconv.Itoa(i) + "]"
	n.files[path] = name
	return name
}

// Object returns the logical name of an object (a variable, a dataset)
// inside the file at path: the file's logical name, ':' and object, which is
// kept as is.
func (n *Namer) Object(path, object string) string {
	return n.File(path) + ":" + object
}

// unnamed is the logical name of a record whose name the log lacks. Record
// ids are hashes of the names, so it is as stable as the name would be.
func unnamed(id uint64) string { return fmt.Sprintf("<record %016x>", id) }

// Key returns the vertex key of access a, naming its records with names
// (which may be nil when no names are known).
//
// A POSIX access is keyed by the logical name of its file and its extent. A
// high-level access (any other module) is keyed by the logical name of its
// object and the bounding box of its selection. The object's record name
// ("file:variable" or "file:/dataset") is split at its file's record name:
// the name of a.File is the file part and what follows it and ':' the
// object part. When the object's name does not begin that way, it is split
// at its first ':' instead (and the file part taken from there when the
// file record has no name).
func (n *Namer) Key(a *darshan.Access, names func(id uint64) (string, bool)) VertexKey {
	lookup := func(id uint64) (string, bool) {
		if names == nil {
			return "", false
		}
		s, ok := names(id)
		return s, ok && s != ""
	}
	k := VertexKey{Module: a.Module, Op: a.Op}
	if a.Module == darshan.ModPOSIX {
		id := a.File
		if id == 0 {
			id = a.ID
		}
		if path, ok := lookup(id); ok {
			k.Object = n.File(path)
		} else {
			k.Object = unnamed(id)
		}
		k.Offset, k.Length = a.Offset, a.Length
		return k
	}
	k.Offset = -1
	d := min(len(a.Start), len(a.Count))
	if d > 0 {
		k.Start = append([]int64(nil), a.Start[len(a.Start)-d:]...)
		k.Count = append([]int64(nil), a.Count[len(a.Count)-d:]...)
	}
	obj, objOK := lookup(a.ID)
	file, fileOK := lookup(a.File)
	switch {
	case !objOK && fileOK:
		k.Object = n.Object(file, unnamed(a.ID))
	case !objOK:
		k.Object = unnamed(a.ID)
	case fileOK && strings.HasPrefix(obj, file+":"):
		k.Object = n.Object(file, obj[len(file)+1:])
	default:
		part, rest, found := strings.Cut(obj, ":")
		switch {
		case fileOK && found:
			k.Object = n.Object(file, rest)
		case fileOK:
			k.Object = n.Object(file, obj)
		case found:
			k.Object = n.Object(part, rest)
		default:
			k.Object = n.File(obj)
		}
	}
	return k
}
