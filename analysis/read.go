package analysis

import (
	"io"

	"github.com/iolens/iolens/darshan"
)

// maxAhead is the largest compressed region opened ahead of its turn: the
// inflated regions of two modules are in memory at once.
const maxAhead = 64 << 20

// opened is a module's record reader, opened (its region inflated) ahead.
type opened struct {
	rr  *darshan.RecordReader
	err error
}

func openModule(l *darshan.Log, id darshan.ModuleID) opened {
	rr, err := l.Records(id)
	return opened{rr, err}
}

// eachModule calls add for every record of the modules ids, in order, and
// fail for a module that cannot be read (after the records read before the
// error). While one module's records are analysed, the next module's
// region is inflated on another goroutine, when it is small enough.
func eachModule(l *darshan.Log, ids []darshan.ModuleID, fail func(darshan.ModuleID, error), add func(*darshan.Record) error) {
	var ahead chan opened
	for i, id := range ids {
		var o opened
		if ahead != nil {
			o = <-ahead
		} else {
			o = openModule(l, id)
		}
		ahead = nil
		if i+1 < len(ids) && l.Header.Modules[ids[i+1]].Len <= maxAhead {
			ch := make(chan opened, 1)
			go func(next darshan.ModuleID) { ch <- openModule(l, next) }(ids[i+1])
			ahead = ch
		}
		if o.err != nil {
			fail(id, o.err)
			continue
		}
		for {
			r, err := o.rr.Next()
			if err == io.EOF {
				break
			}
			if err == nil {
				err = add(r)
			}
			if err != nil {
				fail(id, err)
				break
			}
		}
	}
}
