package iosem

import "strings"

// FormatOpsPerItem is the cost, in operations, of converting one value
// between text and binary when its conversion is not known from a format
// string: a << or >> of a C++ stream, a formatted Fortran item, a printf
// or scanf whose format is computed.
const FormatOpsPerItem = 800

// Costs, in operations, of the C++ stream and Fortran I/O runtimes beyond
// the conversions: one stream insertion or extraction, and one Fortran
// data transfer statement (unit lookup, locking, format parsing; with
// libgfortran 12 here a WRITE of one character with (A) takes 245 ns, a
// READ of it 235 ns, an unformatted WRITE of one integer 165 ns, a READ
// 130 ns, 500,000 statements each). On a string stream or an internal
// file (a character variable) the same work is compute.
const (
	StreamCallOps       = 40
	FortranStatementOps = 400
)

// Costs, in operations, of converting one item of a formatted Fortran
// transfer whose type is known (libgfortran 12 here, 100,000 statements
// of 10 items: a real written with ES15.7 390–600 ns, with F12.5 260 ns,
// list-directed 350–390 ns, read with ES15.7 185 ns, list-directed
// 280 ns; an integer written with I8 60–90 ns, read 95 ns; a
// CHARACTER(12) written 50–75 ns, read 60–100 ns). A real costs more in
// exponent form than in fixed form (400,000 lines of two I8 and three
// reals: ES14.6 470 ns a real, E14.6 435 ns, G14.6 400 ns, F14.6
// 355 ns, list-directed 490 ns; medians of 5 runs): FortranRealWriteOps
// is the cost of a real whose form is not known, FortranFixedWriteOps
// and FortranExponentWriteOps of one written with F, or with E, ES, EN
// or D. FormatOpsPerItem is the cost of an item of unknown type.
const (
	FortranRealWriteOps     = 800
	FortranFixedWriteOps    = 700
	FortranExponentWriteOps = 950
	FortranRealReadOps      = 500
	FortranIntOps           = 180
	FortranCharOps          = 150
)

// FortranItemOps returns the cost, in operations, of converting one item
// of the Fortran type named typeName ("real(dp)", "integer(8)",
// "character(len=12)", "logical"...) written (read false) or read as
// text, a real written as edit says: FormatOpsPerItem for other types
// (derived types, unknown ones).
func FortranItemOps(typeName string, read bool, edit RealEdit) float64 {
	t := strings.ToLower(typeName)
	switch {
	case strings.HasPrefix(t, "integer"), strings.HasPrefix(t, "logical"):
		return FortranIntOps
	case strings.HasPrefix(t, "character"), t == "string", t == "char":
		return FortranCharOps
	case strings.HasPrefix(t, "real"), strings.HasPrefix(t, "double"), strings.HasPrefix(t, "complex"):
		switch {
		case read:
			return FortranRealReadOps
		case edit == RealEditFixed:
			return FortranFixedWriteOps
		case edit == RealEditExponent:
			return FortranExponentWriteOps
		}
		return FortranRealWriteOps
	}
	return FormatOpsPerItem
}

// RealEdit is how a formatted Fortran WRITE edits its reals, as far as
// its format tells: an exponent form costs the runtime more than a fixed
// one.
type RealEdit int

const (
	// RealEditAny: list-directed, a format not known, or one that edits
	// reals both ways or with G.
	RealEditAny RealEdit = iota
	// RealEditFixed: F descriptors only.
	RealEditFixed
	// RealEditExponent: E, ES, EN or D descriptors only.
	RealEditExponent
)

// RealEditOf returns how the format specification format ("(2I8,
// 3ES14.6)", "(A, F8.3)") edits reals: by the real edit descriptors it
// has outside its character constants. An exponent width ("E12.4E3")
// is not a descriptor.
func RealEditOf(format string) RealEdit {
	fixed, exponent := false, false
	var quote byte
	mark := byte('(') // the last character not a digit or a blank
	up := strings.ToUpper(format)
	for i := 0; i < len(up); i++ {
		c := up[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"':
			quote = c
			continue
		case c == ' ' || c >= '0' && c <= '9':
			continue
		case c < 'A' || c > 'Z':
			mark = c
			continue
		}
		j := i
		for j < len(up) && up[j] >= 'A' && up[j] <= 'Z' {
			j++
		}
		name := strings.TrimPrefix(up[i:j], "P")    // 1PE14.6: a scale factor first
		exponentWidth := name == "E" && mark == '.' // the E of Ew.dEe
		i, mark = j-1, 'A'
		if j == len(up) || up[j] < '0' || up[j] > '9' || exponentWidth {
			continue
		}
		switch name {
		case "F":
			fixed = true
		case "E", "ES", "EN", "D":
			exponent = true
		case "G":
			fixed, exponent = true, true
		}
	}
	switch {
	case fixed && !exponent:
		return RealEditFixed
	case exponent && !fixed:
		return RealEditExponent
	}
	return RealEditAny
}

// FortranElementOps is the cost, in operations, of one element an
// unformatted Fortran transfer moves by a runtime call of its own (an
// element of an array expression or of a section whose elements are not
// adjacent; pdg.IO.Elementwise): about 20 ns with gfortran 12 here,
// against 2 to 3 ns an element for an adjacent array (17–35 ns an element
// for write(u) a(i, :), real(a(:, i)) or 2 * a(:, i) of 8-byte reals;
// 3–10 ns for a(:, i)).
const FortranElementOps = 40

// Costs, in operations, of the conversions of a printf or scanf whose
// format is known (FormatCost). glibc's integer conversions are cheap;
// floating-point ones cost several times more; the scanf family reads
// its input a character at a time through the stream, which costs a few
// hundred operations per call before any conversion. Measured in the
// corpus: fprintf("%u\n") 44 ns a call, fprintf(",%.4f") 170 ns,
// fscanf("%ld") 460 ns, 8-byte fwrite or fread 17 ns (BufferedCallOps).
const (
	PrintIntOps   = 80  // %d %u %x %o %c-sized integers
	PrintFloatOps = 400 // %f %e %g %a
	PrintStrOps   = 40  // %s %c %p and the rest
	ScanCallOps   = 800 // one scanf call beyond its conversions
	ScanIntOps    = 300
	ScanFloatOps  = 600
	ScanStrOps    = 150
)

// FormatCost is the cost, in operations, of the conversions of one
// printf-family (scan false) or scanf-family (scan true) call with the
// given conversion characters (Conversions); items are the
// conversions when the format is unknown (conversions ""), each costing
// FormatOpsPerItem.
func FormatCost(conversions string, items float64, scan bool) float64 {
	if conversions == "" {
		ops := items * FormatOpsPerItem
		if scan {
			ops += ScanCallOps
		}
		return ops
	}
	var ops float64
	if scan {
		ops = ScanCallOps
	}
	for i := 0; i < len(conversions); i++ {
		c := conversions[i]
		switch {
		case strings.IndexByte("diuxXo", c) >= 0:
			ops += pick(scan, ScanIntOps, PrintIntOps)
		case strings.IndexByte("feEgGaA", c) >= 0:
			ops += pick(scan, ScanFloatOps, PrintFloatOps)
		default:
			ops += pick(scan, ScanStrOps, PrintStrOps)
		}
	}
	return ops
}

// StreamFormatCost is the cost, in operations, of the conversions of one
// C++ stream insertion (extract false) or extraction with the given
// conversion letters (ConversionOf): those of printf and scanf, without
// scanf's cost per call, which a stream's buffer does not pay; with
// conversions "", items each cost FormatOpsPerItem.
func StreamFormatCost(conversions string, items float64, extract bool) float64 {
	ops := FormatCost(conversions, items, extract)
	if extract {
		ops -= ScanCallOps
	}
	return ops
}

func pick(scan bool, a, b float64) float64 {
	if scan {
		return a
	}
	return b
}
