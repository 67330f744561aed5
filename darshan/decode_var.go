package darshan

// Decoders of the variable-size records: LUSTRE, DXT, MDHIM, HEATMAP and the
// AutoPerf modules. Every count read from a record is checked against the
// bytes that remain before anything is allocated from it.

func (d *decoder) decodeLustre(b []byte, r *Record) (int, bool, error) {
	l := &d.lustre
	l.Components, l.OSTs = l.Components[:0], l.OSTs[:0]
	if d.ver == 1 {
		if len(b) < 56 {
			return 0, false, errorf(ErrTruncated, "LUSTRE record of %d bytes, needs 56", len(b))
		}
		width := d.i64(b[48:])
		if width < 0 || width > int64(len(b)-56)/8 {
			return 0, false, errorf(ErrCorrupt, "LUSTRE stripe width %d with %d bytes left", width, len(b)-56)
		}
		l.Components = append(l.Components, LustreComponent{
			StripeSize: d.i64(b[40:]), StripeCount: width, StripePattern: -1, Flags: -1,
			ExtStart: 0, ExtEnd: -1, MirrorID: -1,
		})
		for i := 0; i < int(width); i++ {
			l.OSTs = append(l.OSTs, d.i64(b[56+8*i:]))
		}
		r.Counters = append(r.Counters, 1, width)
		r.Lustre = l
		return 56 + 8*int(width), true, nil
	}
	if len(b) < 32 {
		return 0, false, errorf(ErrTruncated, "LUSTRE record of %d bytes, needs 32", len(b))
	}
	ncomp, nstripe := d.i64(b[16:]), d.i64(b[24:])
	n := 32
	if ncomp >= 1 {
		rest := int64(len(b) - 32)
		if ncomp > rest/72 || nstripe < 0 || nstripe > (rest-72*ncomp)/8 {
			return 0, false, errorf(ErrCorrupt, "LUSTRE record with %d components and %d stripes but %d bytes left", ncomp, nstripe, rest)
		}
		used := true
		for i := 0; i < int(ncomp); i++ {
			c := b[32+72*i:]
			comp := LustreComponent{
				StripeSize: d.i64(c), StripeCount: d.i64(c[8:]), StripePattern: d.i64(c[16:]),
				Flags: d.i64(c[24:]), ExtStart: d.i64(c[32:]), ExtEnd: d.i64(c[40:]),
				MirrorID: d.i64(c[48:]), PoolName: cString(c[56:72]),
			}
			// Components after the first unused one (stripe size -1) are
			// dropped, as are their OSTs.
			if comp.StripeSize == -1 {
				used = false
			}
			if used {
				l.Components = append(l.Components, comp)
			}
		}
		osts := b[32+72*int(ncomp):]
		var kept int64
		for _, c := range l.Components {
			kept += c.StripeCount
		}
		if kept > nstripe || kept < 0 {
			kept = nstripe
		}
		for i := 0; i < int(kept); i++ {
			l.OSTs = append(l.OSTs, d.i64(osts[8*i:]))
		}
		n = 32 + 72*int(ncomp) + 8*int(nstripe)
		ncomp, nstripe = int64(len(l.Components)), kept
	}
	r.Counters = append(r.Counters, ncomp, nstripe)
	r.Lustre = l
	return n, true, nil
}

const dxtHeaderSize = 104

func (d *decoder) decodeDXT(b []byte, r *Record) (int, bool, error) {
	if len(b) < dxtHeaderSize {
		return 0, false, errorf(ErrTruncated, "DXT record of %d bytes, the header needs %d", len(b), dxtHeaderSize)
	}
	t := &d.trace
	t.Hostname = cString(b[24:88])
	nw, nr := d.i64(b[88:]), d.i64(b[96:])
	t.ThreadIDs = (d.mod == ModDXTPOSIX && d.ver >= 2) || (d.mod == ModDXTMPIIO && d.ver >= 3)
	seg := 32
	if t.ThreadIDs {
		seg = 40
	}
	rest := int64(len(b) - dxtHeaderSize)
	if nw < 0 || nr < 0 || nw > rest/int64(seg) || nr > rest/int64(seg)-nw {
		return 0, false, errorf(ErrCorrupt, "DXT record with %d writes and %d reads but %d bytes left", nw, nr, rest)
	}
	noOffsets := d.mod == ModDXTMPIIO && d.ver == 1
	read := func(dst []Segment, off int) []Segment {
		for i := range dst {
			s := b[off+seg*i:]
			dst[i] = Segment{Offset: d.i64(s), Length: d.i64(s[8:]), Start: d.f64(s[16:]), End: d.f64(s[24:])}
			if noOffsets {
				dst[i].Offset = -1
			}
			if t.ThreadIDs {
				dst[i].ThreadID = d.u64(s[32:])
				if d.quirks {
					dst[i].ThreadID = raw64(s[32:])
				}
			}
		}
		return dst
	}
	t.Writes = read(resize(t.Writes, int(nw)), dxtHeaderSize)
	t.Reads = read(resize(t.Reads, int(nr)), dxtHeaderSize+seg*int(nw))
	r.DXT = t
	return dxtHeaderSize + seg*int(nw+nr), true, nil
}

func (d *decoder) decodeMDHIM(b []byte, r *Record) (int, bool, error) {
	const fixed = 96
	if len(b) < fixed {
		return 0, false, errorf(ErrTruncated, "MDHIM record of %d bytes, needs %d", len(b), fixed)
	}
	r.Counters = resize(r.Counters, 5)
	d.readInts(r.Counters, b[16:])
	r.FCounters = resize(r.FCounters, 4)
	d.readFloats(r.FCounters, b[56:])
	servers := r.Counters[4]
	n := fixed
	if servers > 1 {
		if servers-1 > int64(len(b)-fixed)/8 {
			return 0, false, errorf(ErrCorrupt, "MDHIM record with %d servers but %d bytes left", servers, len(b)-fixed)
		}
		n += 8 * int(servers-1)
	}
	if servers > 0 {
		r.Servers = resize(r.Servers, int(servers))
		d.readInts(r.Servers, b[88:])
	}
	return n, true, nil
}

// maxReferenceHeatmapRecord is the largest heatmap record the reference
// reader accepts.
const maxReferenceHeatmapRecord = 81920

func (d *decoder) decodeHeatmap(b []byte, r *Record) (int, bool, error) {
	if len(b) < 48 {
		return 0, false, errorf(ErrTruncated, "HEATMAP record of %d bytes, needs 48", len(b))
	}
	h := &d.heat
	h.BinWidth = d.f64(b[16:])
	nbins := d.i64(b[24:])
	if nbins < 0 || nbins > int64(len(b)-48)/16 {
		return 0, false, errorf(ErrCorrupt, "HEATMAP record with %d bins but %d bytes left", nbins, len(b)-48)
	}
	size := 48 + 16*int(nbins)
	if d.quirks && size > maxReferenceHeatmapRecord {
		return 0, false, errorf(ErrCorrupt, "HEATMAP record of %d bytes exceeds the reference reader's %d", size, maxReferenceHeatmapRecord)
	}
	n := int(nbins)
	h.Write = resize(h.Write, n)
	h.Read = resize(h.Read, n)
	d.readInts(h.Write, b[48:])
	d.readInts(h.Read, b[48+8*n:])
	if !d.seen {
		d.seen, d.firstBins, d.firstWidth = true, n, h.BinWidth
	} else if h.BinWidth == d.firstWidth {
		// Runtimes 3.4.0–3.4.3 without shared reductions could trim a
		// record to one bin more or fewer than the others: realign.
		switch n {
		case d.firstBins + 1:
			h.Write, h.Read = h.Write[:n-1], h.Read[:n-1]
		case d.firstBins - 1:
			h.Write = append(h.Write, 0)
			if d.quirks {
				// The reference shifts the read bins by one instead.
				h.Read = append(h.Read, 0)
				if n > 0 {
					copy(h.Read[1:n], h.Read[:n-1])
					h.Read[0] = 0
				}
				h.Read[n] = 0
			} else {
				h.Read = append(h.Read, 0)
			}
		}
	}
	r.FCounters = append(r.FCounters, h.BinWidth)
	r.Heatmap = h
	return size, true, nil
}

const (
	apmpiHeaderSize = 48
	apmpiRecordSize = 5232
	apxcHeaderSize  = 72
	apxcRecordSize  = 3184
)

func (d *decoder) decodeAPMPI(b []byte, r *Record) (int, bool, error) {
	if !d.seen {
		if len(b) < apmpiHeaderSize {
			return 0, false, errorf(ErrTruncated, "APMPI header record of %d bytes, needs %d", len(b), apmpiHeaderSize)
		}
		d.seen = true
		r.Header = true
		r.Counters = append(r.Counters, d.i64(b[16:]), int64(d.u32(b[24:])))
		r.FCounters = append(r.FCounters, d.f64(b[32:]), d.f64(b[40:]))
		return apmpiHeaderSize, true, nil
	}
	if len(b) < apmpiRecordSize {
		return 0, false, nil
	}
	r.Counters = resize(r.Counters, len(apmpiCounters))
	d.readInts(r.Counters, b[16:])
	r.FCounters = resize(r.FCounters, len(apmpiFCounters))
	d.readFloats(r.FCounters, b[3184:])
	r.NodeName = cString(b[5104:5232])
	return apmpiRecordSize, true, nil
}

func (d *decoder) decodeAPXC(b []byte, r *Record) (int, bool, error) {
	if !d.seen {
		if len(b) < apxcHeaderSize {
			return 0, false, errorf(ErrTruncated, "APXC header record of %d bytes, needs %d", len(b), apxcHeaderSize)
		}
		d.seen = true
		r.Header = true
		r.Counters = resize(r.Counters, len(apxcHeaderCounters))
		d.readInts(r.Counters, b[16:])
		return apxcHeaderSize, true, nil
	}
	if len(b) < apxcRecordSize {
		return 0, false, nil
	}
	r.Counters = resize(r.Counters, len(apxcCounters))
	d.readInts(r.Counters, b[16:])
	return apxcRecordSize, true, nil
}
