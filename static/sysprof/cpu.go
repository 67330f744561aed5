package sysprof

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// parseCPUInfo reads /proc/cpuinfo: the model name, the logical CPUs
// ("processor" entries), the physical cores (distinct physical id and core
// id pairs) and the mean "cpu MHz".
func parseCPUInfo(r io.Reader) (CPU, error) {
	var (
		cpu             CPU
		mhzSum          float64
		mhzN            int
		physID, coreID  string
		cores           = map[[2]string]bool{}
		sawCoreIdentity bool
	)
	endProcessor := func() {
		if coreID != "" {
			cores[[2]string{physID, coreID}] = true
			sawCoreIdentity = true
		}
		physID, coreID = "", ""
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "processor":
			endProcessor()
			cpu.Threads++
		case "model name", "Model name", "cpu model", "Hardware":
			if cpu.Model == "" {
				cpu.Model = val
			}
		case "physical id":
			physID = val
		case "core id":
			coreID = val
		case "cpu MHz", "clock":
			if f, err := strconv.ParseFloat(strings.TrimSuffix(val, "MHz"), 64); err == nil && f > 0 {
				mhzSum += f
				mhzN++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return CPU{}, fmt.Errorf("cpuinfo: %w", err)
	}
	endProcessor()
	cpu.Cores = cpu.Threads
	if sawCoreIdentity {
		cpu.Cores = len(cores)
	}
	if mhzN > 0 {
		cpu.MHz = mhzSum / float64(mhzN)
	}
	return cpu, nil
}

// parseMaxFreq reads a cpufreq cpuinfo_max_freq file (kHz) and returns MHz.
func parseMaxFreq(b []byte) (float64, error) {
	khz, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		return 0, fmt.Errorf("cpuinfo_max_freq: %w", err)
	}
	return khz / 1000, nil
}
