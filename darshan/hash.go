package darshan

import "encoding/binary"

// RecordID returns the record id Darshan derives from a record name: Bob
// Jenkins' 64-bit "lookup8" hash of the name's bytes with level 0.
func RecordID(name string) uint64 { return hash64([]byte(name), 0) }

// hash64 is lookup8's hash(k, length, level). The key is read little-endian
// whatever the host byte order, so ids are the same in every log.
func hash64(k []byte, level uint64) uint64 {
	a, b := level, level
	c := uint64(0x9e3779b97f4a7c13)
	n := len(k)
	for len(k) >= 24 {
		a += binary.LittleEndian.Uint64(k[0:])
		b += binary.LittleEndian.Uint64(k[8:])
		c += binary.LittleEndian.Uint64(k[16:])
		a, b, c = mix64(a, b, c)
		k = k[24:]
	}
	c += uint64(n)
	for i, t := range k {
		switch {
		case i < 8:
			a += uint64(t) << (8 * i)
		case i < 16:
			b += uint64(t) << (8 * (i - 8))
		default:
			// The low byte of c holds the length, so the tail starts one byte up.
			c += uint64(t) << (8 * (i - 15))
		}
	}
	_, _, c = mix64(a, b, c)
	return c
}

func mix64(a, b, c uint64) (uint64, uint64, uint64) {
	a -= b
	a -= c
	a ^= c >> 43
	b -= c
	b -= a
	b ^= a << 9
	c -= a
	c -= b
	c ^= b >> 8
	a -= b
	a -= c
	a ^= c >> 38
	b -= c
	b -= a
	b ^= a << 23
	c -= a
	c -= b
	c ^= b >> 5
	a -= b
	a -= c
	a ^= c >> 35
	b -= c
	b -= a
	b ^= a << 49
	c -= a
	c -= b
	c ^= b >> 11
	a -= b
	a -= c
	a ^= c >> 12
	b -= c
	b -= a
	b ^= a << 18
	c -= a
	c -= b
	c ^= b >> 22
	return a, b, c
}
