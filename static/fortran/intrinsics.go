package fortran

import "github.com/iolens/iolens/static/ir"

// intrinsics are the Fortran intrinsic functions (and common vendor
// extensions) a reference to which stays an expression instead of
// becoming a hoisted call.
var intrinsics = setOf(
	// numeric and conversion
	"abs", "aimag", "aint", "anint", "ceiling", "cmplx", "conjg", "dble", "dcmplx", "dim", "dprod",
	"floor", "int", "int2", "int8", "logical", "max", "min", "mod", "modulo", "nint", "real", "sign",
	"float", "sngl", "dfloat", "idint", "ifix", "idnint", "iabs", "dabs", "cabs", "amax0", "amax1",
	"amin0", "amin1", "max0", "max1", "min0", "min1", "dmax1", "dmin1", "dsign", "isign", "dmod", "amod",
	"dint", "dnint", "zabs", "dconjg", "dimag", "dreal", "qext", "qfloat",
	// mathematical
	"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "bessel_j0", "bessel_j1", "bessel_jn",
	"bessel_y0", "bessel_y1", "bessel_yn", "cos", "cosh", "erf", "erfc", "erfc_scaled", "exp", "gamma",
	"hypot", "log", "log10", "log_gamma", "sin", "sinh", "sqrt", "tan", "tanh", "dacos", "dasin",
	"datan", "datan2", "dcos", "dcosh", "dexp", "dlog", "dlog10", "dsin", "dsinh", "dsqrt", "dtan",
	"dtanh", "alog", "alog10", "csqrt", "cexp", "clog", "ccos", "csin", "norm2",
	// character
	"achar", "adjustl", "adjustr", "char", "iachar", "ichar", "index", "len", "len_trim", "lge", "lgt",
	"lle", "llt", "new_line", "repeat", "scan", "trim", "verify",
	// kinds and numeric inquiry
	"bit_size", "digits", "epsilon", "huge", "kind", "maxexponent", "minexponent", "precision",
	"radix", "range", "selected_char_kind", "selected_int_kind", "selected_real_kind", "tiny",
	"exponent", "fraction", "nearest", "rrspacing", "scale", "set_exponent", "spacing",
	// bits
	"btest", "iand", "ibclr", "ibits", "ibset", "ieor", "ior", "ishft", "ishftc", "not", "popcnt",
	"poppar", "leadz", "trailz", "shiftl", "shiftr", "shifta", "lshift", "rshift", "and", "or", "xor",
	// arrays
	"all", "any", "count", "cshift", "dot_product", "eoshift", "lbound", "matmul", "maxloc", "maxval",
	"minloc", "minval", "pack", "product", "reshape", "shape", "size", "spread", "sum", "transpose",
	"ubound", "unpack", "findloc", "iall", "iany", "iparity", "parity", "is_contiguous", "rank",
	// inquiry and miscellaneous
	"allocated", "associated", "present", "null", "transfer", "extends_type_of", "same_type_as",
	"is_iostat_end", "is_iostat_eor", "command_argument_count", "iargc", "loc", "c_loc", "c_funloc",
	"c_associated", "num_images", "this_image", "image_index", "move_alloc",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// intrinsic returns the expression for a reference to the intrinsic name,
// or false if name is not an intrinsic function. MERGE becomes a
// conditional expression and the storage-size inquiries become SizeOf.
func intrinsic(name string, args []ir.Expr) (ir.Expr, bool) {
	switch name {
	case "merge":
		if len(args) == 3 {
			return ir.Cond{C: args[2], T: args[0], F: args[1]}, true
		}
	case "sizeof", "c_sizeof":
		if len(args) == 1 {
			return ir.SizeOf{X: args[0]}, true
		}
	case "storage_size": // in bits
		if len(args) >= 1 {
			return ir.Binary{Op: "*", L: ir.SizeOf{X: args[0]}, R: ir.Int{V: 8}}, true
		}
	}
	if intrinsics[name] || name == "merge" || name == "sizeof" || name == "c_sizeof" || name == "storage_size" {
		return ir.CallExpr{Callee: name, Args: args}, true
	}
	return nil, false
}
