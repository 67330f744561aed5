// Command iolens captures, diagnoses, predicts, learns and tunes the I/O of
// HPC applications. Run "iolens --help" for the commands.
package main

import (
	"os"

	"github.com/iolens/iolens/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
