package tune

import (
	"fmt"
	"strings"
)

// presetNames are the names of the built-in presets, in the order Presets
// lists them.
var presetNames = []string{"mpiio", "hdf5", "stdio", "lustre"}

// presetParams returns the parameters of a built-in preset (new values on
// every call, so that callers may change them). The values are in
// increasing order and Default is what the library does when the
// parameter is not set.
func presetParams(name string) ([]Param, bool) {
	rw := []string{"automatic", "enable", "disable"}
	words := func() []string { return append([]string(nil), rw...) }
	switch name {
	case "mpiio":
		return []Param{
			{Name: "cb_nodes", Kind: MPIIOHint, Values: []string{"1", "2", "4"},
				Doc: "number of aggregators of collective buffering"},
			{Name: "cb_buffer_size", Kind: MPIIOHint, Values: []string{"1M", "4M", "16M"}, Default: "16M",
				Doc: "size of the buffer of each aggregator"},
			{Name: "romio_cb_write", Kind: MPIIOHint, Values: words(),
				Doc: "collective buffering of collective writes"},
			{Name: "romio_cb_read", Kind: MPIIOHint, Values: words(),
				Doc: "collective buffering of collective reads"},
			{Name: "romio_ds_write", Kind: MPIIOHint, Values: words(),
				Doc: "data sieving of independent writes"},
			{Name: "romio_ds_read", Kind: MPIIOHint, Values: words(),
				Doc: "data sieving of independent reads"},
			{Name: "ind_wr_buffer_size", Kind: MPIIOHint, Values: []string{"64K", "512K", "4M"}, Default: "512K",
				Doc: "size of the data-sieving buffer of independent writes"},
		}, true
	case "lustre":
		return []Param{
			{Name: "striping_factor", Kind: MPIIOHint, Values: []string{"1", "2", "4", "8"},
				Doc: "number of Lustre OSTs a new file is striped over"},
			{Name: "striping_unit", Kind: MPIIOHint, Values: []string{"1M", "4M", "16M"},
				Doc: "Lustre stripe size of a new file"},
		}, true
	case "hdf5":
		return []Param{
			{Name: "h5_alignment", Kind: HDF5, Key: "alignment", Values: []string{"1", "64K", "1M", "4M"},
				Doc: "alignment of objects in the file (H5Pset_alignment)"},
			{Name: "h5_alignment_threshold", Kind: HDF5, Key: "alignment_threshold", Values: []string{"1", "64K"},
				Doc: "size from which objects are aligned (H5Pset_alignment)"},
			{Name: "h5_sieve_buf_size", Kind: HDF5, Key: "sieve_buf_size", Values: []string{"64K", "1M", "4M"},
				Doc: "size of the data-sieving buffer (H5Pset_sieve_buf_size)"},
			{Name: "h5_meta_block_size", Kind: HDF5, Key: "meta_block_size", Values: []string{"2K", "64K", "1M"},
				Doc: "size of metadata block allocations (H5Pset_meta_block_size)"},
			{Name: "h5_chunk_cache", Kind: HDF5, Key: "chunk_cache_bytes", Values: []string{"1M", "16M", "64M"},
				Doc: "size of the raw-data chunk cache of each dataset (H5Pset_cache)"},
			{Name: "h5_coll_metadata_read", Kind: HDF5, Key: "coll_metadata_read", Values: []string{"false", "true"},
				Doc: "collective metadata reads (H5Pset_all_coll_metadata_ops)"},
			{Name: "h5_coll_metadata_write", Kind: HDF5, Key: "coll_metadata_write", Values: []string{"false", "true"},
				Doc: "collective metadata writes (H5Pset_coll_metadata_write)"},
		}, true
	case "stdio":
		return []Param{
			{Name: "stdio_buffer", Kind: Stdio, Key: StdioBufferKey, Values: []string{"4K", "64K", "1M"},
				Doc: "size of the buffer of every stream (setvbuf)"},
		}, true
	}
	return nil, false
}

// Presets returns the names of the built-in presets: "mpiio" (ROMIO
// hints), "hdf5" (file-access properties), "stdio" (the stream buffer) and
// "lustre" (striping hints, which only Lustre honours).
func Presets() []string { return append([]string(nil), presetNames...) }

// Preset returns the space of the built-in presets named in names,
// separated by commas (e.g. "hdf5,mpiio"), without constraints.
func Preset(names string) (*Space, error) {
	var params []Param
	seen := map[string]bool{}
	for n := range strings.SplitSeq(names, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" {
			continue
		}
		ps, ok := presetParams(n)
		if !ok {
			return nil, fmt.Errorf("unknown preset %q (known: %s)", n, strings.Join(presetNames, ", "))
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		params = append(params, ps...)
	}
	if len(params) == 0 {
		return nil, fmt.Errorf("preset %q: no preset named", names)
	}
	s, err := NewSpace(params, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("preset %s: %w", names, err)
	}
	return s, nil
}

// Lookup returns the parameter of any built-in preset named name, with its
// values in canonical form.
func Lookup(name string) (Param, bool) {
	for _, n := range presetNames {
		ps, _ := presetParams(n)
		for _, p := range ps {
			if p.Name == name {
				q, err := p.normalize()
				if err != nil {
					panic(fmt.Sprintf("tune: preset %s: %v", n, err)) // a bug of the presets
				}
				return q, true
			}
		}
	}
	return Param{}, false
}
