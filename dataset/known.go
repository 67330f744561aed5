package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// DataFiles returns the Parquet files of a table of the dataset in dir,
// in partition and name order (temporary files of batches being written
// are not listed).
func DataFiles(dir, table string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, table), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == filepath.Join(dir, table) {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	return out, nil
}

// Sum is a SHA-256 checksum.
type Sum [sha256.Size]byte

// Checksums returns the checksums of the logs the dataset in dir holds,
// as jobs or as errors: the logs an ingest skips. Only the checksum column
// of each file is read; checksums that are not SHA-256 sums (an error of a
// log that could not be read) are left out.
func Checksums(dir string) (map[Sum]struct{}, error) {
	known := map[Sum]struct{}{}
	for _, table := range []string{TableJobs, TableErrors} {
		files, err := DataFiles(dir, table)
		if err != nil {
			return nil, err
		}
		for _, p := range files {
			err := readColumn(p, "checksum", func(v parquet.Value) {
				var sum Sum
				if n, err := hex.Decode(sum[:], v.ByteArray()); err == nil && n == len(sum) {
					known[sum] = struct{}{}
				}
			})
			if err != nil {
				return nil, fmt.Errorf("dataset %s: %w", dir, err)
			}
		}
	}
	return known, nil
}

// readColumn calls fn with every value of the top-level column name of the
// Parquet file at path.
func readColumn(path, name string, fn func(parquet.Value)) error {
	f, pf, err := openParquet(path, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return err
	}
	defer f.Close()
	leaf, ok := pf.Schema().Lookup(name)
	if !ok {
		return fmt.Errorf("%s: no column %q", path, name)
	}
	buf := make([]parquet.Value, 1024)
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if err == io.EOF {
				break
			}
			if err != nil {
				pages.Close()
				return fmt.Errorf("%s: column %s: %w", path, name, err)
			}
			vr := p.Values()
			for {
				n, err := vr.ReadValues(buf)
				for _, v := range buf[:n] {
					fn(v)
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					pages.Close()
					return fmt.Errorf("%s: column %s: %w", path, name, err)
				}
			}
			parquet.Release(p)
		}
		pages.Close()
	}
	return nil
}

// openParquet opens the Parquet file at path; the caller closes the
// returned file.
func openParquet(path string, opts ...parquet.FileOption) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		var pf *parquet.File
		if pf, err = parquet.OpenFile(f, st.Size(), opts...); err == nil {
			return f, pf, nil
		}
		err = fmt.Errorf("%s: %w", path, err)
	}
	f.Close()
	return nil, nil, err
}

// hasColumn reports whether the Parquet file at path has the top-level
// column name.
func hasColumn(path, name string) (bool, error) {
	f, pf, err := openParquet(path, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return false, err
	}
	defer f.Close()
	return slices.ContainsFunc(pf.Schema().Fields(), func(f parquet.Field) bool { return f.Name() == name }), nil
}
