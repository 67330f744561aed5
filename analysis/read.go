package analysis

import (
	"io"

	"github.com/iolens/iolens/darshan"
)

// eachModule calls add for every record of the modules ids, in order, and
// fail for a module that cannot be read (after the records read before the
// error). The reader decompresses a large region on another goroutine
// while its records are analysed.
func eachModule(l *darshan.Log, ids []darshan.ModuleID, fail func(darshan.ModuleID, error), add func(*darshan.Record) error) {
	for _, id := range ids {
		rr, err := l.Records(id)
		if err != nil {
			fail(id, err)
			continue
		}
		for {
			r, err := rr.Next()
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
