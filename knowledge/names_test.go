package knowledge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

func TestGeneralize(t *testing.T) {
	for in, want := range map[string]string{
		"/scratch/run_2026-11-25/out_0042.nc": "/scratch/run_#-#-#/out_#.nc",
		"":                                    "",
		"/no/digits.nc":                       "/no/digits.nc",
		"42":                                  "#",
		"a1b22c333d":                          "a#b#c#d",
		"/job.123456/rank0007.h5":             "/job.#/rank#.h#",
	} {
		if got := Generalize(in); got != want {
			t.Errorf("Generalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNamerOccurrences(t *testing.T) {
	var n Namer
	got := []string{
		n.File("/scratch/run_2026-11-25/in_001.nc"),
		n.File("/scratch/run_2026-11-25/in_002.nc"),
		n.File("/scratch/run_2026-11-25/in_001.nc"),
		n.File("/scratch/run_2026-11-25/grid.nc"),
		n.File("/scratch/run_2026-11-25/out_0042.nc"),
	}
	want := []string{
		"/scratch/run_#-#-#/in_#.nc[0]",
		"/scratch/run_#-#-#/in_#.nc[1]",
		"/scratch/run_#-#-#/in_#.nc[0]",
		"/scratch/run_#-#-#/grid.nc[0]",
		"/scratch/run_#-#-#/out_#.nc[0]",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("first run (-want +got):\n%s", d)
	}

	// Another run, another date and other steps: the same names.
	var m Namer
	got = []string{
		m.File("/scratch/run_2026-12-01/in_101.nc"),
		m.File("/scratch/run_2026-12-01/in_102.nc"),
		m.File("/scratch/run_2026-12-01/in_101.nc"),
		m.File("/scratch/run_2026-12-01/grid.nc"),
		m.File("/scratch/run_2026-12-01/out_0043.nc"),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("second run (-want +got):\n%s", d)
	}
}

func TestNamerKey(t *testing.T) {
	names := map[uint64]string{
		1: "/d/run_20261125/a_01.nc",
		2: "/d/run_20261125/a_01.nc:temp",
		3: "/d/run_20261125/b_02.h5",
		4: "/d/run_20261125/b_02.h5:/grp/pressure_2",
		5: "/d/c_03.nc:u",  // file record 6 has no name
		7: "/other/x.nc:v", // does not begin with its file's name (1)
	}
	lookup := func(id uint64) (string, bool) { s, ok := names[id]; return s, ok }
	var n Namer
	tests := []struct {
		a    darshan.Access
		want VertexKey
	}{
		{
			darshan.Access{Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, ID: 2, File: 1, Parent: -1, Offset: -1, Length: 80, Start: []int64{0, 5}, Count: []int64{2, 5}},
			VertexKey{Object: "/d/run_#/a_#.nc[0]:temp", Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, Start: []int64{0, 5}, Count: []int64{2, 5}, Offset: -1},
		},
		{
			darshan.Access{Module: darshan.ModH5D, Op: darshan.OpWrite, ID: 4, File: 3, Parent: -1, Offset: -1, Length: 8, Start: []int64{3}, Count: []int64{1}},
			// The dataset name keeps its digits; b_02.h5 is the first
			// b_#.h# of the run.
			VertexKey{Object: "/d/run_#/b_#.h#[0]:/grp/pressure_2", Module: darshan.ModH5D, Op: darshan.OpWrite, Start: []int64{3}, Count: []int64{1}, Offset: -1},
		},
		{
			darshan.Access{Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, ID: 5, File: 6, Parent: -1, Offset: -1},
			VertexKey{Object: "/d/c_#.nc[0]:u", Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, Offset: -1},
		},
		{
			darshan.Access{Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, ID: 7, File: 1, Parent: -1, Offset: -1},
			VertexKey{Object: "/d/run_#/a_#.nc[0]:v", Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, Offset: -1},
		},
		{
			darshan.Access{Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, ID: 9, File: 8, Parent: -1, Offset: -1},
			VertexKey{Object: "<record 0000000000000009>", Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, Offset: -1},
		},
		{
			darshan.Access{Module: darshan.ModPOSIX, Op: darshan.OpWrite, ID: 3, File: 3, Parent: -1, Offset: 4096, Length: 512},
			VertexKey{Object: "/d/run_#/b_#.h#[0]", Module: darshan.ModPOSIX, Op: darshan.OpWrite, Offset: 4096, Length: 512},
		},
	}
	for i, tt := range tests {
		got := n.Key(&tt.a, lookup)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("access %d (-want +got):\n%s", i, d)
		}
		if !got.Equal(tt.want) {
			t.Errorf("access %d: Equal is false for equal keys", i)
		}
	}
	if got, want := tests[0].want.String(), "read PNETCDF_VAR /d/run_#/a_#.nc[0]:temp [0 5]+[2 5]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := tests[5].want.String(), "write POSIX /d/run_#/b_#.h#[0] @4096+512"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
