package analysis

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/iolens/iolens/darshan"
)

// trace describes a DXT record of a purpose-built log.
type trace struct {
	mod           darshan.ModuleID
	file          string
	rank          int64
	writes, reads []darshan.Segment
}

// buildTraceLog writes a log of nprocs processes and a 100 s run whose
// only records are the given DXT traces, and opens it.
func buildTraceLog(t testing.TB, nprocs int64, traces []trace) *darshan.Log {
	t.Helper()
	var buf memLog
	w := darshan.NewWriter(&buf, darshan.WriterOptions{})
	job := darshan.Job{UID: 1000, StartTime: 1700000000, EndTime: 1700000100, NProcs: nprocs, JobID: 43, Metadata: "lib_ver=3.5.0\n"}
	if err := w.WriteJob(job, "/bin/app", []darshan.Mount{{Path: "/", FSType: "ext4"}}); err != nil {
		t.Fatal(err)
	}
	names := map[uint64]string{}
	for _, tr := range traces {
		names[darshan.RecordID(tr.file)] = tr.file
	}
	if err := w.WriteNames(maps.All(names)); err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(traces, func(a, b trace) int { return int(a.mod) - int(b.mod) })
	cur := darshan.ModuleID(-1)
	for _, tr := range traces {
		if tr.mod != cur {
			if err := w.BeginModule(tr.mod); err != nil {
				t.Fatal(err)
			}
			cur = tr.mod
		}
		r := &darshan.Record{Module: tr.mod, ID: darshan.RecordID(tr.file), Rank: tr.rank,
			DXT: &darshan.Trace{Hostname: "node1", Writes: tr.writes, Reads: tr.reads}}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := darshan.Open(bytes.NewReader(buf.b), int64(len(buf.b)), "trace.darshan")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// seq returns n operations of size bytes at consecutive offsets from off,
// starting every step seconds from t0 and lasting d seconds each.
func seq(n int, off, size int64, t0, step, d float64) []darshan.Segment {
	out := make([]darshan.Segment, n)
	for i := range out {
		s := t0 + float64(i)*step
		out[i] = darshan.Segment{Offset: off + int64(i)*size, Length: size, Start: s, End: s + d}
	}
	return out
}

func checkSubjects(t *testing.T, in Insight, want ...Subject) {
	t.Helper()
	eq := func(a, b Subject) bool {
		return a.File == b.File && a.Value == b.Value && a.Unit == b.Unit &&
			(a.Rank == nil) == (b.Rank == nil) && (a.Rank == nil || *a.Rank == *b.Rank)
	}
	if !slices.EqualFunc(in.Subjects, want, eq) {
		var got []string
		for _, s := range in.Subjects {
			r := "-"
			if s.Rank != nil {
				r = string(rune('0' + *s.Rank))
			}
			got = append(got, s.File+"@"+r+"="+fmtRatio(s.Value)+" "+s.Unit)
		}
		t.Errorf("%s subjects %v, want %d subjects", in.Code, got, len(want))
	}
}

func rk(r int64) *int64 { return &r }

func TestManyPhases(t *testing.T) {
	// Twelve bursts of ten 1 MiB writes, five seconds apart.
	var writes []darshan.Segment
	for p := range 12 {
		writes = append(writes, seq(10, int64(p*10)*MiB, MiB, 5*float64(p), 0.06, 0.05)...)
	}
	rep := analyzeBuilt(t, buildTraceLog(t, 1, []trace{{mod: darshan.ModDXTPOSIX, file: "/out/steps.dat", writes: writes}}))
	checkCodes(t, rep, "D01:WARN", "D06:INFO")
	if len(rep.Phases) != 12 {
		t.Fatalf("%d phases, want 12", len(rep.Phases))
	}
	in := insight(t, rep, "D01")
	checkMessage(t, in, "The traces show 12 I/O phases in DXT_POSIX (more than 10): the job alternates between I/O and computation often")
	if !slices.Equal(in.Details, []string{"DXT_POSIX: 12 phases from 0.00 s to 55.59 s, lasting 0.59 s on average, 4.41 s apart on average"}) {
		t.Errorf("D01 details %q", in.Details)
	}
	checkMessage(t, insight(t, rep, "D06"), "Ranks spend 6.00% of the 100.00 s run in traced I/O on average (1 rank(s), from 6.00% to 6.00%)")

	// The threshold is configurable.
	cfg := DefaultConfig()
	cfg.DXTMaxPhases = 12
	rep, err := Analyze(buildTraceLog(t, 1, []trace{{mod: darshan.ModDXTPOSIX, file: "/out/steps.dat", writes: writes}}), "t", cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkCodes(t, rep, "D06:INFO")
}

func TestStragglerInPhase(t *testing.T) {
	var traces []trace
	for r := range int64(4) {
		d := 0.1
		if r == 3 {
			d = 0.4 // the slow rank
		}
		traces = append(traces, trace{mod: darshan.ModDXTPOSIX, file: "/scratch/shared.dat", rank: r,
			writes: seq(10, r*10*MiB, MiB, 0, 0.5, d)})
	}
	rep := analyzeBuilt(t, buildTraceLog(t, 4, traces))
	checkCodes(t, rep, "D02:HIGH", "D06:INFO")
	in := insight(t, rep, "D02")
	checkMessage(t, in, "Stragglers in 1 of 1 I/O phases: 1 rank(s) spent more than 2 times the median I/O time of the phase's ranks, and the phase lasts until they finish")
	if !slices.Equal(in.Details, []string{"worst: rank 3 in phase 1 of DXT_POSIX (0.00 s to 4.90 s): 4.00 s of I/O against a median of 1.00 s"}) {
		t.Errorf("D02 details %q", in.Details)
	}
	checkSubjects(t, in, Subject{Rank: rk(3), Value: 3, Unit: "s above the phase median"})
	if p := rep.Phases[0]; p.SlowestRank != 3 || p.FastestRank != 0 || p.Bytes != 40*MiB || p.Operations != 40 {
		t.Errorf("phase %+v", p)
	}
	// The module's totals in the job summary are those of its operations:
	// 10 writes of 1 MiB per rank, 0.1 s each (0.4 s on rank 3).
	want := []Module{{Name: "DXT_POSIX", Files: 1, BytesWritten: 40 * MiB, Writes: 40, Time: 7}}
	if diff := cmp.Diff(want, rep.Job.Modules, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	in = insight(t, rep, "D06")
	checkMessage(t, in, "Ranks spend 1.75% of the 100.00 s run in traced I/O on average (4 rank(s), from 1.00% to 4.00%)")
	checkSubjects(t, in, Subject{Rank: rk(3), Value: 4, Unit: "% of run time"}, Subject{Rank: rk(0), Value: 1, Unit: "% of run time"},
		Subject{Rank: rk(1), Value: 1, Unit: "% of run time"}, Subject{Rank: rk(2), Value: 1, Unit: "% of run time"})
}

func TestRank0Heavy(t *testing.T) {
	traces := []trace{
		{mod: darshan.ModDXTPOSIX, file: "/out/a", rank: 0, writes: seq(60, 0, MiB, 0, 0.01, 0.005)},
		{mod: darshan.ModDXTPOSIX, file: "/out/b", rank: 0, writes: seq(40, 0, MiB, 0.6, 0.01, 0.005)},
	}
	for r := range int64(3) {
		traces = append(traces, trace{mod: darshan.ModDXTPOSIX, file: "/out/c", rank: r + 1, writes: seq(1, r*MiB, MiB, 0, 0.01, 0.005)})
	}
	rep := analyzeBuilt(t, buildTraceLog(t, 4, traces))
	checkCodes(t, rep, "D03:HIGH", "D06:INFO")
	in := insight(t, rep, "D03")
	checkMessage(t, in, "Rank 0 moves 97.09% of the 103.00 MiB traced in DXT_POSIX (100.00 MiB) while the job has 4 processes")
	checkSubjects(t, in, Subject{File: "/out/a", Rank: rk(0), Value: 60 * MiB, Unit: "bytes"}, Subject{File: "/out/b", Rank: rk(0), Value: 40 * MiB, Unit: "bytes"})
}

func TestUnbalancedRanks(t *testing.T) {
	var traces []trace
	for r := range int64(4) {
		n := 4
		if r == 3 {
			n = 1
		}
		traces = append(traces, trace{mod: darshan.ModDXTPOSIX, file: "/out/part", rank: r, writes: seq(n, r*4*MiB, MiB, 0, 0.01, 0.005)})
	}
	rep := analyzeBuilt(t, buildTraceLog(t, 4, traces))
	checkCodes(t, rep, "D04:HIGH", "D06:INFO")
	in := insight(t, rep, "D04")
	checkMessage(t, in, "Unbalanced workload: the ranks move from 1.00 MiB to 4.00 MiB each in DXT_POSIX (mean 3.25 MiB over 4 ranks), an imbalance of 75.00%")
	checkSubjects(t, in, Subject{Rank: rk(0), Value: 4 * MiB, Unit: "bytes"}, Subject{Rank: rk(1), Value: 4 * MiB, Unit: "bytes"},
		Subject{Rank: rk(2), Value: 4 * MiB, Unit: "bytes"}, Subject{Rank: rk(3), Value: MiB, Unit: "bytes"})

	// A rank without traced operations moved nothing.
	rep = analyzeBuilt(t, buildTraceLog(t, 5, traces))
	checkCodes(t, rep, "D04:HIGH", "D06:INFO")
	in = insight(t, rep, "D04")
	checkMessage(t, in, "Unbalanced workload: the ranks move from 0 B to 4.00 MiB each in DXT_POSIX (mean 2.60 MiB over 5 ranks), an imbalance of 100.00%")
	if !slices.Equal(in.Details, []string{"1 of 5 ranks have no traced operation"}) {
		t.Errorf("D04 details %q", in.Details)
	}
}

// TestOneAggregator: with MPI-IO traced, the workload is the
// application's; rank 0 doing all POSIX I/O as the only aggregator of
// balanced collective writes is neither rank-0 heavy nor unbalanced.
func TestOneAggregator(t *testing.T) {
	traces := []trace{{mod: darshan.ModDXTPOSIX, file: "/out/all", rank: 0, writes: seq(4, 0, MiB, 0.001, 0.01, 0.005)}}
	for r := range int64(4) {
		traces = append(traces, trace{mod: darshan.ModDXTMPIIO, file: "/out/all", rank: r, writes: seq(1, r*MiB, MiB, 0, 0.05, 0.045)})
	}
	rep := analyzeBuilt(t, buildTraceLog(t, 4, traces))
	checkCodes(t, rep, "D06:INFO")
	if len(rep.Phases) != 2 || rep.Phases[0].Module != "DXT_POSIX" || rep.Phases[1].Module != "DXT_MPIIO" {
		t.Errorf("phases %+v", rep.Phases)
	}
}

func TestRedundantRanges(t *testing.T) {
	var traces []trace
	for r := range int64(4) {
		// Every rank reads the same 10 MiB.
		traces = append(traces, trace{mod: darshan.ModDXTPOSIX, file: "/data/table.bin", rank: r, reads: seq(10, 0, MiB, 0, 0.1, 0.05)})
	}
	traces = append(traces,
		// Two overlapping writes: 512 KiB written twice.
		trace{mod: darshan.ModDXTPOSIX, file: "/out/log.dat", rank: 0, writes: []darshan.Segment{
			{Offset: 0, Length: MiB, Start: 1.0, End: 1.05}, {Offset: MiB / 2, Length: MiB, Start: 1.1, End: 1.15}}},
		// Reading back what was written is not redundant.
		trace{mod: darshan.ModDXTPOSIX, file: "/out/check.dat", rank: 0,
			writes: []darshan.Segment{{Offset: 0, Length: MiB, Start: 1.2, End: 1.25}},
			reads:  []darshan.Segment{{Offset: 0, Length: MiB, Start: 1.3, End: 1.35}}},
	)
	rep := analyzeBuilt(t, buildTraceLog(t, 4, traces))
	checkCodes(t, rep, "D05:WARN", "D06:INFO")
	in := insight(t, rep, "D05")
	checkMessage(t, in, "Redundant traffic in the DXT_POSIX traces: 2 file(s) had byte ranges accessed more than once: 30.00 MiB read again and 512.00 KiB written again, of 42.00 MiB moved to them")
	checkSubjects(t, in, Subject{File: "/data/table.bin", Value: 30 * MiB, Unit: "bytes moved again"}, Subject{File: "/out/log.dat", Value: MiB / 2, Unit: "bytes moved again"})

	// Files under the threshold are not listed.
	cfg := DefaultConfig()
	cfg.DXTRedundant = 0.5
	rep, err := Analyze(buildTraceLog(t, 4, traces), "t", cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkSubjects(t, insight(t, rep, "D05"), Subject{File: "/data/table.bin", Value: 30 * MiB, Unit: "bytes moved again"})
}

func TestIOTimeHigh(t *testing.T) {
	traces := []trace{
		// Two overlapping operations (two threads): 60 s of I/O, not 80.
		{mod: darshan.ModDXTPOSIX, file: "/out/big", rank: 0, writes: []darshan.Segment{
			{Offset: 0, Length: 100 * MiB, Start: 0, End: 40}, {Offset: 100 * MiB, Length: 100 * MiB, Start: 20, End: 60}}},
		{mod: darshan.ModDXTPOSIX, file: "/out/big", rank: 1, writes: []darshan.Segment{
			{Offset: 200 * MiB, Length: 200 * MiB, Start: 0, End: 55}}},
	}
	rep := analyzeBuilt(t, buildTraceLog(t, 2, traces))
	checkCodes(t, rep, "D06:HIGH")
	in := insight(t, rep, "D06")
	checkMessage(t, in, "Ranks spend 57.50% of the 100.00 s run in traced I/O on average (2 rank(s), from 55.00% to 60.00%); 2 rank(s) spend more than 50% of it in I/O")
	checkSubjects(t, in, Subject{Rank: rk(0), Value: 60, Unit: "% of run time"}, Subject{Rank: rk(1), Value: 55, Unit: "% of run time"})
	if in.Recommendation == "" {
		t.Error("D06 HIGH without a recommendation")
	}
}

// TestTraceKept checks the operations the report keeps: every one, in
// order of start time even after D05 sorted them by offset.
func TestTraceKept(t *testing.T) {
	backward := seq(8, 0, MiB, 0, 0.1, 0.05)
	for i := range backward {
		backward[i].Offset = int64(len(backward)-1-i) * MiB
	}
	traces := []trace{
		{mod: darshan.ModDXTPOSIX, file: "/data/a", rank: 0, writes: backward, reads: seq(3, 0, MiB, 1, 0.1, 0.05)},
		{mod: darshan.ModDXTPOSIX, file: "/data/a", rank: 1, writes: backward},
		{mod: darshan.ModDXTMPIIO, file: "/data/a", rank: 1, writes: seq(2, 0, 4*MiB, 0, 0.2, 0.1)},
	}
	rep := analyzeBuilt(t, buildTraceLog(t, 2, traces))
	insight(t, rep, "D05") // the writes were sorted by offset
	tr := rep.Trace
	if tr == nil || tr.Err != nil || len(tr.Modules) != 2 {
		t.Fatalf("trace %+v", tr)
	}
	if tr.Ops != 8+3+8+2 || tr.TMin != 0 || tr.TMax != 1.25 || tr.RankMin != 0 || tr.RankMax != 1 || tr.MaxOffset != 8*MiB {
		t.Errorf("bounds: %d ops, %g-%g s, ranks %d-%d, max offset %d", tr.Ops, tr.TMin, tr.TMax, tr.RankMin, tr.RankMax, tr.MaxOffset)
	}
	var n int64
	for _, m := range tr.Modules {
		for _, r := range m.Runs {
			if r.File != "/data/a" {
				t.Errorf("run of rank %d: file %q", r.Rank, r.File)
			}
			for i := range r.Len() {
				n++
				o := r.Op(i)
				if i > 0 && o.Start < r.Op(i-1).Start {
					t.Errorf("%s rank %d write %v: operation %d starts before the previous one", m.Module, r.Rank, r.Write, i)
				}
				if m.Module == darshan.ModDXTPOSIX && r.Write && o.Offset != int64(7-i)*MiB {
					t.Errorf("rank %d write %d at offset %d, want %d", r.Rank, i, o.Offset, int64(7-i)*MiB)
				}
			}
		}
	}
	if n != tr.Ops {
		t.Errorf("%d operations kept, bounds say %d", n, tr.Ops)
	}
}
