package darshan

import (
	"encoding/hex"
	"strconv"
)

// recordPrinter formats records as darshan-parser's counter lines.
type recordPrinter struct {
	l         *Log
	t         *textOut
	apmpiSync bool // the APMPI header record enabled sync times
	// pre and suf are the columns before the counter name and after the
	// value, the same on every line of a record.
	pre, suf []byte
}

// line starts the line of the named counter, up to its value.
func (p *recordPrinter) line(name string) {
	p.t.b = append(append(append(p.t.b, p.pre...), name...), '\t')
}

// end finishes a counter line.
func (p *recordPrinter) end() { p.t.b = append(p.t.b, p.suf...) }

func (p *recordPrinter) floats(names []string, vals []float64) {
	for i, v := range vals {
		p.line(names[i])
		p.t.f(v, 6)
		p.end()
	}
}

// observe updates the state that later records' output depends on.
func (p *recordPrinter) observe(r *Record) {
	if r.Module == ModAPMPI && r.Header {
		p.apmpiSync = r.Counters[1] != 0
	}
}

// record prints one record as darshan-parser's counter lines.
func (p *recordPrinter) record(r *Record) {
	t := p.t
	info := &modules[r.Module]
	p.pre = append(p.pre[:0], info.Name...)
	p.pre = append(p.pre, '\t')
	p.pre = strconv.AppendInt(p.pre, r.Rank, 10)
	p.pre = append(p.pre, '\t')
	p.pre = strconv.AppendUint(p.pre, r.ID, 10)
	p.pre = append(p.pre, '\t')
	p.suf = p.appendColumns(p.suf[:0], r)
	line, end := p.line, p.end
	switch r.Module {
	case ModLustre:
		p.lustre(r, line, end)
		return
	case ModHeatmap:
		p.floats(heatmapFCounters, r.FCounters)
		for _, bins := range []struct {
			name string
			v    []int64
		}{{"HEATMAP_READ_BIN_", r.Heatmap.Read}, {"HEATMAP_WRITE_BIN_", r.Heatmap.Write}} {
			for k, v := range bins.v {
				t.b = append(t.b, p.pre...)
				t.s(bins.name).i(int64(k)).s("\t").i(v)
				end()
			}
		}
		return
	case ModAPMPI:
		p.apmpi(r, line, end)
		return
	}
	for i, v := range r.Counters {
		line(info.Counters[i])
		if r.Module == ModPOSIX && i == posixRenamedFrom {
			t.u(uint64(v))
		} else {
			t.i(v)
		}
		end()
	}
	p.floats(info.FCounters, r.FCounters)
	switch r.Module {
	case ModH5D:
		line("H5D_FILE_REC_ID")
		t.u(r.FileRecID)
		end()
	case ModPnetCDFVar:
		line("PNETCDF_VAR_FILE_REC_ID")
		t.u(r.FileRecID)
		end()
	case ModMDHIM:
		for i, v := range r.Servers {
			t.b = append(t.b, p.pre...)
			t.s("MDHIM_SERVER_").i(int64(i)).s("\t").i(v)
			end()
		}
	}
}

// posixRenamedFrom is the index of POSIX_RENAMED_FROM, printed unsigned.
const posixRenamedFrom = 12

// appendColumns appends the file name, mount point and file-system type
// columns of a record, with the leading TAB and the final newline.
func (p *recordPrinter) appendColumns(b []byte, r *Record) []byte {
	switch r.Module {
	case ModAPMPI, ModDFS, ModDAOS:
		return append(b, specialColumns(p.l, r)...)
	}
	name, ok := p.l.RecordName(r.ID)
	if !ok {
		if r.Module == ModBGQ {
			return append(b, "\tdarshan-bgq-record\tUNKNOWN\tUNKNOWN\n"...)
		}
		return append(b, "\t(null)\tUNKNOWN\tUNKNOWN\n"...)
	}
	mnt, fs := "UNKNOWN", "UNKNOWN"
	if m, ok := p.l.MountOf(name); ok {
		mnt, fs = m.Path, m.FSType
	}
	b = append(append(append(b, '\t'), name...), '\t')
	b = append(append(append(b, mnt...), '\t'), fs...)
	return append(b, '\n')
}

// specialColumns returns the last columns of the modules that print
// something other than the record name and its mount.
func specialColumns(l *Log, r *Record) string {
	switch r.Module {
	case ModAPMPI:
		return "\t\t\t\n"
	case ModDFS:
		name, ok := l.RecordName(r.ID)
		if !ok {
			name = "(null)"
		}
		mnt := "UNKNOWN"
		if r.PoolUUID != ([16]byte{}) && r.ContUUID != ([16]byte{}) {
			mnt = formatUUID(r.PoolUUID) + ":" + formatUUID(r.ContUUID)
		}
		return "\t" + name + "\t" + mnt + "\tN/A\n"
	case ModDAOS:
		name := strconv.FormatUint(r.OIDHi, 10) + "." + strconv.FormatUint(r.OIDLo, 10)
		return "\t" + name + "\t" + formatUUID(r.PoolUUID) + ":" + formatUUID(r.ContUUID) + "\tN/A\n"
	}
	return ""
}

// formatUUID formats a uuid in canonical lower-case 8-4-4-4-12 form.
func formatUUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// lustre prints a LUSTRE record: the two counts, then every component.
func (p *recordPrinter) lustre(r *Record, line func(string), end func()) {
	t := p.t
	for i, v := range r.Counters {
		line(lustreCounters[i])
		t.i(v)
		end()
	}
	osts := r.Lustre.OSTs
	for k, c := range r.Lustre.Components {
		comp := "LUSTRE_COMP" + strconv.Itoa(k+1) + "_"
		vals := [...]int64{c.StripeSize, c.StripeCount, c.StripePattern, c.Flags, c.ExtStart, c.ExtEnd, c.MirrorID}
		for i, v := range vals {
			line(comp + lustreComponentCounters[i])
			switch i {
			case 2:
				t.s(lustrePattern(v))
			case 3:
				t.s(lustreFlags(v))
			default:
				t.i(v)
			}
			end()
		}
		line(comp + "POOL_NAME")
		if c.PoolName == "" {
			t.s("N/A")
		} else {
			t.s(c.PoolName)
		}
		end()
		for j := int64(0); j < c.StripeCount && len(osts) > 0; j++ {
			line(comp + "OST_ID_" + strconv.FormatInt(j, 10))
			t.i(osts[0])
			end()
			osts = osts[1:]
		}
	}
}

func lustrePattern(v int64) string {
	switch v {
	case 0:
		return "raid0"
	case 2:
		return "mdt"
	case 4:
		return "raid0,overstriped"
	case 8:
		return "foreign"
	}
	return "N/A"
}

var lustreFlagNames = [...]string{"stale", "prefrd", "prefwr", "offline", "init", "nosync",
	"extension", "parity", "compress", "partial", "nocompr", "neg"}

func lustreFlags(v int64) string {
	if v == -1 {
		return "N/A"
	}
	s := ""
	for i, n := range lustreFlagNames {
		if v&(1<<uint(i)) != 0 {
			if s != "" {
				s += ","
			}
			s += n
		}
	}
	if s == "" {
		return "0"
	}
	return s
}

// apmpi prints an APMPI record; the header record's sync flag decides
// whether the sync-time counters of the following records are printed.
func (p *recordPrinter) apmpi(r *Record, line func(string), end func()) {
	t := p.t
	if r.Header {
		p.observe(r)
		line(apmpiHeaderFCounters[0])
		t.f(r.FCounters[0], 6)
		end()
		if p.apmpiSync {
			line(apmpiHeaderFCounters[1])
			t.f(r.FCounters[1], 6)
			end()
		}
		return
	}
	line("MPI_PROCESSOR_NAME")
	t.s(r.NodeName)
	end()
	for i, v := range r.Counters {
		line(apmpiCounters[i])
		t.u(uint64(v))
		end()
	}
	nf := apmpiTimeCounters
	if p.apmpiSync {
		nf += apmpiSyncCounters
	}
	for i := 0; i < nf; i++ {
		line(apmpiFCounters[i])
		t.f(r.FCounters[i], 6)
		end()
	}
	total := apmpiTimeCounters + apmpiSyncCounters
	line(apmpiFCounters[total])
	t.f(r.FCounters[total], 6)
	end()
	if p.apmpiSync {
		line(apmpiFCounters[total+1])
		t.f(r.FCounters[total+1], 6)
		end()
	}
}

// Sizes of the parts of APMPI's float counters: per-op times, then sync
// times, then the two totals.
const (
	apmpiTimeCounters = 222
	apmpiSyncCounters = 16
)
