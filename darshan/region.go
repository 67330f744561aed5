package darshan

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"io"
	"sync/atomic"

	"github.com/klauspost/compress/zlib"
)

// DefaultMaxRegionSize is the largest decompressed region a Log accepts
// unless its MaxRegionSize says otherwise. A larger region is reported as
// corrupt rather than allowed to exhaust memory.
const DefaultMaxRegionSize = 4 << 30

// inflater decompresses regions. It keeps its zlib state between regions so
// that reading a log allocates the decompressor once. One region is read at
// a time.
type inflater struct {
	zr io.ReadCloser
	// progress, when not nil, counts the compressed bytes consumed.
	progress *atomic.Int64
}

// inflateStream reads the decompressed bytes of a region that holds one or
// more concatenated streams of one compression method. Its errors wrap
// ErrCorrupt or ErrTruncated.
type inflateStream struct {
	f        *inflater
	c        Compression
	src      *bytes.Reader
	cur      io.Reader // the stream being read; nil between streams
	stream   int       // index of cur among the region's streams
	n, limit int64     // bytes produced, and the most allowed
	truncate bool      // at the limit, end quietly rather than fail
	progress *atomic.Int64
}

// open returns a stream of the decompressed bytes of src. At most limit
// bytes are produced (DefaultMaxRegionSize when limit <= 0); more is an
// error unless truncate is set, in which case the stream ends there.
func (f *inflater) open(src []byte, c Compression, limit int64, truncate bool) *inflateStream {
	if limit <= 0 {
		limit = DefaultMaxRegionSize
	}
	return &inflateStream{f: f, c: c, src: bytes.NewReader(src), limit: limit, truncate: truncate, progress: f.progress}
}

// inflate decompresses all of src (see open) and appends it to dst.
func (f *inflater) inflate(dst []byte, src []byte, c Compression, limit int64, truncate bool) ([]byte, error) {
	s := f.open(src, c, limit, truncate)
	// Darshan regions typically inflate 3 to 30 times: start at 8 times to
	// save most of the regrowing.
	if want := len(dst) + int(min(8*int64(len(src)), s.limit)); cap(dst) < want {
		dst = append(make([]byte, 0, want), dst...)
	}
	for {
		if len(dst) == cap(dst) {
			// Double: large appends grow by a quarter only, which copies
			// the region many times over.
			dst = append(make([]byte, 0, max(2*cap(dst), 64<<10)), dst...)
		}
		n, err := s.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// Read reads decompressed bytes, moving from one stream to the next.
func (s *inflateStream) Read(p []byte) (int, error) {
	if s.progress == nil {
		return s.read(p)
	}
	before := s.src.Len()
	n, err := s.read(p)
	s.progress.Add(int64(before - s.src.Len()))
	return n, err
}

func (s *inflateStream) read(p []byte) (int, error) {
	for {
		if s.cur == nil {
			if s.src.Len() == 0 {
				return 0, io.EOF
			}
			if err := s.next(); err != nil {
				return 0, err
			}
		}
		if s.n >= s.limit {
			return 0, s.atLimit()
		}
		if room := s.limit - s.n; int64(len(p)) > room {
			p = p[:room]
		}
		n, err := s.cur.Read(p)
		s.n += int64(n)
		switch {
		case err == io.EOF:
			s.cur = nil
			s.stream++
		case errors.Is(err, io.ErrUnexpectedEOF):
			return n, errorf(ErrTruncated, "%s stream %d ends early", s.c, s.stream)
		case err != nil:
			return n, errorf(ErrCorrupt, "%s stream %d: %v", s.c, s.stream, err)
		}
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
}

// next starts the next stream of the region.
func (s *inflateStream) next() error {
	switch s.c {
	case CompressNone:
		s.cur = s.src
	case CompressZlib:
		if err := s.f.resetZlib(s.src); err != nil {
			return errorf(ErrCorrupt, "zlib stream %d: %v", s.stream, err)
		}
		s.cur = s.f.zr
	case CompressBzip2:
		s.cur = bzip2.NewReader(s.src)
	default:
		return errorf(ErrCorrupt, "unknown compression method %d", s.c)
	}
	return nil
}

// atLimit ends the stream at the size limit: quietly when truncating or
// when no byte follows, else with an error.
func (s *inflateStream) atLimit() error {
	if s.truncate {
		return io.EOF
	}
	for s.cur != nil || s.src.Len() > 0 {
		if s.cur == nil {
			if err := s.next(); err != nil {
				return err
			}
		}
		var one [1]byte
		n, err := s.cur.Read(one[:])
		if n > 0 {
			return errorf(ErrCorrupt, "region decompresses to more than %d bytes", s.limit)
		}
		if err == io.EOF {
			s.cur = nil
			s.stream++
			continue
		}
		if err != nil {
			return errorf(ErrCorrupt, "%s stream %d: %v", s.c, s.stream, err)
		}
	}
	return io.EOF
}

// readFull reads from s until p is full or s ends; it returns io.EOF with
// the bytes read when s ended.
func readFull(s io.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := s.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (f *inflater) resetZlib(r io.Reader) error {
	if f.zr == nil {
		zr, err := zlib.NewReader(r)
		if err != nil {
			return err
		}
		f.zr = zr
		return nil
	}
	return f.zr.(zlib.Resetter).Reset(r, nil)
}
