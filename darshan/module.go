package darshan

import "strconv"

// ModuleID identifies an instrumentation module; it is the module's slot in
// the header of a current (3.41) log. Logs of older formats are remapped to
// these ids when they are opened.
type ModuleID int

// Module ids of the current log format.
const (
	ModNull        ModuleID = iota // NULL (example module)
	ModPOSIX                       // POSIX
	ModMPIIO                       // MPI-IO
	ModH5F                         // H5F (HDF5 files; "HDF5" before 3.2)
	ModH5D                         // H5D (HDF5 datasets)
	ModPnetCDFFile                 // PNETCDF_FILE ("PNETCDF" before 3.4.1)
	ModPnetCDFVar                  // PNETCDF_VAR
	ModBGQ                         // BG/Q
	ModLustre                      // LUSTRE
	ModSTDIO                       // STDIO
	ModDXTPOSIX                    // DXT_POSIX
	ModDXTMPIIO                    // DXT_MPIIO
	ModMDHIM                       // MDHIM
	ModAPXC                        // APXC
	ModAPMPI                       // APMPI
	ModHeatmap                     // HEATMAP
	ModDFS                         // DFS
	ModDAOS                        // DAOS

	// NumKnownModules is the number of module ids this package knows.
	NumKnownModules = iota
)

// MaxModules is the number of module slots in a current log header.
const MaxModules = 64

// Module describes one module: its printed name, the newest record version
// this package reads, and its counter tables. The tables define the order of
// [Record.Counters] and [Record.FCounters] for records of the module.
type Module struct {
	ID      ModuleID
	Name    string // as printed by darshan-parser, e.g. "MPI-IO"
	Version uint32 // newest record version; records are converted to it
	// Counters and FCounters name the integer and floating-point counters of
	// a record, in record order. For APMPI and APXC they describe the
	// per-process records; HeaderCounters and HeaderFCounters describe the
	// module's header record.
	Counters, FCounters             []string
	HeaderCounters, HeaderFCounters []string
}

var modules = [NumKnownModules]Module{
	ModNull:        {ModNull, "NULL", 1, nullCounters, nullFCounters, nil, nil},
	ModPOSIX:       {ModPOSIX, "POSIX", 4, posixCounters, posixFCounters, nil, nil},
	ModMPIIO:       {ModMPIIO, "MPI-IO", 3, mpiioCounters, mpiioFCounters, nil, nil},
	ModH5F:         {ModH5F, "H5F", 3, h5fCounters, h5fFCounters, nil, nil},
	ModH5D:         {ModH5D, "H5D", 2, h5dCounters, h5dFCounters, nil, nil},
	ModPnetCDFFile: {ModPnetCDFFile, "PNETCDF_FILE", 3, pnetcdfFileCounters, pnetcdfFileFCounters, nil, nil},
	ModPnetCDFVar:  {ModPnetCDFVar, "PNETCDF_VAR", 1, pnetcdfVarCounters, pnetcdfVarFCounters, nil, nil},
	ModBGQ:         {ModBGQ, "BG/Q", 2, bgqCounters, bgqFCounters, nil, nil},
	ModLustre:      {ModLustre, "LUSTRE", 2, lustreCounters, nil, nil, nil},
	ModSTDIO:       {ModSTDIO, "STDIO", 2, stdioCounters, stdioFCounters, nil, nil},
	ModDXTPOSIX:    {ModDXTPOSIX, "DXT_POSIX", 2, nil, nil, nil, nil},
	ModDXTMPIIO:    {ModDXTMPIIO, "DXT_MPIIO", 3, nil, nil, nil, nil},
	ModMDHIM:       {ModMDHIM, "MDHIM", 1, mdhimCounters, mdhimFCounters, nil, nil},
	ModAPXC:        {ModAPXC, "APXC", 1, apxcCounters, nil, apxcHeaderCounters, nil},
	ModAPMPI:       {ModAPMPI, "APMPI", 1, apmpiCounters, apmpiFCounters, apmpiHeaderCounters, apmpiHeaderFCounters},
	ModHeatmap:     {ModHeatmap, "HEATMAP", 1, nil, heatmapFCounters, nil, nil},
	ModDFS:         {ModDFS, "DFS", 1, dfsCounters, dfsFCounters, nil, nil},
	ModDAOS:        {ModDAOS, "DAOS", 1, daosCounters, daosFCounters, nil, nil},
}

// Counters of modules whose records are not a fixed counter array: the
// fixed part of a LUSTRE record, the scalar of a HEATMAP record, and the
// header records of the AutoPerf modules.
var (
	lustreCounters       = []string{"LUSTRE_NUM_COMPONENTS", "LUSTRE_NUM_STRIPES"}
	heatmapFCounters     = []string{"HEATMAP_F_BIN_WIDTH_SECONDS"}
	apmpiHeaderCounters  = []string{"APMPI_MAGIC", "APMPI_SYNC_FLAG"}
	apmpiHeaderFCounters = []string{"MPI_TOTAL_COMM_TIME_VARIANCE", "MPI_TOTAL_COMM_SYNC_TIME_VARIANCE"}
	apxcHeaderCounters   = []string{"APXC_MAGIC", "APXC_BLADES", "APXC_CHASSIS", "APXC_GROUPS",
		"APXC_MEMORY_MODE", "APXC_CLUSTER_MODE", "APXC_APPLICATION_ID"}
)

// Modules returns the descriptions of all known modules in id order.
func Modules() []Module {
	out := make([]Module, len(modules))
	copy(out, modules[:])
	return out
}

// Known reports whether this package knows module id m.
func (m ModuleID) Known() bool { return m >= 0 && int(m) < NumKnownModules }

// Info returns the description of module m, or nil for an unknown id.
func (m ModuleID) Info() *Module {
	if !m.Known() {
		return nil
	}
	return &modules[m]
}

// String returns the module's printed name, e.g. "MPI-IO".
func (m ModuleID) String() string {
	if !m.Known() {
		return "module(" + strconv.Itoa(int(m)) + ")"
	}
	return modules[m].Name
}

// ModuleByName returns the id of the module with the given printed name.
func ModuleByName(name string) (ModuleID, bool) {
	for i := range modules {
		if modules[i].Name == name {
			return ModuleID(i), true
		}
	}
	return 0, false
}

// CounterIndex returns the index of the named integer counter of module m in
// [Record.Counters], or -1.
func (m ModuleID) CounterIndex(name string) int { return indexOf(m.Info(), name, false) }

// FCounterIndex returns the index of the named floating-point counter of
// module m in [Record.FCounters], or -1.
func (m ModuleID) FCounterIndex(name string) int { return indexOf(m.Info(), name, true) }

func indexOf(mod *Module, name string, float bool) int {
	if mod == nil {
		return -1
	}
	list := mod.Counters
	if float {
		list = mod.FCounters
	}
	for i, n := range list {
		if n == name {
			return i
		}
	}
	return -1
}
