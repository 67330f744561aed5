package sysprof

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNotCached is returned by Load when no fresh profile of the directory
// is cached.
var ErrNotCached = errors.New("sysprof: no fresh cached profile")

// ErrFormat is wrapped by the error ReadFile returns for a profile of
// another FormatVersion.
var ErrFormat = errors.New("profile of another format version")

// DefaultCacheDir is where profiles are cached: $IOLENS_CACHE_DIR/sysprof
// when the variable is set, else iolens/sysprof under the user cache
// directory (~/.cache on Linux).
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("IOLENS_CACHE_DIR"); d != "" {
		return filepath.Join(d, "sysprof"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("sysprof cache: %w", err)
	}
	return filepath.Join(d, "iolens", "sysprof"), nil
}

// cacheKey names the cache file of a profile: a hash of the host, the
// directory and the mounted device, so that a home directory shared by the
// nodes of a cluster keeps one profile per node and a remounted directory
// is probed again.
func cacheKey(p Profile) string {
	m := p.Storage.Mount
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d:%d\x00%s\x00%s\x00%s",
		p.Host, p.Dir, m.Major, m.Minor, m.MountPoint, m.FSType, m.Source))
	return hex.EncodeToString(h[:8]) + ".json"
}

// ReadFile reads a profile written by WriteFile.
func ReadFile(path string) (Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("reading profile: %w", err)
	}
	var p Profile
	if err := json.Unmarshal(b, &p); err != nil {
		return Profile{}, fmt.Errorf("reading profile %s: %w", path, err)
	}
	if p.Format != FormatVersion {
		return Profile{}, fmt.Errorf("reading profile %s: format %d, want %d: %w", path, p.Format, FormatVersion, ErrFormat)
	}
	return p, nil
}

// WriteFile writes p as indented JSON to path, atomically (a temporary file
// renamed over it), with mode 0600; missing parent directories are created
// with mode 0700.
func WriteFile(path string, p Profile) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("writing profile: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing profile: %w", err)
	}
	f, err := os.CreateTemp(dir, ".profile-*") // mode 0600
	if err != nil {
		return fmt.Errorf("writing profile: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing profile %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing profile: %w", err)
	}
	return nil
}
