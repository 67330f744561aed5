package collector

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoMPICC is returned by MPICCFor when no compiler wrapper of the
// wanted MPI is found.
var ErrNoMPICC = errors.New("no mpicc found")

// maxLibraries bounds the shared libraries DetectMPI reads per program.
const maxLibraries = 512

// DetectMPI tells which MPI the command argv runs: FlavorOpenMPI,
// FlavorMPICH, or "" when it finds none. argv[0] is looked up in PATH.
// Every ELF file among the command and its arguments (an argument naming
// an existing file, or a program in PATH) is examined: its shared library
// dependencies, followed transitively through RPATH, RUNPATH,
// LD_LIBRARY_PATH, /etc/ld.so.conf and the standard directories, tell the
// MPI (libmpi.so.40, libopen-rte, libopen-pal: Open MPI; libmpich*,
// libmpi.so.12: MPICH; other libmpi* by the name of the directory they are
// in). When argv[0] is an MPI launcher (mpiexec, mpirun, orterun, ...) the
// application among its arguments wins, and the launcher itself is
// classified last, by its libraries or by its name through symbolic links
// (mpiexec.openmpi, orterun, prterun: Open MPI; mpiexec.hydra,
// mpiexec.mpich: MPICH).
func DetectMPI(argv []string) (flavor string, err error) {
	if len(argv) == 0 {
		return "", errors.New("detecting MPI: empty command")
	}
	exe, err := exec.LookPath(argv[0])
	if err != nil {
		return "", fmt.Errorf("detecting MPI: %w", err)
	}
	r := newLibResolver()
	chain := symlinkChain(exe)
	launcher := isLauncher(chain)
	if !launcher {
		if fl := r.elfFlavor(exe); fl != "" {
			return fl, nil
		}
	}
	for _, a := range argv[1:] {
		if p := argFile(a); p != "" {
			if fl := r.elfFlavor(p); fl != "" {
				return fl, nil
			}
		}
	}
	if launcher {
		if fl := r.elfFlavor(exe); fl != "" {
			return fl, nil
		}
		return launcherFlavor(chain), nil
	}
	return "", nil
}

// argFile returns the regular file an argument names: an existing path,
// or else a program found in PATH; "" when there is none.
func argFile(a string) string {
	if a == "" || strings.HasPrefix(a, "-") {
		return ""
	}
	if st, err := os.Stat(a); err == nil {
		if st.Mode().IsRegular() {
			return a
		}
		return ""
	}
	if strings.ContainsRune(a, '/') || strings.ContainsRune(a, '=') {
		return ""
	}
	if p, err := exec.LookPath(a); err == nil {
		return p
	}
	return ""
}

// symlinkChain returns path and every path its symbolic links lead to,
// one link at a time (e.g. /usr/bin/mpiexec, /etc/alternatives/mpiexec,
// /usr/bin/mpiexec.openmpi, /usr/bin/orterun).
func symlinkChain(path string) []string {
	chain := []string{path}
	for range 40 {
		target, err := os.Readlink(path)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
		chain = append(chain, path)
	}
	return chain
}

func isLauncher(chain []string) bool {
	for _, p := range chain {
		b := filepath.Base(p)
		name, _, _ := strings.Cut(b, ".")
		switch name {
		case "mpiexec", "mpirun", "orterun", "prterun", "prun", "hydra_pmi_proxy":
			return true
		}
	}
	return false
}

// launcherFlavor classifies an MPI launcher by the names along its
// symbolic links.
func launcherFlavor(chain []string) string {
	for _, p := range chain {
		b := filepath.Base(p)
		switch {
		case strings.Contains(b, "openmpi"), b == "orterun", b == "prterun", strings.HasPrefix(b, "prterun."), strings.HasPrefix(b, "orterun."):
			return FlavorOpenMPI
		case strings.Contains(b, "mpich"), strings.Contains(b, "hydra"):
			return FlavorMPICH
		}
	}
	return ""
}

// classifyLibrary tells the MPI a shared library belongs to, from the
// name a program needs (DT_NEEDED) and the paths it resolved to (either
// may be empty); "" when it is not an MPI library.
func classifyLibrary(needed string, paths ...string) string {
	name := filepath.Base(needed)
	switch {
	case strings.HasPrefix(name, "libmpich"):
		return FlavorMPICH
	case strings.HasPrefix(name, "libopen-rte."), strings.HasPrefix(name, "libopen-pal."):
		return FlavorOpenMPI
	case !strings.HasPrefix(name, "libmpi"):
		return ""
	}
	for _, p := range paths {
		p = strings.ToLower(p)
		switch {
		case strings.Contains(p, "openmpi"), strings.Contains(p, "open-mpi"):
			return FlavorOpenMPI
		case strings.Contains(p, "mpich"):
			return FlavorMPICH
		}
	}
	stem, ver, _ := strings.Cut(name, ".so")
	major, _, _ := strings.Cut(strings.TrimPrefix(ver, "."), ".")
	switch {
	case stem == "libmpi" && major == "40",
		strings.HasPrefix(stem, "libmpi_mpifh"), strings.HasPrefix(stem, "libmpi_usempi"),
		stem == "libmpi_cxx", stem == "libmpi_java":
		return FlavorOpenMPI
	case (stem == "libmpi" || stem == "libmpifort" || stem == "libmpicxx") && major == "12":
		return FlavorMPICH
	}
	return ""
}

// libResolver finds shared libraries as the dynamic loader would, without
// its cache: RPATH, LD_LIBRARY_PATH, RUNPATH, the directories of
// /etc/ld.so.conf, then the standard directories.
type libResolver struct {
	ldLibraryPath []string
	conf          []string
}

func newLibResolver() *libResolver {
	r := &libResolver{conf: ldSoConf("/etc/ld.so.conf", 0)}
	for _, d := range filepath.SplitList(os.Getenv("LD_LIBRARY_PATH")) {
		if d != "" {
			r.ldLibraryPath = append(r.ldLibraryPath, d)
		}
	}
	return r
}

// ldSoConf returns the directories listed in an ld.so.conf file and the
// files it includes.
func ldSoConf(path string, depth int) []string {
	data, err := os.ReadFile(path)
	if err != nil || depth > 8 {
		return nil
	}
	var dirs []string
	for line := range strings.Lines(string(data)) {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "include"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			for _, pat := range strings.Fields(rest) {
				if !filepath.IsAbs(pat) {
					pat = filepath.Join(filepath.Dir(path), pat)
				}
				matches, _ := filepath.Glob(pat)
				for _, m := range matches {
					dirs = append(dirs, ldSoConf(m, depth+1)...)
				}
			}
			continue
		}
		if line != "" && filepath.IsAbs(line) {
			dirs = append(dirs, line)
		}
	}
	return dirs
}

// standardDirs returns the default library directories for a machine.
func standardDirs(m elf.Machine, c elf.Class) []string {
	var triplet string
	switch m {
	case elf.EM_X86_64:
		triplet = "x86_64-linux-gnu"
	case elf.EM_AARCH64:
		triplet = "aarch64-linux-gnu"
	case elf.EM_PPC64:
		triplet = "powerpc64le-linux-gnu"
	case elf.EM_RISCV:
		triplet = "riscv64-linux-gnu"
	case elf.EM_386:
		triplet = "i386-linux-gnu"
	}
	var dirs []string
	if triplet != "" {
		dirs = append(dirs, "/lib/"+triplet, "/usr/lib/"+triplet)
	}
	if c == elf.ELFCLASS64 {
		dirs = append(dirs, "/lib64", "/usr/lib64")
	}
	return append(dirs, "/lib", "/usr/lib")
}

// elfObject is what DetectMPI needs of one ELF file.
type elfObject struct {
	class   elf.Class
	machine elf.Machine
	needed  []string
	rpath   []string // with $ORIGIN expanded
	runpath []string
}

func readELF(path string) (*elfObject, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := &elfObject{class: f.Class, machine: f.Machine}
	if o.needed, err = f.ImportedLibraries(); err != nil {
		return nil, err
	}
	origin := filepath.Dir(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		origin = filepath.Dir(real)
	}
	expand := func(tag elf.DynTag) []string {
		vals, _ := f.DynString(tag)
		var dirs []string
		for _, v := range vals {
			for _, d := range strings.Split(v, ":") {
				d = strings.ReplaceAll(d, "${ORIGIN}", origin)
				d = strings.ReplaceAll(d, "$ORIGIN", origin)
				if d != "" {
					dirs = append(dirs, d)
				}
			}
		}
		return dirs
	}
	o.rpath = expand(elf.DT_RPATH)
	o.runpath = expand(elf.DT_RUNPATH)
	return o, nil
}

// elfFlavor classifies the program or library at path by its shared
// library dependencies, transitively; "" when it is not an ELF file or
// needs no MPI library.
func (r *libResolver) elfFlavor(path string) string {
	root, err := readELF(path)
	if err != nil {
		return ""
	}
	// The executable's RPATH also serves the libraries without RUNPATH.
	exeRpath := root.rpath
	if len(root.runpath) > 0 {
		exeRpath = nil
	}
	std := standardDirs(root.machine, root.class)
	seen := map[string]bool{}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		seen[real] = true
	}
	queue := []*elfObject{root}
	for len(queue) > 0 && len(seen) < maxLibraries {
		o := queue[0]
		queue = queue[1:]
		var dirs []string
		if len(o.runpath) == 0 {
			dirs = append(dirs, o.rpath...)
			if o != root {
				dirs = append(dirs, exeRpath...)
			}
		}
		dirs = append(dirs, r.ldLibraryPath...)
		dirs = append(dirs, o.runpath...)
		dirs = append(dirs, r.conf...)
		dirs = append(dirs, std...)
		for _, n := range o.needed {
			found, real, lib := r.find(n, dirs, root.class, root.machine)
			if fl := classifyLibrary(n, found, real); fl != "" {
				return fl
			}
			if lib == nil || seen[real] {
				continue
			}
			seen[real] = true
			queue = append(queue, lib)
		}
	}
	return ""
}

// find looks for the library needed in dirs and returns the path found,
// the path it resolves to through symbolic links, and the library, or
// zero values when no compatible library is found.
func (r *libResolver) find(needed string, dirs []string, c elf.Class, m elf.Machine) (found, real string, lib *elfObject) {
	candidates := []string{needed}
	if !strings.ContainsRune(needed, '/') {
		candidates = candidates[:0]
		for _, d := range dirs {
			candidates = append(candidates, filepath.Join(d, needed))
		}
	}
	for _, p := range candidates {
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		o, err := readELF(rp)
		if err != nil || o.class != c || o.machine != m {
			continue
		}
		return p, rp, o
	}
	return "", "", nil
}

// MPICCFor returns the MPI compiler wrapper of the given flavor:
// $IOLENS_MPICC when set, else mpicc.openmpi or mpicc.mpich in PATH, else
// mpicc in PATH when it belongs to that MPI. It returns an error wrapping
// ErrNoMPICC when there is none.
func MPICCFor(flavor string) (string, error) {
	if flavor != FlavorOpenMPI && flavor != FlavorMPICH {
		return "", fmt.Errorf("unknown MPI flavor %q (want %s or %s)", flavor, FlavorOpenMPI, FlavorMPICH)
	}
	if p := os.Getenv("IOLENS_MPICC"); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("IOLENS_MPICC: %w", err)
		}
		return path, nil
	}
	if p, err := exec.LookPath("mpicc." + flavor); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("mpicc"); err == nil {
		if fl, err := Flavor(p); err == nil && fl == flavor {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w for %s (install it or set IOLENS_MPICC)", ErrNoMPICC, flavor)
}
