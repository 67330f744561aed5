package collector

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// MPI flavors, as returned by Flavor and DetectMPI.
const (
	FlavorOpenMPI = "openmpi"
	FlavorMPICH   = "mpich"
)

// LibraryName is the file name of the preload library in the cache.
const LibraryName = "libiolens.so"

// MPIMarker, on the first line of a C source, marks a file that uses MPI:
// it is compiled only when the library is built with an mpicc.
const MPIMarker = "/* iolens: mpi */"

// Flags of every compilation and of the link. They are part of the cache key.
var (
	baseCFlags = []string{"-O2", "-g", "-fPIC", "-std=gnu11", "-Wall", "-D_GNU_SOURCE"}
	linkLibs   = []string{"-ldl", "-lpthread"}
)

// cacheFormat changes whenever the way a library is built changes in a way
// the other parts of the key do not capture.
const cacheFormat = "iolens collector build 1"

// BuildOptions says how to build the preload library.
type BuildOptions struct {
	// MPICC is the MPI compiler wrapper (a path, or a name looked up in
	// PATH) of the MPI the application uses. Empty builds the library
	// without MPI support, with $CC (default cc).
	MPICC string
	// CacheDir is the directory of built libraries; empty means
	// DefaultCacheDir.
	CacheDir string
	// Sources holds the C sources (*.c, *.h) at its root; nil means the
	// sources embedded in iolens.
	Sources fs.FS
	// Stderr, when not nil, receives the diagnostics (warnings) of the
	// compiler runs that succeed. The error of a failed build carries the
	// output of the run that failed.
	Stderr io.Writer
	// Notice, when not nil, receives one line when a build starts, which
	// happens only when the cache does not hold the library yet (on first
	// use for a compiler) and takes seconds.
	Notice io.Writer
}

// DefaultCacheDir returns the directory of built libraries:
// $IOLENS_CACHE_DIR if set, else iolens/collector in the user's cache
// directory (os.UserCacheDir).
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("IOLENS_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("collector cache directory: %w (set IOLENS_CACHE_DIR)", err)
	}
	return filepath.Join(d, "iolens", "collector"), nil
}

// Library returns the path of the preload library built from opts.Sources
// with the compiler opts says, building it first when the cache does not
// hold it yet. The library is <cache>/<key>/libiolens.so, where the key is
// a hash of the sources, the compiler (path, version and, for an mpicc,
// its MPI flags) and the build flags. A build happens in a temporary
// directory inside the cache and the library is renamed into place, so
// concurrent calls are safe; a failed build leaves nothing behind and its
// error carries the compiler's output.
//
// Without MPI, every .c file except those marked with MPIMarker is
// compiled. With an mpicc, every .c file is compiled by the C compiler
// underlying the wrapper with the MPI include flags, -DIOLENS_MPI=1 and
// -DIOLENS_MPI_OPENMPI=1 or -DIOLENS_MPI_MPICH=1; the objects' symbols are
// made weak (objcopy --weaken) and libmpi is not linked, so the library
// also loads into processes without MPI.
func Library(ctx context.Context, opts BuildOptions) (string, error) {
	src := opts.Sources
	if src == nil {
		var err error
		if src, err = fs.Sub(sources, "c"); err != nil {
			return "", fmt.Errorf("collector sources: %w", err)
		}
	}
	cache := opts.CacheDir
	if cache == "" {
		var err error
		if cache, err = DefaultCacheDir(); err != nil {
			return "", err
		}
	}
	// LD_PRELOAD needs a path that does not depend on the directory.
	cache, err := filepath.Abs(cache)
	if err != nil {
		return "", fmt.Errorf("collector cache: %w", err)
	}

	tc, err := newToolchain(ctx, opts.MPICC)
	if err != nil {
		return "", err
	}
	files, err := readSources(src, tc.mpi)
	if err != nil {
		return "", err
	}
	key := tc.key(files)
	lib := filepath.Join(cache, key, LibraryName)
	if st, err := os.Stat(lib); err == nil && st.Mode().IsRegular() {
		return lib, nil
	}

	if err := os.MkdirAll(cache, 0o700); err != nil {
		return "", fmt.Errorf("collector cache: %w", err)
	}
	tmp, err := os.MkdirTemp(cache, ".build-")
	if err != nil {
		return "", fmt.Errorf("collector cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if opts.Notice != nil {
		fmt.Fprintf(opts.Notice, "iolens: building the collector %s (first use, once)...\n", tc.purpose())
	}
	built, err := tc.build(ctx, tmp, files, opts.Stderr)
	if err != nil {
		return "", fmt.Errorf("building the collector (%s): %w", tc.describe(), err)
	}
	if err := os.Mkdir(filepath.Dir(lib), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("collector cache: %w", err)
	}
	if err := os.Rename(built, lib); err != nil {
		return "", fmt.Errorf("collector cache: %w", err)
	}
	return lib, nil
}

// sourceFile is one C source or header.
type sourceFile struct {
	name string
	data []byte
	mpi  bool // first line carries MPIMarker
}

// readSources returns the .c and .h files at the root of src, sorted by
// name, without the MPI-marked .c files unless mpi is set.
func readSources(src fs.FS, mpi bool) ([]sourceFile, error) {
	entries, err := fs.ReadDir(src, ".")
	if err != nil {
		return nil, fmt.Errorf("reading collector sources: %w", err)
	}
	var files []sourceFile
	nc := 0
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		if !e.Type().IsRegular() || (ext != ".c" && ext != ".h") {
			continue
		}
		data, err := fs.ReadFile(src, name)
		if err != nil {
			return nil, fmt.Errorf("reading collector sources: %w", err)
		}
		first, _, _ := bytes.Cut(data, []byte("\n"))
		f := sourceFile{name: name, data: data, mpi: bytes.Contains(first, []byte(MPIMarker))}
		if ext == ".c" {
			if f.mpi && !mpi {
				continue
			}
			nc++
		}
		files = append(files, f)
	}
	if nc == 0 {
		return nil, errors.New("reading collector sources: no C source files")
	}
	return files, nil
}

// toolchain is the set of programs and flags of one build.
type toolchain struct {
	cc      []string // C compiler: program path, then leading arguments
	cflags  []string
	mpi     bool
	flavor  string
	mpicc   string // resolved wrapper path, when mpi
	objcopy string // when mpi
	ident   string // versions of the tools, for the cache key
}

func newToolchain(ctx context.Context, mpicc string) (*toolchain, error) {
	if mpicc == "" {
		return newPlainToolchain(ctx)
	}
	return newMPIToolchain(ctx, mpicc)
}

func newPlainToolchain(ctx context.Context) (*toolchain, error) {
	cc := strings.Fields(os.Getenv("CC"))
	if len(cc) == 0 {
		cc = []string{"cc"}
	}
	path, err := exec.LookPath(cc[0])
	if err != nil {
		return nil, fmt.Errorf("C compiler: %w (install cc or set CC)", err)
	}
	cc[0] = path
	ver, err := output(ctx, cc[0], append(cc[1:len(cc):len(cc)], "--version")...)
	if err != nil {
		return nil, fmt.Errorf("C compiler: %w", err)
	}
	return &toolchain{cc: cc, cflags: append([]string(nil), baseCFlags...), ident: ver}, nil
}

func newMPIToolchain(ctx context.Context, mpicc string) (*toolchain, error) {
	path, err := exec.LookPath(mpicc)
	if err != nil {
		return nil, fmt.Errorf("MPI compiler: %w", err)
	}
	flavor, ident, err := flavorOf(ctx, path)
	if err != nil {
		return nil, err
	}
	var cc, mflags []string
	switch flavor {
	case FlavorOpenMPI:
		out, err := output(ctx, path, "-showme:command")
		if err != nil {
			return nil, fmt.Errorf("MPI compiler %s: %w", path, err)
		}
		cc = strings.Fields(out)
		out, err = output(ctx, path, "-showme:compile")
		if err != nil {
			return nil, fmt.Errorf("MPI compiler %s: %w", path, err)
		}
		mflags = strings.Fields(out)
	case FlavorMPICH:
		out, err := output(ctx, path, "-compile_info")
		if err != nil {
			return nil, fmt.Errorf("MPI compiler %s: %w", path, err)
		}
		cc, mflags = mpichCompileInfo(out)
	}
	if len(cc) == 0 {
		return nil, fmt.Errorf("MPI compiler %s: cannot tell its C compiler", path)
	}
	if cc[0], err = exec.LookPath(cc[0]); err != nil {
		return nil, fmt.Errorf("C compiler of %s: %w", path, err)
	}
	ver, err := output(ctx, cc[0], append(cc[1:len(cc):len(cc)], "--version")...)
	if err != nil {
		return nil, fmt.Errorf("C compiler of %s: %w", path, err)
	}
	objcopy := os.Getenv("OBJCOPY")
	if objcopy == "" {
		objcopy = "objcopy"
	}
	if objcopy, err = exec.LookPath(objcopy); err != nil {
		return nil, fmt.Errorf("objcopy: %w (install binutils or set OBJCOPY)", err)
	}
	cflags := append([]string(nil), baseCFlags...)
	cflags = append(cflags, mflags...)
	cflags = append(cflags, "-DIOLENS_MPI=1")
	if flavor == FlavorOpenMPI {
		cflags = append(cflags, "-DIOLENS_MPI_OPENMPI=1")
	} else {
		cflags = append(cflags, "-DIOLENS_MPI_MPICH=1")
	}
	return &toolchain{
		cc: cc, cflags: cflags, mpi: true, flavor: flavor, mpicc: path, objcopy: objcopy,
		ident: ident + "\x00" + ver,
	}, nil
}

// mpichCompileInfo splits the output of MPICH's "mpicc -compile_info"
// into the C compiler and the flags a compilation needs (include
// directories, macros, -pthread); link flags are dropped.
func mpichCompileInfo(out string) (cc, flags []string) {
	f := strings.Fields(out)
	if len(f) == 0 {
		return nil, nil
	}
	cc = f[:1]
	withArg := map[string]bool{"-I": true, "-D": true, "-U": true, "-isystem": true, "-idirafter": true, "-include": true}
	prefixes := []string{"-I", "-D", "-U", "-isystem", "-idirafter"}
	for i := 1; i < len(f); i++ {
		a := f[i]
		switch {
		case withArg[a]:
			if i+1 < len(f) {
				flags = append(flags, a, f[i+1])
				i++
			}
		case a == "-pthread":
			flags = append(flags, a)
		default:
			for _, p := range prefixes {
				if strings.HasPrefix(a, p) {
					flags = append(flags, a)
					break
				}
			}
		}
	}
	return cc, flags
}

// key is the cache key of building files with tc: a hex SHA-256.
func (tc *toolchain) key(files []sourceFile) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	field(cacheFormat)
	field(fmt.Sprint(len(files)))
	for _, f := range files {
		field(f.name)
		field(string(f.data))
	}
	field(strings.Join(tc.cc, "\x00"))
	field(tc.ident)
	field(strings.Join(tc.cflags, "\x00"))
	field(strings.Join(linkLibs, "\x00"))
	field(tc.mpicc)
	field(tc.objcopy)
	return hex.EncodeToString(h.Sum(nil))
}

// purpose says in words for which programs the library is built.
func (tc *toolchain) purpose() string {
	switch {
	case !tc.mpi:
		return "for programs without MPI"
	case tc.flavor == FlavorOpenMPI:
		return "for Open MPI"
	case tc.flavor == FlavorMPICH:
		return "for MPICH"
	}
	return "for " + tc.flavor
}

func (tc *toolchain) describe() string {
	if tc.mpi {
		return fmt.Sprintf("%s MPI, %s", tc.flavor, tc.mpicc)
	}
	return "without MPI, " + tc.cc[0]
}

// build compiles files in dir and returns the path of the linked library
// there.
func (tc *toolchain) build(ctx context.Context, dir string, files []sourceFile, stderr io.Writer) (string, error) {
	var objs []string
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o600); err != nil {
			return "", err
		}
		if filepath.Ext(f.name) == ".c" {
			objs = append(objs, strings.TrimSuffix(f.name, ".c")+".o")
		}
	}
	if stderr != nil {
		stderr = &lockedWriter{w: stderr}
	}
	// Debug information names the sources independently of the temporary
	// directory, so that rebuilding the same key gives the same library.
	cflags := append(tc.cflags[:len(tc.cflags):len(tc.cflags)], "-fdebug-prefix-map="+dir+"=iolens-collector")

	errs := make([]error, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, f := range files {
		if filepath.Ext(f.name) != ".c" {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			obj := strings.TrimSuffix(f.name, ".c") + ".o"
			args := append(tc.cc[1:len(tc.cc):len(tc.cc)], cflags...)
			args = append(args, "-c", "-o", obj, f.name)
			if err := runIn(ctx, dir, stderr, tc.cc[0], args...); err != nil {
				errs[i] = fmt.Errorf("compiling %s: %w", f.name, err)
				return
			}
			if tc.mpi {
				if err := runIn(ctx, dir, stderr, tc.objcopy, "--weaken", obj); err != nil {
					errs[i] = fmt.Errorf("weakening the symbols of %s: %w", obj, err)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", err
	}

	args := append(tc.cc[1:len(tc.cc):len(tc.cc)], "-shared", "-o", LibraryName)
	args = append(args, objs...)
	args = append(args, linkLibs...)
	if err := runIn(ctx, dir, stderr, tc.cc[0], args...); err != nil {
		return "", fmt.Errorf("linking %s: %w", LibraryName, err)
	}
	lib := filepath.Join(dir, LibraryName)
	if err := os.Chmod(lib, 0o700); err != nil {
		return "", err
	}
	return lib, nil
}

// Flavor tells which MPI the compiler wrapper mpicc belongs to:
// FlavorOpenMPI when "mpicc -showme:version" names Open MPI, FlavorMPICH
// when "mpicc -show" prints a command (MPICH and its derivatives).
func Flavor(mpicc string) (string, error) {
	path, err := exec.LookPath(mpicc)
	if err != nil {
		return "", fmt.Errorf("MPI compiler: %w", err)
	}
	fl, _, err := flavorOf(context.Background(), path)
	return fl, err
}

// flavorOf returns the flavor of the wrapper at path and the output that
// identifies its version.
func flavorOf(ctx context.Context, path string) (flavor, ident string, err error) {
	if out, err := output(ctx, path, "-showme:version"); err == nil && strings.Contains(out, "Open MPI") {
		return FlavorOpenMPI, out, nil
	}
	out, err := output(ctx, path, "-show")
	if err == nil && len(strings.Fields(out)) > 0 {
		return FlavorMPICH, out, nil
	}
	if err == nil {
		err = errors.New("it printed nothing")
	}
	return "", "", fmt.Errorf("MPI compiler %s is neither Open MPI's nor MPICH's (-showme:version, -show): %w", path, err)
}

// output runs a program and returns its standard output; the error of a
// failed run carries its standard error.
func output(ctx context.Context, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", commandError(cmd, err, stderr.Bytes())
	}
	return stdout.String(), nil
}

// runIn runs a program in dir. The error of a failed run carries its
// output; the output of a successful one (warnings) is copied to diag when
// diag is not nil.
func runIn(ctx context.Context, dir string, diag io.Writer, name string, args ...string) error {
	var out bytes.Buffer
	both := &lockedWriter{w: &out} // standard output and error are copied concurrently
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout = both
	cmd.Stderr = both
	if err := cmd.Run(); err != nil {
		return commandError(cmd, err, out.Bytes())
	}
	if diag != nil && out.Len() > 0 {
		diag.Write(out.Bytes())
	}
	return nil
}

func commandError(cmd *exec.Cmd, err error, out []byte) error {
	line := strings.Join(cmd.Args, " ")
	msg := strings.TrimRight(string(out), "\n")
	if msg == "" {
		return fmt.Errorf("%s: %w", line, err)
	}
	return fmt.Errorf("%s: %w:\n\t%s", line, err, strings.ReplaceAll(msg, "\n", "\n\t"))
}

// lockedWriter serialises concurrent writes.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
