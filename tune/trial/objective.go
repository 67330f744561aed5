package trial

import (
	"fmt"

	"github.com/iolens/iolens/darshan"
)

// Objective is what a trial measures.
type Objective int

// Objectives.
const (
	// IOTime is the job's I/O time from its log: the time of its slowest
	// rank in the highest-level of MPI-IO and POSIX (with STDIO) that it
	// used, files shared by all ranks counted by their slowest rank.
	IOTime Objective = iota
	// WallTime is the wall time of the command.
	WallTime
)

// ParseObjective parses "io-time" or "wall-time".
func ParseObjective(s string) (Objective, error) {
	switch s {
	case "io-time":
		return IOTime, nil
	case "wall-time":
		return WallTime, nil
	}
	return 0, fmt.Errorf("unknown objective %q (io-time or wall-time)", s)
}

func (o Objective) String() string {
	if o == WallTime {
		return "wall-time"
	}
	return "io-time"
}

// ioTime returns the I/O time of the job of log l (see IOTime).
func ioTime(l *darshan.Log) (float64, error) {
	mods := []darshan.ModuleID{darshan.ModMPIIO}
	if l.Header.Modules[darshan.ModMPIIO].Len == 0 {
		mods = []darshan.ModuleID{darshan.ModPOSIX, darshan.ModSTDIO}
	}
	perRank := map[int64]float64{}
	var shared float64
	for _, m := range mods {
		if l.Header.Modules[m].Len == 0 {
			continue
		}
		prefix := "POSIX"
		switch m {
		case darshan.ModMPIIO:
			prefix = "MPIIO"
		case darshan.ModSTDIO:
			prefix = "STDIO"
		}
		idx := func(name string) int { return m.FCounterIndex(prefix + "_F_" + name) }
		read, write, meta, slowest := idx("READ_TIME"), idx("WRITE_TIME"), idx("META_TIME"), idx("SLOWEST_RANK_TIME")
		err := l.Each(m, func(r *darshan.Record) error {
			t := r.FCounters[read] + r.FCounters[write] + r.FCounters[meta]
			if r.Rank < 0 {
				if slowest >= 0 && r.FCounters[slowest] > 0 {
					t = r.FCounters[slowest]
				} else if l.Job.NProcs > 0 {
					t /= float64(l.Job.NProcs)
				}
				shared += t
				return nil
			}
			perRank[r.Rank] += t
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	var worst float64
	for _, t := range perRank {
		worst = max(worst, t)
	}
	return worst + shared, nil
}
