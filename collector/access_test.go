package collector

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

// accessShape is what the tests compare of an access: everything but
// times.
type accessShape struct {
	Module         darshan.ModuleID
	Op             darshan.Op
	ID, File       uint64
	Parent         int
	Offset, Length int64
	Start, Count   []int64
}

func shapes(seq []darshan.Access, keep func(a darshan.Access) bool) []accessShape {
	var out []accessShape
	for _, a := range seq {
		if keep == nil || keep(a) {
			out = append(out, accessShape{a.Module, a.Op, a.ID, a.File, a.Parent, a.Offset, a.Length, a.Start, a.Count})
		}
	}
	return out
}

func accessSequencesOf(t *testing.T, l *darshan.Log) []darshan.AccessSequence {
	t.Helper()
	seqs, err := l.AccessSequences()
	if err != nil {
		t.Fatalf("access sequences: %v", err)
	}
	for _, s := range seqs {
		for i, a := range s.Accesses {
			if a.EndTime < a.StartTime || a.StartTime < 0 || i > 0 && a.StartTime < s.Accesses[i-1].StartTime {
				t.Errorf("rank %d access %d: times %g..%g out of order", s.Rank, i, a.StartTime, a.EndTime)
			}
			if _, ok := l.RecordName(a.ID); !ok {
				t.Errorf("rank %d access %d: record id %d has no name in the log", s.Rank, i, a.ID)
			}
		}
	}
	return seqs
}

func TestLearnPOSIX(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/learn.c")
	file := filepath.Join(t.TempDir(), "data")
	res := runCollected(t, RunOptions{Learn: true}, nil, prog, file)
	if len(res.Logs) != 1 || res.Result.ExitCode != 0 {
		t.Fatalf("%d logs, exit code %d; want 1 log, 0", len(res.Logs), res.Result.ExitCode)
	}
	seqs := accessSequencesOf(t, res.Logs[0])
	if len(seqs) != 1 || seqs[0].Rank != 0 || seqs[0].Partial {
		t.Fatalf("sequences %+v, want one complete sequence of rank 0", seqs)
	}
	id := darshan.RecordID(file)
	ext := func(op darshan.Op, off, n int64) accessShape {
		return accessShape{darshan.ModPOSIX, op, id, id, -1, off, n, nil, nil}
	}
	want := []accessShape{
		ext(darshan.OpWrite, 0, 1000),
		ext(darshan.OpRead, 0, 100), ext(darshan.OpRead, 500, 100), ext(darshan.OpRead, 200, 100),
		ext(darshan.OpRead, 0, 50),
	}
	if d := cmp.Diff(want, shapes(seqs[0].Accesses, nil)); d != "" {
		t.Errorf("access sequence (-want +got):\n%s", d)
	}

	// Without --learn the log has no access region.
	res = runCollected(t, RunOptions{}, nil, prog, file)
	if g := res.Logs[0].Header.Modules[darshan.ModAccess]; g.Len != 0 {
		t.Errorf("a run without --learn wrote an access region of %d bytes", g.Len)
	}
}

func TestLearnPnetCDF(t *testing.T) {
	mpicc := needTool(t, "mpicc.openmpi")
	mpiexec := needTool(t, "mpiexec.openmpi")
	prog := compileWorkload(t, mpicc, "pnetcdf/basic.c", pkgFlags(t, "pnetcdf")...)
	dir := t.TempDir()
	res := runCollected(t, RunOptions{Learn: true}, openMPIEnv, mpiexec, "-n", "2", prog, dir)
	if res.Result.ExitCode != 0 {
		t.Fatalf("exit code %d", res.Result.ExitCode)
	}
	l := mpiLog(t, res.Logs, 2)
	seqs := accessSequencesOf(t, l)
	if len(seqs) != 2 {
		t.Fatalf("%d sequences, want one per rank", len(seqs))
	}
	path := filepath.Join(dir, "basic.nc")
	file := darshan.RecordID(path)
	for r, s := range seqs {
		if s.Rank != int64(r) || s.Partial {
			t.Errorf("sequence %d: rank %d partial %v", r, s.Rank, s.Partial)
		}
		rr := int64(r)
		v := func(name string, op darshan.Op, n int64, start, count []int64) accessShape {
			return accessShape{darshan.ModPnetCDFVar, op, darshan.RecordID(path + ":" + name), file, -1, -1, n, start, count}
		}
		w, rd := darshan.OpWrite, darshan.OpRead
		want := []accessShape{
			v("fix", w, 8000, []int64{rr, 0}, []int64{1, 1000}),
			v("rec", w, 200, []int64{0, 50 * rr}, []int64{1, 50}),
			v("rec", w, 200, []int64{1, 50 * rr}, []int64{1, 50}),
			v("rec", rd, 800, []int64{0, 0}, []int64{2, 100}),
			v("fix", rd, 8000, []int64{1 - rr, 0}, []int64{1, 1000}),
			v("fix", w, 4000, []int64{rr, 0}, []int64{1, 999}),
			v("misc", w, 4, []int64{rr, 0}, []int64{1, 1}),
			v("misc", w, 32, []int64{rr, 10}, []int64{1, 13}),
			v("misc", w, 40, []int64{rr, 40}, []int64{1, 10}),
			v("misc", w, 80, []int64{rr, 60}, []int64{1, 20}),
			v("misc", rd, 400, nil, nil),
			v("rec", rd, 800, nil, nil),
		}
		high := func(a darshan.Access) bool { return a.Module == darshan.ModPnetCDFVar }
		if d := cmp.Diff(want, shapes(s.Accesses, high)); d != "" {
			t.Errorf("rank %d: PnetCDF accesses (-want +got):\n%s", r, d)
		}
		// Every POSIX extent is of the file; those under a variable
		// access are under one of the same file that holds it in time.
		// The independent read of rec (2 records of 400 bytes, the only
		// record variable: contiguous) is one POSIX read of 800 bytes.
		var under []darshan.Access
		for _, a := range s.Accesses {
			if a.Module != darshan.ModPOSIX {
				continue
			}
			if a.File != file {
				t.Errorf("rank %d: POSIX access of record %d, want the file's", r, a.File)
			}
			if a.Parent < 0 {
				continue
			}
			p := s.Accesses[a.Parent]
			if p.Module != darshan.ModPnetCDFVar || p.File != a.File || a.StartTime < p.StartTime || a.EndTime > p.EndTime {
				t.Errorf("rank %d: POSIX access %+v under %+v", r, a, p)
			}
			if p.Op == darshan.OpRead && p.Length == 800 && p.Start != nil {
				under = append(under, a)
			}
		}
		if len(under) != 1 || under[0].Length != 800 || under[0].Op != darshan.OpRead {
			t.Errorf("rank %d: POSIX accesses under the independent read of rec: %+v, want one read of 800 bytes", r, under)
		}
	}
}

func TestLearnHDF5(t *testing.T) {
	mpicc := needTool(t, "mpicc.openmpi")
	prog := compileWorkload(t, mpicc, "hdf5/serial.c", pkgFlags(t, "hdf5-openmpi")...)
	dir := t.TempDir()
	res := runCollected(t, RunOptions{Learn: true}, nil, prog, dir)
	if res.Result.ExitCode != 0 {
		t.Fatalf("exit code %d", res.Result.ExitCode)
	}
	l := mpiLog(t, res.Logs, 1)
	seqs := accessSequencesOf(t, l)
	if len(seqs) != 1 {
		t.Fatalf("%d sequences, want 1", len(seqs))
	}
	path := filepath.Join(dir, "serial.h5")
	file, d := darshan.RecordID(path), darshan.RecordID(path+":/gd")
	want := []accessShape{
		{darshan.ModH5D, darshan.OpWrite, d, file, -1, -1, 4000, nil, nil},
		{darshan.ModH5D, darshan.OpRead, d, file, -1, -1, 400, []int64{10}, []int64{100}},
	}
	s := seqs[0].Accesses
	if diff := cmp.Diff(want, shapes(s, func(a darshan.Access) bool { return a.Module == darshan.ModH5D })); diff != "" {
		t.Errorf("H5D accesses (-want +got):\n%s", diff)
	}
	// The hyperslab read is one POSIX read: HDF5's sieve buffer reads from
	// element 10 to the end of the dataset's contiguous storage (990
	// elements), a prefetch the extents of the vertex must keep.
	var under []darshan.Access
	for _, a := range s {
		if a.Parent >= 0 && s[a.Parent].Op == darshan.OpRead {
			under = append(under, a)
		}
	}
	if len(under) != 1 || under[0].Length != 3960 || under[0].File != file {
		t.Errorf("POSIX accesses under the read: %+v, want one read of 3960 bytes of the file", under)
	}
}
