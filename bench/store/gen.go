package main

// The generator of synthetic facility logs.
//
// Each log is one job: an application of the catalog (appTable) run by one
// of its users with a process count, a run time, an I/O bandwidth and a
// share of the run spent moving data. The application's file kinds become
// logical files, placed one after the other on the job's time line (inputs
// first, outputs spread over the run), and each logical file becomes one
// record per process that has it (one reduced record, rank -1, for a file
// every rank opened). Counters are derived from a few request sizes per
// record, so that operation counts, byte counts, size histograms, common
// access sizes and sequentiality agree the way the Darshan runtime would
// produce them (docs/format/darshan-runtime-semantics.md).
//
// Every log is a function of the seed and its index alone, so workers can
// write them in any order and the output does not depend on the number of
// workers.

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iolens/iolens/darshan"
)

// genConfig holds the knobs of the generator; defaultGenConfig returns the
// ones generate uses.
type genConfig struct {
	// End ends the period over which the jobs' start times are spread, Days
	// is its length.
	End  time.Time
	Days int
	// MaxRecords caps the records of one log, all modules together (DXT
	// traces apart).
	MaxRecords int
	// TracedShare is the share of logs with DXT_POSIX traces, PartialShare
	// the share of logs with a module flagged partial.
	TracedShare, PartialShare float64
	// RegressionEvery is the mean number of runs between two "regression"
	// runs (I/O time 5–10× the usual) of the applications that have them.
	RegressionEvery int
	// Workers is the number of goroutines writing logs (each writes whole
	// logs).
	Workers int
	// Fast compresses with the fastest zlib level (darshan.WriterOptions):
	// logs a few percent larger, written several times faster.
	Fast bool
}

// defaultGenConfig returns the configuration of generate: jobs starting in
// the 365 days before 2026-11-01 UTC, at most 20,000 records a log, DXT traces
// in 3% of the logs, 1% partial logs, a regression run every 50 runs of the
// applications that have them, one worker per CPU and fast compression.
func defaultGenConfig() genConfig {
	return genConfig{
		End:             time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		Days:            365,
		MaxRecords:      20000,
		TracedShare:     0.03,
		PartialShare:    0.01,
		RegressionEvery: 50,
		Workers:         runtime.NumCPU(),
		Fast:            true,
	}
}

// generate writes n synthetic Darshan logs under dir, laid out as a
// facility's log directory (dir/YYYY/M/D/<user>_<exe>_id<jobid>-<pid>_<M>-<D>-<seconds>-<random>.darshan),
// with the default configuration. The same seed writes the same files. progress,
// if not nil, is called from a single goroutine after each log with the
// number of logs written so far.
func generate(dir string, n int, seed uint64, progress func(done int)) error {
	return generateWith(dir, n, seed, defaultGenConfig(), progress)
}

// generateWith is generate with a configuration. It stops at the first error
// and returns it.
func generateWith(dir string, n int, seed uint64, cfg genConfig, progress func(done int)) error {
	g, err := newGenerator(dir, n, seed, cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	workers := max(1, min(cfg.Workers, n))
	var next atomic.Int64
	var stop atomic.Bool
	results := make(chan error, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			w := g.newWorker()
			for !stop.Load() {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				results <- w.writeLog(int(i))
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	var first error
	done := 0
	for err := range results {
		if err != nil {
			if first == nil {
				first = err
				stop.Store(true)
			}
			continue
		}
		done++
		if progress != nil && first == nil {
			progress(done)
		}
	}
	return first
}

// generator is what every worker shares: the configuration, the catalog and
// the counter indexes. It is not modified once built.
type generator struct {
	dir  string
	n    int
	seed uint64
	cfg  genConfig
	cat  *catalog
	idx  *indexes
	// modules lists the modules of the records in log order.
	modules []moduleKind
}

// newGenerator checks the arguments and builds the shared tables.
func newGenerator(dir string, n int, seed uint64, cfg genConfig) (*generator, error) {
	switch {
	case n < 0:
		return nil, fmt.Errorf("generating %d logs: negative count", n)
	case cfg.Days <= 0:
		return nil, fmt.Errorf("generating logs over %d days: need at least one", cfg.Days)
	case cfg.MaxRecords < 64:
		return nil, fmt.Errorf("generating logs of at most %d records: need at least 64", cfg.MaxRecords)
	case cfg.RegressionEvery < 1:
		return nil, fmt.Errorf("regression every %d runs: need at least 1", cfg.RegressionEvery)
	}
	cat, err := newCatalog()
	if err != nil {
		return nil, fmt.Errorf("building the catalog: %w", err)
	}
	idx, err := newIndexes()
	if err != nil {
		return nil, fmt.Errorf("resolving counter indexes: %w", err)
	}
	return &generator{dir: dir, n: n, seed: seed, cfg: cfg, cat: cat, idx: idx, modules: moduleKinds()}, nil
}

// ---------------------------------------------------------------------------
// Catalog: users, applications and the kinds of files they use.

// firstUID is the uid of the first user; users have consecutive uids.
const firstUID = 1000

// span is a range [lo, hi] of positive numbers drawn log-uniformly; the zero
// span stands for "1" where a count is drawn.
type span struct{ lo, hi float64 }

// draw returns a log-uniform value of s.
func (s span) draw(r *rand.Rand) float64 {
	if s.hi <= s.lo {
		return s.lo
	}
	return s.lo * math.Exp(r.Float64()*math.Log(s.hi/s.lo))
}

// count draws a whole number of s, at least 1 (1 for the zero span).
func (s span) count(r *rand.Rand) int64 {
	if s.hi <= 0 {
		return 1
	}
	return max(1, int64(math.Round(s.draw(r))))
}

// iface is the I/O interface through which an application accesses a kind
// of file.
type iface uint8

const (
	viaPOSIX   iface = iota // open/read/write
	viaSTDIO                // fopen/fread/fprintf: a STDIO record and no POSIX record
	viaMPIIO                // MPI-IO over POSIX; plain POSIX when the run does no parallel I/O
	viaHDF5                 // HDF5 (parallel over MPI-IO, or serial from one process)
	viaPnetCDF              // PnetCDF over MPI-IO; serial netCDF (POSIX) when the run does no parallel I/O
)

// sharing tells which processes of a job have a file.
type sharing uint8

const (
	sharedAll sharing = iota // every rank opens it: one reduced record (rank -1)
	rankZero                 // only rank 0
	perRank                  // one file per rank
	perNode                  // one file per node, written by the node's first rank
)

// direction is what a job does with a kind of file.
type direction uint8

const (
	dirWrite     direction = iota
	dirRead                // each process reads its part
	dirReadAll             // each process reads the whole file
	dirReadWrite           // read then written, half the bytes each way
)

// pattern is the order of the accesses within a file.
type pattern uint8

const (
	sequential pattern = iota // consecutive requests
	strided                   // ranks interleave blocks of a shared file
	random                    // scattered offsets (SEQ counts low)
)

// phase places a kind of file on the job's time line.
type phase uint8

const (
	phaseStart phase = iota // read or written at the start
	phaseRun                // one logical file after the other over the run
	phaseEnd                // at the end
	phaseWhole              // open for the whole run (logs, standard streams)
)

// trait is a set of behaviours of an application.
type trait uint16

const (
	noCollective  trait = 1 << iota // MPI-IO, HDF5 and PnetCDF data accesses are all independent
	metadataHeavy                   // slow, numerous metadata operations (opens, stats)
	nonBlocking                     // half the MPI-IO (and PnetCDF) writes are non-blocking
	imbalanced                      // the ranks move quite different amounts of data
	stable                          // a production campaign: runs alike (narrow spans)
	regression                      // one run in RegressionEvery has a 5–10× I/O time
)

// fileKind describes the files of one kind an application uses.
//
// The path is a template: {user}, {app}, {run}, {job}, {home} (/home/<user>),
// {scratch} (/lustre/scratch/<user>/<app>/run<run>), {project}
// (/lustre/project/<group>), {date} (the start hour plus i hours), {i}, {rank},
// {node}, {step} (i over the number of items of the list) — each of the last
// four optionally zero-padded as {i:5} — and {list:a,b,c} (item i mod 3).
type fileKind struct {
	path   string
	via    iface
	share  sharing
	dir    direction
	access pattern
	phase  phase
	// count is the number of such files per job (per writer for perRank and
	// perNode); the zero span means one.
	count span
	// chance is the probability that a run uses the kind; zero means always.
	chance float64
	// volume is the kind's share of the job's data volume; zero means
	// files of size bytes each.
	volume float64
	size   span
	xfer   span // request size, bytes
	vars   span // HDF5 datasets or PnetCDF variables per file (zero: one)
	opens  span // opens of each file by each process (zero: one)
	// overwrite: every open rewrites the file from its start.
	overwrite bool
	// listLen is the number of items of the path's {list:...}, set by
	// newCatalog.
	listLen int
}

// appProfile describes one application: how it is run and what files it
// uses.
type appProfile struct {
	name   string   // program name in the log file name (basename of argv[0])
	exe    string   // argv[0] template ({user}, {home}...)
	args   []string // argument templates, one drawn per run ({n}: a number)
	weight float64  // relative frequency of its runs
	mpi    bool
	procs  span // process count
	users  int  // number of users who run it
	// runtime is the run time in seconds, ioFrac the share of it spent
	// moving data.
	runtime, ioFrac span
	// parallelIO is the probability that a multi-rank run does parallel I/O
	// (MPI-IO, parallel HDF5 or PnetCDF) for the kinds that can.
	parallelIO float64
	traits     trait
	files      []fileKind
}

// catalog holds the tables every job is drawn from.
type catalog struct {
	users   []string
	apps    []appProfile
	cum     []float64 // cumulative weights of apps, normalised to end at 1
	groups  [][]int   // indices of the users of each application
	streams []fileKind
	mounts  []darshan.Mount
	// datasets and variables name the HDF5 datasets and PnetCDF
	// variables of a file (at most that many per file).
	datasets, variables []string
}

// newCatalog builds the catalog and checks its templates.
func newCatalog() (*catalog, error) {
	c := &catalog{users: userNames(), apps: appTable(), streams: streamKinds(), mounts: mountTable(),
		datasets:  strings.Fields("x y z id1 id2 px py pz density pressure temperature velx vely velz energy mask"),
		variables: strings.Fields("T U V PS Q OMEGA Z3 TS PRECT CLDTOT RELHUM FLNT FSNT LHFLX SHFLX TMQ"),
	}
	if len(c.users) != 60 {
		return nil, fmt.Errorf("%d users, want 60", len(c.users))
	}
	total := 0.0
	for i := range c.apps {
		a := &c.apps[i]
		if err := checkTemplate(a.exe); err != nil {
			return nil, fmt.Errorf("app %s: exe: %w", a.name, err)
		}
		for _, s := range a.args {
			if err := checkTemplate(s); err != nil {
				return nil, fmt.Errorf("app %s: args: %w", a.name, err)
			}
		}
		for k := range a.files {
			if err := prepareKind(&a.files[k]); err != nil {
				return nil, fmt.Errorf("app %s: %w", a.name, err)
			}
		}
		if a.users < 1 || a.users > len(c.users) || a.weight <= 0 {
			return nil, fmt.Errorf("app %s: %d users, weight %g", a.name, a.users, a.weight)
		}
		// Users of an application: a run of consecutive indices modulo
		// 60 with a stride prime to 60, starting at a point that depends
		// on the application.
		grp := make([]int, a.users)
		for k := range grp {
			grp[k] = (i*7 + k*11) % len(c.users)
		}
		c.groups = append(c.groups, grp)
		total += a.weight
		c.cum = append(c.cum, total)
	}
	for i := range c.cum {
		c.cum[i] /= total
	}
	for k := range c.streams {
		if err := prepareKind(&c.streams[k]); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// pickApp returns the index of the application of cumulative weight u in
// [0, 1).
func (c *catalog) pickApp(u float64) int {
	i, _ := slices.BinarySearch(c.cum, u)
	return min(i, len(c.apps)-1)
}

// prepareKind checks the template of k against its sharing and counts, and
// records the length of its list.
func prepareKind(k *fileKind) error {
	if err := checkTemplate(k.path); err != nil {
		return fmt.Errorf("kind %s: %w", k.path, err)
	}
	if _, list, ok := strings.Cut(k.path, "{list:"); ok {
		list, _, _ = strings.Cut(list, "}")
		k.listLen = strings.Count(list, ",") + 1
	}
	indexed := strings.Contains(k.path, "{i") || strings.Contains(k.path, "{date}") || k.listLen > 0
	switch {
	case k.count.hi > 1 && !indexed:
		return fmt.Errorf("kind %s: several files per job but no {i}, {date} or {list}", k.path)
	case k.listLen > 0 && k.count.hi > float64(k.listLen) && !strings.Contains(k.path, "{step") && !strings.Contains(k.path, "{i"):
		return fmt.Errorf("kind %s: more files than list items but no {step} or {i}", k.path)
	case k.share == perRank && !strings.Contains(k.path, "{rank"):
		return fmt.Errorf("kind %s: file per rank without {rank}", k.path)
	case k.share == perNode && !strings.Contains(k.path, "{node") && !strings.Contains(k.path, "{rank"):
		return fmt.Errorf("kind %s: file per node without {node}", k.path)
	case k.volume <= 0 && k.size.hi <= 0:
		return fmt.Errorf("kind %s: neither a volume share nor a size", k.path)
	case k.xfer.lo < 1:
		return fmt.Errorf("kind %s: no request size", k.path)
	}
	return nil
}

// checkTemplate reports unknown or unterminated tokens of t.
func checkTemplate(t string) error {
	tokens := []string{"user", "app", "run", "job", "home", "scratch", "project", "date", "n", "i", "rank", "node", "step"}
	for {
		a := strings.IndexByte(t, '{')
		if a < 0 {
			return nil
		}
		b := strings.IndexByte(t[a:], '}')
		if b < 0 {
			return fmt.Errorf("unterminated token in %q", t)
		}
		name, _, _ := strings.Cut(t[a+1:a+b], ":")
		if name != "list" && !slices.Contains(tokens, name) {
			return fmt.Errorf("unknown token {%s}", name)
		}
		t = t[a+b+1:]
	}
}

// userNames returns the 60 user names (uids 1000 to 1059 in this order).
func userNames() []string {
	return strings.Fields(`
		akumar bchen cdiaz dnguyen eolsen fgarcia gmueller hkim ipatel jsmith
		kwang lrossi mtanaka nbrown okoval pmartin qzhang rsingh sjohnson tlee
		uahmed vpetrov wdavis xliu ymori zadams abaker bcarter cevans dfischer
		egreen fhall gwright hyoung ilopez jking kscott lmoore mclark nlewis
		owalker probinson qhughes rward smorgan tbell ucooper vreed wcox xhoward
		ypeterson zgray ajames bwatson cbrooks dkelly esanders fprice gbennett hwood`)
}

// mountTable returns the mount table every log records.
func mountTable() []darshan.Mount {
	return []darshan.Mount{
		{Path: "/", FSType: "rootfs"},
		{Path: "/home", FSType: "nfs"},
		{Path: "/apps", FSType: "nfs"},
		{Path: "/usr", FSType: "squashfs"},
		{Path: "/lustre/scratch", FSType: "lustre"},
		{Path: "/lustre/project", FSType: "lustre"},
		{Path: "/tmp", FSType: "tmpfs"},
		{Path: "/dev/shm", FSType: "tmpfs"},
	}
}

// streamKinds returns the standard streams every job has: <STDOUT> always,
// <STDERR> in some runs (a stream nothing was written to is not in a log).
func streamKinds() []fileKind {
	return []fileKind{
		{path: "<STDOUT>", via: viaSTDIO, share: sharedAll, dir: dirWrite, phase: phaseWhole, size: span{200, 2e6}, xfer: span{40, 120}},
		{path: "<STDERR>", via: viaSTDIO, share: sharedAll, dir: dirWrite, phase: phaseWhole, chance: 0.3, size: span{60, 2e4}, xfer: span{40, 160}},
	}
}

// Sizes used by the tables.
const (
	kib = 1 << 10
	mib = 1 << 20
)

// appTable returns the applications of the facility. Weights are relative
// run frequencies; serial applications make about 30% of the runs.
func appTable() []appProfile {
	return []appProfile{
		{name: "lmp", exe: "/apps/lammps/2Aug2023/bin/lmp", weight: 6, mpi: true, procs: span{16, 4096}, users: 12,
			args:    []string{"-in in.lj -var steps {n}", "-sf omp -pk omp 2 -in in.rhodo", "-in in.eam -log {scratch}/log.lammps"},
			runtime: span{300, 43200}, ioFrac: span{0.005, 0.08}, parallelIO: 0.9,
			files: []fileKind{
				{path: "{scratch}/in.lj", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, size: span{1e3, 2e4}, xfer: span{60, 100}},
				{path: "{scratch}/data.lmp", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, chance: 0.6, size: span{1e5, 1e8}, xfer: span{60, 120}},
				{path: "{scratch}/dump.{i}.lammpstrj", via: viaMPIIO, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{1, 100}, volume: 0.7, xfer: span{mib, 4 * mib}},
				{path: "{scratch}/restart.{i}.bin", via: viaMPIIO, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{1, 5}, volume: 0.3, xfer: span{4 * mib, 16 * mib}},
				{path: "{scratch}/log.lammps", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e4, 1e6}, xfer: span{60, 160}},
			}},
		{name: "gmx_mpi", exe: "/apps/gromacs/2024.1/bin/gmx_mpi", weight: 3, mpi: true, procs: span{8, 1024}, users: 8,
			args:    []string{"mdrun -deffnm md -maxh 12", "mdrun -deffnm md -cpi md.cpt -maxh 24", "mdrun -s topol.tpr -nsteps {n}"},
			runtime: span{1800, 43200}, ioFrac: span{0.002, 0.03},
			files: []fileKind{
				{path: "{scratch}/md.tpr", share: rankZero, dir: dirRead, phase: phaseStart, size: span{1e6, 5e7}, xfer: span{4 * kib, 64 * kib}},
				{path: "{scratch}/md.xtc", share: rankZero, dir: dirWrite, phase: phaseRun, volume: 0.6, xfer: span{4 * kib, 64 * kib}},
				{path: "{scratch}/md.edr", share: rankZero, dir: dirWrite, phase: phaseRun, volume: 0.1, xfer: span{kib, 4 * kib}},
				{path: "{scratch}/md.cpt", share: rankZero, dir: dirWrite, phase: phaseRun, volume: 0.3, xfer: span{mib, mib}, opens: span{2, 40}, overwrite: true},
				{path: "{scratch}/md.log", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e4, 1e6}, xfer: span{60, 120}},
			}},
		{name: "wrf.exe", exe: "/apps/wrf/4.5.1/main/wrf.exe", weight: 3, mpi: true, procs: span{1024, 1024}, users: 2,
			runtime: span{5400, 6000}, ioFrac: span{0.08, 0.1}, parallelIO: 1, traits: stable | regression,
			files: []fileKind{
				{path: "{scratch}/namelist.input", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{4e3, 8e3}, xfer: span{80, 80}},
				{path: "{scratch}/wrfinput_d01", via: viaPnetCDF, share: sharedAll, dir: dirRead, phase: phaseStart, volume: 0.15, xfer: span{256 * kib, 4 * mib}, vars: span{12, 16}},
				{path: "{scratch}/wrfbdy_d01", via: viaPnetCDF, share: sharedAll, dir: dirRead, phase: phaseStart, volume: 0.05, xfer: span{256 * kib, 4 * mib}, vars: span{8, 12}},
				{path: "{scratch}/wrfout_d01_{date}", via: viaPnetCDF, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{12, 12}, volume: 0.7, xfer: span{64 * kib, mib}, vars: span{10, 16}},
				{path: "{scratch}/wrfrst_d01_{date}", via: viaPnetCDF, share: sharedAll, dir: dirWrite, phase: phaseEnd, volume: 0.1, xfer: span{mib, 4 * mib}, vars: span{14, 16}},
				{path: "{scratch}/rsl.out.{rank:4}", via: viaSTDIO, share: perRank, dir: dirWrite, phase: phaseWhole, size: span{1e3, 1e5}, xfer: span{60, 120}},
			}},
		{name: "e3sm.exe", exe: "/apps/e3sm/v2.1/bin/e3sm.exe", weight: 2, mpi: true, procs: span{2048, 2048}, users: 3,
			runtime: span{20000, 22000}, ioFrac: span{0.03, 0.035}, parallelIO: 1, traits: stable | regression,
			files: []fileKind{
				{path: "{scratch}/{list:atm,lnd,ocn,ice,drv,cpl}_in", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, count: span{6, 6}, size: span{2e3, 2e4}, xfer: span{80, 80}},
				{path: "/lustre/project/inputdata/e3sm/ne30np4_L72.{i}.nc", via: viaPnetCDF, share: sharedAll, dir: dirRead, phase: phaseStart, count: span{3, 8}, volume: 0.2, xfer: span{mib, 4 * mib}, vars: span{5, 16}},
				{path: "{scratch}/e3sm.cam.h0.{date}.nc", via: viaPnetCDF, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{10, 12}, volume: 0.6, xfer: span{8 * kib, 256 * kib}, vars: span{12, 16}},
				{path: "{scratch}/e3sm.cam.r.{date}.nc", via: viaPnetCDF, share: sharedAll, dir: dirWrite, phase: phaseEnd, count: span{1, 2}, volume: 0.2, xfer: span{mib, 4 * mib}, vars: span{16, 16}},
				{path: "{scratch}/{list:e3sm,atm,cpl}.log.{job}", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, count: span{3, 3}, size: span{1e5, 2e6}, xfer: span{80, 120}},
			}},
		{name: "ior", exe: "/apps/ior/3.3.0/bin/ior", weight: 2, mpi: true, procs: span{256, 256}, users: 2,
			args:    []string{"-a MPIIO -c -b 16m -t 4m -s 8 -o {scratch}/ior.dat"},
			runtime: span{280, 320}, ioFrac: span{0.5, 0.55}, parallelIO: 1, traits: stable | regression,
			files: []fileKind{
				{path: "{scratch}/ior.dat", via: viaMPIIO, share: sharedAll, dir: dirReadWrite, phase: phaseRun, volume: 1, xfer: span{4 * mib, 4 * mib}},
			}},
		{name: "vpicio", exe: "/home/{user}/bin/vpicio", weight: 2.5, mpi: true, procs: span{64, 8192}, users: 2,
			args:    []string{"-f {scratch}/particles -n 8388608", "-f {scratch}/particles -n {n}"},
			runtime: span{60, 3600}, ioFrac: span{0.1, 0.6}, parallelIO: 1, traits: noCollective,
			files: []fileKind{
				{path: "{scratch}/particles_{i}.h5", via: viaHDF5, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{1, 5}, volume: 1, xfer: span{mib, 32 * mib}, vars: span{8, 8}},
			}},
		{name: "h5bench_write", exe: "/apps/h5bench/1.4/bin/h5bench_write", weight: 1.5, mpi: true, procs: span{16, 2048}, users: 3,
			args:    []string{"{scratch}/h5bench.cfg {scratch}/test.h5"},
			runtime: span{30, 1800}, ioFrac: span{0.3, 0.8}, parallelIO: 1,
			files: []fileKind{
				{path: "{scratch}/h5bench.cfg", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{500, 2e3}, xfer: span{60, 100}},
				{path: "{scratch}/test.h5", via: viaHDF5, share: sharedAll, dir: dirWrite, phase: phaseRun, volume: 1, xfer: span{mib, 8 * mib}, vars: span{8, 8}},
			}},
		{name: "vasp_std", exe: "/apps/vasp/6.4.2/bin/vasp_std", weight: 3.5, mpi: true, procs: span{32, 2048}, users: 10,
			runtime: span{600, 43200}, ioFrac: span{0.01, 0.15},
			files: []fileKind{
				{path: "{scratch}/{list:INCAR,POSCAR,KPOINTS,POTCAR}", share: rankZero, dir: dirRead, phase: phaseStart, count: span{4, 4}, size: span{1e3, 1e6}, xfer: span{8 * kib, 8 * kib}},
				{path: "{scratch}/WAVECAR", share: rankZero, dir: dirWrite, phase: phaseEnd, volume: 0.6, xfer: span{256 * kib, 4 * mib}},
				{path: "{scratch}/CHGCAR", share: rankZero, dir: dirWrite, phase: phaseEnd, volume: 0.2, xfer: span{100, 4 * kib}},
				{path: "{scratch}/OUTCAR", share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e5, 5e7}, xfer: span{80, 200}},
				{path: "{scratch}/vasprun.xml", share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e5, 1e8}, xfer: span{100, 1000}},
			}},
		{name: "nwchem", exe: "/apps/nwchem/7.2.2/bin/nwchem", weight: 1.5, mpi: true, procs: span{32, 1024}, users: 4,
			args:    []string{"{scratch}/input.nw"},
			runtime: span{600, 43200}, ioFrac: span{0.05, 0.3},
			files: []fileKind{
				{path: "{scratch}/input.nw", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{500, 5e3}, xfer: span{60, 100}},
				{path: "{scratch}/scratch/nwchem.aoints.{rank:6}", share: perRank, dir: dirReadWrite, access: random, phase: phaseRun, volume: 0.9, xfer: span{64 * kib, mib}},
				{path: "{scratch}/nwchem.movecs", share: rankZero, dir: dirWrite, phase: phaseEnd, volume: 0.1, xfer: span{mib, mib}},
				{path: "{scratch}/nwchem.db", share: rankZero, dir: dirReadWrite, access: random, phase: phaseRun, size: span{1e5, 1e7}, xfer: span{4 * kib, 4 * kib}, opens: span{2, 20}},
			}},
		{name: "pw.x", exe: "/apps/qe/7.2/bin/pw.x", weight: 4, mpi: true, procs: span{16, 2048}, users: 10,
			args:    []string{"-nk 4 -in scf.in", "-nk 2 -nd 16 -in relax.in", "-in nscf.in"},
			runtime: span{300, 43200}, ioFrac: span{0.01, 0.1}, parallelIO: 0.8,
			files: []fileKind{
				{path: "{scratch}/scf.in", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, size: span{500, 5e3}, xfer: span{60, 100}},
				{path: "/apps/qe/pseudo/{list:Si.pbe-n-rrkjus_psl.1.0.0.UPF,O.pbe-n-kjpaw_psl.0.1.UPF,Fe.pbe-spn-kjpaw_psl.0.2.1.UPF}", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, count: span{1, 3}, size: span{1e5, 2e6}, xfer: span{80, 80}},
				{path: "{scratch}/out/pwscf.wfc{rank}", share: perRank, dir: dirReadWrite, phase: phaseRun, volume: 0.8, xfer: span{mib, 8 * mib}},
				{path: "{scratch}/out/pwscf.save/data-file-schema.xml", share: rankZero, dir: dirWrite, phase: phaseEnd, size: span{1e4, 1e6}, xfer: span{100, 200}},
				{path: "{scratch}/out/pwscf.save/charge-density.dat", share: rankZero, dir: dirWrite, phase: phaseEnd, chance: 0.3, volume: 0.2, xfer: span{mib, mib}},
				{path: "{scratch}/out/pwscf.save/charge-density.hdf5", via: viaHDF5, share: sharedAll, dir: dirWrite, phase: phaseEnd, volume: 0.2, xfer: span{256 * kib, 4 * mib}, vars: span{1, 3}},
			}},
		{name: "simpleFoam", exe: "/apps/openfoam/v2312/platforms/linux64GccDPInt32Opt/bin/simpleFoam", weight: 1.5, mpi: true, procs: span{32, 4096}, users: 6,
			args:    []string{"-parallel", "-parallel -case {scratch}"},
			runtime: span{600, 43200}, ioFrac: span{0.01, 0.1}, traits: metadataHeavy,
			files: []fileKind{
				{path: "{scratch}/system/{list:controlDict,fvSchemes,fvSolution,decomposeParDict}", share: sharedAll, dir: dirReadAll, phase: phaseStart, count: span{4, 4}, size: span{1e3, 1e4}, xfer: span{4 * kib, 4 * kib}},
				{path: "{scratch}/processor{rank}/constant/polyMesh/{list:points,faces,owner,neighbour,boundary}", share: perRank, dir: dirRead, phase: phaseStart, count: span{1, 5}, volume: 0.3, xfer: span{4 * kib, 64 * kib}},
				{path: "{scratch}/processor{rank}/{step}00/{list:U,p,phi,k,omega,nut}", share: perRank, dir: dirWrite, phase: phaseRun, count: span{6, 60}, volume: 0.7, xfer: span{4 * kib, 64 * kib}},
			}},
		{name: "Castro3d.gnu.MPI.ex", exe: "/apps/amrex/castro/23.10/bin/Castro3d.gnu.MPI.ex", weight: 2, mpi: true, procs: span{64, 8192}, users: 4,
			args:    []string{"inputs max_step={n}", "inputs.3d.sph amr.max_level=3"},
			runtime: span{600, 43200}, ioFrac: span{0.02, 0.2}, parallelIO: 0.7,
			files: []fileKind{
				{path: "{scratch}/inputs", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, size: span{1e3, 1e4}, xfer: span{60, 100}},
				{path: "{scratch}/plt{i:5}/Level_0/Cell_D_{node:5}", share: perNode, dir: dirWrite, phase: phaseRun, chance: 0.4, count: span{2, 50}, volume: 0.7, xfer: span{mib, 16 * mib}},
				{path: "{scratch}/plt{i:5}.h5", via: viaHDF5, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{2, 50}, volume: 0.7, xfer: span{mib, 8 * mib}, vars: span{4, 10}},
				{path: "{scratch}/plt{i:5}/Header", share: rankZero, dir: dirWrite, phase: phaseRun, count: span{2, 50}, size: span{1e3, 1e5}, xfer: span{100, 100}},
				{path: "{scratch}/chk{i:5}/Level_0/Cell_D_{node:5}", share: perNode, dir: dirWrite, phase: phaseRun, count: span{1, 3}, volume: 0.3, xfer: span{mib, 16 * mib}},
			}},
		{name: "hacc_tpm", exe: "/apps/hacc/1.0/bin/hacc_tpm", weight: 1, mpi: true, procs: span{1024, 65536}, users: 2,
			args:    []string{"indat cmbM000.tf m000 INIT ALL_TO_ALL -w -R -N 512 -t 16x16x8"},
			runtime: span{3600, 43200}, ioFrac: span{0.05, 0.2}, parallelIO: 1,
			files: []fileKind{
				{path: "{scratch}/indat", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, size: span{1e3, 5e3}, xfer: span{60, 100}},
				{path: "{scratch}/m000.full.mpicosmo.{i}#{node}", via: viaMPIIO, share: perNode, dir: dirWrite, phase: phaseRun, count: span{1, 10}, volume: 1, xfer: span{8 * mib, 64 * mib}},
			}},
		{name: "python3", exe: "/usr/bin/python3", weight: 6, procs: span{1, 1}, users: 20,
			args:    []string{"train.py --epochs {n} --batch-size 64", "-u train_resnet.py --data /lustre/project/ml/imagenet"},
			runtime: span{60, 43200}, ioFrac: span{0.05, 0.5}, traits: metadataHeavy,
			files: []fileKind{
				{path: "/usr/lib/python3.11/site-packages/{list:numpy,torch,scipy,pandas,h5py,PIL,yaml,tqdm,packaging,requests}/_mod{step}.py", share: rankZero, dir: dirRead, phase: phaseStart, count: span{20, 400}, size: span{1e3, 1e5}, xfer: span{4 * kib, 4 * kib}},
				{path: "/lustre/project/ml/imagenet/train/n{i:8}.JPEG", share: rankZero, dir: dirRead, phase: phaseRun, count: span{50, 10000}, volume: 0.7, xfer: span{64 * kib, 64 * kib}},
				{path: "{scratch}/ckpt/epoch{i}.pt", share: rankZero, dir: dirWrite, phase: phaseRun, count: span{1, 20}, volume: 0.3, xfer: span{mib, 4 * mib}},
				{path: "{scratch}/train.log", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e3, 1e6}, xfer: span{60, 200}},
			}},
		{name: "python3", exe: "/usr/bin/python3", weight: 5, procs: span{1, 1}, users: 25,
			args:    []string{"plot_results.py {scratch}", "analyze.py --input {scratch}/output.h5", "-m postproc --run {run}"},
			runtime: span{10, 3600}, ioFrac: span{0.05, 0.6},
			files: []fileKind{
				{path: "/usr/lib/python3.11/site-packages/{list:numpy,matplotlib,scipy,pandas,h5py,PIL,yaml}/_mod{step}.py", share: rankZero, dir: dirRead, phase: phaseStart, count: span{20, 200}, size: span{1e3, 1e5}, xfer: span{4 * kib, 4 * kib}},
				{path: "{scratch}/output_{i}.h5", via: viaHDF5, share: rankZero, dir: dirRead, phase: phaseStart, count: span{1, 20}, volume: 0.8, xfer: span{4 * kib, 4 * mib}, vars: span{1, 8}},
				{path: "{scratch}/fig{i}.png", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseEnd, count: span{1, 20}, size: span{5e4, 2e6}, xfer: span{4 * kib, 8 * kib}},
				{path: "{scratch}/summary.csv", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseEnd, size: span{1e3, 1e7}, xfer: span{60, 200}},
			}},
		{name: "python3", exe: "/usr/bin/python3", weight: 2, mpi: true, procs: span{4, 512}, users: 6,
			args:    []string{"-m mpi4py run_sim.py --steps {n}", "-m mpi4py analysis_parallel.py"},
			runtime: span{60, 7200}, ioFrac: span{0.05, 0.4}, parallelIO: 1, traits: noCollective,
			files: []fileKind{
				{path: "/usr/lib/python3.11/site-packages/{list:numpy,mpi4py,h5py,scipy}/_mod{step}.py", share: sharedAll, dir: dirReadAll, phase: phaseStart, count: span{20, 200}, size: span{1e3, 1e5}, xfer: span{4 * kib, 4 * kib}},
				{path: "{scratch}/sim_{i}.h5", via: viaHDF5, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{1, 10}, volume: 1, xfer: span{8 * kib, mib}, vars: span{2, 6}},
			}},
		{name: "Rscript", exe: "/usr/bin/Rscript", weight: 2, procs: span{1, 1}, users: 8,
			args:    []string{"analysis.R", "--vanilla model_fit.R {n}"},
			runtime: span{10, 7200}, ioFrac: span{0.01, 0.3},
			files: []fileKind{
				{path: "/usr/lib/R/library/{list:base,stats,utils,methods,graphics,grDevices,datasets,Matrix}/R/pkg{step}.rdb", share: rankZero, dir: dirRead, phase: phaseStart, count: span{8, 40}, size: span{1e4, 1e6}, xfer: span{16 * kib, 16 * kib}},
				{path: "{home}/data/{list:samples,measurements,metadata}{step}.csv", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, count: span{1, 30}, volume: 0.8, xfer: span{4 * kib, 4 * kib}},
				{path: "{home}/results/out{i}.csv", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseEnd, count: span{1, 5}, volume: 0.2, xfer: span{4 * kib, 4 * kib}},
			}},
		{name: "cp2k.psmp", exe: "/apps/cp2k/2023.2/bin/cp2k.psmp", weight: 2, mpi: true, procs: span{32, 4096}, users: 5,
			args:    []string{"-i H2O-{n}.inp -o H2O.out", "-i md.inp"},
			runtime: span{600, 43200}, ioFrac: span{0.005, 0.05}, parallelIO: 0.7,
			files: []fileKind{
				{path: "{scratch}/H2O.inp", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, size: span{1e3, 1e4}, xfer: span{60, 100}},
				{path: "/apps/cp2k/2023.2/data/{list:BASIS_MOLOPT,GTH_POTENTIALS,dftd3.dat}", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, count: span{1, 3}, size: span{1e5, 5e6}, xfer: span{80, 80}},
				{path: "{scratch}/H2O-RESTART.wfn", share: rankZero, dir: dirWrite, phase: phaseRun, volume: 0.6, xfer: span{mib, 8 * mib}, opens: span{5, 200}, overwrite: true},
				{path: "{scratch}/H2O-{i}.cube", via: viaMPIIO, share: sharedAll, dir: dirWrite, phase: phaseEnd, chance: 0.8, count: span{1, 4}, volume: 0.4, xfer: span{mib, 4 * mib}},
			}},
		{name: "tar", exe: "/usr/bin/tar", weight: 1.5, procs: span{1, 1}, users: 30,
			args:    []string{"-czf {home}/backup_{n}.tar.gz {scratch}", "-xf {home}/inputs.tar"},
			runtime: span{10, 3600}, ioFrac: span{0.3, 0.9},
			files: []fileKind{
				{path: "{scratch}/out/f{i}", share: rankZero, dir: dirRead, phase: phaseRun, count: span{10, 5000}, volume: 0.5, xfer: span{10 * kib, 10 * kib}},
				{path: "{home}/backup_{job}.tar.gz", share: rankZero, dir: dirWrite, phase: phaseRun, volume: 0.5, xfer: span{10 * kib, 10 * kib}},
			}},
		{name: "blastn", exe: "/apps/blast/2.14/bin/blastn", weight: 1, procs: span{1, 1}, users: 4,
			args:    []string{"-query {home}/queries/q{n}.fa -db nt -out {scratch}/hits.txt -num_threads 32"},
			runtime: span{300, 43200}, ioFrac: span{0.05, 0.4},
			files: []fileKind{
				{path: "{home}/queries/q.fa", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, size: span{1e3, 1e6}, xfer: span{80, 80}},
				{path: "/lustre/project/db/blast/nt.{i:2}.{list:nhr,nin,nsq}", share: rankZero, dir: dirRead, access: random, phase: phaseRun, count: span{3, 60}, volume: 0.95, xfer: span{4 * kib, 64 * kib}},
				{path: "{scratch}/hits.txt", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseEnd, size: span{1e3, 1e8}, xfer: span{100, 200}},
			}},
		{name: "bwa", exe: "/apps/bwa/0.7.17/bin/bwa", weight: 1.5, procs: span{1, 1}, users: 5,
			args:    []string{"mem -t 32 /lustre/project/genomics/ref/GRCh38.fa {scratch}/reads_0.fq.gz {scratch}/reads_1.fq.gz"},
			runtime: span{600, 43200}, ioFrac: span{0.02, 0.2},
			files: []fileKind{
				{path: "/lustre/project/genomics/ref/GRCh38.fa.{list:amb,ann,bwt,pac,sa}", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, count: span{5, 5}, volume: 0.4, xfer: span{mib, mib}},
				{path: "{scratch}/reads_{i}.fq.gz", share: rankZero, dir: dirRead, phase: phaseRun, count: span{2, 2}, volume: 0.4, xfer: span{32 * kib, 32 * kib}},
				{path: "{scratch}/aln.sam", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseRun, volume: 0.2, xfer: span{4 * kib, 4 * kib}},
			}},
		{name: "samtools", exe: "/apps/samtools/1.18/bin/samtools", weight: 1, procs: span{1, 1}, users: 5,
			args:    []string{"sort -@ 8 -o {scratch}/aln.sorted.bam {scratch}/aln.bam", "index {scratch}/aln.sorted.bam"},
			runtime: span{60, 7200}, ioFrac: span{0.1, 0.6},
			files: []fileKind{
				{path: "{scratch}/aln.bam", share: rankZero, dir: dirRead, phase: phaseStart, volume: 0.4, xfer: span{64 * kib, 64 * kib}},
				{path: "{scratch}/aln.sorted.bam.tmp.{i:4}.bam", share: rankZero, dir: dirReadWrite, phase: phaseRun, count: span{1, 64}, volume: 0.4, xfer: span{64 * kib, 64 * kib}},
				{path: "{scratch}/aln.sorted.bam", share: rankZero, dir: dirWrite, phase: phaseEnd, volume: 0.2, xfer: span{64 * kib, 64 * kib}},
			}},
		{name: "namd3", exe: "/apps/namd/3.0/bin/namd3", weight: 1.5, mpi: true, procs: span{16, 2048}, users: 6,
			args:    []string{"+ppn 31 +setcpuaffinity run.namd", "+p{n} equil.namd"},
			runtime: span{1800, 43200}, ioFrac: span{0.002, 0.02},
			files: []fileKind{
				{path: "{scratch}/{list:system.psf,system.pdb,par_all36m_prot.prm}", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, count: span{3, 3}, size: span{1e5, 5e7}, xfer: span{80, 80}},
				{path: "{scratch}/out.dcd", share: rankZero, dir: dirWrite, phase: phaseRun, volume: 0.8, xfer: span{mib, 4 * mib}},
				{path: "{scratch}/out.restart.{list:coor,vel,xsc}", share: rankZero, dir: dirWrite, phase: phaseRun, count: span{3, 3}, volume: 0.2, xfer: span{64 * kib, 64 * kib}, opens: span{2, 20}, overwrite: true},
			}},
		{name: "atmosphere_model", exe: "/apps/mpas/8.0/bin/atmosphere_model", weight: 2, mpi: true, procs: span{128, 8192}, users: 3,
			runtime: span{1800, 43200}, ioFrac: span{0.02, 0.15}, parallelIO: 0.9, traits: noCollective,
			files: []fileKind{
				{path: "{scratch}/{list:namelist.atmosphere,streams.atmosphere}", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, count: span{2, 2}, size: span{2e3, 1e4}, xfer: span{80, 80}},
				{path: "{scratch}/x1.40962.init.nc", via: viaPnetCDF, share: sharedAll, dir: dirRead, phase: phaseStart, volume: 0.2, xfer: span{mib, 4 * mib}, vars: span{8, 16}},
				{path: "{scratch}/history.{date}.nc", via: viaPnetCDF, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{4, 48}, volume: 0.7, xfer: span{2 * kib, 64 * kib}, vars: span{10, 16}},
				{path: "{scratch}/restart.{date}.nc", via: viaPnetCDF, share: sharedAll, dir: dirWrite, phase: phaseEnd, volume: 0.1, xfer: span{mib, 4 * mib}, vars: span{16, 16}},
				{path: "{scratch}/log.atmosphere.0000.out", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e4, 1e6}, xfer: span{80, 120}},
			}},
		{name: "cesm.exe", exe: "/lustre/project/cesm/{user}/cases/b1850/bld/cesm.exe", weight: 2, mpi: true, procs: span{256, 4096}, users: 4,
			runtime: span{3600, 43200}, ioFrac: span{0.02, 0.1}, parallelIO: 0.9,
			files: []fileKind{
				{path: "{scratch}/{list:atm,lnd,ocn,ice,drv}_in", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, count: span{5, 5}, size: span{2e3, 2e4}, xfer: span{80, 80}},
				{path: "/lustre/project/inputdata/cesm/f09_g17.{i}.nc", via: viaPnetCDF, share: sharedAll, dir: dirRead, phase: phaseStart, count: span{2, 10}, volume: 0.2, xfer: span{mib, 4 * mib}, vars: span{4, 12}},
				{path: "{scratch}/b1850.cam.h0.{date}.nc", via: viaPnetCDF, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{6, 24}, volume: 0.6, xfer: span{mib, 4 * mib}, vars: span{10, 16}},
				{path: "{scratch}/b1850.cam.r.{date}.nc", via: viaPnetCDF, share: sharedAll, dir: dirWrite, phase: phaseEnd, volume: 0.2, xfer: span{mib, 4 * mib}, vars: span{16, 16}},
				{path: "{scratch}/cesm.log.{job}", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e5, 2e6}, xfer: span{80, 120}},
			}},
		{name: "flash4", exe: "/home/{user}/flash/object/flash4", weight: 2, mpi: true, procs: span{64, 8192}, users: 3,
			runtime: span{600, 43200}, ioFrac: span{0.02, 0.2}, parallelIO: 1, traits: noCollective,
			files: []fileKind{
				{path: "{scratch}/flash.par", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{1e3, 5e3}, xfer: span{80, 80}},
				{path: "{scratch}/sedov_hdf5_chk_{i:4}", via: viaHDF5, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{1, 10}, volume: 0.6, xfer: span{mib, 4 * mib}, vars: span{10, 16}},
				{path: "{scratch}/sedov_hdf5_plt_cnt_{i:4}", via: viaHDF5, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{5, 100}, volume: 0.4, xfer: span{16 * kib, 256 * kib}, vars: span{4, 8}},
				{path: "{scratch}/{list:sedov.log,sedov.dat}", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, count: span{2, 2}, size: span{1e4, 1e6}, xfer: span{80, 200}},
			}},
		{name: "su3_rhmd_hisq", exe: "/apps/milc/7.8.1/bin/su3_rhmd_hisq", weight: 1.5, mpi: true, procs: span{256, 16384}, users: 3,
			args:    []string{"{scratch}/params.in"},
			runtime: span{3600, 43200}, ioFrac: span{0.01, 0.1}, parallelIO: 0.7,
			files: []fileKind{
				{path: "{scratch}/params.in", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, size: span{1e3, 5e3}, xfer: span{80, 80}},
				{path: "/lustre/project/lqcd/lattices/l6496f211b630m0012m0363m432.{run}", via: viaMPIIO, share: sharedAll, dir: dirRead, phase: phaseStart, volume: 0.5, xfer: span{4 * kib, 64 * kib}},
				{path: "{scratch}/lat.{i}", via: viaMPIIO, share: sharedAll, dir: dirWrite, phase: phaseEnd, count: span{1, 2}, volume: 0.5, xfer: span{mib, 4 * mib}},
			}},
		{name: "chroma", exe: "/apps/chroma/3.43/bin/chroma", weight: 1.5, mpi: true, procs: span{64, 4096}, users: 2,
			args:    []string{"-i {scratch}/in.xml -o {scratch}/out.xml"},
			runtime: span{1800, 43200}, ioFrac: span{0.02, 0.15}, parallelIO: 1, traits: noCollective | nonBlocking,
			files: []fileKind{
				{path: "{scratch}/in.xml", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{2e3, 2e4}, xfer: span{80, 80}},
				{path: "/lustre/project/lqcd/cfgs/cfg_{run}.lime", via: viaMPIIO, share: sharedAll, dir: dirRead, phase: phaseStart, volume: 0.6, xfer: span{mib, 8 * mib}},
				{path: "{scratch}/props/prop_{i}.lime", via: viaMPIIO, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{1, 24}, volume: 0.4, xfer: span{mib, 8 * mib}},
				{path: "{scratch}/out.xml", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseEnd, size: span{1e4, 1e6}, xfer: span{80, 200}},
			}},
		{name: "enzo.exe", exe: "/home/{user}/enzo-dev/bin/enzo.exe", weight: 1, mpi: true, procs: span{16, 1024}, users: 2,
			args:    []string{"-d {scratch}/CollapseTest.enzo"},
			runtime: span{600, 43200}, ioFrac: span{0.02, 0.2}, traits: imbalanced,
			files: []fileKind{
				{path: "{scratch}/CollapseTest.enzo", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{1e3, 5e3}, xfer: span{80, 80}},
				{path: "{scratch}/DD{i:4}/data{i:4}.cpu{rank:4}", via: viaHDF5, share: perRank, dir: dirWrite, phase: phaseRun, count: span{1, 20}, volume: 0.95, xfer: span{mib, 4 * mib}, vars: span{4, 10}},
				{path: "{scratch}/DD{i:4}/data{i:4}.hierarchy", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseRun, count: span{1, 20}, size: span{1e3, 1e6}, xfer: span{100, 200}},
				{path: "{scratch}/OutputLog", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e3, 1e5}, xfer: span{80, 120}},
			}},
		{name: "s3d.x", exe: "/home/{user}/s3d/run/s3d.x", weight: 1, mpi: true, procs: span{512, 16384}, users: 2,
			runtime: span{3600, 43200}, ioFrac: span{0.02, 0.15}, parallelIO: 0.6,
			files: []fileKind{
				{path: "{scratch}/input/s3d.in", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{1e3, 5e3}, xfer: span{80, 80}},
				{path: "{scratch}/data/field.{i:6}.{rank:6}", share: perRank, dir: dirWrite, phase: phaseRun, chance: 0.4, count: span{1, 3}, volume: 1, xfer: span{mib, 8 * mib}},
				{path: "{scratch}/data/field.{i:6}.mpiio", via: viaMPIIO, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{1, 20}, volume: 1, xfer: span{mib, 8 * mib}},
			}},
		{name: "xgc-es-cpp", exe: "/apps/xgc/bin/xgc-es-cpp", weight: 1, mpi: true, procs: span{1024, 65536}, users: 2,
			runtime: span{3600, 43200}, ioFrac: span{0.02, 0.15},
			files: []fileKind{
				{path: "{scratch}/input", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{2e3, 2e4}, xfer: span{80, 80}},
				{path: "{scratch}/xgc.3d.{i:5}.bp/data.{node}", share: perNode, dir: dirWrite, phase: phaseRun, count: span{5, 50}, volume: 0.8, xfer: span{mib, 64 * mib}},
				{path: "{scratch}/xgc.3d.{i:5}.bp/md.0", share: rankZero, dir: dirWrite, phase: phaseRun, count: span{5, 50}, size: span{1e4, 1e6}, xfer: span{4 * kib, 64 * kib}},
				{path: "{scratch}/xgc.restart.bp/data.{node}", share: perNode, dir: dirWrite, phase: phaseEnd, volume: 0.2, xfer: span{mib, 64 * mib}},
			}},
		{name: "pvbatch", exe: "/apps/paraview/5.11/bin/pvbatch", weight: 1, mpi: true, procs: span{4, 256}, users: 6,
			args:    []string{"{home}/scripts/render.py", "--force-offscreen-rendering {home}/scripts/movie.py"},
			runtime: span{60, 7200}, ioFrac: span{0.1, 0.6}, parallelIO: 0.8,
			files: []fileKind{
				{path: "/apps/paraview/5.11/lib/python3.10/site-packages/{list:paraview,vtkmodules,numpy}/_mod{step}.py", share: sharedAll, dir: dirReadAll, phase: phaseStart, count: span{50, 300}, size: span{1e3, 1e5}, xfer: span{4 * kib, 4 * kib}},
				{path: "{scratch}/output_{i}.h5", via: viaHDF5, share: sharedAll, dir: dirRead, phase: phaseRun, count: span{1, 50}, volume: 0.9, xfer: span{mib, 4 * mib}, vars: span{1, 6}},
				{path: "{scratch}/frames/frame_{i:4}.png", share: rankZero, dir: dirWrite, phase: phaseRun, count: span{1, 500}, volume: 0.1, xfer: span{64 * kib, 64 * kib}},
			}},
		{name: "ncra", exe: "/apps/nco/5.1.8/bin/ncra", weight: 1.5, procs: span{1, 1}, users: 10,
			args:    []string{"-O {scratch}/hist/e3sm.cam.h0.*.nc {scratch}/climo.nc", "-Y ncea -O {scratch}/hist/*.nc {scratch}/ens_mean.nc"},
			runtime: span{10, 7200}, ioFrac: span{0.2, 0.8}, traits: metadataHeavy,
			files: []fileKind{
				{path: "{scratch}/hist/e3sm.cam.h0.{i:4}.nc", share: rankZero, dir: dirRead, access: random, phase: phaseRun, count: span{12, 1200}, volume: 0.9, xfer: span{4 * kib, mib}},
				{path: "{scratch}/climo.nc", share: rankZero, dir: dirWrite, phase: phaseEnd, volume: 0.1, xfer: span{4 * kib, mib}},
			}},
		{name: "mysim", exe: "/home/{user}/src/mysim/build/mysim", weight: 2.5, mpi: true, procs: span{16, 2048}, users: 3,
			args:    []string{"--config {home}/mysim/case{n}.yaml"},
			runtime: span{300, 43200}, ioFrac: span{0.05, 0.3}, parallelIO: 1, traits: noCollective,
			files: []fileKind{
				{path: "{home}/mysim/case.yaml", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{500, 5e3}, xfer: span{60, 100}},
				{path: "{scratch}/state_{i}.dat", via: viaMPIIO, share: sharedAll, dir: dirWrite, access: strided, phase: phaseRun, count: span{1, 40}, volume: 0.9, xfer: span{512, 64 * kib}},
				{path: "{scratch}/mysim.log", via: viaSTDIO, share: rankZero, dir: dirWrite, phase: phaseWhole, size: span{1e4, 1e7}, xfer: span{60, 200}},
			}},
		{name: "io_kernel", exe: "/home/{user}/bin/io_kernel", weight: 0.7, mpi: true, procs: span{16, 1024}, users: 2,
			args:    []string{"-s {n} -o {scratch}/shared.dat"},
			runtime: span{30, 1800}, ioFrac: span{0.2, 0.7},
			files: []fileKind{
				{path: "{scratch}/shared_{i}.dat", share: sharedAll, dir: dirWrite, access: strided, phase: phaseRun, count: span{1, 4}, volume: 1, xfer: span{kib, 32 * kib}},
			}},
		{name: "xhpl", exe: "/apps/hpl/2.3/bin/xhpl", weight: 1, mpi: true, procs: span{128, 16384}, users: 3,
			runtime: span{600, 14400}, ioFrac: span{1e-5, 1e-4},
			files: []fileKind{
				{path: "{scratch}/HPL.dat", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{1e3, 2e3}, xfer: span{80, 80}},
			}},
		{name: "a.out", exe: "./a.out", weight: 3, mpi: true, procs: span{1, 64}, users: 30,
			args:    []string{"", "{n}", "input.txt"},
			runtime: span{10, 1800}, ioFrac: span{0.001, 0.3}, parallelIO: 0.6,
			files: []fileKind{
				{path: "{home}/work/input.txt", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, size: span{100, 1e5}, xfer: span{60, 100}},
				{path: "{home}/work/output_{i}.dat", share: rankZero, dir: dirWrite, phase: phaseRun, count: span{1, 20}, volume: 0.7, xfer: span{8, 64 * kib}},
				{path: "{home}/work/result.bin", via: viaMPIIO, share: sharedAll, dir: dirWrite, phase: phaseEnd, chance: 0.8, volume: 0.3, xfer: span{4 * kib, mib}},
			}},
		{name: "gmx", exe: "/apps/gromacs/2024.1/bin/gmx", weight: 2, procs: span{1, 1}, users: 8,
			args:    []string{"grompp -f md.mdp -c npt.gro -p topol.top -o md.tpr", "trjconv -f md.xtc -o whole.xtc -pbc mol"},
			runtime: span{10, 1200}, ioFrac: span{0.05, 0.5},
			files: []fileKind{
				{path: "{scratch}/{list:md.mdp,npt.gro,topol.top}", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, count: span{3, 3}, size: span{1e3, 1e7}, xfer: span{80, 80}},
				{path: "/apps/gromacs/2024.1/share/gromacs/top/charmm36.ff/{list:ffnonbonded.itp,ffbonded.itp,forcefield.itp,atomtypes.atp,aminoacids.rtp}", via: viaSTDIO, share: rankZero, dir: dirRead, phase: phaseStart, count: span{5, 5}, size: span{1e4, 1e6}, xfer: span{80, 80}},
				{path: "{scratch}/md.tpr", share: rankZero, dir: dirWrite, phase: phaseEnd, volume: 1, xfer: span{4 * kib, 64 * kib}},
			}},
		{name: "rsync", exe: "/usr/bin/rsync", weight: 1, procs: span{1, 1}, users: 15,
			args:    []string{"-a {scratch}/ /lustre/project/archive/{user}/", "-av --delete {scratch}/out/ {home}/backup/"},
			runtime: span{10, 7200}, ioFrac: span{0.3, 0.9}, traits: metadataHeavy,
			files: []fileKind{
				{path: "{scratch}/out/file{i}", share: rankZero, dir: dirRead, phase: phaseRun, count: span{10, 3000}, volume: 0.5, xfer: span{256 * kib, 256 * kib}},
				{path: "/lustre/project/archive/{user}/run{run}/file{i}", share: rankZero, dir: dirWrite, phase: phaseRun, count: span{10, 3000}, volume: 0.5, xfer: span{256 * kib, 256 * kib}},
			}},
		{name: "julia", exe: "/apps/julia/1.10/bin/julia", weight: 1, procs: span{1, 1}, users: 5,
			args:    []string{"--project=. run.jl", "-t 16 analysis.jl {n}"},
			runtime: span{30, 7200}, ioFrac: span{0.01, 0.3},
			files: []fileKind{
				{path: "{home}/.julia/compiled/v1.10/{list:DataFrames,CSV,JLD2,Plots,Distributions}/pkg{step}.ji", share: rankZero, dir: dirRead, phase: phaseStart, count: span{20, 200}, size: span{1e4, 1e7}, xfer: span{mib, mib}},
				{path: "{scratch}/out_{i}.jld2", share: rankZero, dir: dirWrite, phase: phaseEnd, count: span{1, 10}, volume: 1, xfer: span{4 * kib, mib}},
			}},
		{name: "nek5000", exe: "/home/{user}/nek/run/nek5000", weight: 1.5, mpi: true, procs: span{256, 8192}, users: 2,
			runtime: span{3600, 43200}, ioFrac: span{0.01, 0.1}, parallelIO: 1,
			files: []fileKind{
				{path: "{scratch}/SESSION.NAME", via: viaSTDIO, share: sharedAll, dir: dirReadAll, phase: phaseStart, size: span{50, 200}, xfer: span{60, 60}},
				{path: "{scratch}/turb.re2", via: viaMPIIO, share: sharedAll, dir: dirRead, phase: phaseStart, volume: 0.1, xfer: span{mib, 8 * mib}},
				{path: "{scratch}/turb0.f{i:5}", via: viaMPIIO, share: sharedAll, dir: dirWrite, phase: phaseRun, count: span{5, 100}, volume: 0.9, xfer: span{mib, 8 * mib}},
			}},
	}
}

// ---------------------------------------------------------------------------
// Counter indexes, resolved once by name from the darshan tables.

// binOf returns the histogram bucket of a request of size bytes
// (darshan-runtime-semantics.md §2.5).
func binOf(size int64) int {
	for b, limit := range [9]int64{101, 1025, 10241, 102401, 1048577, 4194305, 10485761, 104857601, 1073741825} {
		if size < limit {
			return b
		}
	}
	return 9
}

// ioIdx locates the counters that POSIX, MPI-IO, H5D and PNETCDF_VAR
// records share. In tags, "c" is an integer counter and "f" a floating-point
// one, {P} the module's prefix and {A} "_AGG" where histograms count
// aggregate sizes; arrays fill %d with 1, 2... and %s with the bucket names.
type ioIdx struct {
	BytesR     int     `idx:"c {P}_BYTES_READ"`
	BytesW     int     `idx:"c {P}_BYTES_WRITTEN"`
	RWSwitches int     `idx:"c {P}_RW_SWITCHES"`
	MaxRSize   int     `idx:"c {P}_MAX_READ_TIME_SIZE"`
	MaxWSize   int     `idx:"c {P}_MAX_WRITE_TIME_SIZE"`
	HistR      [10]int `idx:"c {P}_SIZE_READ{A}_%s"`
	HistW      [10]int `idx:"c {P}_SIZE_WRITE{A}_%s"`
	Access     [4]int  `idx:"c {P}_ACCESS%d_ACCESS"`
	AccessN    [4]int  `idx:"c {P}_ACCESS%d_COUNT"`
	FastRank   int     `idx:"c {P}_FASTEST_RANK"`
	FastBytes  int     `idx:"c {P}_FASTEST_RANK_BYTES"`
	SlowRank   int     `idx:"c {P}_SLOWEST_RANK"`
	SlowBytes  int     `idx:"c {P}_SLOWEST_RANK_BYTES"`
	OpenStart  int     `idx:"f {P}_F_OPEN_START_TIMESTAMP"`
	ReadStart  int     `idx:"f {P}_F_READ_START_TIMESTAMP"`
	WriteStart int     `idx:"f {P}_F_WRITE_START_TIMESTAMP"`
	CloseStart int     `idx:"f {P}_F_CLOSE_START_TIMESTAMP"`
	OpenEnd    int     `idx:"f {P}_F_OPEN_END_TIMESTAMP"`
	ReadEnd    int     `idx:"f {P}_F_READ_END_TIMESTAMP"`
	WriteEnd   int     `idx:"f {P}_F_WRITE_END_TIMESTAMP"`
	CloseEnd   int     `idx:"f {P}_F_CLOSE_END_TIMESTAMP"`
	ReadTime   int     `idx:"f {P}_F_READ_TIME"`
	WriteTime  int     `idx:"f {P}_F_WRITE_TIME"`
	MetaTime   int     `idx:"f {P}_F_META_TIME"`
	MaxRTime   int     `idx:"f {P}_F_MAX_READ_TIME"`
	MaxWTime   int     `idx:"f {P}_F_MAX_WRITE_TIME"`
	FastTime   int     `idx:"f {P}_F_FASTEST_RANK_TIME"`
	SlowTime   int     `idx:"f {P}_F_SLOWEST_RANK_TIME"`
	VarTime    int     `idx:"f {P}_F_VARIANCE_RANK_TIME"`
	VarBytes   int     `idx:"f {P}_F_VARIANCE_RANK_BYTES"`
}

// posixIdx locates the POSIX counters the generator sets.
type posixIdx struct {
	ioIdx
	Opens          int    `idx:"c POSIX_OPENS"`
	Reads          int    `idx:"c POSIX_READS"`
	Writes         int    `idx:"c POSIX_WRITES"`
	Seeks          int    `idx:"c POSIX_SEEKS"`
	Stats          int    `idx:"c POSIX_STATS"`
	Mmaps          int    `idx:"c POSIX_MMAPS"`
	Fsyncs         int    `idx:"c POSIX_FSYNCS"`
	Mode           int    `idx:"c POSIX_MODE"`
	MaxByteR       int    `idx:"c POSIX_MAX_BYTE_READ"`
	MaxByteW       int    `idx:"c POSIX_MAX_BYTE_WRITTEN"`
	ConsecR        int    `idx:"c POSIX_CONSEC_READS"`
	ConsecW        int    `idx:"c POSIX_CONSEC_WRITES"`
	SeqR           int    `idx:"c POSIX_SEQ_READS"`
	SeqW           int    `idx:"c POSIX_SEQ_WRITES"`
	MemNotAligned  int    `idx:"c POSIX_MEM_NOT_ALIGNED"`
	MemAlign       int    `idx:"c POSIX_MEM_ALIGNMENT"`
	FileNotAligned int    `idx:"c POSIX_FILE_NOT_ALIGNED"`
	FileAlign      int    `idx:"c POSIX_FILE_ALIGNMENT"`
	Stride         [4]int `idx:"c POSIX_STRIDE%d_STRIDE"`
	StrideN        [4]int `idx:"c POSIX_STRIDE%d_COUNT"`
}

// mpiioIdx locates the MPI-IO counters the generator sets.
type mpiioIdx struct {
	ioIdx
	IndepOpens int `idx:"c MPIIO_INDEP_OPENS"`
	CollOpens  int `idx:"c MPIIO_COLL_OPENS"`
	IndepR     int `idx:"c MPIIO_INDEP_READS"`
	IndepW     int `idx:"c MPIIO_INDEP_WRITES"`
	CollR      int `idx:"c MPIIO_COLL_READS"`
	CollW      int `idx:"c MPIIO_COLL_WRITES"`
	NbR        int `idx:"c MPIIO_NB_READS"`
	NbW        int `idx:"c MPIIO_NB_WRITES"`
	Syncs      int `idx:"c MPIIO_SYNCS"`
	Hints      int `idx:"c MPIIO_HINTS"`
	Views      int `idx:"c MPIIO_VIEWS"`
	Mode       int `idx:"c MPIIO_MODE"`
}

// h5fIdx locates the H5F counters.
type h5fIdx struct {
	Opens      int `idx:"c H5F_OPENS"`
	Flushes    int `idx:"c H5F_FLUSHES"`
	UseMPIIO   int `idx:"c H5F_USE_MPIIO"`
	OpenStart  int `idx:"f H5F_F_OPEN_START_TIMESTAMP"`
	CloseStart int `idx:"f H5F_F_CLOSE_START_TIMESTAMP"`
	OpenEnd    int `idx:"f H5F_F_OPEN_END_TIMESTAMP"`
	CloseEnd   int `idx:"f H5F_F_CLOSE_END_TIMESTAMP"`
	MetaTime   int `idx:"f H5F_F_META_TIME"`
}

// h5dIdx locates the H5D counters the generator sets.
type h5dIdx struct {
	ioIdx
	Opens     int       `idx:"c H5D_OPENS"`
	Reads     int       `idx:"c H5D_READS"`
	Writes    int       `idx:"c H5D_WRITES"`
	Flushes   int       `idx:"c H5D_FLUSHES"`
	RegSel    int       `idx:"c H5D_REGULAR_HYPERSLAB_SELECTS"`
	Length    [4][5]int `idx:"c H5D_ACCESS%d_LENGTH_D%d"`
	Stride    [4][5]int `idx:"c H5D_ACCESS%d_STRIDE_D%d"`
	NDims     int       `idx:"c H5D_DATASPACE_NDIMS"`
	NPoints   int       `idx:"c H5D_DATASPACE_NPOINTS"`
	DTypeSize int       `idx:"c H5D_DATATYPE_SIZE"`
	Chunk     [5]int    `idx:"c H5D_CHUNK_SIZE_D%d"`
	UseColl   int       `idx:"c H5D_USE_MPIIO_COLLECTIVE"`
}

// pncFileIdx locates the PNETCDF_FILE counters.
type pncFileIdx struct {
	Creates    int `idx:"c PNETCDF_FILE_CREATES"`
	Opens      int `idx:"c PNETCDF_FILE_OPENS"`
	Redefs     int `idx:"c PNETCDF_FILE_REDEFS"`
	IndepWaits int `idx:"c PNETCDF_FILE_INDEP_WAITS"`
	CollWaits  int `idx:"c PNETCDF_FILE_COLL_WAITS"`
	BytesR     int `idx:"c PNETCDF_FILE_BYTES_READ"`
	BytesW     int `idx:"c PNETCDF_FILE_BYTES_WRITTEN"`
	OpenStart  int `idx:"f PNETCDF_FILE_F_OPEN_START_TIMESTAMP"`
	CloseStart int `idx:"f PNETCDF_FILE_F_CLOSE_START_TIMESTAMP"`
	WaitStart  int `idx:"f PNETCDF_FILE_F_WAIT_START_TIMESTAMP"`
	OpenEnd    int `idx:"f PNETCDF_FILE_F_OPEN_END_TIMESTAMP"`
	CloseEnd   int `idx:"f PNETCDF_FILE_F_CLOSE_END_TIMESTAMP"`
	WaitEnd    int `idx:"f PNETCDF_FILE_F_WAIT_END_TIMESTAMP"`
	MetaTime   int `idx:"f PNETCDF_FILE_F_META_TIME"`
	WaitTime   int `idx:"f PNETCDF_FILE_F_WAIT_TIME"`
}

// pncVarIdx locates the PNETCDF_VAR counters the generator sets.
type pncVarIdx struct {
	ioIdx
	Opens     int       `idx:"c PNETCDF_VAR_OPENS"`
	IndepR    int       `idx:"c PNETCDF_VAR_INDEP_READS"`
	IndepW    int       `idx:"c PNETCDF_VAR_INDEP_WRITES"`
	CollR     int       `idx:"c PNETCDF_VAR_COLL_READS"`
	CollW     int       `idx:"c PNETCDF_VAR_COLL_WRITES"`
	NbW       int       `idx:"c PNETCDF_VAR_NB_WRITES"`
	PutVara   int       `idx:"c PNETCDF_VAR_PUT_VARA"`
	GetVara   int       `idx:"c PNETCDF_VAR_GET_VARA"`
	IputVara  int       `idx:"c PNETCDF_VAR_IPUT_VARA"`
	Length    [4][5]int `idx:"c PNETCDF_VAR_ACCESS%d_LENGTH_D%d"`
	Stride    [4][5]int `idx:"c PNETCDF_VAR_ACCESS%d_STRIDE_D%d"`
	NDims     int       `idx:"c PNETCDF_VAR_NDIMS"`
	NPoints   int       `idx:"c PNETCDF_VAR_NPOINTS"`
	DTypeSize int       `idx:"c PNETCDF_VAR_DATATYPE_SIZE"`
	RecordVar int       `idx:"c PNETCDF_VAR_IS_RECORD_VAR"`
}

// stdioIdx locates the STDIO counters.
type stdioIdx struct {
	Opens      int `idx:"c STDIO_OPENS"`
	Reads      int `idx:"c STDIO_READS"`
	Writes     int `idx:"c STDIO_WRITES"`
	Flushes    int `idx:"c STDIO_FLUSHES"`
	BytesW     int `idx:"c STDIO_BYTES_WRITTEN"`
	BytesR     int `idx:"c STDIO_BYTES_READ"`
	MaxByteR   int `idx:"c STDIO_MAX_BYTE_READ"`
	MaxByteW   int `idx:"c STDIO_MAX_BYTE_WRITTEN"`
	FastRank   int `idx:"c STDIO_FASTEST_RANK"`
	FastBytes  int `idx:"c STDIO_FASTEST_RANK_BYTES"`
	SlowRank   int `idx:"c STDIO_SLOWEST_RANK"`
	SlowBytes  int `idx:"c STDIO_SLOWEST_RANK_BYTES"`
	MetaTime   int `idx:"f STDIO_F_META_TIME"`
	WriteTime  int `idx:"f STDIO_F_WRITE_TIME"`
	ReadTime   int `idx:"f STDIO_F_READ_TIME"`
	OpenStart  int `idx:"f STDIO_F_OPEN_START_TIMESTAMP"`
	CloseStart int `idx:"f STDIO_F_CLOSE_START_TIMESTAMP"`
	WriteStart int `idx:"f STDIO_F_WRITE_START_TIMESTAMP"`
	ReadStart  int `idx:"f STDIO_F_READ_START_TIMESTAMP"`
	OpenEnd    int `idx:"f STDIO_F_OPEN_END_TIMESTAMP"`
	CloseEnd   int `idx:"f STDIO_F_CLOSE_END_TIMESTAMP"`
	WriteEnd   int `idx:"f STDIO_F_WRITE_END_TIMESTAMP"`
	ReadEnd    int `idx:"f STDIO_F_READ_END_TIMESTAMP"`
	FastTime   int `idx:"f STDIO_F_FASTEST_RANK_TIME"`
	SlowTime   int `idx:"f STDIO_F_SLOWEST_RANK_TIME"`
	VarTime    int `idx:"f STDIO_F_VARIANCE_RANK_TIME"`
	VarBytes   int `idx:"f STDIO_F_VARIANCE_RANK_BYTES"`
}

// indexes holds the counter indexes of every module the generator writes.
type indexes struct {
	posix   posixIdx
	mpiio   mpiioIdx
	h5f     h5fIdx
	h5d     h5dIdx
	pncFile pncFileIdx
	pncVar  pncVarIdx
	stdio   stdioIdx
}

// newIndexes resolves every index by name; a name missing from the tables
// is an error.
func newIndexes() (*indexes, error) {
	x := &indexes{}
	for _, t := range []struct {
		dst         any
		m           darshan.ModuleID
		prefix, agg string
	}{
		{&x.posix, darshan.ModPOSIX, "POSIX", ""},
		{&x.mpiio, darshan.ModMPIIO, "MPIIO", "_AGG"},
		{&x.h5f, darshan.ModH5F, "H5F", ""},
		{&x.h5d, darshan.ModH5D, "H5D", "_AGG"},
		{&x.pncFile, darshan.ModPnetCDFFile, "PNETCDF_FILE", ""},
		{&x.pncVar, darshan.ModPnetCDFVar, "PNETCDF_VAR", "_AGG"},
		{&x.stdio, darshan.ModSTDIO, "STDIO", ""},
	} {
		repl := strings.NewReplacer("{P}", t.prefix, "{A}", t.agg)
		if err := fillIndexes(reflect.ValueOf(t.dst).Elem(), t.m, repl); err != nil {
			return nil, fmt.Errorf("module %s: %w", t.m, err)
		}
	}
	return x, nil
}

// fillIndexes sets the int fields (and arrays of them) of the struct v from
// their idx tags, recursing into embedded structs.
func fillIndexes(v reflect.Value, m darshan.ModuleID, repl *strings.Replacer) error {
	t := v.Type()
	for i := range t.NumField() {
		sf, fv := t.Field(i), v.Field(i)
		if sf.Anonymous {
			if err := fillIndexes(fv, m, repl); err != nil {
				return err
			}
			continue
		}
		kind, name, ok := strings.Cut(sf.Tag.Get("idx"), " ")
		if !ok {
			return fmt.Errorf("field %s has no idx tag", sf.Name)
		}
		if err := fillIndex(fv, m, kind == "f", repl.Replace(name)); err != nil {
			return err
		}
	}
	return nil
}

// fillIndex sets v (an int or an array of them) to the index of the counter
// named by pattern; array elements substitute their position for the first
// %d (1-based) or %s (histogram bucket) of the pattern.
func fillIndex(v reflect.Value, m darshan.ModuleID, float bool, pattern string) error {
	binSuffixes := [10]string{"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"}
	if v.Kind() == reflect.Array {
		for i := range v.Len() {
			d, s := strings.Index(pattern, "%d"), strings.Index(pattern, "%s")
			var name string
			switch {
			case s >= 0 && (d < 0 || s < d):
				name = pattern[:s] + binSuffixes[i] + pattern[s+2:]
			case d >= 0:
				name = pattern[:d] + strconv.Itoa(i+1) + pattern[d+2:]
			default:
				return fmt.Errorf("array pattern %s has no %%d or %%s", pattern)
			}
			if err := fillIndex(v.Index(i), m, float, name); err != nil {
				return err
			}
		}
		return nil
	}
	k := m.CounterIndex(pattern)
	if float {
		k = m.FCounterIndex(pattern)
	}
	if k < 0 {
		return fmt.Errorf("no counter %s", pattern)
	}
	v.SetInt(int64(k))
	return nil
}

// ---------------------------------------------------------------------------
// Jobs.

// Job numbering: job ids grow with the log index (and so with start time).
const (
	firstJobID  = 4_000_000
	jobIDStride = 4
)

// job is one run: the log's job record and what the records derive from.
type job struct {
	index    int
	app      *appProfile
	user     string
	uid      int64
	nprocs   int64
	ppn      int64 // ranks per node
	nodes    int64
	nodeBase int64 // number of the first node (host names)
	start    time.Time
	runtime  float64 // seconds
	// bw is the bandwidth the job's data accesses achieve (bytes/s); volume
	// the bytes they move, ioTime the seconds they take.
	bw, volume, ioTime float64
	jobID, pid         int64
	run                int64 // run directory number
	argN               int64 // the {n} of the command line
	parallel           bool  // multi-rank run doing parallel I/O
	hints              bool  // MPI-IO files are opened with hints
	regression         bool
	traced             bool // DXT_POSIX traces
	partial            bool // a module is flagged partial
	suffix             uint64
	cmdline            string
}

// newJob draws job i from its random stream r.
func (g *generator) newJob(i int, r *rand.Rand) *job {
	c := g.cat
	ai := c.pickApp(r.Float64())
	a := &c.apps[ai]
	grp := c.groups[ai]
	u := grp[r.IntN(len(grp))]
	j := &job{index: i, app: a, user: c.users[u], uid: int64(firstUID + u)}

	period := float64(g.cfg.Days) * 86400
	t := float64(g.cfg.End.Unix()) - period + (float64(i)+r.Float64())*period/float64(max(g.n, 1))
	sec := math.Floor(t)
	j.start = time.Unix(int64(sec), int64((t-sec)*1e9)).UTC()
	j.jobID = firstJobID + int64(i)*jobIDStride + r.Int64N(jobIDStride)
	j.pid = 1000 + r.Int64N(4_000_000)
	j.run = 1 + r.Int64N(400)
	j.argN = 1 + r.Int64N(100_000)
	j.nprocs, j.ppn = drawProcs(a, r)
	j.nodes = (j.nprocs + j.ppn - 1) / j.ppn
	j.nodeBase = r.Int64N(9000)

	j.runtime = a.runtime.draw(r)
	j.ioTime = a.ioFrac.draw(r) * j.runtime
	j.bw = drawBandwidth(a, j.nodes, r)
	j.volume = j.bw * j.ioTime
	j.parallel = a.mpi && j.nprocs > 1 && r.Float64() < a.parallelIO
	j.hints = r.Float64() < 0.5
	if a.traits&regression != 0 && r.IntN(g.cfg.RegressionEvery) == 0 {
		// Same data, 5–10× slower: the run lasts longer by the extra time.
		k := 5 + 5*r.Float64()
		j.regression = true
		j.bw /= k
		j.runtime += (k - 1) * j.ioTime
		j.ioTime *= k
	}
	j.traced = r.Float64() < g.cfg.TracedShare
	j.partial = r.Float64() < g.cfg.PartialShare
	j.suffix = r.Uint64()
	var b strings.Builder
	expand(&b, a.exe, j, 0, 0, 0, 0)
	if len(a.args) > 0 {
		if args := a.args[r.IntN(len(a.args))]; args != "" {
			b.WriteByte(' ')
			expand(&b, args, j, 0, 0, 0, 0)
		}
	}
	j.cmdline = b.String()
	return j
}

// coresPerNode is the number of cores of a compute node.
const coresPerNode = 128

// drawProcs draws the process count of a run of a and the ranks per node:
// full (or half-full) nodes above one node, mostly powers of two below.
func drawProcs(a *appProfile, r *rand.Rand) (n, ppn int64) {
	if !a.mpi || a.procs.hi <= 1 {
		return 1, 1
	}
	if a.traits&stable != 0 {
		n = int64(a.procs.lo)
		return n, min(n, coresPerNode)
	}
	if r.Float64() < 0.04 { // a test run on one process
		return 1, 1
	}
	n = int64(math.Round(a.procs.draw(r)))
	if n >= coresPerNode {
		ppn = coresPerNode
		if r.Float64() < 0.3 {
			ppn = coresPerNode / 2
		}
		n = max(1, (n+ppn/2)/ppn) * ppn
		return min(n, 65536), ppn
	}
	if r.Float64() < 0.7 {
		n = int64(1) << int(math.Round(math.Log2(float64(max(n, 1)))))
	}
	return max(n, 1), max(n, 1)
}

// drawBandwidth draws the bandwidth (bytes/s) of a job on nodes nodes:
// 0.1 GB/s up to a ceiling growing with the node count, at most 5 GB/s;
// stable applications get the geometric middle, ±7%.
func drawBandwidth(a *appProfile, nodes int64, r *rand.Rand) float64 {
	const lo, top = 0.1e9, 5e9
	hi := min(top, max(0.15e9, 0.25e9*math.Pow(float64(nodes), 0.6)))
	if a.traits&stable != 0 {
		return math.Sqrt(lo*hi) * (0.93 + 0.14*r.Float64())
	}
	return span{lo, hi}.draw(r)
}

// record returns the job record of the log.
func (j *job) record() darshan.Job {
	end := j.start.Add(time.Duration(j.runtime * 1e9))
	meta := "lib_ver=3.5.0\n"
	if j.app.mpi {
		meta += "h=romio_no_indep_rw=true;cb_nodes=4\n"
	}
	return darshan.Job{
		UID: j.uid, JobID: j.jobID, NProcs: j.nprocs,
		StartTime: j.start.Unix(), StartNsec: int64(j.start.Nanosecond()),
		EndTime: end.Unix(), EndNsec: int64(end.Nanosecond()),
		Metadata: meta,
	}
}

// logPath returns the path of the job's log relative to the log directory:
// YYYY/M/D/<user>_<exe>_id<jobid>-<pid>_<M>-<D>-<seconds of day>-<random>.darshan,
// from the start time (UTC).
func (j *job) logPath() string {
	t := j.start
	y, m, d := t.Date()
	sod := t.Hour()*3600 + t.Minute()*60 + t.Second()
	name := j.user + "_" + j.app.name + "_id" + strconv.FormatInt(j.jobID, 10) + "-" + strconv.FormatInt(j.pid, 10) +
		"_" + strconv.Itoa(int(m)) + "-" + strconv.Itoa(d) + "-" + strconv.Itoa(sod) + "-" + strconv.FormatUint(j.suffix, 10) + ".darshan"
	return filepath.Join(strconv.Itoa(y), strconv.Itoa(int(m)), strconv.Itoa(d), name)
}

// recordRank returns the rank of the record of writer k of a file shared as
// s: -1 for a file every rank opened, and for every record of a single-rank
// MPI run (all its records are shared).
func (j *job) recordRank(s sharing, k int64) int64 {
	switch {
	case j.app.mpi && j.nprocs == 1:
		return -1
	case s == sharedAll:
		if j.nprocs == 1 {
			return 0
		}
		return -1
	case s == perRank:
		return k
	case s == perNode:
		return k * j.ppn
	}
	return 0
}

// expand appends template t to b with its tokens replaced for file i of a
// kind whose list has listLen items, written by rank (on node node) of job j.
func expand(b *strings.Builder, t string, j *job, i, rank, node int64, listLen int) {
	for {
		a := strings.IndexByte(t, '{')
		if a < 0 {
			b.WriteString(t)
			return
		}
		e := strings.IndexByte(t[a:], '}') + a
		b.WriteString(t[:a])
		name, arg, _ := strings.Cut(t[a+1:e], ":")
		switch name {
		case "user":
			b.WriteString(j.user)
		case "app":
			b.WriteString(j.app.name)
		case "run":
			b.WriteString(strconv.FormatInt(j.run, 10))
		case "job":
			b.WriteString(strconv.FormatInt(j.jobID, 10))
		case "n":
			b.WriteString(strconv.FormatInt(j.argN, 10))
		case "home":
			b.WriteString("/home/")
			b.WriteString(j.user)
		case "scratch":
			b.WriteString("/lustre/scratch/")
			b.WriteString(j.user)
			b.WriteByte('/')
			b.WriteString(j.app.name)
			b.WriteString("/run")
			b.WriteString(strconv.FormatInt(j.run, 10))
		case "project":
			b.WriteString("/lustre/project/prj")
			writePadded(b, (j.uid-firstUID)/4, 3)
		case "date":
			b.WriteString(j.start.Truncate(time.Hour).Add(time.Duration(i) * time.Hour).Format("2006-01-02_15:04:05"))
		case "list":
			items := strings.Split(arg, ",")
			b.WriteString(items[int(i)%len(items)])
		case "i", "rank", "node", "step":
			v := i
			switch name {
			case "rank":
				v = rank
			case "node":
				v = node
			case "step":
				v = i / int64(max(listLen, 1))
			}
			width, _ := strconv.Atoi(arg)
			writePadded(b, v, width)
		}
		t = t[e+1:]
	}
}

// writePadded appends v in decimal, zero-padded to width digits.
func writePadded(b *strings.Builder, v int64, width int) {
	s := strconv.FormatInt(v, 10)
	for range width - len(s) {
		b.WriteByte('0')
	}
	b.WriteString(s)
}

// ---------------------------------------------------------------------------
// Planning the files of a job.

// opMix is the requests of one direction of a record: up to four distinct
// sizes with their counts.
type opMix struct {
	n     int
	size  [4]int64
	count [4]int64
}

// add counts count requests of size bytes; a size beyond the fourth
// distinct one joins the last.
func (m *opMix) add(size, count int64) {
	if count <= 0 || size <= 0 {
		return
	}
	for i := range m.n {
		if m.size[i] == size {
			m.count[i] += count
			return
		}
	}
	if m.n == len(m.size) {
		// Keep the bytes: fold into the last size as equivalent requests.
		m.count[m.n-1] += size * count / m.size[m.n-1]
		return
	}
	m.size[m.n], m.count[m.n] = size, count
	m.n++
}

// addMix adds every request of o.
func (m *opMix) addMix(o *opMix) {
	for i := range o.n {
		m.add(o.size[i], o.count[i])
	}
}

// ops returns the number of requests.
func (m *opMix) ops() int64 {
	var n int64
	for i := range m.n {
		n += m.count[i]
	}
	return n
}

// bytes returns the bytes the requests move.
func (m *opMix) bytes() int64 {
	var n int64
	for i := range m.n {
		n += m.size[i] * m.count[i]
	}
	return n
}

// main returns the most frequent request size (the larger on ties).
func (m *opMix) main() int64 {
	var best, count int64
	for i := range m.n {
		if m.count[i] > count || (m.count[i] == count && m.size[i] > best) {
			best, count = m.size[i], m.count[i]
		}
	}
	return best
}

// share returns part v of parts of m: every count divided, the remainder
// going to the first parts, so that the parts add up to m.
func (m *opMix) share(v, parts int64) opMix {
	var out opMix
	for i := range m.n {
		c := m.count[i] / parts
		if v < m.count[i]%parts {
			c++
		}
		out.add(m.size[i], c)
	}
	return out
}

// requests returns the requests of procs processes that each move perProc
// bytes in requests of xfer bytes: whole requests and a shorter last one.
func requests(perProc, xfer, procs int64) opMix {
	var m opMix
	if perProc <= 0 || procs <= 0 {
		return m
	}
	m.add(xfer, perProc/xfer*procs)
	m.add(perProc%xfer, procs)
	return m
}

// use is one file kind as one job uses it.
type use struct {
	kind    *fileKind
	via     iface
	share   sharing
	count   int64 // logical files
	writers int64 // records per logical file (processes with their own file)
	xfer    int64
	vars    int64
	opens   int64
	bytes   int64 // bytes of one logical file, its records together
	mpiio   bool  // accessed through MPI-IO
	coll    bool  // collective MPI-IO data accesses
	hdf5    bool
	pnc     bool
	// chunkShift: the HDF5 datasets that are chunked have chunks
	// 2^chunkShift times smaller than their common access.
	chunkShift int
}

// recordsPerFile returns the records (all modules) of one logical file of
// one writer.
func (u *use) recordsPerFile() int64 {
	n := int64(1)
	if u.mpiio {
		n++
	}
	if u.hdf5 || u.pnc {
		n += 1 + u.vars
	}
	return n
}

// step is one logical file (with all its writers) on the job's time line.
type step struct {
	use       int
	i         int64
	order     float64
	t0, dur   float64 // window of the step
	readWall  float64 // seconds of reading, as the job's processes do it together
	writeWall float64
	openLat   float64 // seconds of one open, of one close
	closeLat  float64
}

// fileIO is one record-level file: one process's file, or the reduced
// record of a file every rank opened.
type fileIO struct {
	use    *use
	step   *step
	name   string
	id     uint64
	rank   int64 // -1: shared (reduced) record
	ranks  int64 // processes the record sums over
	movers int64 // processes issuing the data requests
	active int64 // processes doing the POSIX data accesses (aggregators under collective I/O)
	// app holds the application's requests (MPI-IO, HDF5, PnetCDF, STDIO
	// level), posix the POSIX ones, hdr the small metadata requests HDF5
	// and PnetCDF add, by direction (0 read, 1 write).
	app, posix, hdr [2]opMix
	extent          [2]int64 // highest byte + 1 read and written
	metaRank        float64  // metadata seconds per process
	// Time line (seconds since the job start).
	tOpen, tLastOpen, tClose0, tClose1 float64
	tData                              [2][2]float64 // start and end of reading and writing
	eff                                float64       // share of the data window a process spends in calls
	fsync                              bool
	varBase                            int // first of the record's datasets/variables in worker.vars
}

// varRec is one HDF5 dataset or PnetCDF variable of a file.
type varRec struct {
	name  string
	id    uint64
	ndims int64
	dtype int64
	// chunkShift: chunks are 2^chunkShift times smaller than the common
	// access (HDF5 datasets that are chunked).
	chunkShift int
}

// plan draws the files of job j: the kinds it uses, their logical files on
// the time line and the records, left in w.uses, w.steps and w.recs.
func (w *worker) plan(j *job, r *rand.Rand) {
	w.uses, w.steps, w.recs, w.vars = w.uses[:0], w.steps[:0], w.recs[:0], w.vars[:0]
	for k := range j.app.files {
		w.addUse(j, &j.app.files[k], r)
	}
	for k := range w.g.cat.streams {
		w.addUse(j, &w.g.cat.streams[k], r)
	}
	capRecords(w.uses, int64(w.g.cfg.MaxRecords))
	w.sizeUses(j, r)
	w.placeSteps(j, r)
	for s := range w.steps {
		u := &w.uses[w.steps[s].use]
		for k := range u.writers {
			w.recs = append(w.recs, fileIO{})
			w.fill(j, &w.steps[s], k, &w.recs[len(w.recs)-1], r)
		}
	}
}

// addUse adds kind k to the kinds job j uses, unless the run does without.
func (w *worker) addUse(j *job, k *fileKind, r *rand.Rand) {
	if k.chance > 0 && r.Float64() >= k.chance {
		return
	}
	u := use{kind: k, via: k.via, share: k.share}
	switch u.via {
	case viaMPIIO, viaHDF5, viaPnetCDF:
		if j.parallel {
			u.mpiio = true
			break
		}
		// Serial I/O: HDF5 stays (serial HDF5), the others become POSIX
		// calls, and a file every rank would have opened is rank 0's.
		if u.via != viaHDF5 {
			u.via = viaPOSIX
		}
		if u.share == sharedAll {
			u.share = rankZero
		}
	}
	u.hdf5, u.pnc = u.via == viaHDF5, u.via == viaPnetCDF
	u.coll = u.mpiio && u.share == sharedAll && j.app.traits&noCollective == 0
	u.count = k.count.count(r)
	switch u.share {
	case perRank:
		u.writers = j.nprocs
	case perNode:
		u.writers = j.nodes
	default:
		u.writers = 1
	}
	u.xfer = roundSize(k.xfer.draw(r), r)
	if u.hdf5 || u.pnc {
		u.vars = min(k.vars.count(r), int64(len(w.g.cat.datasets)))
		u.chunkShift = r.IntN(2)
		if r.IntN(20) == 0 {
			u.chunkShift = 5 // chunks much smaller than the accesses
		}
	}
	u.opens = k.opens.count(r)
	w.uses = append(w.uses, u)
}

// roundSize rounds a drawn request size to what programs use: a power of two
// (mostly) or a multiple of 8 bytes.
func roundSize(x float64, r *rand.Rand) int64 {
	if x < 8 {
		return max(1, int64(x))
	}
	if r.Float64() < 0.7 {
		return int64(1) << int(math.Round(math.Log2(x)))
	}
	return max(8, int64(x)/8*8)
}

// capRecords shrinks the largest kinds (fewer files, then fewer writers,
// then fewer variables) until the job has at most limit records.
func capRecords(uses []use, limit int64) {
	for range 32 {
		var total, bigN int64
		big := -1
		for i := range uses {
			n := uses[i].count * uses[i].writers * uses[i].recordsPerFile()
			total += n
			if n > bigN {
				big, bigN = i, n
			}
		}
		if total <= limit || big < 0 {
			return
		}
		u := &uses[big]
		per := u.recordsPerFile()
		keep := max(1, (bigN-(total-limit))/per) // files × writers to keep
		switch {
		case u.count > 1:
			u.count = max(1, keep/u.writers)
		case u.writers > 1:
			u.writers = keep
		case u.vars > 1:
			u.vars = max(1, u.vars/2)
		default:
			return
		}
	}
}

// sizeUses sets the bytes of the logical files of every kind: the kind's
// share of the job's volume, or its fixed size.
func (w *worker) sizeUses(j *job, r *rand.Rand) {
	var shares float64
	for i := range w.uses {
		shares += w.uses[i].kind.volume
	}
	for i := range w.uses {
		u := &w.uses[i]
		if v := u.kind.volume; v > 0 {
			u.bytes = int64(j.volume * v / shares / float64(u.count))
			continue
		}
		size := int64(u.kind.size.draw(r))
		u.bytes = size * u.writers
		if u.kind.dir == dirReadAll && u.share == sharedAll {
			u.bytes *= j.nprocs
		}
	}
}

// metaLatency draws the seconds of one open of the files of path template
// tmpl, shared by ranks processes: slower on Lustre and with many ranks, much
// slower for metadata-heavy applications.
func metaLatency(j *job, tmpl string, ranks int64, r *rand.Rand) float64 {
	lat := span{50e-6, 500e-6}.draw(r)
	if onLustre(tmpl) {
		lat = span{0.5e-3, 5e-3}.draw(r)
	}
	lat *= 1 + math.Log2(float64(ranks))/4
	if j.app.traits&metadataHeavy != 0 {
		lat *= span{5, 40}.draw(r)
	}
	return lat
}

// placeSteps creates the steps (logical files) of every kind and places
// them on the time line: start-phase files first, run-phase files spread
// in order over the run, end-phase files last, whole-run files over the whole
// run. A job whose I/O would not fit gets a longer run.
func (w *worker) placeSteps(j *job, r *rand.Rand) {
	for ui := range w.uses {
		u := &w.uses[ui]
		k := u.kind
		for i := range u.count {
			s := step{use: ui, i: i}
			bw := j.bw
			if k.phase == phaseWhole {
				bw = 200e6 // buffered text output
			}
			rd, wr := splitBytes(k.dir, u.bytes)
			s.readWall, s.writeWall = float64(rd)/bw, float64(wr)/bw
			s.openLat = metaLatency(j, k.path, sharedRanks(j, u), r)
			s.closeLat = s.openLat * (0.2 + 0.4*r.Float64())
			s.dur = s.readWall + s.writeWall + float64(u.opens)*(s.openLat+s.closeLat)
			switch k.phase {
			case phaseStart:
				s.order = float64(ui) / float64(len(w.uses))
			case phaseRun:
				s.order = 1 + (float64(i)+0.5)/float64(u.count)
			case phaseEnd:
				s.order = 2 + float64(ui)/float64(len(w.uses))
			case phaseWhole:
				s.order = -1
			}
			w.steps = append(w.steps, s)
		}
	}
	slices.SortStableFunc(w.steps, func(a, b step) int {
		switch {
		case a.order < b.order:
			return -1
		case a.order > b.order:
			return 1
		}
		return 0
	})
	var busy float64
	var nStart, nOther int
	for _, s := range w.steps {
		switch {
		case s.order < 0:
		case s.order < 1:
			busy += s.dur
			nStart++
		default:
			busy += s.dur
			nOther++
		}
	}
	if busy > 0.9*j.runtime {
		j.runtime = busy / 0.9
	}
	lead := 0.005 * j.runtime
	free := 0.97*j.runtime - lead - busy
	startGap := 0.05 * free / float64(max(nStart, 1))
	gap := (free - startGap*float64(nStart)) / float64(nOther+1)
	t := lead
	for i := range w.steps {
		s := &w.steps[i]
		if s.order < 0 {
			s.t0 = j.runtime * 0.002 * r.Float64()
			s.dur = j.runtime*(0.95+0.02*r.Float64()) - s.t0
			s.readWall = min(s.readWall, 0.4*s.dur)
			s.writeWall = min(s.writeWall, 0.4*s.dur)
			continue
		}
		if s.order < 1 {
			t += startGap * r.Float64()
		} else {
			t += gap * (0.5 + 0.5*r.Float64())
		}
		s.t0 = t
		t += s.dur
	}
}

// sharedRanks returns the processes that open each file of u together.
func sharedRanks(j *job, u *use) int64 {
	if u.share == sharedAll {
		return j.nprocs
	}
	return 1
}

// splitBytes splits the bytes of a file into bytes read and written.
func splitBytes(d direction, bytes int64) (read, written int64) {
	switch d {
	case dirWrite:
		return 0, bytes
	case dirReadWrite:
		return bytes / 2, bytes - bytes/2
	}
	return bytes, 0
}

// collBuffer is the size of the POSIX requests of collective MPI-IO
// (ROMIO's cb_buffer_size).
const collBuffer = 16 * mib

// fill derives record f: writer k of step s of job j.
func (w *worker) fill(j *job, s *step, k int64, f *fileIO, r *rand.Rand) {
	u := &w.uses[s.use]
	kind := u.kind
	f.use, f.step = u, s
	f.rank = j.recordRank(u.share, k)
	rank, node := k, k
	if u.share == perNode {
		rank = k * j.ppn
	}
	w.sb.Reset()
	expand(&w.sb, kind.path, j, s.i, rank, node, kind.listLen)
	f.name = w.sb.String()
	f.id = darshan.RecordID(f.name)
	f.ranks = sharedRanks(j, u)

	// Bytes of this record, split by direction and made a whole number of
	// requests per process.
	bytes := u.bytes / u.writers
	if u.writers > 1 {
		spread := 0.03
		if j.app.traits&imbalanced != 0 {
			spread = 0.6
		}
		bytes = int64(float64(bytes) * (1 - spread + 2*spread*r.Float64()))
	}
	f.movers = f.ranks
	if u.via == viaSTDIO && kind.dir != dirReadAll {
		f.movers = 1 // rank 0 prints, the other ranks only opened the stream
	}
	rd, wr := splitBytes(kind.dir, bytes)
	for d, b := range [2]int64{rd, wr} {
		per := b / f.movers
		f.app[d] = requests(per, u.xfer, f.movers)
		switch {
		case kind.dir == dirReadAll:
			f.extent[d] = per
		case kind.access == random:
			f.extent[d] = int64(float64(per*f.movers) * (1 + 2*r.Float64()))
		default:
			f.extent[d] = per * f.movers
		}
		if d == 1 && kind.overwrite && u.opens > 1 {
			f.extent[d] = max(1, f.extent[d]/u.opens)
		}
	}
	if u.hdf5 || u.pnc {
		// File metadata: superblock, object headers, netCDF header,
		// written (and read) in small requests by rank 0.
		size := 512 * (1 + r.Int64N(8))
		if wr > 0 {
			n := (2 + r.Int64N(4)) * u.opens * (1 + u.vars/4)
			f.hdr[1].add(size, n)
			f.extent[1] += size * n
		}
		if rd > 0 {
			f.hdr[0].add(size, (1+r.Int64N(3))*f.ranks*u.opens)
			f.extent[0] = max(f.extent[0], size)
		}
	}
	f.active = f.movers
	for d := range 2 {
		if u.coll && f.ranks > 1 {
			total := f.app[d].bytes()
			f.active = min(j.nodes, f.ranks)
			chunk := min(int64(collBuffer), max(u.xfer, (total+f.active-1)/max(f.active, 1)))
			f.posix[d] = requests(total, chunk, 1)
		} else {
			f.posix[d] = f.app[d]
		}
		f.posix[d].addMix(&f.hdr[d])
	}
	if u.hdf5 || u.pnc {
		f.varBase = len(w.vars)
		names := w.g.cat.datasets
		if u.pnc {
			names = w.g.cat.variables
		}
		dtype := int64(4 + 4*r.IntN(2))
		for v := range u.vars {
			sep := ":/"
			if u.pnc {
				sep = ":"
			}
			name := f.name + sep + names[v]
			w.vars = append(w.vars, varRec{name: name, id: darshan.RecordID(name), ndims: 1 + r.Int64N(3), dtype: dtype, chunkShift: u.chunkShift})
		}
	}

	// Time line.
	jitter := 0.0
	if u.writers > 1 {
		jitter = 0.1 * s.openLat * r.Float64()
	}
	f.tOpen = s.t0 + jitter
	t := f.tOpen + s.openLat
	f.tLastOpen = t
	reopen := float64(u.opens-1) * (s.openLat + s.closeLat)
	if rd > 0 {
		f.tData[0] = [2]float64{t, t + s.readWall + reopen*float64(b2i(wr == 0))}
		t = f.tData[0][1]
	}
	if wr > 0 {
		f.tData[1] = [2]float64{t, t + s.writeWall + reopen}
		t = f.tData[1][1]
	}
	if rd == 0 && wr == 0 {
		t += reopen
	}
	if u.opens > 1 {
		f.tLastOpen = t - (t-f.tLastOpen)/float64(u.opens)
	}
	if kind.phase == phaseWhole {
		t = max(t, s.t0+s.dur)
		for d := range 2 {
			if f.tData[d][1] > 0 {
				f.tData[d][1] = t
			}
		}
	}
	f.tClose0 = t
	f.tClose1 = t + s.closeLat
	f.metaRank = float64(u.opens) * (s.openLat + s.closeLat)
	if f.ranks > 1 {
		f.eff = 0.6 + 0.35*r.Float64()
	} else {
		f.eff = 0.85 + 0.15*r.Float64()
	}
	f.fsync = wr > 0 && kind.phase != phaseWhole && r.Float64() < 0.3
}

// b2i returns 1 for true, 0 for false.
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// ---------------------------------------------------------------------------
// Writing a log.

// memFile is an in-memory io.WriterAt holding one log, reused between logs.
type memFile struct{ b []byte }

// WriteAt writes p at off, growing the buffer with zeros as needed.
func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if end := int(off) + len(p); end > len(m.b) {
		old := len(m.b)
		m.b = slices.Grow(m.b, end-old)[:end]
		clear(m.b[old:end])
	}
	return copy(m.b[off:], p), nil
}

// worker writes whole logs; its buffers are reused from log to log.
type worker struct {
	g     *generator
	out   memFile
	dirs  map[string]bool
	uses  []use
	steps []step
	recs  []fileIO
	vars  []varRec
	order []recRef
	segs  []darshan.Segment
	sb    strings.Builder
	rec   [darshan.NumKnownModules]darshan.Record
}

// recRef designates a record of a module: file record f, variable v (or
// -1), in output order by key.
type recRef struct {
	f, v  int
	block int64 // rank whose block of the log holds the record
	// shared sorts after the private records of the block.
	shared bool
	id     uint64
}

// newWorker returns a worker of g.
func (g *generator) newWorker() *worker {
	return &worker{g: g, dirs: make(map[string]bool)}
}

// writeLog writes log i.
func (w *worker) writeLog(i int) error {
	g := w.g
	r := rand.New(rand.NewPCG(mix64(g.seed), mix64(g.seed^mix64(uint64(i)+1))))
	j := g.newJob(i, r)
	w.plan(j, r)
	path := filepath.Join(g.dir, j.logPath())
	if dir := filepath.Dir(path); !w.dirs[dir] {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
		w.dirs[dir] = true
	}
	w.out.b = w.out.b[:0]
	if err := w.encode(j, r); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.WriteFile(path, w.out.b, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// mix64 scrambles x (the SplitMix64 finaliser), so that neighbouring log
// indices seed unrelated random streams.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// moduleKind is a module of the records with which file records have one.
type moduleKind struct {
	m    darshan.ModuleID
	has  func(f *fileIO) bool
	vars bool // one record per dataset or variable
}

// moduleKinds lists the modules of the records in the order a log holds
// them.
func moduleKinds() []moduleKind {
	return []moduleKind{
		{darshan.ModPOSIX, func(f *fileIO) bool { return f.use.via != viaSTDIO }, false},
		{darshan.ModMPIIO, func(f *fileIO) bool { return f.use.mpiio }, false},
		{darshan.ModH5F, func(f *fileIO) bool { return f.use.hdf5 }, false},
		{darshan.ModH5D, func(f *fileIO) bool { return f.use.hdf5 }, true},
		{darshan.ModPnetCDFFile, func(f *fileIO) bool { return f.use.pnc }, false},
		{darshan.ModPnetCDFVar, func(f *fileIO) bool { return f.use.pnc }, true},
		{darshan.ModSTDIO, func(f *fileIO) bool { return f.use.via == viaSTDIO && stdioHasData(f) }, false},
	}
}

// stdioHasData tells whether a STDIO record stays in the log: standard
// streams without reads or writes are dropped (semantics §4.3).
func stdioHasData(f *fileIO) bool {
	return !strings.HasPrefix(f.name, "<") || f.app[0].ops()+f.app[1].ops() > 0
}

// encode writes the log of job j into w.out.
func (w *worker) encode(j *job, r *rand.Rand) error {
	wr := darshan.NewWriter(&w.out, darshan.WriterOptions{Fast: w.g.cfg.Fast})
	if err := wr.WriteJob(j.record(), j.cmdline, w.g.cat.mounts); err != nil {
		return err
	}
	if err := wr.WriteNames(w.names()); err != nil {
		return err
	}
	written := map[darshan.ModuleID]bool{}
	for _, mk := range w.g.modules {
		w.sortRecords(j, mk.has, mk.vars)
		if len(w.order) == 0 {
			continue
		}
		if err := wr.BeginModule(mk.m); err != nil {
			return err
		}
		written[mk.m] = true
		for _, ref := range w.order {
			rec := w.build(j, mk.m, ref, r)
			if err := wr.WriteRecord(rec); err != nil {
				return err
			}
		}
	}
	if j.traced {
		if err := w.writeTraces(wr, j, r); err != nil {
			return err
		}
	}
	if j.partial {
		switch {
		case j.traced:
			wr.SetPartial(darshan.ModDXTPOSIX)
		case written[darshan.ModPOSIX]:
			wr.SetPartial(darshan.ModPOSIX)
		default:
			wr.SetPartial(darshan.ModSTDIO)
		}
	}
	return wr.Close()
}

// names yields the name of every record: files in the order they were
// first opened, each followed by its datasets or variables.
func (w *worker) names() iter.Seq2[uint64, string] {
	return func(yield func(uint64, string) bool) {
		for i := range w.recs {
			f := &w.recs[i]
			if !yield(f.id, f.name) {
				return
			}
			if f.use.hdf5 || f.use.pnc {
				for _, v := range w.vars[f.varBase : f.varBase+int(f.use.vars)] {
					if !yield(v.id, v.name) {
						return
					}
				}
			}
		}
	}
}

// sortRecords fills w.order with the records of a module (the file records
// has accepts, or their variables) in the order Darshan writes them: in an
// MPI job, block by block of ranks, rank 0's private records then the shared
// ones, each by record id; in a serial job, in order of creation.
func (w *worker) sortRecords(j *job, has func(*fileIO) bool, vars bool) {
	w.order = w.order[:0]
	for i := range w.recs {
		f := &w.recs[i]
		if !has(f) {
			continue
		}
		ref := recRef{f: i, v: -1, block: max(f.rank, 0), shared: f.rank < 0, id: f.id}
		if !vars {
			w.order = append(w.order, ref)
			continue
		}
		for v := range int(f.use.vars) {
			ref.v, ref.id = v, w.vars[f.varBase+v].id
			w.order = append(w.order, ref)
		}
	}
	if !j.app.mpi {
		return
	}
	slices.SortStableFunc(w.order, func(a, b recRef) int {
		switch {
		case a.block != b.block:
			return cmpInt(a.block, b.block)
		case a.shared != b.shared:
			return cmpInt(b2i(a.shared), b2i(b.shared))
		case a.id != b.id:
			if a.id < b.id {
				return -1
			}
			return 1
		}
		return 0
	})
}

// cmpInt compares two integers.
func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// record returns the worker's record of module m, zeroed, for id and rank.
func (w *worker) record(m darshan.ModuleID, id uint64, rank int64) *darshan.Record {
	rec := &w.rec[m]
	info := m.Info()
	if len(rec.Counters) != len(info.Counters) {
		rec.Counters = make([]int64, len(info.Counters))
		rec.FCounters = make([]float64, len(info.FCounters))
	}
	clear(rec.Counters)
	clear(rec.FCounters)
	rec.Module, rec.ID, rec.Rank, rec.FileRecID, rec.DXT = m, id, rank, 0, nil
	return rec
}

// build returns the record of module m that ref designates.
func (w *worker) build(j *job, m darshan.ModuleID, ref recRef, r *rand.Rand) *darshan.Record {
	f := &w.recs[ref.f]
	switch m {
	case darshan.ModPOSIX:
		return w.posixRecord(j, f, r)
	case darshan.ModMPIIO:
		return w.mpiioRecord(j, f, r)
	case darshan.ModH5F:
		return w.h5fRecord(f, r)
	case darshan.ModH5D:
		return w.h5dRecord(j, f, ref.v, r)
	case darshan.ModPnetCDFFile:
		return w.pncFileRecord(j, f, r)
	case darshan.ModPnetCDFVar:
		return w.pncVarRecord(j, f, ref.v, r)
	}
	return w.stdioRecord(j, f, r)
}

// ---------------------------------------------------------------------------
// Records.

// onLustre tells whether a file name (or path template) is on a Lustre file
// system of the mount table.
func onLustre(name string) bool {
	return strings.HasPrefix(name, "/lustre/") || strings.HasPrefix(name, "{scratch}") || strings.HasPrefix(name, "{project}")
}

// fileAlignment returns the block size Darshan records for a file: 1 MiB on
// Lustre, 4 KiB elsewhere.
func fileAlignment(name string) int64 {
	if onLustre(name) {
		return mib
	}
	return 4 * kib
}

// gcd returns the greatest common divisor of a and b.
func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// notAligned returns how many requests of m start at an offset that is not
// a multiple of align, for requests laid one after the other.
func notAligned(m *opMix, align int64) int64 {
	var n int64
	for i := range m.n {
		aligned := m.count[i] * gcd(m.size[i], align) / align
		n += m.count[i] - aligned
	}
	return n
}

// sizeCount is one common access size (or stride) with its count.
type sizeCount struct{ value, count int64 }

// bySlot orders common values as Darshan's slots do: by count, then value,
// descending.
func bySlot(a, b sizeCount) int {
	if a.count != b.count {
		return cmpInt(b.count, a.count)
	}
	return cmpInt(b.value, a.value)
}

// top4 returns the four most common request sizes of the mixes, by count
// then size, descending, as Darshan's ACCESS1..4 slots.
func top4(mixes ...*opMix) [4]sizeCount {
	var all [12]sizeCount
	n := 0
	for _, m := range mixes {
	next:
		for i := range m.n {
			for k := range n {
				if all[k].value == m.size[i] {
					all[k].count += m.count[i]
					continue next
				}
			}
			if n < len(all) {
				all[n] = sizeCount{m.size[i], m.count[i]}
				n++
			}
		}
	}
	s := all[:n]
	slices.SortFunc(s, bySlot)
	var out [4]sizeCount
	copy(out[:], s)
	return out
}

// setIO sets the counters every module with ioIdx has from the
// application-level mixes (read, write) of a record: bytes, histogram,
// common sizes and the size of the slowest request.
func setIO(x *ioIdx, c []int64, rd, wr *opMix) {
	c[x.BytesR], c[x.BytesW] = rd.bytes(), wr.bytes()
	for d, m := range [2]*opMix{rd, wr} {
		hist := x.HistR
		if d == 1 {
			hist = x.HistW
		}
		for i := range m.n {
			c[hist[binOf(m.size[i])]] += m.count[i]
		}
	}
	for i, sc := range top4(rd, wr) {
		c[x.Access[i]], c[x.AccessN[i]] = sc.value, sc.count
	}
	c[x.MaxRSize], c[x.MaxWSize] = rd.main(), wr.main()
	if rd.ops() > 0 && wr.ops() > 0 {
		c[x.RWSwitches] = 1
	}
}

// timing holds the cumulative times and the rank spread of one layer of a
// record.
type timing struct {
	read, write, meta  float64 // summed over the processes
	maxRead, maxWrite  float64 // slowest single request
	fastRank, slowRank int64
	fastBytes          int64
	slowBytes          int64
	fastTime, slowTime float64
	varTime, varBytes  float64
}

// layerTiming derives the times of a layer of record f whose requests are
// rd and wr, issued by active of its processes, which stay in the calls for
// a share eff of the data windows; meta is the layer's metadata time per
// process.
func layerTiming(j *job, f *fileIO, rd, wr *opMix, active int64, eff, meta float64, r *rand.Rand) timing {
	var t timing
	walls := [2]float64{f.step.readWall, f.step.writeWall}
	for d, m := range [2]*opMix{rd, wr} {
		if m.ops() == 0 {
			continue
		}
		busy := walls[d] * eff
		sum := float64(active) * busy
		perOp := busy / max(1, float64(m.ops())/float64(active))
		slowest := min(walls[d], perOp*(1.5+8*r.Float64()))
		if d == 0 {
			t.read, t.maxRead = sum, slowest
		} else {
			t.write, t.maxWrite = sum, slowest
		}
	}
	if f.fsync && wr.ops() > 0 {
		t.write += float64(active) * f.step.closeLat
	}
	t.meta = float64(f.ranks) * meta
	if f.rank >= 0 {
		return t // per-process records keep the rank fields zero
	}
	if f.ranks == 1 { // a single-rank MPI run: rank 0 is fastest and slowest
		t.fastBytes = rd.bytes() + wr.bytes()
		t.slowBytes = t.fastBytes
		t.fastTime = t.read + t.write + t.meta
		t.slowTime = t.fastTime
		return t
	}
	// Shared record: the fastest and slowest ranks and the variances.
	bytes := rd.bytes() + wr.bytes()
	perActive := bytes / max(active, 1)
	busy := (walls[0] + walls[1]) * eff
	if active < f.ranks {
		// Only some ranks move data (aggregators, the first rank of each
		// node; or rank 0 printing); a rank that moves none is fastest.
		stride := f.ranks / max(active, 1)
		t.slowRank = r.Int64N(active) * stride
		t.fastRank = f.ranks - 1
		if stride > 1 {
			t.fastRank = t.slowRank + 1 + r.Int64N(stride-1)
		}
		t.slowBytes, t.fastBytes = perActive, 0
		t.slowTime, t.fastTime = busy+meta, meta*(0.8+0.2*r.Float64())
		p := float64(active) / float64(f.ranks)
		t.varBytes = p * (1 - p) * float64(perActive) * float64(perActive)
		t.varTime = p * (1 - p) * busy * busy
		return t
	}
	t.fastRank = r.Int64N(f.ranks)
	t.slowRank = (t.fastRank + 1 + r.Int64N(f.ranks-1)) % f.ranks
	imb := 0.0
	if j.app.traits&imbalanced != 0 {
		imb = 0.2 + 0.4*r.Float64()
	}
	t.slowBytes = int64(float64(perActive) * (1 + imb))
	t.fastBytes = int64(float64(perActive) * (1 - imb))
	t.slowTime = (walls[0]+walls[1])*(0.97+0.03*r.Float64()) + meta
	t.fastTime = busy*(0.5+0.4*r.Float64()) + meta*0.9
	t.varTime = (t.slowTime - t.fastTime) * (t.slowTime - t.fastTime) / 12
	db := float64(t.slowBytes - t.fastBytes)
	t.varBytes = db * db / 12
	return t
}

// setTiming stores a timing in the ioIdx fields of a record.
func setTiming(x *ioIdx, c []int64, fc []float64, t timing) {
	fc[x.ReadTime], fc[x.WriteTime], fc[x.MetaTime] = t.read, t.write, t.meta
	fc[x.MaxRTime], fc[x.MaxWTime] = t.maxRead, t.maxWrite
	c[x.FastRank], c[x.FastBytes], c[x.SlowRank], c[x.SlowBytes] = t.fastRank, t.fastBytes, t.slowRank, t.slowBytes
	fc[x.FastTime], fc[x.SlowTime], fc[x.VarTime], fc[x.VarBytes] = t.fastTime, t.slowTime, t.varTime, t.varBytes
}

// setStamps stores the time stamps of record f, shifted by lead (earlier
// start, later end) for the layers above POSIX, which wrap its calls.
func setStamps(x *ioIdx, fc []float64, f *fileIO, rd, wr *opMix, lead float64) {
	fc[x.OpenStart] = max(0, f.tOpen-lead)
	fc[x.OpenEnd] = f.tLastOpen + lead
	fc[x.CloseStart] = f.tClose0 + lead
	fc[x.CloseEnd] = f.tClose1 + lead
	if rd.ops() > 0 {
		fc[x.ReadStart], fc[x.ReadEnd] = max(0, f.tData[0][0]-lead), f.tData[0][1]+lead
	}
	if wr.ops() > 0 {
		fc[x.WriteStart], fc[x.WriteEnd] = max(0, f.tData[1][0]-lead), f.tData[1][1]+lead
	}
}

// seqCounts returns the sequential and consecutive requests among ops
// requests issued in starts runs (process × open), zeroStarts of which
// begin at offset 0.
func seqCounts(ops, starts, zeroStarts int64, p pattern, active int64, r *rand.Rand) (seq, consec int64) {
	if ops == 0 {
		return 0, 0
	}
	switch {
	case p == random:
		seq = int64(float64(ops) * (0.35 + 0.2*r.Float64()))
		consec = int64(float64(seq) * 0.1 * r.Float64())
	case p == strided && active > 1:
		seq = ops - zeroStarts
	default:
		seq = ops - zeroStarts
		consec = ops - starts
	}
	seq = min(max(seq, 0), ops)
	return seq, min(max(consec, 0), seq)
}

// posixRecord returns the POSIX record of f.
func (w *worker) posixRecord(j *job, f *fileIO, r *rand.Rand) *darshan.Record {
	x := &w.g.idx.posix
	rec := w.record(darshan.ModPOSIX, f.id, f.rank)
	c, fc := rec.Counters, rec.FCounters
	u, kind := f.use, f.use.kind
	rd, wr := &f.posix[0], &f.posix[1]
	nR, nW := rd.ops(), wr.ops()
	opens := f.ranks * u.opens
	c[x.Opens], c[x.Reads], c[x.Writes] = opens, nR, nW
	c[x.Mmaps] = -1
	setIO(&x.ioIdx, c, rd, wr)
	if nR > 0 {
		c[x.MaxByteR] = f.extent[0] - 1
	}
	if nW > 0 {
		c[x.MaxByteW] = f.extent[1] - 1
		c[x.Mode] = 420 // 0644
		if k := r.IntN(4); k == 0 {
			c[x.Mode] = 436 // 0664
		} else if k == 1 {
			c[x.Mode] = 384 // 0600
		}
	}
	if nR > 0 && nW > 0 {
		c[x.RWSwitches] = f.active * u.opens
		if kind.access == random {
			c[x.RWSwitches] = max(1, int64(float64(min(nR, nW))*(0.2+0.6*r.Float64())))
		}
	}
	acc := kind.access
	if u.coll {
		acc = sequential // aggregators write contiguous file domains
	}
	starts := f.active * u.opens
	zero := u.opens
	if kind.dir == dirReadAll || f.ranks == 1 {
		zero = starts
	}
	c[x.SeqR], c[x.ConsecR] = seqCounts(nR, starts, zero, acc, f.active, r)
	c[x.SeqW], c[x.ConsecW] = seqCounts(nW, starts, zero, acc, f.active, r)
	switch {
	case acc == strided && f.active > 1:
		c[x.Stride[0]] = (f.active - 1) * u.xfer
		c[x.StrideN[0]] = max(0, nR+nW-starts)
	case acc == random:
		var strides [4]sizeCount
		for i := range strides {
			strides[i] = sizeCount{u.xfer * (1 + r.Int64N(4096)), max(1, (nR+nW)/int64(8<<i))}
		}
		slices.SortFunc(strides[:], bySlot)
		for i, sc := range strides {
			c[x.Stride[i]], c[x.StrideN[i]] = sc.value, sc.count
		}
	}
	switch {
	case acc == random:
		c[x.Seeks] = int64(float64(nR+nW) * (0.5 + 0.5*r.Float64()))
	case acc == strided && !u.mpiio:
		c[x.Seeks] = nR + nW
	default:
		c[x.Seeks] = starts * r.Int64N(2)
	}
	stats := r.Int64N(2)
	if j.app.traits&metadataHeavy != 0 {
		stats = 1 + r.Int64N(4)
	}
	c[x.Stats] = opens * stats
	if f.fsync {
		c[x.Fsyncs] = f.active * u.opens
	}
	c[x.MemAlign] = 8
	c[x.MemNotAligned] = int64(float64(nR+nW) * 0.03 * r.Float64())
	align := fileAlignment(f.name)
	c[x.FileAlign] = align
	c[x.FileNotAligned] = min(nR+nW, notAligned(rd, align)+notAligned(wr, align))

	meta := f.metaRank * (1 + float64(stats)*0.5)
	setTiming(&x.ioIdx, c, fc, layerTiming(j, f, rd, wr, f.active, f.eff, meta, r))
	setStamps(&x.ioIdx, fc, f, rd, wr, 0)
	return rec
}

// mpiModes are MPI_File_open access modes (MPICH values): read only,
// write+create, read-write+create.
const (
	modeRead      = 2
	modeWrite     = 4 | 1
	modeReadWrite = 8 | 1
)

// mpiLead is how much earlier (later) the layers above POSIX start (end)
// than the POSIX calls they make.
const mpiLead = 20e-6

// mpiioRecord returns the MPI-IO record of f.
func (w *worker) mpiioRecord(j *job, f *fileIO, r *rand.Rand) *darshan.Record {
	x := &w.g.idx.mpiio
	rec := w.record(darshan.ModMPIIO, f.id, f.rank)
	c, fc := rec.Counters, rec.FCounters
	u := f.use
	var rd, wr opMix
	rd.addMix(&f.app[0])
	rd.addMix(&f.hdr[0])
	wr.addMix(&f.app[1])
	wr.addMix(&f.hdr[1])
	opens := f.ranks * u.opens
	if f.ranks > 1 {
		c[x.CollOpens] = opens
	} else {
		c[x.IndepOpens] = opens
	}
	dataR, dataW := f.app[0].ops(), f.app[1].ops()
	hdrR, hdrW := f.hdr[0].ops(), f.hdr[1].ops()
	switch {
	case u.coll:
		c[x.CollR], c[x.CollW] = dataR, dataW
	case j.app.traits&nonBlocking != 0:
		c[x.NbW] = dataW / 2
		c[x.IndepW] = dataW - dataW/2
		c[x.IndepR] = dataR
	default:
		c[x.IndepR], c[x.IndepW] = dataR, dataW
	}
	c[x.IndepR] += hdrR
	c[x.IndepW] += hdrW
	if j.hints {
		c[x.Hints] = opens
	}
	if u.hdf5 || u.pnc || u.kind.access == strided {
		c[x.Views] = opens * (1 + u.vars)
	}
	if f.fsync {
		c[x.Syncs] = opens
	}
	switch {
	case rd.ops() > 0 && wr.ops() > 0:
		c[x.Mode] = modeReadWrite
	case wr.ops() > 0:
		c[x.Mode] = modeWrite
	default:
		c[x.Mode] = modeRead
	}
	setIO(&x.ioIdx, c, &rd, &wr)
	if rd.ops() > 0 && wr.ops() > 0 {
		c[x.RWSwitches] = f.ranks * u.opens
	}
	eff := f.eff + (1-f.eff)*0.5 // MPI-IO calls wrap the POSIX ones
	if u.coll {
		eff = 0.9 + 0.1*r.Float64() // every rank waits for the collective
	}
	setTiming(&x.ioIdx, c, fc, layerTiming(j, f, &rd, &wr, f.ranks, eff, f.metaRank*1.3, r))
	setStamps(&x.ioIdx, fc, f, &rd, &wr, mpiLead)
	return rec
}

// h5fRecord returns the H5F record of f.
func (w *worker) h5fRecord(f *fileIO, r *rand.Rand) *darshan.Record {
	x := &w.g.idx.h5f
	rec := w.record(darshan.ModH5F, f.id, f.rank)
	c, fc := rec.Counters, rec.FCounters
	c[x.Opens] = f.ranks * f.use.opens
	if f.app[1].ops() > 0 {
		c[x.Flushes] = r.Int64N(3) * f.use.opens
	}
	c[x.UseMPIIO] = b2i(f.use.mpiio)
	fc[x.OpenStart] = max(0, f.tOpen-2*mpiLead)
	fc[x.OpenEnd] = f.tLastOpen + 2*mpiLead
	fc[x.CloseStart] = f.tClose0 + mpiLead
	fc[x.CloseEnd] = f.tClose1 + 2*mpiLead
	fc[x.MetaTime] = float64(f.ranks) * f.metaRank * 1.6
	return rec
}

// layerVar returns the data requests of variable v of f (its share of the
// file's requests).
func layerVar(f *fileIO, v int) (rd, wr opMix) {
	return f.app[0].share(int64(v), f.use.vars), f.app[1].share(int64(v), f.use.vars)
}

// h5dRecord returns the H5D record of dataset v of f.
func (w *worker) h5dRecord(j *job, f *fileIO, v int, r *rand.Rand) *darshan.Record {
	x := &w.g.idx.h5d
	vr := &w.vars[f.varBase+v]
	rec := w.record(darshan.ModH5D, vr.id, f.rank)
	rec.FileRecID = f.id
	c, fc := rec.Counters, rec.FCounters
	rd, wr := layerVar(f, v)
	c[x.Opens] = f.ranks * f.use.opens
	c[x.Reads], c[x.Writes] = rd.ops(), wr.ops()
	if f.ranks > 1 {
		c[x.RegSel] = rd.ops() + wr.ops()
	}
	setIO(&x.ioIdx, c, &rd, &wr)
	// Access tuples: an n-dimensional selection of the request's elements,
	// slowest dimension last (D5).
	for i := range 4 {
		if c[x.Access[i]] == 0 {
			break
		}
		elems := c[x.Access[i]] / vr.dtype
		c[x.Length[i][4]] = max(1, elems)
		c[x.Stride[i][4]] = 1
		for d := 1; d < int(vr.ndims); d++ {
			c[x.Length[i][4-d]], c[x.Stride[i][4-d]] = 1, 1
		}
	}
	c[x.NDims] = vr.ndims
	c[x.DTypeSize] = vr.dtype
	c[x.NPoints] = max(1, max(f.extent[0], f.extent[1])/int64(f.use.vars)/vr.dtype)
	if r.IntN(2) == 0 {
		// Chunked along the first dimension. Chunk sizes are stored last
		// dimension first (D1), so the first dimension is D<ndims>.
		elems := max(1, c[x.Access[0]]/vr.dtype)
		for d := range int(vr.ndims) {
			c[x.Chunk[d]] = 1
		}
		c[x.Chunk[vr.ndims-1]] = int64(1) << max(0, int(math.Round(math.Log2(float64(elems))))-vr.chunkShift)
	}
	c[x.UseColl] = b2i(f.use.coll)
	share := 1 / float64(f.use.vars)
	t := layerTiming(j, f, &rd, &wr, f.ranks, f.eff*share, f.metaRank*share, r)
	setTiming(&x.ioIdx, c, fc, t)
	setStamps(&x.ioIdx, fc, f, &rd, &wr, mpiLead)
	return rec
}

// pncFileRecord returns the PNETCDF_FILE record of f.
func (w *worker) pncFileRecord(j *job, f *fileIO, r *rand.Rand) *darshan.Record {
	x := &w.g.idx.pncFile
	rec := w.record(darshan.ModPnetCDFFile, f.id, f.rank)
	c, fc := rec.Counters, rec.FCounters
	opens := f.ranks * f.use.opens
	if f.app[1].ops() > 0 {
		c[x.Creates] = opens
	} else {
		c[x.Opens] = opens
	}
	c[x.BytesR] = f.app[0].bytes() + f.hdr[0].bytes()
	c[x.BytesW] = f.app[1].bytes() + f.hdr[1].bytes()
	fc[x.OpenStart] = max(0, f.tOpen-2*mpiLead)
	fc[x.OpenEnd] = f.tLastOpen + 2*mpiLead
	fc[x.CloseStart] = f.tClose0 + mpiLead
	fc[x.CloseEnd] = f.tClose1 + 2*mpiLead
	fc[x.MetaTime] = float64(f.ranks) * f.metaRank * 1.5
	if j.app.traits&nonBlocking != 0 && f.app[1].ops() > 0 {
		waits := max(1, f.app[1].ops()/f.ranks/max(1, f.use.vars))
		c[x.CollWaits] = f.ranks * waits
		fc[x.WaitStart], fc[x.WaitEnd] = f.tData[1][0], f.tData[1][1]
		fc[x.WaitTime] = float64(f.ranks) * f.step.writeWall * 0.3 * r.Float64()
	}
	return rec
}

// pncVarRecord returns the PNETCDF_VAR record of variable v of f.
func (w *worker) pncVarRecord(j *job, f *fileIO, v int, r *rand.Rand) *darshan.Record {
	x := &w.g.idx.pncVar
	vr := &w.vars[f.varBase+v]
	rec := w.record(darshan.ModPnetCDFVar, vr.id, f.rank)
	rec.FileRecID = f.id
	c, fc := rec.Counters, rec.FCounters
	rd, wr := layerVar(f, v)
	nR, nW := rd.ops(), wr.ops()
	c[x.Opens] = f.ranks * f.use.opens
	switch {
	case f.use.coll:
		c[x.CollR], c[x.CollW] = nR, nW
	default:
		c[x.IndepR], c[x.IndepW] = nR, nW
	}
	if j.app.traits&nonBlocking != 0 {
		c[x.NbW], c[x.IputVara] = nW, nW
		c[x.CollW], c[x.IndepW] = 0, 0
	} else {
		c[x.PutVara] = nW
	}
	c[x.GetVara] = nR
	setIO(&x.ioIdx, c, &rd, &wr)
	// Access tuples: the request's elements in the first dimension (D1),
	// one record in the others.
	for i := range 4 {
		if c[x.Access[i]] == 0 {
			break
		}
		c[x.Length[i][0]] = max(1, c[x.Access[i]]/vr.dtype)
		for d := 1; d < int(vr.ndims); d++ {
			c[x.Length[i][d]] = 1
		}
	}
	c[x.NDims] = vr.ndims + 1
	c[x.DTypeSize] = vr.dtype
	c[x.NPoints] = max(1, max(f.extent[0], f.extent[1])/int64(f.use.vars)/vr.dtype)
	c[x.RecordVar] = b2i(r.IntN(10) < 7)
	share := 1 / float64(f.use.vars)
	setTiming(&x.ioIdx, c, fc, layerTiming(j, f, &rd, &wr, f.ranks, f.eff*share, f.metaRank*share, r))
	setStamps(&x.ioIdx, fc, f, &rd, &wr, 2*mpiLead)
	return rec
}

// stdioRecord returns the STDIO record of f.
func (w *worker) stdioRecord(j *job, f *fileIO, r *rand.Rand) *darshan.Record {
	x := &w.g.idx.stdio
	rec := w.record(darshan.ModSTDIO, f.id, f.rank)
	c, fc := rec.Counters, rec.FCounters
	rd, wr := &f.app[0], &f.app[1]
	stream := strings.HasPrefix(f.name, "<")
	c[x.Opens] = f.ranks * f.use.opens
	c[x.Reads], c[x.Writes] = rd.ops(), wr.ops()
	c[x.BytesR], c[x.BytesW] = rd.bytes(), wr.bytes()
	if rd.ops() > 0 {
		c[x.MaxByteR] = f.extent[0] - 1
	}
	if wr.ops() > 0 {
		c[x.MaxByteW] = f.extent[1] - 1
		c[x.Flushes] = f.ranks * (1 + r.Int64N(2))
	}
	t := layerTiming(j, f, rd, wr, f.movers, f.eff, f.metaRank, r)
	fc[x.ReadTime], fc[x.WriteTime] = t.read, t.write
	c[x.FastRank], c[x.FastBytes], c[x.SlowRank], c[x.SlowBytes] = t.fastRank, t.fastBytes, t.slowRank, t.slowBytes
	fc[x.FastTime], fc[x.SlowTime], fc[x.VarTime], fc[x.VarBytes] = t.fastTime, t.slowTime, t.varTime, t.varBytes
	if rd.ops() > 0 {
		fc[x.ReadStart], fc[x.ReadEnd] = f.tData[0][0], f.tData[0][1]
	}
	if wr.ops() > 0 {
		fc[x.WriteStart], fc[x.WriteEnd] = f.tData[1][0], f.tData[1][1]
	}
	if stream {
		// Opened by the module at time 0, never closed, no metadata time.
		c[x.Opens] = f.ranks
		fc[x.SlowTime] -= min(fc[x.SlowTime], f.metaRank)
		fc[x.FastTime] -= min(fc[x.FastTime], f.metaRank*0.8)
		return rec
	}
	fc[x.MetaTime] = t.meta
	fc[x.OpenStart], fc[x.OpenEnd] = f.tOpen, f.tLastOpen
	fc[x.CloseStart], fc[x.CloseEnd] = f.tClose0, f.tClose1
	return rec
}

// ---------------------------------------------------------------------------
// DXT traces.

// writeTraces writes the DXT_POSIX module: the POSIX requests of up to four
// ranks (rank 0 and three others), a few hundred segments per rank shared
// among its files by their request counts; a file with more requests than
// its share keeps its first ones, as a trace cut by the memory budget does.
func (w *worker) writeTraces(wr *darshan.Writer, j *job, r *rand.Rand) error {
	ranks := []int64{0}
	for len(ranks) < int(min(j.nprocs, 4)) {
		q := r.Int64N(j.nprocs)
		if !slices.Contains(ranks, q) {
			ranks = append(ranks, q)
		}
	}
	slices.Sort(ranks)
	begun := false
	for _, q := range ranks {
		budget := 100 + r.Int64N(500)
		var total int64
		for i := range w.recs {
			total += rankOps(j, &w.recs[i], q)
		}
		if total == 0 {
			continue
		}
		host := "nid" + strconv.FormatInt(100000+j.nodeBase+q/j.ppn, 10)
		for i := range w.recs {
			f := &w.recs[i]
			ops := rankOps(j, f, q)
			if ops == 0 {
				continue
			}
			n := min(ops, max(1, ops*budget/total))
			if ops*budget < total && i%4 != 0 {
				continue // most small files of a busy rank stay untraced
			}
			if !begun {
				if err := wr.BeginModule(darshan.ModDXTPOSIX); err != nil {
					return err
				}
				begun = true
			}
			tr := w.trace(j, f, q, n, host, r)
			rec := &darshan.Record{Module: darshan.ModDXTPOSIX, ID: f.id, Rank: q, DXT: tr}
			if err := wr.WriteRecord(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// activeIndex returns the position of rank q among the processes of f that
// do its POSIX data accesses, or -1.
func activeIndex(j *job, f *fileIO, q int64) int64 {
	switch {
	case f.use.via == viaSTDIO:
		return -1
	case f.rank >= 0:
		if f.rank == q {
			return 0
		}
		return -1
	case f.ranks == 1: // the single process of a single-rank MPI run
		if q == 0 {
			return 0
		}
		return -1
	case f.active == f.ranks:
		return q
	case q%j.ppn == 0 && q/j.ppn < f.active: // an aggregator: first rank of its node
		return q / j.ppn
	}
	return -1
}

// rankOps returns the POSIX requests rank q of job j issues on f.
func rankOps(j *job, f *fileIO, q int64) int64 {
	if activeIndex(j, f, q) < 0 {
		return 0
	}
	return (f.posix[0].ops() + f.posix[1].ops()) / max(f.active, 1)
}

// trace returns the DXT trace of rank q on f: its first n requests (shared
// between reads and writes by their counts).
func (w *worker) trace(j *job, f *fileIO, q, n int64, host string, r *rand.Rand) *darshan.Trace {
	qi := activeIndex(j, f, q)
	tr := &darshan.Trace{Hostname: host}
	w.segs = w.segs[:0]
	total := f.posix[0].ops() + f.posix[1].ops()
	var counts [2]int64
	for d := range 2 {
		counts[d] = n * f.posix[d].ops() / max(total, 1)
	}
	if counts[0]+counts[1] == 0 {
		counts[b2i(f.posix[1].ops() > 0)] = 1
	}
	var lists [2][2]int // start and end of each direction in w.segs
	for _, d := range [2]int{1, 0} {
		m := &f.posix[d]
		if counts[d] == 0 || m.ops() == 0 {
			continue
		}
		perRank := m.bytes() / max(f.active, 1)
		length := min(m.main(), max(perRank, 1))
		opsRank := max(1, m.ops()/max(f.active, 1))
		t0, t1 := f.tData[d][0], f.tData[d][1]
		spacing := (t1 - t0) / float64(opsRank)
		base := int64(0)
		if f.use.kind.dir != dirReadAll && f.ranks > 1 {
			base = qi * perRank
		}
		lists[d][0] = len(w.segs)
		for k := range counts[d] {
			var off int64
			switch {
			case f.use.kind.access == random:
				off = r.Int64N(max(1, f.extent[d]/length)) * length
			case f.use.kind.access == strided && f.active > 1 && !f.use.coll:
				off = (k*f.active + qi) * length
			default:
				off = base + k*length
			}
			start := t0 + float64(k)*spacing
			w.segs = append(w.segs, darshan.Segment{Offset: off, Length: length, Start: start, End: start + spacing*f.eff})
		}
		lists[d][1] = len(w.segs)
	}
	tr.Writes = w.segs[lists[1][0]:lists[1][1]]
	tr.Reads = w.segs[lists[0][0]:lists[0][1]]
	return tr
}
