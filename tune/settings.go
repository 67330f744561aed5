package tune

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Settings is what a configuration sets, by how it is applied: what an
// executor gives the collector's injection, the environment and the
// command line of a run.
type Settings struct {
	// Hints are the MPI-IO hints (name, value), in the order of the
	// space's parameters.
	Hints [][2]string
	// HDF5 maps HDF5 properties (HDF5Keys) to their values; booleans are
	// 0 or 1.
	HDF5 map[string]int64
	// StdioBuffer is the size of the buffer of every stream, 0 when not
	// set.
	StdioBuffer int64
	// Env are the environment variables, as "NAME=value".
	Env []string
	// Args maps the placeholders of the command line to their values.
	Args map[string]string
	// Ranks is the number of MPI ranks, 0 when not set.
	Ranks int
	// Label names the configuration (Config.String).
	Label string
}

// Settings returns what configuration c sets. Parameters c does not set
// are not set (the run keeps the library's default); a setting of a
// parameter the space does not have, or a value its parameter rejects
// (Param.Parse), is an error.
func (s *Space) Settings(c Config) (Settings, error) {
	st := Settings{HDF5: map[string]int64{}, Args: map[string]string{}, Label: c.String()}
	for _, set := range c {
		i, ok := s.index[set.Name]
		if !ok {
			return Settings{}, fmt.Errorf("configuration %s: unknown parameter %s", c, set.Name)
		}
		p := s.params[i]
		v, err := p.Parse(set.Value)
		if err != nil {
			return Settings{}, fmt.Errorf("configuration %s: %w", c, err)
		}
		switch p.Kind {
		case MPIIOHint:
			st.Hints = append(st.Hints, [2]string{p.Key, v})
		case HDF5:
			n, err := p.Int(v)
			if err != nil {
				return Settings{}, fmt.Errorf("configuration %s: %w", c, err)
			}
			st.HDF5[p.Key] = n
		case Stdio:
			n, err := p.Int(v)
			if err != nil {
				return Settings{}, fmt.Errorf("configuration %s: %w", c, err)
			}
			st.StdioBuffer = n
		case Env:
			st.Env = append(st.Env, p.Key+"="+v)
		case Arg:
			st.Args[p.Key] = v
		case Ranks:
			n, err := strconv.Atoi(v)
			if err != nil {
				return Settings{}, fmt.Errorf("configuration %s: parameter %s: %w", c, p.Name, err)
			}
			st.Ranks = n
		}
	}
	return st, nil
}

// ExpandArgs returns args with every "{name}" of a placeholder of Args
// replaced by its value, in one pass (a value is not expanded again);
// other braces are kept.
func (st Settings) ExpandArgs(args []string) []string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(st.Args)) {
		pairs = append(pairs, "{"+k+"}", st.Args[k])
	}
	r := strings.NewReplacer(pairs...)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = r.Replace(a)
	}
	return out
}
