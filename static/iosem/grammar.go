package iosem

import "strings"

// This file expands the routine families whose names follow a grammar:
// MPI-IO data access, PnetCDF and NetCDF variable access.

// mpiioAccess returns the MPI-IO data access routines:
// MPI_File_[i]{read,write}[_at][_all|_shared|_ordered][_begin|_end].
// Their arguments are (fh, [offset,] buf, count, datatype, ...).
func mpiioAccess() []Semantics {
	type variant struct {
		suffix     string
		at         bool // explicit offset
		collective bool
		nonblock   bool // an i-prefixed form exists
		split      bool // _begin/_end forms exist
	}
	variants := []variant{
		{"", false, false, true, false},
		{"_all", false, true, true, true},
		{"_at", true, false, true, false},
		{"_at_all", true, true, true, true},
		{"_shared", false, false, true, false},
		{"_ordered", false, true, false, true},
	}
	var out []Semantics
	for _, op := range []Op{Read, Write} {
		for _, v := range variants {
			buf := 1
			var opts []opt
			if v.at {
				buf = 2
				opts = append(opts, offset(1))
			}
			opts = append(opts, handle(0), elems(buf+1, buf+2, 0, buf))
			if v.collective {
				opts = append(opts, collective)
			}
			base := "MPI_File_" + string(op) + v.suffix
			out = append(out, named(base, sem(MPIIO, op, opts...)))
			if v.nonblock {
				out = append(out, named("MPI_File_i"+string(op)+v.suffix, sem(MPIIO, op, append(opts, async)...)))
			}
			if v.split {
				out = append(out,
					named(base+"_begin", sem(MPIIO, op, append(opts, async)...)),
					named(base+"_end", sem(MPIIO, Wait, handle(0), collective)))
			}
		}
	}
	return out
}

// named returns s with its routine name set.
func named(n string, s Semantics) Semantics {
	s.Routine = n
	return s
}

// ncTypes are the element types of the typed NetCDF and PnetCDF routines,
// with their sizes in bytes.
var ncTypes = []struct {
	suffix string
	size   int64
}{
	{"text", 1}, {"schar", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2},
	{"int", 4}, {"uint", 4}, {"long", 8}, {"float", 4}, {"double", 8},
	{"longlong", 8}, {"ulonglong", 8},
}

// ncShapes are the access shapes of variable routines and the number of
// arguments (start, count, stride, imap...) between varid and the buffer.
var ncShapes = []struct {
	infix string
	extra int
}{{"", 0}, {"1", 1}, {"a", 2}, {"s", 3}, {"m", 4}, {"n", 3}}

// pnetcdfAccess returns the PnetCDF variable routines:
// ncmpi_[i|b]{put,get}_var{,1,a,s,m,n}[_type][_all]. Arguments are
// (ncid, varid, shape..., buf[, bufcount, buftype][, request]); routines
// without a type suffix are the flexible API with bufcount and buftype.
func pnetcdfAccess() []Semantics {
	var out []Semantics
	for _, pre := range []string{"", "i", "b"} {
		for _, dir := range []string{"put", "get"} {
			if pre == "b" && dir == "get" {
				continue
			}
			op := Write
			if dir == "get" {
				op = Read
			}
			for _, sh := range ncShapes {
				buf := 2 + sh.extra
				base := "ncmpi_" + pre + dir + "_var" + sh.infix
				kinds := append([]struct {
					suffix string
					size   int64
				}{{"", 0}}, ncTypes...)
				for _, ty := range kinds {
					n := base
					var size opt
					switch {
					case ty.suffix == "":
						size = elems(buf+1, buf+2, 0, buf)
					case sh.infix == "1":
						n += "_" + ty.suffix
						size = elems(-1, -1, ty.size, buf)
					default:
						n += "_" + ty.suffix
						size = whole(ty.size, buf)
					}
					opts := []opt{handle(0), size}
					if pre != "" {
						opts = append(opts, async)
						out = append(out, named(n, sem(PnetCDF, op, opts...)))
						continue
					}
					out = append(out,
						named(n, sem(PnetCDF, op, opts...)),
						named(n+"_all", sem(PnetCDF, op, append(opts, collective)...)))
				}
			}
		}
	}
	return out
}

// netcdfAccess returns the NetCDF variable routines
// nc_{put,get}_var{,1,a,s,m}[_type], with arguments
// (ncid, varid, shape..., buf).
func netcdfAccess() []Semantics {
	var out []Semantics
	for _, dir := range []string{"put", "get"} {
		op := Write
		if dir == "get" {
			op = Read
		}
		for _, sh := range ncShapes[:5] {
			buf := 2 + sh.extra
			base := "nc_" + dir + "_var" + sh.infix
			out = append(out, named(base, sem(NetCDF, op, handle(0), whole(0, buf))))
			for _, ty := range ncTypes {
				size := whole(ty.size, buf)
				if sh.infix == "1" {
					size = elems(-1, -1, ty.size, buf)
				}
				out = append(out, named(base+"_"+ty.suffix, sem(NetCDF, op, handle(0), size)))
			}
		}
	}
	return out
}

// CollectiveVariant returns the collective counterpart of an independent
// MPI-IO or PnetCDF data access routine (MPI_File_write_at →
// MPI_File_write_at_all, MPI_File_read_shared → MPI_File_read_ordered,
// ncmpi_put_vara_double → ncmpi_put_vara_double_all), and false when
// routine is collective already or has none.
func CollectiveVariant(routine string) (string, bool) {
	s, ok := Lookup(routine)
	if !ok || s.Collective || !s.Op.IsData() {
		return "", false
	}
	c := s.Routine + "_all"
	if n, found := strings.CutSuffix(s.Routine, "_shared"); found {
		c = n + "_ordered"
	}
	if cs, ok := Lookup(c); ok && cs.Collective {
		return cs.Routine, true
	}
	return "", false
}
