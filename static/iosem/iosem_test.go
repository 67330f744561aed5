package iosem

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		name       string
		iface      Interface
		op         Op
		async      bool
		collective bool
		formatted  bool
		offset     bool
	}{
		{"open", POSIX, Open, false, false, false, false},
		{"pwrite64", POSIX, Write, false, false, false, true},
		{"aio_write", POSIX, Write, true, false, false, false},
		{"fwrite", STDIO, Write, false, false, false, false},
		{"mmap", POSIX, Stat, false, false, false, false},
		{"std::fprintf", STDIO, Write, false, false, true, false},
		{"fgets", STDIO, Read, false, false, true, false},
		{"fflush", STDIO, Flush, false, false, false, false},
		{"MPI_File_write_at", MPIIO, Write, false, false, false, true},
		{"mpi_file_write_at_all", MPIIO, Write, false, true, false, true},
		{"MPI_File_iread_all", MPIIO, Read, true, true, false, false},
		{"MPI_File_write_ordered_begin", MPIIO, Write, true, true, false, false},
		{"MPI_File_write_all_end", MPIIO, Wait, false, true, false, false},
		{"MPI_File_read_shared", MPIIO, Read, false, false, false, false},
		{"MPI_File_sync", MPIIO, Sync, false, true, false, false},
		{"H5Dwrite", HDF5, Write, false, false, false, false},
		{"h5dread_f", HDF5, Read, false, false, false, false},
		{"H5Fflush", HDF5, Sync, false, false, false, false},
		{"ncmpi_put_vara_double_all", PnetCDF, Write, false, true, false, false},
		{"ncmpi_iget_vara_float", PnetCDF, Read, true, false, false, false},
		{"ncmpi_bput_var1_int", PnetCDF, Write, true, false, false, false},
		{"ncmpi_put_var_all", PnetCDF, Write, false, true, false, false},
		{"nc_put_vara_double", NetCDF, Write, false, false, false, false},
		{"nc_get_var1_int", NetCDF, Read, false, false, false, false},
		{"flush", Fortran, Flush, false, false, false, false},
	} {
		s, ok := Lookup(c.name)
		if !ok {
			t.Errorf("%s: not found", c.name)
			continue
		}
		if s.Interface != c.iface || s.Op != c.op || s.Async != c.async || s.Collective != c.collective ||
			s.Formatted != c.formatted || s.ExplicitOffset != c.offset {
			t.Errorf("%s: got %+v", c.name, s)
		}
	}
	for _, n := range []string{"sprintf", "sscanf", "MPI_File_iread_ordered", "malloc", "ncmpi_bget_var"} {
		if _, ok := Lookup(n); ok {
			t.Errorf("%s: found, want not an I/O routine", n)
		}
	}
}

func TestArguments(t *testing.T) {
	fw, _ := Lookup("fwrite")
	if fw.Size.Kind != Bytes || fw.Size.Count != 1 || fw.Size.Count2 != 2 || fw.File.Arg != 3 || fw.Size.Buf != 0 {
		t.Errorf("fwrite %+v", fw)
	}
	at, _ := Lookup("MPI_File_write_at")
	if at.Size.Kind != Elements || at.Size.Count != 3 || at.Size.Type != 4 || at.Offset != 1 {
		t.Errorf("MPI_File_write_at %+v", at)
	}
	o, _ := Lookup("MPI_File_open")
	if o.File.Kind != NameArg || o.File.Arg != 1 || o.File.Out != 4 || o.File.Mode != 2 {
		t.Errorf("MPI_File_open %+v", o)
	}
	v1, _ := Lookup("ncmpi_put_var1_double_all")
	if v1.Size.Kind != Elements || v1.Size.Count != -1 || v1.Size.Elem != 8 || v1.Size.Buf != 3 {
		t.Errorf("ncmpi_put_var1_double_all %+v", v1)
	}
	flex, _ := Lookup("ncmpi_put_vara_all")
	if flex.Size.Count != 5 || flex.Size.Type != 6 {
		t.Errorf("ncmpi_put_vara_all %+v", flex)
	}
}

func TestCollectiveVariant(t *testing.T) {
	for in, want := range map[string]string{
		"MPI_File_write_at":     "MPI_File_write_at_all",
		"mpi_file_write":        "MPI_File_write_all",
		"MPI_File_read_shared":  "MPI_File_read_ordered",
		"MPI_File_iwrite_at":    "MPI_File_iwrite_at_all",
		"ncmpi_put_vara_double": "ncmpi_put_vara_double_all",
		"MPI_File_write_at_all": "",
		"fwrite":                "",
	} {
		got, ok := CollectiveVariant(in)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
}

func TestDatatypeSize(t *testing.T) {
	for name, want := range map[string]int64{
		"MPI_DOUBLE": 8, "MPI_INT": 4, "MPI_CHAR": 1, "MPI_BYTE": 1, "mpi_double_precision": 8,
		"H5T_NATIVE_DOUBLE": 8, "H5T_IEEE_F32LE": 4, "H5T_STD_I64BE": 8, "H5T_NATIVE_INT16": 2, "NC_FLOAT": 4,
	} {
		if got, ok := DatatypeSize(name); !ok || got != want {
			t.Errorf("%s: %d %v, want %d", name, got, ok, want)
		}
	}
	if _, ok := DatatypeSize("my_struct_type"); ok {
		t.Error("unknown datatype has a size")
	}
}

func TestModes(t *testing.T) {
	for _, c := range []struct {
		got, want Mode
	}{
		{ModeFromString("r", 0), ModeRead},
		{ModeFromString("wb", 0), ModeWrite | ModeCreate},
		{ModeFromString("a+", 0), ModeReadWrite | ModeAppend | ModeCreate},
		{ModeFromString("readwrite", 0), ModeReadWrite},
		{ModeFromFlags([]string{"O_WRONLY", "O_CREAT", "O_TRUNC"}, ModeRead), ModeWrite | ModeCreate},
		{ModeFromFlags([]string{"MPI_MODE_RDONLY"}, 0), ModeRead},
		{ModeFromFlags([]string{"H5F_ACC_TRUNC"}, ModeRead), ModeWrite | ModeCreate},
		{ModeFromFlags([]string{"NC_NOWRITE"}, 0), ModeRead},
		{ModeFromFlags(nil, ModeRead), ModeRead},
		{ModeFromFlags([]string{"std::ios::app"}, 0), ModeWrite | ModeAppend},
		{ModeFromFlags([]string{"std::ios_base::in", "std::ios_base::out"}, 0), ModeReadWrite},
		// C++ streams: ofstream, ifstream and fstream as StreamType gives them.
		{StreamOpenMode(ModeWrite, 0, false), ModeWrite | ModeCreate},
		{StreamOpenMode(ModeWrite, 0, true), ModeWrite | ModeCreate}, // std::ios::binary alone
		{StreamOpenMode(ModeWrite, ModeWrite|ModeAppend, true), ModeWrite | ModeAppend},
		{StreamOpenMode(ModeWrite, ModeRead, true), ModeReadWrite},
		{StreamOpenMode(ModeRead, 0, false), ModeRead},
		{StreamOpenMode(ModeReadWrite, 0, false), ModeReadWrite},
		{StreamOpenMode(ModeReadWrite, ModeWrite, true), ModeWrite | ModeCreate},
		{StreamOpenMode(ModeReadWrite, ModeWrite|ModeCreate, true), ModeWrite | ModeCreate},
	} {
		if c.got != c.want {
			t.Errorf("mode %s, want %s", c.got, c.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	b, n := FormatBytes("step %d: %8.3f %s %%\n")
	// "step " 5, ": " 2, " " 1, " " 1, "%" 1, "\n" 1 = 11; 8 + 16 + 16.
	if b != 11+8+16+16 || n != 3 {
		t.Errorf("FormatBytes = %d, %d", b, n)
	}
}

func TestConversions(t *testing.T) {
	for format, want := range map[string]string{
		"step %d: %8.3f %s %%\n": "dfs",
		"%ld %.12f\n":            "df",
		"%%":                     "",
		"%-10lu|%p|%c|%[^,]":     "upc[",
	} {
		if got := Conversions(format); got != want {
			t.Errorf("Conversions(%q) = %q, want %q", format, got, want)
		}
	}
}

func TestStatement(t *testing.T) {
	w := &ir.FortranIO{Op: "write", Unit: ir.Int{V: 10}, Specs: map[string]ir.Expr{"rec": ir.Ref{Name: "k"}}}
	s, _ := Statement(w)
	if s.Op != Write || s.Formatted || !s.ExplicitOffset || !s.Binary() {
		t.Errorf("unformatted direct write %+v", s)
	}
	f := &ir.FortranIO{Op: "write", Unit: ir.Str{V: "*"}, Specs: map[string]ir.Expr{"fmt": ir.Str{V: "*"},
		"asynchronous": ir.Str{V: "YES"}}}
	s, _ = Statement(f)
	if !s.Formatted || s.File.Kind != Stdout || !s.Async || s.Binary() {
		t.Errorf("list-directed write %+v", s)
	}
	p, _ := Statement(&ir.FortranIO{Op: "print", Specs: map[string]ir.Expr{"fmt": ir.Str{V: "*"}}})
	if p.Op != Write || !p.Formatted || p.File.Kind != Stdout {
		t.Errorf("print %+v", p)
	}
	if _, ok := Statement(&ir.FortranIO{Op: "format"}); ok {
		t.Error("FORMAT is not an I/O statement")
	}
}

func TestStreams(t *testing.T) {
	if m, ok := StreamType("std::ofstream"); !ok || m != ModeWrite {
		t.Errorf("ofstream: %v %v", m, ok)
	}
	if _, ok := StreamType("std::ostringstream"); ok {
		t.Error("string streams do no I/O")
	}
	if s, ok := Method("<<"); !ok || s.Op != Write || !s.Formatted {
		t.Errorf("<<: %+v", s)
	}
	if s, _ := Method("write"); s.Formatted || s.Size.Count != 1 {
		t.Errorf("write: %+v", s)
	}
	if !IsFlushManipulator("std::endl") || IsFlushManipulator("std::setw") {
		t.Error("IsFlushManipulator")
	}
}

func TestIsStringStream(t *testing.T) {
	for name, want := range map[string]bool{
		"std::istringstream": true, "std::ostringstream": true, "const std::stringstream&": true,
		"std::wistringstream": true, "std::basic_stringstream<char>": true,
		"std::ifstream": false, "std::string": false, "std::ostream": false,
	} {
		if got := IsStringStream(name); got != want {
			t.Errorf("IsStringStream(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFilesystemOperations(t *testing.T) {
	for _, name := range []string{"std::filesystem::create_directories", "std::filesystem::remove_all", "std::filesystem::file_size"} {
		if s, ok := Lookup(name); !ok || s.Op != Stat || s.Interface != POSIX || s.File.Kind != NameArg {
			t.Errorf("%s: %+v, %v; want a POSIX metadata call on the name in argument 0", name, s, ok)
		}
	}
	if _, ok := Lookup("std::filesystem::path"); ok {
		t.Error("std::filesystem::path is no I/O")
	}
}
