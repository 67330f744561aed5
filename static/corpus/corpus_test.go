package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const corpusDir = "../../testdata/static/corpus"

func TestLoadCorpus(t *testing.T) {
	m, err := Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Programs) < 22 {
		t.Errorf("%d programs, want at least 22", len(m.Programs))
	}
	langs, mpi := map[string]int{}, 0
	for _, p := range m.Programs {
		langs[p.Language]++
		if p.Ranks > 1 {
			mpi++
		}
		if !strings.Contains(strings.Join(p.Build, " "), "-finstrument-functions") {
			t.Errorf("%s: built without -finstrument-functions", p.Name)
		}
	}
	if langs[LangC] == 0 || langs[LangCXX] == 0 || langs[LangFortran] < 2 || mpi < 2 {
		t.Errorf("languages %v, %d MPI programs", langs, mpi)
	}
	if p, ok := m.Program("extsort"); !ok || p.Dir != corpusDir {
		t.Errorf("Program(extsort) = %+v, %v", p, ok)
	}
}

func TestLoadErrors(t *testing.T) {
	for name, manifest := range map[string]string{
		"syntax":    `{"programs": [`,
		"duplicate": `{"programs": [{"name": "a", "language": "c", "sources": ["a.c"], "build": ["cc", "-o", "{out}", "{src}"], "ranks": 1}, {"name": "a", "language": "c", "sources": ["a.c"], "build": ["cc", "-o", "{out}", "{src}"], "ranks": 1}]}`,
		"language":  `{"programs": [{"name": "a", "language": "cobol", "sources": ["a.c"], "build": ["cc", "-o", "{out}", "{src}"], "ranks": 1}]}`,
		"source":    `{"programs": [{"name": "a", "language": "c", "sources": ["missing.c"], "build": ["cc", "-o", "{out}", "{src}"], "ranks": 1}]}`,
		"template":  `{"programs": [{"name": "a", "language": "c", "sources": ["a.c"], "build": ["cc", "{src}"], "ranks": 1}]}`,
		"ranks":     `{"programs": [{"name": "a", "language": "c", "sources": ["a.c"], "build": ["cc", "-o", "{out}", "{src}"]}]}`,
		"set":       `{"set": "validation", "programs": [{"name": "a", "language": "c", "sources": ["a.c"], "build": ["cc", "-o", "{out}", "{src}"], "ranks": 1}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.c"), []byte("int main(void) { return 0; }\n"), 0o644)
			os.WriteFile(filepath.Join(dir, ManifestName), []byte(manifest), 0o644)
			if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), dir) {
				t.Errorf("Load: %v, want an error naming %s", err, dir)
			}
		})
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of a directory without a manifest succeeded")
	}
}

func TestSourceName(t *testing.T) {
	for _, tc := range []struct{ lang, sym, want string }{
		{LangC, "compute", "compute"},
		{LangC, "dump.constprop.0", "dump"},
		{LangC, "trailing_", "trailing_"},
		{LangFortran, "dump_", "dump"},
		{LangFortran, "__stencil_mod_MOD_sweep", "sweep"},
		{LangFortran, "MAIN__", "MAIN__"},
		{LangFortran, "main", "main"},
		{LangCXX, "_ZN5Table4fillEv", "Table::fill"},
		{LangCXX, "_ZNK5Table4saveERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "Table::save"},
		{LangCXX, "_ZN5TableC2Ei", "Table::Table"},
		{LangCXX, "_ZN5TableD1Ev", "Table::~Table"},
		{LangCXX, "_Z7computei", "compute"},
		{LangCXX, "_ZNSt6vectorIdSaIdEED2Ev", "std::vector::~vector"},
		{LangCXX, "main", "main"},
		{LangCXX, "_ZN12_GLOBAL__N_112generate_logERKSs", "generate_log"},                                         // an anonymous namespace
		{LangCXX, "_ZN4snap12_GLOBAL__N_14packEv", "snap::pack"},                                                  // nested in a named one
		{LangCXX, "_ZL9write_pbmRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERK9Automaton", "write_pbm"}, // static
		{LangCXX, "_ZN12_GLOBAL__N_15sweepISt3mapIlSt5dequeINS_5OrderESaIS3_EESt4lessIlESaISt4pairIKlS5_EEEEEjRNS_4BookERT_jlblRSt14basic_ofstreamIcSt11char_traitsIcEE",
			"sweep"}, // a function template with substitutions (S3_) in its arguments
		{LangCXX, "_Zbad", "_Zbad"},
	} {
		if got := SourceName(tc.lang, tc.sym); got != tc.want {
			t.Errorf("SourceName(%s, %s) = %q, want %q", tc.lang, tc.sym, got, tc.want)
		}
	}
}

// TestNamed checks that functions take their source names from their
// symbols, also when recorded under an older name; that profiles of one
// name are summed, with the intensity of the sum; and that a function
// alone under its name keeps its intensity.
func TestNamed(t *testing.T) {
	sweep := "_ZN12_GLOBAL__N_15sweepISt3mapIlSt5dequeINS_5OrderESaIS3_EESt4lessIlESaISt4pairIKlS5_EEEEEjRNS_4BookERT_jlblRSt14basic_ofstreamIcSt11char_traitsIcEE"
	got := Named(LangCXX, []Function{
		{Name: sweep, Symbol: sweep, Calls: 3, Wall: 2, IOTime: 1, SelfIO: 1, Intensity: 0.4},
		{Name: "dump", Symbol: "_ZL4dumpi", Calls: 1, Wall: 1, IOTime: 1, Intensity: 1},
		{Name: "dump", Symbol: "_Z4dumpd", Calls: 1, Wall: 3, IOTime: 0, Intensity: 0},
	})
	want := []Function{
		{Name: "dump", Symbol: "_ZL4dumpi", Calls: 2, Wall: 4, IOTime: 1, Intensity: 0.25},
		{Name: "sweep", Symbol: sweep, Calls: 3, Wall: 2, IOTime: 1, SelfIO: 1, Intensity: 0.4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Named (-want +got):\n%s", diff)
	}
}
