package darshan

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"os"
	"sort"
	"strings"
	"sync/atomic"
)

// Job is the job record of a log.
type Job struct {
	UID       int64
	StartTime int64 // seconds since the epoch
	StartNsec int64 // nanosecond part (0 before format 3.41)
	EndTime   int64
	EndNsec   int64
	NProcs    int64
	JobID     int64
	// Metadata is the raw "key=value\n" text of the job record.
	Metadata string
}

// MetadataPair is one key/value entry of the job metadata.
type MetadataPair struct{ Key, Value string }

// MetadataPairs splits Metadata into its entries: one per line, split at
// the first '='; lines without '=' are ignored.
func (j *Job) MetadataPairs() []MetadataPair {
	var out []MetadataPair
	for _, line := range strings.Split(j.Metadata, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out = append(out, MetadataPair{k, v})
		}
	}
	return out
}

// Mount is one entry of the mount table recorded with the job.
type Mount struct {
	Path   string // mount point
	FSType string // file-system type
}

// Log is an open Darshan log. Its header, job record, command line, mount
// table and name table are read by Open; module records are read on demand
// with Records.
type Log struct {
	Name   string // file name used in error messages
	Header Header
	Job    Job
	// Exe is the command line of the job.
	Exe string
	// Mounts is the mount table, longest mount point first (the order used
	// to find the mount point of a file).
	Mounts []Mount
	// JobRegion is the byte range of the job region, which the header does
	// not list.
	JobRegion Region
	// MaxRegionSize is the largest decompressed module region Records
	// accepts (DefaultMaxRegionSize when 0); set it before reading records
	// to read logs with larger regions, or to bound memory further.
	MaxRegionSize int64

	r       io.ReaderAt
	size    int64
	names   map[uint64]string
	nameIDs []uint64 // ids in order of first appearance
	// exeComplete is false when the job text has no newline: the reference
	// tools then report an empty command line.
	exeComplete bool
	inflate     inflater
	// consumed counts the compressed bytes of module regions decompressed
	// by the log's record readers.
	consumed atomic.Int64
}

// OpenFile opens the Darshan log at path. The file stays open until Close.
func OpenFile(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &FormatError{File: path, Part: "file", Offset: -1, Err: errorf(ErrNotDarshan, "is a directory")}
	}
	l, err := Open(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// Close releases the file opened by OpenFile. It is a no-op for logs opened
// with Open on a reader that is not an io.Closer.
func (l *Log) Close() error {
	if c, ok := l.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Open reads the header, job record, mount table and name table of the log
// held by r, which is size bytes long. name is used in error messages.
func Open(r io.ReaderAt, size int64, name string) (*Log, error) {
	l := &Log{Name: name, r: r, size: size}
	if size < 0 {
		return nil, l.errorAt("file", -1, fmt.Errorf("negative file size %d", size))
	}
	if err := l.readHeader(); err != nil {
		return nil, err
	}
	if err := l.readJob(); err != nil {
		return nil, err
	}
	if err := l.readNames(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) errorAt(part string, off int64, err error) error {
	return &FormatError{File: l.Name, Part: part, Offset: off, Err: err}
}

func (l *Log) readHeader() error {
	n := int64(headerSize341)
	if l.size < n {
		n = l.size
	}
	buf := make([]byte, n)
	got, err := l.r.ReadAt(buf, 0)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		buf = buf[:got] // the reader holds less than size bytes
	case err != nil:
		return l.errorAt("header", -1, err)
	}
	h, err := decodeHeader(buf)
	if err != nil {
		return l.errorAt("header", -1, err)
	}
	l.Header = *h
	return nil
}

// readRegion returns the compressed bytes of region g.
func (l *Log) readRegion(part string, g Region) ([]byte, error) {
	if g.Off > uint64(l.size) || g.Len > uint64(l.size)-g.Off {
		return nil, l.errorAt(part, -1, errorf(ErrTruncated,
			"region [%d, +%d) extends past the end of the file (%d bytes)", g.Off, g.Len, l.size))
	}
	buf := make([]byte, g.Len)
	n, err := l.r.ReadAt(buf, int64(g.Off))
	switch {
	case n == len(buf):
		return buf, nil
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return nil, l.errorAt(part, -1, errorf(ErrTruncated,
			"region [%d, +%d) ends after the data, at byte %d", g.Off, g.Len, g.Off+uint64(n)))
	default:
		return nil, l.errorAt(part, -1, fmt.Errorf("reading region: %w", err))
	}
}

const jobTextLimit = 4096

func (l *Log) readJob() error {
	h := &l.Header
	start := uint64(h.Size)
	end := uint64(l.size)
	if h.Names.Off != 0 {
		end = h.Names.Off
	} else {
		for _, m := range h.Modules {
			if m.Off != 0 {
				end = m.Off
				break
			}
		}
	}
	if end < start {
		return l.errorAt("job region", -1, errorf(ErrCorrupt, "job region would end at byte %d, before the end of the %d-byte header", end, start))
	}
	if end > uint64(l.size) {
		return l.errorAt("job region", -1, errorf(ErrTruncated, "job region would end at byte %d, past the end of the file (%d bytes)", end, l.size))
	}
	l.JobRegion = Region{start, end - start}
	comp, err := l.readRegion("job region", l.JobRegion)
	if err != nil {
		return err
	}
	data, err := l.inflate.inflate(nil, comp, h.Compression, jobTextLimit, true)
	if err != nil {
		return l.errorAt("job region", -1, err)
	}
	bo := h.ByteOrder
	recSize := 1080
	if h.Size == headerSizeOld {
		recSize = 1064
	}
	if len(data) <= recSize {
		return l.errorAt("job region", -1, errorf(ErrTruncated, "job region holds %d bytes, the job record alone needs %d", len(data), recSize))
	}
	j := &l.Job
	i64 := func(off int) int64 { return int64(bo.Uint64(data[off:])) }
	j.UID = i64(0)
	if recSize == 1080 {
		j.StartTime, j.StartNsec, j.EndTime, j.EndNsec = i64(8), i64(16), i64(24), i64(32)
		j.NProcs, j.JobID = i64(40), i64(48)
	} else {
		j.StartTime, j.EndTime, j.NProcs, j.JobID = i64(8), i64(16), i64(24), i64(32)
	}
	j.Metadata = cString(data[recSize-1024 : recSize])
	l.parseJobText(cString(data[recSize:]))
	return nil
}

// parseJobText splits the text after the job record into the command line
// and the mount table ("\n<type>\t<path>" entries).
func (l *Log) parseJobText(text string) {
	exe, mounts, ok := strings.Cut(text, "\n")
	l.Exe, l.exeComplete = exe, ok
	if !ok {
		return
	}
	for _, line := range strings.Split(mounts, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		l.Mounts = append(l.Mounts, Mount{Path: f[1], FSType: f[0]})
	}
	sort.SliceStable(l.Mounts, func(a, b int) bool { return len(l.Mounts[a].Path) > len(l.Mounts[b].Path) })
}

// MountOf returns the mount entry whose path is the longest byte prefix of
// the file name, as the Darshan tools match them.
func (l *Log) MountOf(file string) (Mount, bool) {
	for _, m := range l.Mounts {
		if strings.HasPrefix(file, m.Path) {
			return m, true
		}
	}
	return Mount{}, false
}

func (l *Log) readNames() error {
	l.names = make(map[uint64]string)
	g := l.Header.Names
	if g.Len == 0 {
		return nil
	}
	comp, err := l.readRegion("name region", g)
	if err != nil {
		return err
	}
	data, err := l.inflate.inflate(nil, comp, l.Header.Compression, l.MaxRegionSize, false)
	if err != nil {
		return l.errorAt("name region", -1, err)
	}
	bo := l.Header.ByteOrder
	old := l.Header.Version == "3.00"
	for off := 0; off < len(data); {
		if len(data)-off < 8 {
			return l.errorAt("name region", int64(off), errorf(ErrCorrupt, "%d stray bytes after the last name record", len(data)-off))
		}
		id := bo.Uint64(data[off:])
		var name string
		if old {
			if len(data)-off < 12 {
				return l.errorAt("name region", int64(off), errorf(ErrTruncated, "name record without its length"))
			}
			n := uint64(bo.Uint32(data[off+8:]))
			if n > uint64(len(data)-off-12) {
				return l.errorAt("name region", int64(off), errorf(ErrTruncated, "name of %d bytes with only %d left", n, len(data)-off-12))
			}
			name = string(data[off+12 : off+12+int(n)])
			off += 12 + int(n)
		} else {
			end := bytes.IndexByte(data[off+8:], 0)
			if end < 0 {
				return l.errorAt("name region", int64(off), errorf(ErrTruncated, "name not terminated"))
			}
			name = string(data[off+8 : off+8+end])
			off += 8 + end + 1
		}
		l.addName(id, name)
	}
	return nil
}

// addName records a name for id: the first one wins, except that a non-empty
// name replaces an empty one.
func (l *Log) addName(id uint64, name string) {
	if old, ok := l.names[id]; ok {
		if old == "" && name != "" {
			l.names[id] = name
		}
		return
	}
	l.names[id] = name
	l.nameIDs = append(l.nameIDs, id)
}

// RecordName returns the name of the record with the given id (a file path,
// a dataset path, ...), and whether the log holds one.
func (l *Log) RecordName(id uint64) (string, bool) {
	n, ok := l.names[id]
	return n, ok
}

// Names iterates over the name records of the log, as (record id, name)
// pairs in the order of first appearance.
func (l *Log) Names() iter.Seq2[uint64, string] {
	return func(yield func(uint64, string) bool) {
		for _, id := range l.nameIDs {
			if !yield(id, l.names[id]) {
				return
			}
		}
	}
}

// Progress reports how far reading the records has come, for progress
// bars: done is the number of compressed bytes of module regions that the
// log's record readers have decompressed so far (a region read twice
// counts twice), total the size of all its module regions. It may be
// called from any goroutine.
func (l *Log) Progress() (done, total int64) {
	for _, g := range l.Header.Modules {
		total += int64(g.Len)
	}
	return l.consumed.Load(), total
}

// RunTime returns the run time of the job in seconds as the Darshan tools
// compute it: end − start with nanoseconds for format 3.41, whole seconds
// plus one for older formats.
func (l *Log) RunTime() float64 {
	j := &l.Job
	if l.Header.Size == headerSizeOld {
		return float64(j.EndTime - j.StartTime + 1)
	}
	return (float64(j.EndTime) + float64(j.EndNsec)/1e9) - (float64(j.StartTime) + float64(j.StartNsec)/1e9)
}
