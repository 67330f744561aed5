// Command prefetch is the prefetch benchmark (make bench-prefetch): a
// pgea-like workload, on PnetCDF (bench/pgea.c) and on HDF5
// (bench/pgea_h5.c), whose inputs are evicted from the page
// cache before every run, run without iolens and under `iolens run
// --prefetch` after learning from a run on other data of the same shape,
// alternating, and compared by median wall time. The compute per byte is
// calibrated so that computing takes about as long as reading from a cold
// cache. A second workload reads its variables in a random order, which
// nothing can predict: prefetching must not slow it down.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/iolens/iolens/darshan"
)

// workload is one of the twin programs.
type workload struct {
	name, src, pkg, ext string
}

var workloads = map[string]workload{
	"nc": {"pgea", "bench/pgea.c", "pnetcdf", ".nc"},
	"h5": {"pgea_h5", "bench/pgea_h5.c", "hdf5-openmpi", ".h5"},
}

type bench struct {
	iolens, pgea, mpiexec, dir string
	w                          workload
	nvars, steps, x            int
	pairs                      int
}

func main() {
	iolens := flag.String("iolens", "bin/iolens", "the iolens binary")
	dir := flag.String("dir", "/var/tmp/iolens-bench-prefetch", "work directory, on the disk to measure (not tmpfs)")
	sizeGiB := flag.Float64("size", 4, "GiB of input data (two files)")
	nvars := flag.Int("nvars", 8, "variables per input file")
	steps := flag.Int("steps", 32, "time steps")
	pairs := flag.Int("pairs", 5, "measured pairs (without, with prefetching) per configuration")
	ranksList := flag.String("ranks", "1,4", "comma-separated rank counts")
	formats := flag.String("formats", "nc,h5", "comma-separated workloads: nc (PnetCDF), h5 (HDF5)")
	readMBps := flag.Int("read-mbps", 0, "cap the disk's read bandwidth for the runs (MB/s, a block-I/O cgroup), so that a virtual disk whose speed drifts acts as a steady one; 0: no cap")
	flag.Parse()
	if *readMBps > 0 {
		undo, err := throttle(*dir, *readMBps)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-prefetch:", err)
			os.Exit(1)
		}
		defer undo()
		fmt.Printf("reads from the disk of %s capped at %d MB/s\n", *dir, *readMBps)
	}
	for _, f := range strings.Split(*formats, ",") {
		w, ok := workloads[f]
		if !ok {
			fmt.Fprintf(os.Stderr, "bench-prefetch: unknown workload %q (nc or h5)\n", f)
			os.Exit(2)
		}
		b := &bench{iolens: *iolens, dir: *dir, nvars: *nvars, steps: *steps, pairs: *pairs, w: w}
		b.x = int(*sizeGiB * (1 << 30) / float64(2**nvars**steps*8))
		if err := b.main(strings.Split(*ranksList, ",")); err != nil {
			fmt.Fprintln(os.Stderr, "bench-prefetch:", err)
			os.Exit(1)
		}
	}
}

// throttle moves this process (and so every command it starts) into a new
// block-I/O cgroup whose reads from the disk holding dir are capped at mbps
// MB/s, and returns the function that undoes it. It needs root and cgroup
// v1's blkio or v2's io controller.
func throttle(dir string, mbps int) (func(), error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return nil, err
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	// A partition's limit goes on its disk.
	if b, err := os.ReadFile("/sys/dev/block/" + dev + "/../dev"); err == nil {
		if _, err := os.Stat("/sys/dev/block/" + dev + "/partition"); err == nil {
			dev = strings.TrimSpace(string(b))
		}
	}
	bps := strconv.Itoa(mbps * 1000 * 1000)
	type layout struct{ root, file, rule string }
	for _, l := range []layout{
		{"/sys/fs/cgroup/blkio", "blkio.throttle.read_bps_device", dev + " " + bps},
		{"/sys/fs/cgroup", "io.max", dev + " rbps=" + bps},
	} {
		if _, err := os.Stat(filepath.Join(l.root, "cgroup.procs")); err != nil {
			continue
		}
		if l.file == "io.max" {
			os.WriteFile(filepath.Join(l.root, "cgroup.subtree_control"), []byte("+io"), 0)
		}
		cg := filepath.Join(l.root, fmt.Sprintf("iolens-bench-%d", os.Getpid()))
		if err := os.Mkdir(cg, 0o755); err != nil {
			return nil, fmt.Errorf("capping the disk's bandwidth: %w", err)
		}
		undo := func() {
			os.WriteFile(filepath.Join(l.root, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0)
			os.Remove(cg)
		}
		if err := os.WriteFile(filepath.Join(cg, l.file), []byte(l.rule), 0); err != nil {
			undo()
			return nil, fmt.Errorf("capping the disk's bandwidth (%s %s): %w", l.file, l.rule, err)
		}
		if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			undo()
			return nil, fmt.Errorf("capping the disk's bandwidth: %w", err)
		}
		return undo, nil
	}
	return nil, errors.New("capping the disk's bandwidth needs cgroup v1 blkio or v2 io (and root)")
}

func (b *bench) main(ranks []string) error {
	for _, tool := range []string{"mpicc.openmpi", "mpiexec.openmpi", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is needed (make deps installs it): %w", tool, err)
		}
	}
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return err
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(b.dir, &fs); err == nil && fs.Type == unix.TMPFS_MAGIC {
		return fmt.Errorf("%s is on tmpfs: the benchmark measures reads from a disk", b.dir)
	}
	b.mpiexec = "mpiexec.openmpi"
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	os.Setenv("OMPI_MCA_rmaps_base_oversubscribe", "1")
	if err := b.build(); err != nil {
		return err
	}
	fmt.Printf("\n%s: inputs 2 files x %d variables x %d steps x %d doubles = %.2f GiB, in %s and %s\n",
		b.w.name, b.nvars, b.steps, b.x, float64(2*b.nvars*b.steps*b.x*8)/(1<<30), b.data(1), b.data(2))
	for _, n := range []int{1, 2} {
		if _, err := os.Stat(filepath.Join(b.data(n), "in_B"+b.w.ext)); err == nil && b.sameShape(n) {
			continue
		}
		fmt.Printf("generating %s ...\n", b.data(n))
		if err := os.MkdirAll(b.data(n), 0o700); err != nil {
			return err
		}
		if _, err := b.pgeaRun(nil, "4", "gen", b.data(n), b.shape()[0], b.shape()[1], b.shape()[2], strconv.Itoa(n)); err != nil {
			return err
		}
	}
	for _, r := range ranks {
		if err := b.config(r, "fixed"); err != nil {
			return err
		}
		if err := b.config(r, "random"); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) data(n int) string { return filepath.Join(b.dir, "data_"+strconv.Itoa(n)) }

func (b *bench) shape() []string {
	return []string{strconv.Itoa(b.nvars), strconv.Itoa(b.steps), strconv.Itoa(b.x)}
}

// sameShape reports whether the inputs in data(n) have the benchmark's
// size (checked by the file size).
func (b *bench) sameShape(n int) bool {
	st, err := os.Stat(filepath.Join(b.data(n), "in_A"+b.w.ext))
	return err == nil && st.Size() >= int64(b.nvars*b.steps*b.x*8)
}

func (b *bench) build() error {
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", b.w.pkg).Output()
	if err != nil {
		return fmt.Errorf("pkg-config %s: %w", b.w.pkg, err)
	}
	b.pgea = filepath.Join(b.dir, b.w.name)
	args := append([]string{"-O2", "-o", b.pgea, b.w.src}, strings.Fields(string(flags))...)
	if out, err := exec.Command("mpicc.openmpi", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", b.w.name, err, out)
	}
	return nil
}

// pgeaRun runs pgea on ranks ranks, under prefix (an iolens command line)
// when given, and returns the wall time.
func (b *bench) pgeaRun(prefix []string, ranks string, args ...string) (time.Duration, error) {
	d, _, err := b.pgeaOutput(prefix, ranks, args...)
	return d, err
}

// pgeaOutput is pgeaRun that also returns what pgea printed.
func (b *bench) pgeaOutput(prefix []string, ranks string, args ...string) (time.Duration, string, error) {
	argv := append(slices.Clone(prefix), b.mpiexec, "-n", ranks, b.pgea)
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
	return d, out.String(), nil
}

// field returns the number after "name=" in pgea's output.
func field(out, name string) (float64, error) {
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("pgea printed no %s in %q", name, out)
}

// evict drops the inputs and the output from the page cache and checks
// that less than 1% of them stayed resident.
func (b *bench) evict() error {
	files, _ := filepath.Glob(filepath.Join(b.dir, "data_*", "*"+b.w.ext))
	files = append(files, filepath.Join(b.dir, "out"+b.w.ext))
	for _, f := range files {
		fd, err := unix.Open(f, unix.O_RDONLY, 0)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("evicting %s: %w", f, err)
		}
		unix.Fdatasync(fd)
		err = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
		if err == nil {
			var frac float64
			if frac, err = resident(fd); err == nil && frac >= 0.01 {
				err = fmt.Errorf("%.1f%% still in the page cache", 100*frac)
			}
		}
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("evicting %s: %w", f, err)
		}
	}
	return nil
}

// resident returns the share of the file's pages in the page cache.
func resident(fd int) (float64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Size == 0 {
		return 0, err
	}
	m, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, err
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return 0, fmt.Errorf("mincore: %w", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return float64(n) / float64(len(vec)), nil
}

// config measures one rank count and read order.
func (b *bench) config(ranks, order string) error {
	repo := filepath.Join(b.dir, "knowledge-"+b.w.name+"-"+order+"-"+ranks+".db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(repo + suffix)
	}
	out := filepath.Join(b.dir, "out"+b.w.ext)
	logs := filepath.Join(b.dir, "logs")
	os.RemoveAll(logs)
	run := func(data int, ns float64) []string {
		return append([]string{"run", b.data(data), out}, append(b.shape(), strconv.FormatFloat(ns, 'f', 3, 64), order)...)
	}
	// Calibrate: I/O alone from a cold cache (median of three runs: a
	// virtual disk's speed varies), then compute for as long.
	var reads []float64
	for range 3 {
		if err := b.evict(); err != nil {
			return err
		}
		_, text, err := b.pgeaOutput(nil, ranks, run(2, 0)...)
		if err != nil {
			return err
		}
		v, err := field(text, "read_s")
		if err != nil {
			return err
		}
		reads = append(reads, v)
	}
	tio := medianF(reads)
	perRank := float64(2*b.nvars*b.steps*b.x*8) / mustAtof(ranks)
	// The program computes as long as reading its data alone takes. (Reads
	// between computations go faster than that: the disk, and its
	// bandwidth cap, rest while the program computes; the runs below
	// print that time.)
	ns := tio * 1e9 / perRank
	fmt.Printf("\n%s, %s ranks, %s order: reading takes %.2f s from a cold cache (rank 0); compute %.3f ns per byte read\n", b.w.name, ranks, order, tio, ns)

	// Learn from a run on the other data.
	if err := b.evict(); err != nil {
		return err
	}
	if _, err := b.pgeaRun([]string{b.iolens, "run", "--learn", "--log-dir", logs, "--"}, ranks, run(1, ns)...); err != nil {
		return err
	}
	learned, _ := filepath.Glob(filepath.Join(logs, "*.darshan"))
	if out, err := exec.Command(b.iolens, append([]string{"learn", "--repo", repo}, learned...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("iolens learn: %v\n%s", err, out)
	}
	os.RemoveAll(logs)

	var plain, pre []time.Duration
	var used, readPlain, readPre []float64
	for i := range b.pairs {
		steps := []func() error{
			func() error {
				d, text, err := b.pgeaOutput(nil, ranks, run(2, ns)...)
				plain = append(plain, d)
				r, _ := field(text, "read_s")
				readPlain = append(readPlain, r)
				return err
			},
			func() error {
				d, text, err := b.pgeaOutput([]string{b.iolens, "run", "--prefetch", "--no-learn", "--repo", repo, "--log-dir", logs, "--"}, ranks, run(2, ns)...)
				pre = append(pre, d)
				r, _ := field(text, "read_s")
				readPre = append(readPre, r)
				if err == nil {
					used = append(used, prefetchUse(logs))
					os.RemoveAll(logs)
				}
				return err
			},
		}
		if i%2 == 1 {
			slices.Reverse(steps)
		}
		for _, step := range steps {
			if err := b.evict(); err != nil {
				return err
			}
			if err := step(); err != nil {
				return err
			}
		}
	}
	mp, mq := median(plain), median(pre)
	ratios := make([]float64, len(plain))
	for i := range plain {
		ratios[i] = pre[i].Seconds() / plain[i].Seconds()
	}
	fmt.Printf("  without iolens: median %.2f s  %v  (time in reads, rank 0: median %.2f s)\n", mp.Seconds(), seconds(plain), medianF(readPlain))
	fmt.Printf("  --prefetch:     median %.2f s  %v  (time in reads, rank 0: median %.2f s)\n", mq.Seconds(), seconds(pre), medianF(readPre))
	fmt.Printf("  wall time: median of the paired ratios %.3f (%+.1f%%); prefetched bytes read afterwards: median %.1f%%\n",
		medianF(ratios), 100*(medianF(ratios)-1), 100*medianF(used))
	return nil
}

// prefetchUse returns the share of prefetched bytes read afterwards, from
// the metadata of the job's log in dir (NaN if none).
func prefetchUse(dir string) float64 {
	logs, _ := filepath.Glob(filepath.Join(dir, "*pgea*.darshan"))
	slices.Sort(logs)
	for _, p := range logs {
		l, err := darshan.OpenFile(p)
		if err != nil {
			continue
		}
		var bytes, hit float64
		for _, kv := range l.Job.MetadataPairs() {
			v, _ := strconv.ParseFloat(kv.Value, 64)
			switch kv.Key {
			case "prefetch_bytes":
				bytes = v
			case "prefetch_hit_bytes":
				hit = v
			}
		}
		l.Close()
		if bytes > 0 {
			return hit / bytes
		}
		return 0
	}
	return 0
}

func mustAtof(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		fmt.Fprintf(os.Stderr, "bench-prefetch: bad rank count %q\n", s)
		os.Exit(2)
	}
	return v
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func seconds(d []time.Duration) []string {
	out := make([]string, len(d))
	for i, x := range d {
		out[i] = fmt.Sprintf("%.2f", x.Seconds())
	}
	return out
}
