package iosem

import (
	"strings"
	"sync"
)

// Mode is the access mode of an opened file, a set of bits.
type Mode uint8

// The mode bits.
const (
	ModeRead Mode = 1 << iota
	ModeWrite
	ModeCreate
	ModeAppend
)

// ModeReadWrite is read and write access.
const ModeReadWrite = ModeRead | ModeWrite

// String spells m as letters: r, w, c (create or truncate), a (append).
func (m Mode) String() string {
	var b strings.Builder
	for _, f := range []struct {
		bit Mode
		c   byte
	}{{ModeRead, 'r'}, {ModeWrite, 'w'}, {ModeCreate, 'c'}, {ModeAppend, 'a'}} {
		if m&f.bit != 0 {
			b.WriteByte(f.c)
		}
	}
	return b.String()
}

// flagModes maps the lower-cased suffix of an open flag (O_WRONLY,
// MPI_MODE_CREATE, H5F_ACC_TRUNC, NC_NOWRITE, std::ios::app) to the mode
// bits it adds.
var flagModes = sync.OnceValue(func() map[string]Mode {
	return map[string]Mode{
		"rdonly":    ModeRead,
		"wronly":    ModeWrite,
		"rdwr":      ModeReadWrite,
		"creat":     ModeCreate | ModeWrite,
		"create":    ModeCreate | ModeWrite,
		"trunc":     ModeCreate | ModeWrite,
		"excl":      ModeCreate | ModeWrite,
		"append":    ModeAppend | ModeWrite,
		"app":       ModeAppend | ModeWrite, // std::ios_base::app
		"in":        ModeRead,               // std::ios_base::in
		"out":       ModeWrite,              // std::ios_base::out
		"nowrite":   ModeRead,
		"write":     ModeReadWrite, // NC_WRITE, NF90_WRITE: open for update
		"clobber":   ModeCreate | ModeWrite,
		"noclobber": ModeCreate | ModeWrite,
	}
})

// ModeFromFlags returns the mode that the open flags named in flags
// (identifiers such as O_WRONLY, MPI_MODE_CREATE, H5F_ACC_RDONLY) select,
// or def when none is recognised.
func ModeFromFlags(flags []string, def Mode) Mode {
	var m Mode
	for _, f := range flags {
		f = strings.ToLower(f)
		if i := strings.LastIndex(f, "::"); i >= 0 {
			f = f[i+2:]
		}
		if i := strings.LastIndexByte(f, '_'); i >= 0 {
			f = f[i+1:]
		}
		m |= flagModes()[f]
	}
	if m == 0 {
		return def
	}
	if m&(ModeRead|ModeWrite) == 0 {
		m |= ModeRead
	}
	return m
}

// ModeFromString returns the mode of an fopen or ios mode string ("r",
// "w+", "ab") or of a Fortran ACTION= value ("read", "write",
// "readwrite"), or def when s says nothing.
func ModeFromString(s string, def Mode) Mode {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read":
		return ModeRead
	case "write":
		return ModeWrite
	case "readwrite":
		return ModeReadWrite
	}
	var m Mode
	switch {
	case strings.HasPrefix(s, "r"):
		m = ModeRead
	case strings.HasPrefix(s, "w"):
		m = ModeWrite | ModeCreate
	case strings.HasPrefix(s, "a"):
		m = ModeWrite | ModeAppend | ModeCreate
	default:
		return def
	}
	if strings.Contains(s, "+") {
		m |= ModeReadWrite
	}
	return m
}
