package darshan

import (
	"runtime"
	"sync"
)

// chunkPipeline prints the records of one module region in chunks of
// consecutive records, each formatted by its own goroutine, and writes the
// chunks' text in order. The region is decoded once in order to find the
// chunk boundaries and the decoder state at each (the heatmap and APMPI
// decoders depend on earlier records); workers decode their chunk again.
type chunkPipeline struct {
	t    *textOut
	l    *Log
	data []byte // the decompressed region; read-only while chunks run
	pool *bufferPool

	start int     // first byte of the chunk being collected
	dec   decoder // decoder state at start
	sync  bool    // APMPI sync flag at start

	pending    []chan []byte // chunks in flight, oldest first
	maxPending int
}

// chunkBytes is the amount of record data per chunk.
const chunkBytes = 16 << 10

func newChunkPipeline(t *textOut, l *Log, rr *RecordReader, pool *bufferPool) *chunkPipeline {
	return &chunkPipeline{t: t, l: l, data: rr.whole, pool: pool, dec: rr.dec.fork(),
		maxPending: 2 * runtime.GOMAXPROCS(0)}
}

// full reports whether the chunk being collected should end before the
// record at off.
func (c *chunkPipeline) full(off int) bool { return off-c.start >= chunkBytes }

// cut hands the records in [start, off) to a worker and, if dec is not nil,
// starts the next chunk at off with a copy of dec's state.
func (c *chunkPipeline) cut(off int, dec *decoder, apmpiSync bool) error {
	if off > c.start {
		ch := make(chan []byte, 1)
		go func(start int, d decoder, sync bool) {
			ch <- c.format(start, off, d, sync)
		}(c.start, c.dec, c.sync)
		c.pending = append(c.pending, ch)
		for len(c.pending) > c.maxPending {
			c.writeOldest()
		}
	}
	c.start = off
	if dec != nil {
		c.dec, c.sync = dec.fork(), apmpiSync
	}
	return c.t.err
}

func (c *chunkPipeline) writeOldest() {
	b := <-c.pending[0]
	c.pending = c.pending[1:]
	c.t.write(b)
	c.pool.put(b)
}

// finish writes the chunks still in flight.
func (c *chunkPipeline) finish() {
	for len(c.pending) > 0 {
		c.writeOldest()
	}
}

// format prints the records in [start, end) of the region.
func (c *chunkPipeline) format(start, end int, d decoder, apmpiSync bool) []byte {
	t := &textOut{b: c.pool.get()}
	pr := recordPrinter{l: c.l, t: t, apmpiSync: apmpiSync}
	var rec Record
	for off := start; off < end; {
		n, keep, err := d.decode(c.data[off:], &rec)
		if err != nil || n == 0 {
			break // cannot happen: the same bytes decoded before
		}
		off += n
		if keep {
			rec.Module = d.mod
			pr.observe(&rec)
			pr.record(&rec)
		}
	}
	return t.b
}

// fork returns a copy of d's state that shares no scratch buffers with d.
func (d *decoder) fork() decoder {
	c := *d
	c.ints, c.floats = nil, nil
	c.lustre, c.trace, c.heat = Lustre{}, Trace{}, Heatmap{}
	return c
}

// bufferPool recycles the output buffers of chunks.
type bufferPool struct {
	mu   sync.Mutex
	free [][]byte
}

func (p *bufferPool) get() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b[:0]
	}
	return make([]byte, 0, 256<<10)
}

func (p *bufferPool) put(b []byte) {
	p.mu.Lock()
	p.free = append(p.free, b)
	p.mu.Unlock()
}
