package darshan

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"io"

	"github.com/klauspost/compress/zlib"
)

// DefaultMaxRegionSize is the largest decompressed region a Log accepts
// unless its MaxRegionSize says otherwise. A larger region is reported as
// corrupt rather than allowed to exhaust memory.
const DefaultMaxRegionSize = 4 << 30

// inflater decompresses regions. It keeps its zlib state between regions so
// that reading a log allocates the decompressor once.
type inflater struct {
	zr io.ReadCloser
}

// inflate decompresses src, which holds one or more concatenated streams of
// method c, appending the output to dst. At most limit bytes are produced
// (DefaultMaxRegionSize when limit <= 0); more is an error unless truncate is
// set, in which case the output stops there.
func (f *inflater) inflate(dst []byte, src []byte, c Compression, limit int64, truncate bool) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxRegionSize
	}
	if c == CompressNone {
		if int64(len(src)) > limit {
			if !truncate {
				return dst, errorf(ErrCorrupt, "region exceeds %d bytes", limit)
			}
			src = src[:limit]
		}
		return append(dst, src...), nil
	}
	// Darshan regions typically inflate 3 to 30 times: start at 8 times to
	// save most of the regrowing.
	if want := int64(len(dst)) + 8*int64(len(src)); int64(cap(dst)) < want {
		grown := make([]byte, len(dst), min(want, int64(len(dst))+limit))
		dst = append(grown[:0], dst...)
	}
	br := bytes.NewReader(src)
	w := appendWriter{buf: dst, limit: int64(len(dst)) + limit}
	for stream := 0; br.Len() > 0; stream++ {
		var r io.Reader
		switch c {
		case CompressZlib:
			if err := f.resetZlib(br); err != nil {
				return w.buf, errorf(ErrCorrupt, "zlib stream %d: %v", stream, err)
			}
			r = f.zr
		case CompressBzip2:
			r = bzip2.NewReader(br)
		default:
			return w.buf, errorf(ErrCorrupt, "unknown compression method %d", c)
		}
		if _, err := io.Copy(&w, r); err != nil {
			if errors.Is(err, errRegionLimit) {
				if truncate {
					return w.buf, nil
				}
				return w.buf, errorf(ErrCorrupt, "region decompresses to more than %d bytes", limit)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return w.buf, errorf(ErrTruncated, "%s stream %d ends early", c, stream)
			}
			return w.buf, errorf(ErrCorrupt, "%s stream %d: %v", c, stream, err)
		}
	}
	return w.buf, nil
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

var errRegionLimit = errors.New("region size limit reached")

// appendWriter appends to a byte slice, up to a limit.
type appendWriter struct {
	buf   []byte
	limit int64
}

func (w *appendWriter) Write(p []byte) (int, error) {
	if room := w.limit - int64(len(w.buf)); int64(len(p)) > room {
		w.buf = append(w.buf, p[:room]...)
		return int(room), errRegionLimit
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// ReadFrom lets io.Copy decompress straight into the slice.
func (w *appendWriter) ReadFrom(r io.Reader) (int64, error) {
	var total int64
	for {
		if len(w.buf) == cap(w.buf) && int64(len(w.buf)) < w.limit {
			// Double, up to the limit: large appends grow by a quarter
			// only, which copies the region many times over.
			grown := make([]byte, len(w.buf), min(max(2*int64(cap(w.buf)), 64<<10), w.limit))
			w.buf = append(grown[:0], w.buf...)
		}
		end := cap(w.buf)
		if int64(end) > w.limit {
			end = int(w.limit)
		}
		if end == len(w.buf) {
			// At the limit: see whether the stream has more.
			var one [1]byte
			n, err := r.Read(one[:])
			if n > 0 {
				return total, errRegionLimit
			}
			if err == io.EOF {
				return total, nil
			}
			if err != nil {
				return total, err
			}
			continue
		}
		n, err := r.Read(w.buf[len(w.buf):end])
		w.buf = w.buf[:len(w.buf)+n]
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}
