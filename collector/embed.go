package collector

import "embed"

// sources holds the C sources of the preload library: every .c and .h file
// of collector/c (counters.h included, which go generate writes).
//
//go:embed c/*.[ch]
var sources embed.FS
