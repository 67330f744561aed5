package darshan

import (
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// WriteJSON writes the log l to w as JSON Lines: one JSON object per line,
// first one describing the job, then one per record, module by module in
// module-id order and, within a module, in the order of the log. Records
// are read and written one at a time, so memory stays bounded by one module
// region whatever the size of the log.
//
// The job object:
//
//	{"type":"job", "version":"3.41", "compression":"ZLIB", "exe":"...",
//	 "uid":N, "jobid":N, "start_time":N, "start_time_nsec":N,
//	 "end_time":N, "end_time_nsec":N, "nprocs":N, "run_time":F,
//	 "metadata":{"key":"value",...},
//	 "mounts":[{"path":"/","fs_type":"ext4"},...],
//	 "modules":[{"id":1,"name":"POSIX","version":4,"bytes":N,"incomplete":false},...]}
//
// start_time and end_time are seconds since the epoch; run_time is in
// seconds as [Log.RunTime] computes it. modules lists every module that has
// a region in the log or is flagged as incomplete; bytes is the size of its
// compressed region. A module whose id this package does not know is named
// "module(<id>)" and its records are not written.
//
// A record object:
//
//	{"type":"record", "module":"POSIX", "rank":-1,
//	 "id":9347516096890457488, "id_str":"9347516096890457488",
//	 "name":"/path/of/file" or null,
//	 "counters":{"POSIX_OPENS":16,...}, "fcounters":{"POSIX_F_READ_TIME":0.25,...},
//	 ...module-specific members}
//
// Record ids are 64-bit unsigned integers, beyond the 2^53 that a float64
// holds exactly, so they are written both as a number and as a decimal
// string (id_str). counters and fcounters list a module's counters by name
// in the order of its tables ([Module.Counters], [Module.FCounters]; for
// the header record of APMPI and APXC, [Module.HeaderCounters] and
// [Module.HeaderFCounters]); modules without counter arrays (DXT) have empty
// objects. POSIX_RENAMED_FROM and the APMPI counters are unsigned and
// written as such. Floating-point values that are NaN or infinite are
// written as null.
//
// Module-specific members:
//
//	"file_rec_id":N, "file_rec_id_str":"N"         H5D, PNETCDF_VAR: the file record
//	"pool_uuid":"8-4-4-4-12", "cont_uuid":"..."    DFS, DAOS
//	"oid":"<hi>.<lo>"                              DAOS: the object id
//	"lustre":{"components":[{"stripe_size":N, "stripe_count":N,
//	    "stripe_pattern":N, "flags":N, "ext_start":N, "ext_end":N,
//	    "mirror_id":N, "pool_name":"..."},...], "osts":[N,...]}   LUSTRE
//	"dxt":{"hostname":"...", "thread_ids":true,
//	    "writes":[[offset,length,start,end,thread_id],...],
//	    "reads":[...]}                             DXT_POSIX, DXT_MPIIO
//	"heatmap":{"bin_width":F, "write":[N,...], "read":[N,...]}   HEATMAP
//	"servers":[N,...]                              MDHIM: operations per server
//	"header":true|false                            APMPI, APXC: the module's header record
//	"node_name":"..."                              APMPI (not on the header record)
//
// Strings are written as UTF-8; bytes that are not valid UTF-8 become
// U+FFFD. Records of incomplete modules are written like the others: the
// incomplete member of the job object's module list tells which they are.
//
// WriteJSON returns the first write error, or the first error reading a
// module after writing the records of all the modules it can read.
func WriteJSON(w io.Writer, l *Log) error {
	t := newTextOut(w)
	writeJSONJob(t, l)
	var rr RecordReader
	var first error
	for m := ModuleID(0); m < NumKnownModules; m++ {
		if l.Header.Modules[m].Len == 0 {
			continue
		}
		err := l.eachInto(&rr, m, func(r *Record) error {
			writeJSONRecord(t, l, r)
			return t.flush(false)
		})
		if t.err != nil {
			return t.err
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if err := t.flush(true); err != nil {
		return err
	}
	return first
}

func writeJSONJob(t *textOut, l *Log) {
	h, j := &l.Header, &l.Job
	b := append(t.b, `{"type":"job","version":`...)
	b = appendJSONString(b, h.Version)
	b = append(b, `,"compression":`...)
	b = appendJSONString(b, h.Compression.String())
	b = append(b, `,"exe":`...)
	b = appendJSONString(b, l.Exe)
	b = appendJSONInt(b, "uid", j.UID)
	b = appendJSONInt(b, "jobid", j.JobID)
	b = appendJSONInt(b, "start_time", j.StartTime)
	b = appendJSONInt(b, "start_time_nsec", j.StartNsec)
	b = appendJSONInt(b, "end_time", j.EndTime)
	b = appendJSONInt(b, "end_time_nsec", j.EndNsec)
	b = appendJSONInt(b, "nprocs", j.NProcs)
	b = append(b, `,"run_time":`...)
	b = appendJSONFloat(b, l.RunTime())
	b = append(b, `,"metadata":{`...)
	for i, p := range j.MetadataPairs() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, p.Key)
		b = append(b, ':')
		b = appendJSONString(b, p.Value)
	}
	b = append(b, `},"mounts":[`...)
	for i, m := range l.Mounts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = appendJSONString(b, m.Path)
		b = append(b, `,"fs_type":`...)
		b = appendJSONString(b, m.FSType)
		b = append(b, '}')
	}
	b = append(b, `],"modules":[`...)
	n := 0
	for m := ModuleID(0); m < MaxModules; m++ {
		g := h.Modules[m]
		if g.Len == 0 && !h.Incomplete(m) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(m), 10)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, m.String())
		b = append(b, `,"version":`...)
		b = strconv.AppendUint(b, uint64(h.ModuleVersions[m]), 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendUint(b, g.Len, 10)
		b = append(b, `,"incomplete":`...)
		b = strconv.AppendBool(b, h.Incomplete(m))
		b = append(b, '}')
	}
	t.b = append(b, "]}\n"...)
}

func writeJSONRecord(t *textOut, l *Log, r *Record) {
	info := &modules[r.Module]
	b := append(t.b, `{"type":"record","module":`...)
	b = appendJSONString(b, info.Name)
	b = appendJSONInt(b, "rank", r.Rank)
	b = appendJSONID(b, "id", r.ID)
	b = append(b, `,"name":`...)
	if name, ok := l.RecordName(r.ID); ok {
		b = appendJSONString(b, name)
	} else {
		b = append(b, "null"...)
	}

	names, fnames := info.Counters, info.FCounters
	if r.Header {
		names, fnames = info.HeaderCounters, info.HeaderFCounters
	}
	b = append(b, `,"counters":{`...)
	for i, v := range r.Counters {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, counterName(names, r.Module, i))
		b = append(b, ':')
		if unsignedCounter(r, i) {
			b = strconv.AppendUint(b, uint64(v), 10)
		} else {
			b = strconv.AppendInt(b, v, 10)
		}
	}
	b = append(b, `},"fcounters":{`...)
	for i, v := range r.FCounters {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, counterName(fnames, r.Module, i))
		b = append(b, ':')
		b = appendJSONFloat(b, v)
	}
	b = append(b, '}')

	switch r.Module {
	case ModH5D, ModPnetCDFVar:
		b = appendJSONID(b, "file_rec_id", r.FileRecID)
	case ModDFS, ModDAOS:
		b = append(b, `,"pool_uuid":"`...)
		b = append(b, formatUUID(r.PoolUUID)...)
		b = append(b, `","cont_uuid":"`...)
		b = append(b, formatUUID(r.ContUUID)...)
		b = append(b, '"')
		if r.Module == ModDAOS {
			b = append(b, `,"oid":"`...)
			b = strconv.AppendUint(b, r.OIDHi, 10)
			b = append(b, '.')
			b = strconv.AppendUint(b, r.OIDLo, 10)
			b = append(b, '"')
		}
	case ModMDHIM:
		b = append(b, `,"servers":`...)
		b = appendJSONInts(b, r.Servers)
	case ModAPXC, ModAPMPI:
		b = append(b, `,"header":`...)
		b = strconv.AppendBool(b, r.Header)
		if r.Module == ModAPMPI && !r.Header {
			b = append(b, `,"node_name":`...)
			b = appendJSONString(b, r.NodeName)
		}
	}
	if lu := r.Lustre; lu != nil {
		b = append(b, `,"lustre":{"components":[`...)
		for i, c := range lu.Components {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"stripe_size":`...)
			b = strconv.AppendInt(b, c.StripeSize, 10)
			b = appendJSONInt(b, "stripe_count", c.StripeCount)
			b = appendJSONInt(b, "stripe_pattern", c.StripePattern)
			b = appendJSONInt(b, "flags", c.Flags)
			b = appendJSONInt(b, "ext_start", c.ExtStart)
			b = appendJSONInt(b, "ext_end", c.ExtEnd)
			b = appendJSONInt(b, "mirror_id", c.MirrorID)
			b = append(b, `,"pool_name":`...)
			b = appendJSONString(b, c.PoolName)
			b = append(b, '}')
		}
		b = append(b, `],"osts":`...)
		b = appendJSONInts(b, lu.OSTs)
		b = append(b, '}')
	}
	if d := r.DXT; d != nil {
		b = append(b, `,"dxt":{"hostname":`...)
		b = appendJSONString(b, d.Hostname)
		b = append(b, `,"thread_ids":`...)
		b = strconv.AppendBool(b, d.ThreadIDs)
		b = append(b, `,"writes":`...)
		b = appendJSONSegments(b, d.Writes)
		b = append(b, `,"reads":`...)
		b = appendJSONSegments(b, d.Reads)
		b = append(b, '}')
	}
	if hm := r.Heatmap; hm != nil {
		b = append(b, `,"heatmap":{"bin_width":`...)
		b = appendJSONFloat(b, hm.BinWidth)
		b = append(b, `,"write":`...)
		b = appendJSONInts(b, hm.Write)
		b = append(b, `,"read":`...)
		b = appendJSONInts(b, hm.Read)
		b = append(b, '}')
	}
	t.b = append(b, "}\n"...)
}

// counterName returns names[i], or a made-up name for a value the table
// does not cover (which the decoders do not produce).
func counterName(names []string, m ModuleID, i int) string {
	if i < len(names) {
		return names[i]
	}
	return m.String() + "_COUNTER_" + strconv.Itoa(i)
}

// unsignedCounter reports whether counter i of r holds an unsigned value:
// a record id (POSIX_RENAMED_FROM) or an APMPI call count or size.
func unsignedCounter(r *Record, i int) bool {
	switch r.Module {
	case ModPOSIX:
		return i == posixRenamedFrom
	case ModAPMPI:
		return !r.Header
	}
	return false
}

// appendJSONInt appends the member ,"key":v.
func appendJSONInt(b []byte, key string, v int64) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, v, 10)
}

// appendJSONID appends a 64-bit id as the members ,"key":v,"key_str":"v".
func appendJSONID(b []byte, key string, v uint64) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	start := len(b)
	b = strconv.AppendUint(b, v, 10)
	digits := len(b) - start
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `_str":"`...)
	b = append(b, b[start:start+digits]...)
	return append(b, '"')
}

func appendJSONInts(b []byte, vs []int64) []byte {
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, ']')
}

func appendJSONSegments(b []byte, segs []Segment) []byte {
	b = append(b, '[')
	for i, s := range segs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, s.Offset, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, s.Length, 10)
		b = append(b, ',')
		b = appendJSONFloat(b, s.Start)
		b = append(b, ',')
		b = appendJSONFloat(b, s.End)
		b = append(b, ',')
		b = strconv.AppendUint(b, s.ThreadID, 10)
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendJSONFloat appends v as the shortest decimal that reads back to the
// same float64, or null for NaN and infinities, which JSON cannot express.
func appendJSONFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendJSONString appends s as a quoted JSON string. Control characters,
// quotes and backslashes are escaped, as are U+2028 and U+2029 (for
// JavaScript consumers); invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
