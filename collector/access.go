package collector

import (
	"cmp"
	"slices"

	"github.com/iolens/iolens/darshan"
)

// accessSequences returns the access sequences of the processes, one per
// process that recorded any, in rank order. A process's accesses are
// ordered by start (a high-level access before the POSIX extents that start
// with it); a POSIX extent whose interval lies within that of a high-level
// access of the same thread is put under it (Parent). Times become seconds
// since the job start.
func accessSequences(procs []*mergeProc) []darshan.AccessSequence {
	var out []darshan.AccessSequence
	for _, p := range procs {
		if len(p.s.Accesses) == 0 {
			continue
		}
		acc := slices.Clone(p.s.Accesses)
		slices.SortStableFunc(acc, func(a, b StoreAccess) int {
			if c := cmp.Compare(a.StartTime, b.StartTime); c != 0 {
				return c
			}
			if c := cmp.Compare(level(a), level(b)); c != 0 {
				return c
			}
			return cmp.Compare(b.EndTime, a.EndTime)
		})
		seq := darshan.AccessSequence{
			Rank:     p.rank,
			Partial:  p.s.Header.Partial&(1<<uint(darshan.ModAccess)) != 0,
			Accesses: make([]darshan.Access, 0, len(acc)),
		}
		// open holds, per thread, the high-level accesses that may still
		// contain later ones, outermost first.
		open := make(map[uint64][]int)
		for _, a := range acc {
			op := darshan.OpRead
			if a.Op == OpWrite {
				op = darshan.OpWrite
			}
			d := darshan.Access{
				Module: a.Module, Op: op, ID: a.ID, File: a.File, Parent: -1,
				Offset: a.Offset, Length: a.Length, Start: a.Start, Count: a.Count,
				StartTime: p.offset + a.StartTime, EndTime: p.offset + a.EndTime,
			}
			stack := open[a.Thread]
			for len(stack) > 0 && seq.Accesses[stack[len(stack)-1]].EndTime < d.StartTime {
				stack = stack[:len(stack)-1]
			}
			if level(a) == 0 {
				stack = append(stack, len(seq.Accesses))
			} else if n := len(stack); n > 0 && seq.Accesses[stack[n-1]].EndTime >= d.EndTime {
				d.Parent = stack[n-1]
			}
			open[a.Thread] = stack
			seq.Accesses = append(seq.Accesses, d)
		}
		out = append(out, seq)
	}
	return out
}

// level is 0 for a high-level access (a logical object), 1 for a POSIX
// extent.
func level(a StoreAccess) int {
	if a.Module == darshan.ModPOSIX {
		return 1
	}
	return 0
}

// accessRegion encodes sequences as the ModAccess region.
func accessRegion(seqs []darshan.AccessSequence) []byte {
	var b []byte
	for i := range seqs {
		b = darshan.AppendAccessRecord(b, &seqs[i])
	}
	return b
}
