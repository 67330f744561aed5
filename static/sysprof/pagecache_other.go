//go:build !linux

package sysprof

import "os"

// dropCache does nothing where posix_fadvise is not available: reads may
// then be served from the page cache.
func dropCache(*os.File, bool) error { return nil }
