package collector

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fn appends a function block (times in ticks).
func (t *testStore) fn(addr, offset uint64, object string, calls, wall, io, self uint64) *testStore {
	b := t.word(blockFunc, pad8(funcFixed+len(object)+1))
	o := binary.LittleEndian
	for i, v := range []uint64{addr, offset, calls, wall, io, self} {
		o.PutUint64(b[8+8*i:], v)
	}
	o.PutUint32(b[56:], uint32(len(object)))
	copy(b[funcFixed:], object)
	t.blocks = append(t.blocks, b...)
	return t
}

// funcStore is a store of a profiled process: main calls work, which does
// all the I/O.
func funcStore(pid int64) *testStore {
	t := newTestStore(pid).name("/data/out").fn(0x5000_1189, 0x1189, "/bin/app", 1, 2e9, 5e8, 1e8)
	t.h.FunctionsLost = 3
	return t.fn(0x5000_1263, 0x1263, "/bin/app", 10, 1e9, 4e8, 4e8)
}

func TestReadStoreFunctions(t *testing.T) {
	s := funcStore(7).parse(t)
	if s.Header.FunctionsLost != 3 {
		t.Errorf("FunctionsLost = %d, want 3", s.Header.FunctionsLost)
	}
	want := []StoreFunction{
		{Addr: 0x5000_1189, Offset: 0x1189, Object: "/bin/app", Calls: 1, Wall: 2, IO: 0.5, SelfIO: 0.1},
		{Addr: 0x5000_1263, Offset: 0x1263, Object: "/bin/app", Calls: 10, Wall: 1, IO: 0.4, SelfIO: 0.4},
	}
	if len(s.Functions) != len(want) {
		t.Fatalf("%d functions, want %d", len(s.Functions), len(want))
	}
	for i := range want {
		if s.Functions[i] != want[i] {
			t.Errorf("function %d = %+v, want %+v", i, s.Functions[i], want[i])
		}
	}
}

func TestReadStoreCorruptFunctions(t *testing.T) {
	long := newTestStore(1).fn(1, 1, "/bin/app", 1, 1, 1, 1)
	binary.LittleEndian.PutUint32(long.blocks[56:], 4096) // object name past the block
	for name, ts := range map[string]*testStore{
		"short block":   newTestStore(1).block(blockFunc, 32),
		"long name":     long,
		"after records": funcStore(1).block(blockFunc, 8),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseStore("bad.store", ts.bytes())
			if !errors.Is(err, ErrCorruptStore) || !strings.Contains(err.Error(), "bad.store") {
				t.Errorf("error %v, want ErrCorruptStore naming bad.store", err)
			}
		})
	}
	// A function block cut short by the end of the file is an incomplete
	// block: the blocks before it are read.
	b := funcStore(1).bytes()
	s, err := parseStore("cut.store", b[:storeHeaderSize+len(funcStore(1).blocks)-8])
	if err != nil || !s.Truncated || len(s.Functions) != 1 {
		t.Errorf("cut store: %v, truncated %v, %d functions", err, s != nil && s.Truncated, len(s.Functions))
	}
}

func TestLookupSymbol(t *testing.T) {
	syms := []elf.Symbol{
		{Name: "a", Value: 0x100, Size: 0x20},
		{Name: "b", Value: 0x200, Size: 0},
		{Name: "c", Value: 0x300, Size: 0x10},
		{Name: "c_alias", Value: 0x300, Size: 0x10},
	}
	for _, tc := range []struct {
		addr uint64
		want string
		ok   bool
	}{
		{0x100, "a", true}, {0x11f, "a", true}, {0x120, "", false}, {0xff, "", false},
		{0x200, "b", true}, {0x201, "", false}, {0x305, "c", true}, {0x310, "", false},
	} {
		if got, ok := lookupSymbol(syms, tc.addr); got != tc.want || ok != tc.ok {
			t.Errorf("lookupSymbol(%#x) = %q, %v, want %q, %v", tc.addr, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFunctionStatsMerge(t *testing.T) {
	a, b := funcStore(1).parse(t), funcStore(2).parse(t)
	// /bin/app does not exist: its error is reported once, and its
	// functions are named by address.
	stats, err := FunctionStats([]*Store{a, b})
	if err == nil || !strings.Contains(err.Error(), "/bin/app") || strings.Count(err.Error(), "/bin/app") != 1 {
		t.Errorf("error %v, want one naming /bin/app", err)
	}
	if len(stats) != 2 {
		t.Fatalf("%d stats, want 2: %+v", len(stats), stats)
	}
	if s := stats[0]; s.Name != "0x1189" || s.Calls != 2 || s.Wall != 4 || s.IOTime != 1 || s.SelfIO != 0.2 || s.Intensity() != 0.25 {
		t.Errorf("first = %+v, want the two mains summed", s)
	}
}

// profiled is an instrumented build of testdata/funcs/prof.c linked with
// libprof.so (testdata/funcs/lib.c), both with -finstrument-functions.
func profiled(t *testing.T) string {
	t.Helper()
	needTool(t, "cc")
	dir := t.TempDir()
	flags := []string{"-O2", "-g", "-finstrument-functions", "-finstrument-functions-exclude-file-list=/usr/include"}
	lib := filepath.Join(dir, "libprof.so")
	prog := filepath.Join(dir, "prof")
	for _, args := range [][]string{
		append(flags, "-fPIC", "-shared", "-o", lib, "testdata/funcs/lib.c"),
		append(flags, "-o", prog, "testdata/funcs/prof.c", "-L"+dir, "-lprof", "-Wl,-rpath,"+dir),
	} {
		if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return prog
}

// byName indexes function stats by name.
func byName(stats []FunctionStat) map[string]FunctionStat {
	m := make(map[string]FunctionStat)
	for _, s := range stats {
		m[s.Name] = s
	}
	return m
}

func TestFunctionProfile(t *testing.T) {
	prog := profiled(t)
	// Without the collector the hooks are glibc's no-ops.
	if out, err := exec.Command(prog, t.TempDir(), "lib").CombinedOutput(); err != nil {
		t.Fatalf("without the collector: %v\n%s", err, out)
	}
	for _, mode := range []string{"lib", "exit", "fork"} {
		t.Run(mode, func(t *testing.T) {
			res := runCollected(t, RunOptions{Functions: true}, nil, prog, t.TempDir(), mode)
			f := byName(res.Result.Functions)
			for _, name := range []string{"main", "compute", "dump", "fib"} {
				if _, ok := f[name]; !ok {
					t.Fatalf("no profile of %s: %+v", name, res.Result.Functions)
				}
			}
			dumps := map[string]uint64{"lib": 1, "exit": 2, "fork": 2}[mode]
			if c := f["compute"]; c.Calls != 1000 || c.IOTime != 0 || c.SelfIO != 0 || c.Wall <= 0 {
				t.Errorf("compute = %+v, want 1000 calls, no I/O", c)
			}
			if d := f["dump"]; d.Calls != dumps || d.IOTime <= 0 || d.Intensity() > 1 || d.SelfIO != d.IOTime {
				t.Errorf("dump = %+v, want %d calls, I/O time > 0, all of it its own", d, dumps)
			}
			if fib := f["fib"]; fib.Calls != 1973 || fib.IOTime != 0 {
				t.Errorf("fib = %+v, want 1973 calls and no I/O", fib)
			}
			m := f["main"]
			if m.Calls != 1 {
				t.Errorf("main called %d times, want 1", m.Calls)
			}
			if mode != "fork" && m.Wall < f["compute"].Wall+f["dump"].Wall+f["fib"].Wall {
				t.Errorf("main's wall %g < its children's %g + %g + %g", m.Wall, f["compute"].Wall, f["dump"].Wall, f["fib"].Wall)
			}
			if m.IOTime < f["dump"].IOTime || m.IOTime <= 0 {
				t.Errorf("main's I/O %g < dump's %g", m.IOTime, f["dump"].IOTime)
			}
			if m.File != prog {
				t.Errorf("main in %s, want %s", m.File, prog)
			}
			switch mode {
			case "lib":
				lb, ld := f["lib_block"], f["lib_dump"]
				if lb.Calls != 50 || ld.Calls != 1 || lb.IOTime <= 0 || ld.IOTime < lb.IOTime {
					t.Errorf("lib_block = %+v, lib_dump = %+v", lb, ld)
				}
				if filepath.Base(lb.File) != "libprof.so" {
					t.Errorf("lib_block in %s, want libprof.so", lb.File)
				}
			case "exit":
				if l := f["leave"]; l.Calls != 1 || l.IOTime <= 0 || l.Wall <= 0 {
					t.Errorf("leave = %+v: the frames open at exit are not accounted", l)
				}
			}
		})
	}
}

func TestFunctionProfileUninstrumented(t *testing.T) {
	prog := compileWorkload(t, "cc", "posix/basic.c")
	res := runCollected(t, RunOptions{Functions: true}, nil, prog, t.TempDir())
	if len(res.Result.Functions) != 0 {
		t.Errorf("functions of a program built without -finstrument-functions: %+v", res.Result.Functions)
	}
	if _, err := os.Stat(prog); err != nil {
		t.Fatal(err)
	}
}
