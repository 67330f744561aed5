package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/iolens/iolens/internal/fixture"
)

// Every column of every table is described in docs/dataset.md, in the
// section of its table.
func TestSchemaDocumented(t *testing.T) {
	root, err := fixture.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "dataset.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, s := range strings.Split(string(doc), "\n### ")[1:] {
		name, _, _ := strings.Cut(s, " ")
		sections[name] = s
	}
	for table, row := range map[string]any{TableJobs: Job{}, TableFiles: File{}, TableInsights: Insight{}, TableRanks: Rank{}, TableErrors: Error{}} {
		s, ok := sections[table]
		if !ok {
			t.Errorf("docs/dataset.md has no section for table %s", table)
			continue
		}
		rt := reflect.TypeOf(row)
		for i := range rt.NumField() {
			col, _, _ := strings.Cut(rt.Field(i).Tag.Get("parquet"), ",")
			if !strings.Contains(s, "`"+col+"`") {
				t.Errorf("docs/dataset.md: table %s: column %s is not described", table, col)
			}
		}
	}
}

// The files have bounded row groups and a bloom filter of the job id.
func TestWriterRowGroupsAndBloomFilters(t *testing.T) {
	dir := t.TempDir()
	ranks := make([]Rank, 2*rowGroupRows+10)
	for i := range ranks {
		ranks[i] = Rank{Job: fmt.Sprintf("%016x", i/100), Rank: int64(i % 100)}
	}
	path := filepath.Join(dir, "ranks.parquet")
	if err := writeParquet(path, TableRanks, ranks); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pf.RowGroups()); n != 3 {
		t.Errorf("%d row groups, want 3", n)
	}
	for i, rg := range pf.RowGroups() {
		job, _ := pf.Schema().Lookup("job")
		bf := rg.ColumnChunks()[job.ColumnIndex].BloomFilter()
		if bf == nil {
			t.Fatalf("row group %d: no bloom filter on job", i)
		}
		first := ranks[i*rowGroupRows].Job
		if ok, err := bf.Check(parquet.ValueOf(first)); !ok || err != nil {
			t.Errorf("row group %d: bloom filter misses %s: %v", i, first, err)
		}
	}
}
