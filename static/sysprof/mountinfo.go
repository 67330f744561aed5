package sysprof

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// parseMountInfo reads /proc/self/mountinfo (proc(5)):
//
//	36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// keeping the device number, mount point, file system type and source.
func parseMountInfo(r io.Reader) ([]Mount, error) {
	var mounts []Mount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		m, err := parseMountLine(text)
		if err != nil {
			return nil, fmt.Errorf("mountinfo line %d: %w", line, err)
		}
		mounts = append(mounts, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mountinfo: %w", err)
	}
	return mounts, nil
}

func parseMountLine(text string) (Mount, error) {
	pre, post, ok := strings.Cut(text, " - ")
	if !ok {
		return Mount{}, fmt.Errorf("no ' - ' separator")
	}
	f := strings.Fields(pre)
	g := strings.Fields(post)
	if len(f) < 6 || len(g) < 2 {
		return Mount{}, fmt.Errorf("too few fields")
	}
	majS, minS, ok := strings.Cut(f[2], ":")
	if !ok {
		return Mount{}, fmt.Errorf("device %q: want major:minor", f[2])
	}
	maj, err1 := strconv.Atoi(majS)
	mnr, err2 := strconv.Atoi(minS)
	if err1 != nil || err2 != nil {
		return Mount{}, fmt.Errorf("device %q: want major:minor", f[2])
	}
	return Mount{
		MountPoint: unescapeMount(f[4]),
		FSType:     g[0],
		Source:     unescapeMount(g[1]),
		Major:      maj,
		Minor:      mnr,
	}, nil
}

// unescapeMount decodes the octal escapes (\040 for a space, \011, \012,
// \134) the kernel writes in mount points and sources.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountFor returns the mount that holds the absolute, clean path: the one
// with the longest mount point that is path or a parent of it; among equal
// mount points the last one, which hides the earlier.
func mountFor(mounts []Mount, path string) (Mount, bool) {
	best, found := Mount{}, false
	for _, m := range mounts {
		if !within(path, m.MountPoint) {
			continue
		}
		if !found || len(m.MountPoint) >= len(best.MountPoint) {
			best, found = m, true
		}
	}
	return best, found
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}
