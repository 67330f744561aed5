package sysprof

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// dropCache evicts the (clean) pages of f from the page cache, so that the
// following reads reach the device, and with random set disables read-ahead.
func dropCache(f *os.File, random bool) error {
	fd := int(f.Fd())
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("fadvise DONTNEED: %w", err)
	}
	if !random {
		return nil
	}
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_RANDOM); err != nil {
		return fmt.Errorf("fadvise RANDOM: %w", err)
	}
	return nil
}
