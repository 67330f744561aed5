package collector

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Injection is what the collector sets in the recorded processes without a
// change to their source: MPI-IO hints merged into the info of every
// MPI_File_open (of the files matching HintFiles, when set), HDF5
// file-access properties set at every H5Fcreate and H5Fopen, and a stdio
// buffer for every stream fopen opens (collector/c/inject.c). How many opens
// got them is counted in each process's store and summed in the log's
// metadata, with Label.
type Injection struct {
	// Hints are MPI-IO hints (key, value), e.g. {"cb_nodes", "2"}.
	Hints [][2]string
	// HintFiles is an extended regular expression of the file names the
	// hints apply to; empty means every file.
	HintFiles string
	// HDF5 maps HDF5 file-access properties to values: alignment (bytes,
	// H5Pset_alignment, whose threshold is alignment_threshold, default
	// 1), sieve_buf_size, meta_block_size, chunk_cache_bytes (the raw
	// chunk cache of H5Pset_cache), coll_metadata_read and
	// coll_metadata_write (0 or 1).
	HDF5 map[string]int64
	// StdioBuffer is the size of the buffer of every stream (0: none).
	StdioBuffer int64
	// Label names the configuration in the log's metadata (iolens_set=...),
	// e.g. "cb_nodes=2 h5_alignment=1048576".
	Label string
}

// HDF5Properties are the names Injection.HDF5 accepts.
var HDF5Properties = []string{"alignment", "alignment_threshold", "sieve_buf_size", "meta_block_size",
	"chunk_cache_bytes", "coll_metadata_read", "coll_metadata_write"}

// IsZero reports whether the injection sets nothing.
func (in *Injection) IsZero() bool {
	return in == nil || len(in.Hints) == 0 && len(in.HDF5) == 0 && in.StdioBuffer == 0
}

// Environ returns the environment variables that carry the injection to
// the preload library ("NAME=value", sorted), for job scripts that run
// "iolens run" (which also reads IOLENS_SET_LABEL into the logs' metadata)
// or preload the library themselves.
func (in *Injection) Environ() ([]string, error) {
	set, err := in.env()
	if err != nil {
		return nil, err
	}
	if in != nil && in.Label != "" {
		set["IOLENS_SET_LABEL"] = in.Label
	}
	out := make([]string, 0, len(set))
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out, nil
}

// env returns the environment variables that carry the injection to the
// preload library.
func (in *Injection) env() (map[string]string, error) {
	set := map[string]string{}
	if in.IsZero() {
		return set, nil
	}
	if len(in.Hints) > 0 {
		var b strings.Builder
		for i, h := range in.Hints {
			if h[0] == "" || strings.ContainsAny(h[0]+h[1], ";=\x00") {
				return nil, fmt.Errorf("MPI-IO hint %q=%q: keys and values cannot be empty or hold ';' or '='", h[0], h[1])
			}
			if i > 0 {
				b.WriteByte(';')
			}
			b.WriteString(h[0] + "=" + h[1])
		}
		set["IOLENS_SET_MPIIO"] = b.String()
		if in.HintFiles != "" {
			set["IOLENS_SET_MPIIO_FILES"] = in.HintFiles
		}
	}
	if len(in.HDF5) > 0 {
		var parts []string
		for _, name := range HDF5Properties {
			if v, ok := in.HDF5[name]; ok {
				if v < 0 {
					return nil, fmt.Errorf("HDF5 property %s = %d: cannot be negative", name, v)
				}
				parts = append(parts, name+"="+strconv.FormatInt(v, 10))
			}
		}
		for name := range in.HDF5 {
			if !slices.Contains(HDF5Properties, name) {
				return nil, fmt.Errorf("unknown HDF5 property %q (known: %s)", name, strings.Join(HDF5Properties, ", "))
			}
		}
		set["IOLENS_SET_HDF5"] = strings.Join(parts, ";")
	}
	if in.StdioBuffer < 0 {
		return nil, errors.New("stdio buffer size cannot be negative")
	}
	if in.StdioBuffer > 0 {
		set["IOLENS_SET_STDIO_BUFFER"] = strconv.FormatInt(in.StdioBuffer, 10)
	}
	return set, nil
}

// injectionMetadata returns the job metadata lines of an injection: the
// configuration's label and how many opens of the processes got it.
func injectionMetadata(label string, procs []*mergeProc) string {
	var n [3]uint64
	for _, p := range procs {
		for i, v := range p.s.Header.Injected {
			n[i] += v
		}
	}
	label = strings.ReplaceAll(stripControl(label), "=", ":")
	if label == "" && n == [3]uint64{} {
		return ""
	}
	return fmt.Sprintf("iolens_set=%s\niolens_set_opens=mpiio:%d,hdf5:%d,stdio:%d\n", label, n[0], n[1], n[2])
}
