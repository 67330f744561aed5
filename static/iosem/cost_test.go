package iosem

import "testing"

func TestFormatCost(t *testing.T) {
	for _, c := range []struct {
		convs string
		items float64
		scan  bool
		want  float64
	}{
		{"df", 2, false, PrintIntOps + PrintFloatOps},
		{"sc", 2, false, 2 * PrintStrOps},
		{"dd", 2, true, ScanCallOps + 2*ScanIntOps},
		{"f", 1, true, ScanCallOps + ScanFloatOps},
		{"", 3, false, 3 * FormatOpsPerItem},
		{"", 2, true, ScanCallOps + 2*FormatOpsPerItem},
	} {
		if got := FormatCost(c.convs, c.items, c.scan); got != c.want {
			t.Errorf("FormatCost(%q, %v, %v) = %v, want %v", c.convs, c.items, c.scan, got, c.want)
		}
	}
}

func TestRealEditOf(t *testing.T) {
	for _, c := range []struct {
		format string
		want   RealEdit
	}{
		{"(2I8,3ES14.6)", RealEditExponent},
		{"(i6, 3e14.6)", RealEditExponent},
		{"(1PE12.4)", RealEditExponent},
		{"(2X,EN12.3,D20.12)", RealEditExponent},
		{"(A,F8.3,1X,F10.4)", RealEditFixed},
		{"(3E14.6E3)", RealEditExponent},
		{"('E1.5 F2.1',F8.2)", RealEditFixed},
		{`("ES9.2",I4)`, RealEditAny},
		{"(F8.3,ES12.4)", RealEditAny},
		{"(G14.6)", RealEditAny},
		{"*", RealEditAny},
		{"(A)", RealEditAny},
	} {
		if got := RealEditOf(c.format); got != c.want {
			t.Errorf("RealEditOf(%q) = %v, want %v", c.format, got, c.want)
		}
	}
}

func TestFortranItemOps(t *testing.T) {
	for _, c := range []struct {
		typeName string
		read     bool
		edit     RealEdit
		want     float64
	}{
		{"real(dp)", false, RealEditExponent, FortranExponentWriteOps},
		{"double precision", false, RealEditFixed, FortranFixedWriteOps},
		{"real", false, RealEditAny, FortranRealWriteOps},
		{"real(8)", true, RealEditExponent, FortranRealReadOps},
		{"integer(8)", false, RealEditExponent, FortranIntOps},
		{"character(len=12)", false, RealEditFixed, FortranCharOps},
		{"type(cell)", false, RealEditFixed, FormatOpsPerItem},
	} {
		if got := FortranItemOps(c.typeName, c.read, c.edit); got != c.want {
			t.Errorf("FortranItemOps(%q, %v, %v) = %v, want %v", c.typeName, c.read, c.edit, got, c.want)
		}
	}
}

// FuzzRealEditOf checks that any format string, however malformed, is
// read without a panic into one of the three forms, the same each time.
func FuzzRealEditOf(f *testing.F) {
	for _, s := range []string{"(2I8,3ES14.6)", "(F8.3)", "('E", "(1P", "E12.4E", "*", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, format string) {
		e := RealEditOf(format)
		if e != RealEditAny && e != RealEditFixed && e != RealEditExponent || RealEditOf(format) != e {
			t.Fatalf("RealEditOf(%q) = %v", format, e)
		}
	})
}
