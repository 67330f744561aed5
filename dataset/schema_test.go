package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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
