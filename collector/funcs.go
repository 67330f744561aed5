package collector

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// Function profiles: programs built with -finstrument-functions call the
// preload library's __cyg_profile_func_enter/exit hooks (collector/c/funcs.c),
// which keep one block per function in the store (struct iol_func_block).

const (
	blockFunc = 5
	funcFixed = 64 // word, addr, offset, calls, wall, io, self_io, object_len, pad
)

// StoreFunction is the profile of one function in one process, as its
// store holds it, times in seconds.
type StoreFunction struct {
	Addr   uint64 // run-time address
	Offset uint64 // virtual address of the function in Object (an ELF st_value)
	Object string // path of the executable or shared object
	Calls  uint64 // completed calls, recursive ones included
	// Wall and IO are the inclusive wall and I/O times of the outermost
	// activations of the function on each thread (a recursive call is
	// not counted twice); SelfIO is the I/O time spent while the function
	// was the innermost instrumented frame.
	Wall, IO, SelfIO float64
}

// readFunc decodes a function block.
func (s *Store) readFunc(b []byte) error {
	if len(b) < funcFixed {
		return fmt.Errorf("%w: function block of %d bytes", ErrCorruptStore, len(b))
	}
	n := uint64(storeOrder.Uint32(b[56:]))
	if n > uint64(len(b)-funcFixed) {
		return fmt.Errorf("%w: object name of %d bytes in a %d-byte function block", ErrCorruptStore, n, len(b))
	}
	ticks := func(off int) float64 { return float64(storeOrder.Uint64(b[off:])) / s.Hz }
	s.Functions = append(s.Functions, StoreFunction{
		Addr:   storeOrder.Uint64(b[8:]),
		Offset: storeOrder.Uint64(b[16:]),
		Object: string(b[funcFixed : funcFixed+n]),
		Calls:  storeOrder.Uint64(b[24:]),
		Wall:   ticks(32),
		IO:     ticks(40),
		SelfIO: ticks(48),
	})
	return nil
}

// FunctionStat is the measured profile of one function, summed over the
// processes (and threads) of a run. Times are in seconds.
type FunctionStat struct {
	// Name is the function's symbol as the object's symbol table spells
	// it (C++ names stay mangled; gfortran's trailing underscores and
	// module prefixes are kept), or "0x<offset>" when no symbol covers it.
	Name string `json:"name"`
	// File is the path of the executable or shared object.
	File   string `json:"file"`
	Offset uint64 `json:"offset"`
	Calls  uint64 `json:"calls"`
	// Wall and IOTime are inclusive (see StoreFunction); SelfIO is the
	// I/O time with the function as the innermost frame.
	Wall   float64 `json:"wall"`
	IOTime float64 `json:"io_time"`
	SelfIO float64 `json:"self_io"`
}

// Intensity returns IOTime/Wall, the share of the function's inclusive time
// spent in I/O, or 0 when Wall is 0.
func (f FunctionStat) Intensity() float64 {
	if f.Wall <= 0 {
		return 0
	}
	return f.IOTime / f.Wall
}

// FunctionStats symbolises the function profiles of stores with the symbol
// tables of their objects (debug/elf) and sums them by (file, name). The
// result is ordered by decreasing wall time, then file and name.
//
// An object that cannot be read leaves its functions named by address; the
// errors are returned, joined, with the complete result.
func FunctionStats(stores []*Store) ([]FunctionStat, error) {
	syms := symbolizer{tables: make(map[string]*symbolTable)}
	type key struct{ file, name string }
	byKey := make(map[key]*FunctionStat)
	var errs []error
	for _, s := range stores {
		for _, f := range s.Functions {
			name, err := syms.name(f.Object, f.Offset)
			if err != nil {
				errs = append(errs, err)
			}
			k := key{f.Object, name}
			st := byKey[k]
			if st == nil {
				st = &FunctionStat{Name: name, File: f.Object, Offset: f.Offset}
				byKey[k] = st
			}
			st.Calls += f.Calls
			st.Wall += f.Wall
			st.IOTime += f.IO
			st.SelfIO += f.SelfIO
		}
	}
	out := make([]FunctionStat, 0, len(byKey))
	for _, st := range byKey {
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b FunctionStat) int {
		return cmp.Or(cmp.Compare(b.Wall, a.Wall), cmp.Compare(a.File, b.File), cmp.Compare(a.Name, b.Name))
	})
	return out, errors.Join(errs...)
}

// symbolizer caches the function symbols of objects.
type symbolizer struct {
	tables map[string]*symbolTable
}

// symbolTable holds the function symbols of one object, sorted by address,
// or the error met reading them (reported once).
type symbolTable struct {
	syms     []elf.Symbol
	err      error
	reported bool
}

// name returns the symbol of object covering the virtual address addr, or
// "0x<addr>". The error of an unreadable object is returned the first time
// only.
func (z *symbolizer) name(object string, addr uint64) (string, error) {
	t := z.tables[object]
	if t == nil {
		t = &symbolTable{}
		t.syms, t.err = readFuncSymbols(object)
		z.tables[object] = t
	}
	var err error
	if t.err != nil && !t.reported {
		t.reported, err = true, t.err
	}
	if n, ok := lookupSymbol(t.syms, addr); ok {
		return n, err
	}
	return fmt.Sprintf("0x%x", addr), err
}

// lookupSymbol finds the symbol covering addr: the last one starting at or
// before it, if it is sized and addr lies inside, or starts exactly there.
func lookupSymbol(syms []elf.Symbol, addr uint64) (string, bool) {
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Value > addr }) - 1
	if i < 0 {
		return "", false
	}
	// Prefer the first of several symbols at the same address (globals
	// were sorted before locals).
	for i > 0 && syms[i-1].Value == syms[i].Value {
		i--
	}
	s := syms[i]
	if s.Value == addr || addr-s.Value < s.Size {
		return s.Name, true
	}
	return "", false
}

// readFuncSymbols returns the function symbols of the ELF file at path
// (the symbol table, else the dynamic one), sorted by address, globals
// first among symbols at the same address.
func readFuncSymbols(path string) ([]elf.Symbol, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("symbolising functions: %w", err)
	}
	defer f.Close()
	all, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) {
		all, err = f.DynamicSymbols()
	}
	if err != nil {
		return nil, fmt.Errorf("symbolising functions of %s: %w", path, err)
	}
	var syms []elf.Symbol
	for _, s := range all {
		if t := elf.ST_TYPE(s.Info); (t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC) && s.Value != 0 && s.Section != elf.SHN_UNDEF {
			syms = append(syms, s)
		}
	}
	global := func(s elf.Symbol) int {
		if elf.ST_BIND(s.Info) == elf.STB_LOCAL {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(syms, func(a, b elf.Symbol) int {
		return cmp.Or(cmp.Compare(a.Value, b.Value), cmp.Compare(global(a), global(b)))
	})
	return syms, nil
}
