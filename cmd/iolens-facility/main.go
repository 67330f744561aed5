// Command iolens-facility is iolens with the facility commands (ingest,
// query, top, app, serve, store), which link DuckDB, Parquet and an HTTP
// server; iolens runs it for them. Run "iolens-facility --help".
package main

import (
	"os"

	"github.com/iolens/iolens/internal/cli"
	"github.com/iolens/iolens/internal/facility"
)

func main() {
	os.Exit(cli.MainWith(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, facility.Commands))
}
