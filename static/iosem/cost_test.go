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
