package cfront

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// pointerSize is the size of a data pointer on the LP64 targets HPC codes
// run on.
const pointerSize = 8

// scalarSizes holds the sizes, on LP64 targets, of the builtin types and of
// the common typedefs of the C library, MPI, HDF5 and PnetCDF.
var scalarSizes = map[string]int64{
	"char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "_Bool": 1,
	"int8_t": 1, "uint8_t": 1, "char8_t": 1, "std::byte": 1, "byte": 1,
	"short": 2, "short int": 2, "signed short": 2, "unsigned short": 2,
	"signed short int": 2, "unsigned short int": 2, "int16_t": 2, "uint16_t": 2, "char16_t": 2,
	"int": 4, "signed": 4, "signed int": 4, "unsigned": 4, "unsigned int": 4,
	"int32_t": 4, "uint32_t": 4, "char32_t": 4, "wchar_t": 4, "float": 4,
	"long": 8, "long int": 8, "signed long": 8, "unsigned long": 8,
	"signed long int": 8, "unsigned long int": 8,
	"long long": 8, "long long int": 8, "signed long long": 8, "unsigned long long": 8,
	"signed long long int": 8, "unsigned long long int": 8,
	"int64_t": 8, "uint64_t": 8, "double": 8, "long double": 16,
	"size_t": 8, "ssize_t": 8, "off_t": 8, "off64_t": 8, "ptrdiff_t": 8,
	"intptr_t": 8, "uintptr_t": 8, "intmax_t": 8, "uintmax_t": 8,
	"time_t": 8, "mode_t": 4, "pid_t": 4, "uid_t": 4, "gid_t": 4,
	"MPI_Offset": 8, "MPI_Aint": 8, "MPI_Count": 8,
	"hsize_t": 8, "hssize_t": 8, "haddr_t": 8, "hid_t": 8, "herr_t": 4, "htri_t": 4,
}

// scalarSize returns the size of a builtin or well-known type name,
// ignoring a std:: qualifier, or 0.
func scalarSize(name string) int64 {
	if n, ok := scalarSizes[name]; ok {
		return n
	}
	if rest, ok := strings.CutPrefix(name, "std::"); ok {
		return scalarSizes[rest]
	}
	return 0
}

// typeSizes resolves the sizes of the types of one file: builtins, and the
// typedefs, structs and enums it defines.
type typeSizes struct {
	defined map[string]sizeAlign // typedef, struct, class and enum names
}

// sizeAlign is the size and alignment of a type.
type sizeAlign struct{ size, align int64 }

func (ts *typeSizes) size(name string) int64 { return ts.layout(name).size }

// layout returns the size and alignment of the named type; zero when
// unknown.
func (ts *typeSizes) layout(name string) sizeAlign {
	if n := scalarSize(name); n != 0 {
		return sizeAlign{n, n}
	}
	return ts.defined[name]
}

func (ts *typeSizes) define(name string, l sizeAlign) {
	if name == "" {
		return
	}
	if ts.defined == nil {
		ts.defined = make(map[string]sizeAlign)
	}
	ts.defined[name] = l
}

// structLayout accumulates the size of a struct from its members with the
// natural alignment rules of C; it gives up (size 0) on any member whose
// size is unknown.
type structLayout struct {
	size, align int64
	unknown     bool
	union       bool
	// members are the data members in declaration order; ctor is set
	// when the class declares a constructor (it is then no aggregate).
	members []*ir.Var
	offsets map[string]int64 // of the members whose offset is known
	ctor    bool
}

// names returns the names of the data members, in order.
func (l *structLayout) names() []string {
	names := make([]string, len(l.members))
	for i, m := range l.members {
		names[i] = m.Name
	}
	return names
}

// add places a member of the given size and alignment and returns its
// offset, or -1 when the offsets are no longer known.
func (l *structLayout) add(size, align int64) int64 {
	if size <= 0 || align <= 0 {
		l.unknown = true
		return -1
	}
	l.align = max(l.align, align)
	if l.union {
		l.size = max(l.size, size)
		return 0
	}
	l.size = (l.size + align - 1) / align * align
	off := l.size
	l.size += size
	if l.unknown {
		return -1
	}
	return off
}

func (l *structLayout) total() int64 {
	if l.unknown || l.align == 0 {
		return 0
	}
	return (l.size + l.align - 1) / l.align * l.align
}
