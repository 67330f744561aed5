package sysprof

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// parseMemInfo reads MemTotal and MemAvailable from /proc/meminfo.
func parseMemInfo(r io.Reader) (Memory, error) {
	var m Memory
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *uint64
		switch key {
		case "MemTotal":
			dst = &m.Total
		case "MemAvailable":
			dst = &m.Available
		default:
			continue
		}
		fields := strings.Fields(val)
		if len(fields) == 0 {
			return Memory{}, fmt.Errorf("meminfo: %s: no value", key)
		}
		n, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("meminfo: %s: %w", key, err)
		}
		if len(fields) > 1 && fields[1] == "kB" {
			n *= 1024
		}
		*dst = n
	}
	if err := sc.Err(); err != nil {
		return Memory{}, fmt.Errorf("meminfo: %w", err)
	}
	if m.Total == 0 {
		return Memory{}, fmt.Errorf("meminfo: no MemTotal")
	}
	return m, nil
}
