package collector

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Collector overhead, measured with bench/microbench.c: 1,000,000 writes of
// 64 bytes then 1,000,000 preads of 64 bytes at random offsets, on tmpfs.
// Each iteration runs the program without the collector, with counters only
// and with DXT, interleaved; the reported figures are medians over the
// iterations of the differences to the baseline run of the same iteration
// (run with -benchtime=Nx). Stores and data are on tmpfs, as with iolens
// run:
//
//	write-ns, pread-ns          time per call without the collector
//	write-added-ns, pread-added-ns   added by the counters
//	write-dxt-added-ns, pread-dxt-added-ns   added with DXT traces
//	write-learn-added-ns, pread-learn-added-ns   added with access sequences (--learn)
//	maxrss-added-KiB, maxrss-dxt-added-KiB   added peak memory per process
func BenchmarkOverhead(b *testing.B) {
	prog := compileWorkload(b, "cc", "../../bench/microbench.c")
	lib := testLibrary(b, "")
	shm := "/dev/shm"
	if _, err := os.Stat(shm); err != nil {
		shm = b.TempDir()
	}
	type sample struct{ write, pread, rss float64 }
	run := func(env ...string) sample {
		// Stores where iolens run puts them.
		dir, err := os.MkdirTemp(shm, "iolens-bench-stores-")
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(prog, filepath.Join(shm, fmt.Sprintf("iolens-bench-%d", os.Getpid())), "1000000")
		cmd.Env = append(os.Environ(), append(env, "IOLENS_STORE_DIR="+dir)...)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("microbench: %v", err)
		}
		var s sample
		for _, f := range strings.Fields(string(out)) {
			k, v, _ := strings.Cut(f, "=")
			x, _ := strconv.ParseFloat(v, 64)
			switch k {
			case "write_ns":
				s.write = x
			case "pread_ns":
				s.pread = x
			}
		}
		s.rss = float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
		os.RemoveAll(dir)
		return s
	}
	var base, ctr, dxt, learn []sample
	b.ResetTimer()
	for i := range b.N {
		// Alternate the order so that drifts of the machine's speed
		// cancel in the paired differences.
		steps := []func(){
			func() { base = append(base, run()) },
			func() { ctr = append(ctr, run("LD_PRELOAD="+lib)) },
			func() { dxt = append(dxt, run("LD_PRELOAD="+lib, "IOLENS_DXT=1")) },
			func() { learn = append(learn, run("LD_PRELOAD="+lib, "IOLENS_LEARN=1")) },
		}
		if i%2 == 1 {
			slices.Reverse(steps)
		}
		for _, step := range steps {
			step()
		}
	}
	b.StopTimer()
	// med is the median of f over the iterations; added the median of the
	// per-iteration differences between a configuration and the baseline.
	med := func(f func(i int) float64) float64 {
		v := make([]float64, len(base))
		for i := range v {
			v[i] = f(i)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	added := func(ss []sample, f func(sample) float64) float64 {
		return med(func(i int) float64 { return f(ss[i]) - f(base[i]) })
	}
	w := func(s sample) float64 { return s.write }
	p := func(s sample) float64 { return s.pread }
	r := func(s sample) float64 { return s.rss }
	b.ReportMetric(med(func(i int) float64 { return base[i].write }), "write-ns")
	b.ReportMetric(med(func(i int) float64 { return base[i].pread }), "pread-ns")
	b.ReportMetric(added(ctr, w), "write-added-ns")
	b.ReportMetric(added(ctr, p), "pread-added-ns")
	b.ReportMetric(added(dxt, w), "write-dxt-added-ns")
	b.ReportMetric(added(dxt, p), "pread-dxt-added-ns")
	b.ReportMetric(added(learn, w), "write-learn-added-ns")
	b.ReportMetric(added(learn, p), "pread-learn-added-ns")
	b.ReportMetric(added(ctr, r), "maxrss-added-KiB")
	b.ReportMetric(added(dxt, r), "maxrss-dxt-added-KiB")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkWriteLog measures writing the Darshan log of one process at the
// end of a run: counters only, and with 52,428 DXT segments (the number
// Darshan keeps under its default 2 MiB trace budget).
func BenchmarkWriteLog(b *testing.B) {
	prog := compileWorkload(b, "cc", "../../bench/microbench.c")
	lib := testLibrary(b, "")
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"counters", nil},
		{"dxt-52k", []string{"IOLENS_DXT=1"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			cmd := exec.Command(prog, filepath.Join(dir, "data"), "26214")
			cmd.Env = append(os.Environ(), append(tc.env, "LD_PRELOAD="+lib, "IOLENS_STORE_DIR="+dir)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("microbench: %v\n%s", err, out)
			}
			stores, err := ReadStores(dir)
			if err != nil || len(stores) != 1 {
				b.Fatalf("%d stores: %v", len(stores), err)
			}
			out := filepath.Join(b.TempDir(), "log.darshan")
			b.ResetTimer()
			for range b.N {
				stores, _ := ReadStores(dir)
				f, err := os.Create(out)
				if err != nil {
					b.Fatal(err)
				}
				if err := WriteLog(f, Groups(stores)[0], LogOptions{}); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
