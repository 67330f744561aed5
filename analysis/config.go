package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// Config holds the thresholds of the insights. DefaultConfig returns
// Drishti's defaults for Drishti's codes and ours for the others; a file
// read by LoadConfig overrides some of them.
// Ratios are fractions in [0, 1].
type Config struct {
	// ImbalanceOperations: read/write imbalance, by count or bytes, above
	// which a job is called read- or write-intensive (P01–P04).
	ImbalanceOperations float64 `toml:"imbalance_operations" json:"imbalance_operations"`
	// SmallBytes: requests below this size are small (P05, P06, P15,
	// P16). It must be an edge of Darshan's size histogram: 100, 1024,
	// 10240, 102400, 1048576, 4194304, 10485760, 104857600 or 1073741824.
	SmallBytes int64 `toml:"small_bytes" json:"small_bytes"`
	// SmallRequests: share of small requests above which P05, P06, P15,
	// P16 fire, provided there are more than SmallRequestsAbsolute.
	SmallRequests         float64 `toml:"small_requests" json:"small_requests"`
	SmallRequestsAbsolute int64   `toml:"small_requests_absolute" json:"small_requests_absolute"`
	// MisalignedRequests: share of misaligned requests above which P07
	// and P08 fire.
	MisalignedRequests float64 `toml:"misaligned_requests" json:"misaligned_requests"`
	// MetadataTimeRank: seconds of metadata time of one rank above which
	// P17 fires.
	MetadataTimeRank float64 `toml:"metadata_time_rank" json:"metadata_time_rank"`
	// RandomOperations: share of random requests above which P11 and P13
	// fire, provided there are more than RandomOperationsAbsolute.
	RandomOperations         float64 `toml:"random_operations" json:"random_operations"`
	RandomOperationsAbsolute int64   `toml:"random_operations_absolute" json:"random_operations_absolute"`
	// ImbalanceStragglers: imbalance between the slowest and fastest rank
	// of a shared file above which P18 and P19 fire.
	ImbalanceStragglers float64 `toml:"imbalance_stragglers" json:"imbalance_stragglers"`
	// ImbalanceSize: imbalance of bytes between the ranks of a file above
	// which P21 and P22 fire.
	ImbalanceSize float64 `toml:"imbalance_size" json:"imbalance_size"`
	// InterfaceSTDIO: share of bytes moved through STDIO above which S01
	// fires.
	InterfaceSTDIO float64 `toml:"interface_stdio" json:"interface_stdio"`
	// CollectiveOperations: share of independent MPI-IO operations above
	// which a file is listed by M02 and M03; CollectiveOperationsAbsolute
	// is the number of MPI-IO operations above which they fire.
	CollectiveOperations         float64 `toml:"collective_operations" json:"collective_operations"`
	CollectiveOperationsAbsolute int64   `toml:"collective_operations_absolute" json:"collective_operations_absolute"`

	// Thresholds of the insights from DXT traces (D01–D06).

	// DXTMaxPhases: number of I/O phases of one interface above which D01
	// fires.
	DXTMaxPhases int64 `toml:"dxt_max_phases" json:"dxt_max_phases"`
	// DXTStragglerRatio and DXTStragglerSeconds: a rank is a straggler in
	// a phase (D02) when its I/O time there is more than
	// DXTStragglerRatio times the median of the phase's ranks and more
	// than DXTStragglerSeconds above it, while its bandwidth is below the
	// median bandwidth divided by DXTStragglerRatio.
	DXTStragglerRatio   float64 `toml:"dxt_straggler_ratio" json:"dxt_straggler_ratio"`
	DXTStragglerSeconds float64 `toml:"dxt_straggler_seconds" json:"dxt_straggler_seconds"`
	// DXTRank0Share: share of the traced bytes moved by rank 0 above
	// which D03 fires (with more than one process).
	DXTRank0Share float64 `toml:"dxt_rank0_share" json:"dxt_rank0_share"`
	// DXTImbalance: (max − min) / max of the traced bytes per rank above
	// which D04 fires.
	DXTImbalance float64 `toml:"dxt_imbalance" json:"dxt_imbalance"`
	// DXTRedundant: share of a file's traced bytes read (or written)
	// more than once above which D05 lists the file.
	DXTRedundant float64 `toml:"dxt_redundant" json:"dxt_redundant"`
	// DXTIOTime: share of the run time a rank spends in traced I/O above
	// which D06 is HIGH rather than INFO.
	DXTIOTime float64 `toml:"dxt_io_time" json:"dxt_io_time"`

	// Thresholds of the HDF5 (H..), PnetCDF (N..) and Lustre (L..)
	// insights. Small accesses (H01, N02) use SmallBytes, SmallRequests
	// and SmallRequestsAbsolute; independent transfers (H02, N01) are HIGH
	// above CollectiveOperationsAbsolute operations.

	// HDF5DatasetOpens: opens of one dataset per rank above which H03
	// lists the dataset; HDF5Flushes: flushes of one file per rank
	// (H5F_FLUSHES plus its datasets' H5D_FLUSHES) above which H03 lists
	// the file.
	HDF5DatasetOpens int64 `toml:"hdf5_dataset_opens" json:"hdf5_dataset_opens"`
	HDF5Flushes      int64 `toml:"hdf5_flushes" json:"hdf5_flushes"`
	// HDF5ChunkRatio: common access size / chunk size above which H04
	// lists a chunked dataset.
	HDF5ChunkRatio float64 `toml:"hdf5_chunk_ratio" json:"hdf5_chunk_ratio"`
	// PnetCDFRedefs: re-define calls per rank on one file above which N03
	// lists the file.
	PnetCDFRedefs int64 `toml:"pnetcdf_redefs" json:"pnetcdf_redefs"`
	// LustreMinAccess: common access sizes below this are not compared
	// with the stripe size (L01).
	LustreMinAccess int64 `toml:"lustre_min_access" json:"lustre_min_access"`
	// LustreLargeFile: bytes moved to or from a shared file on a single
	// OST above which L02 fires.
	LustreLargeFile int64 `toml:"lustre_large_file" json:"lustre_large_file"`
	// LustreOSTImbalance: files on the busiest OST / mean files per OST
	// used above which L03 fires.
	LustreOSTImbalance float64 `toml:"lustre_ost_imbalance" json:"lustre_ost_imbalance"`
}

// DefaultConfig returns the default thresholds: Drishti's for its codes.
func DefaultConfig() Config {
	return Config{
		ImbalanceOperations:          0.1,
		SmallBytes:                   1 << 20,
		SmallRequests:                0.1,
		SmallRequestsAbsolute:        1000,
		MisalignedRequests:           0.1,
		MetadataTimeRank:             30,
		RandomOperations:             0.2,
		RandomOperationsAbsolute:     1000,
		ImbalanceStragglers:          0.15,
		ImbalanceSize:                0.3,
		InterfaceSTDIO:               0.1,
		CollectiveOperations:         0.5,
		CollectiveOperationsAbsolute: 1000,
		DXTMaxPhases:                 10,
		DXTStragglerRatio:            2,
		DXTStragglerSeconds:          0.1,
		DXTRank0Share:                0.5,
		DXTImbalance:                 0.3,
		DXTRedundant:                 0.1,
		DXTIOTime:                    0.5,
		HDF5DatasetOpens:             10,
		HDF5Flushes:                  10,
		HDF5ChunkRatio:               10,
		PnetCDFRedefs:                1,
		LustreMinAccess:              64 << 10,
		LustreLargeFile:              1 << 30,
		LustreOSTImbalance:           2,
	}
}

// sizeEdges are the upper edges of Darshan's access-size histogram bins
// (POSIX_SIZE_READ_0_100 ... POSIX_SIZE_READ_100M_1G).
var sizeEdges = []int64{100, 1 << 10, 10 << 10, 100 << 10, 1 << 20, 4 << 20, 10 << 20, 100 << 20, 1 << 30}

// Validate reports the first threshold out of its range.
func (c Config) Validate() error {
	ratios := []struct {
		key string
		v   float64
	}{
		{"imbalance_operations", c.ImbalanceOperations},
		{"small_requests", c.SmallRequests},
		{"misaligned_requests", c.MisalignedRequests},
		{"random_operations", c.RandomOperations},
		{"imbalance_stragglers", c.ImbalanceStragglers},
		{"imbalance_size", c.ImbalanceSize},
		{"interface_stdio", c.InterfaceSTDIO},
		{"collective_operations", c.CollectiveOperations},
		{"dxt_rank0_share", c.DXTRank0Share},
		{"dxt_imbalance", c.DXTImbalance},
		{"dxt_redundant", c.DXTRedundant},
		{"dxt_io_time", c.DXTIOTime},
	}
	for _, r := range ratios {
		if !(r.v >= 0 && r.v <= 1) { // also rejects NaN
			return fmt.Errorf("%s = %v: must be between 0 and 1", r.key, r.v)
		}
	}
	counts := []struct {
		key string
		v   int64
	}{
		{"small_requests_absolute", c.SmallRequestsAbsolute},
		{"random_operations_absolute", c.RandomOperationsAbsolute},
		{"collective_operations_absolute", c.CollectiveOperationsAbsolute},
		{"dxt_max_phases", c.DXTMaxPhases},
		{"hdf5_dataset_opens", c.HDF5DatasetOpens},
		{"hdf5_flushes", c.HDF5Flushes},
		{"pnetcdf_redefs", c.PnetCDFRedefs},
		{"lustre_min_access", c.LustreMinAccess},
		{"lustre_large_file", c.LustreLargeFile},
	}
	for _, n := range counts {
		if n.v < 0 {
			return fmt.Errorf("%s = %d: must not be negative", n.key, n.v)
		}
	}
	if !(c.MetadataTimeRank >= 0) || c.MetadataTimeRank > 1e12 {
		return fmt.Errorf("metadata_time_rank = %v: must be a non-negative number of seconds", c.MetadataTimeRank)
	}
	if !(c.DXTStragglerRatio >= 1) || c.DXTStragglerRatio > 1e6 {
		return fmt.Errorf("dxt_straggler_ratio = %v: must be a ratio of at least 1", c.DXTStragglerRatio)
	}
	if !(c.DXTStragglerSeconds >= 0) || c.DXTStragglerSeconds > 1e12 {
		return fmt.Errorf("dxt_straggler_seconds = %v: must be a non-negative number of seconds", c.DXTStragglerSeconds)
	}
	for _, r := range []struct {
		key string
		v   float64
	}{{"hdf5_chunk_ratio", c.HDF5ChunkRatio}, {"lustre_ost_imbalance", c.LustreOSTImbalance}} {
		if !(r.v >= 1) || r.v > 1e12 {
			return fmt.Errorf("%s = %v: must be a ratio of at least 1", r.key, r.v)
		}
	}
	ok := false
	for _, e := range sizeEdges {
		ok = ok || c.SmallBytes == e
	}
	if !ok {
		return fmt.Errorf("small_bytes = %d: must be an edge of Darshan's size histogram (%s)", c.SmallBytes, edgeList())
	}
	return nil
}

func edgeList() string {
	s := make([]string, len(sizeEdges))
	for i, e := range sizeEdges {
		s[i] = fmt.Sprint(e)
	}
	return strings.Join(s, ", ")
}

// LoadConfig reads thresholds from a TOML file (extension .toml) or a JSON
// file (.json), starting from DefaultConfig: keys the file leaves out keep
// their defaults. Unknown keys and values out of range are errors naming
// the file and the key.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("reading configuration: %w", err)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&cfg)
		if err != nil {
			return cfg, fmt.Errorf("configuration %s: %w", path, err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			return cfg, fmt.Errorf("configuration %s: unknown key %q", path, und[0].String())
		}
	case ".json":
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				return cfg, fmt.Errorf("configuration %s: unknown key %s", path, msg)
			}
			return cfg, fmt.Errorf("configuration %s: %w", path, err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return cfg, fmt.Errorf("configuration %s: data after the JSON object", path)
		}
	default:
		return cfg, fmt.Errorf("configuration %s: unknown format (want a .toml or .json file)", path)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("configuration %s: %w", path, err)
	}
	return cfg, nil
}
