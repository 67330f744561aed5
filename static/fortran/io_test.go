package fortran

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

func TestIOStatements(t *testing.T) {
	type specs = map[string]ir.Expr
	star := str("*")
	u, a, n := ref("u"), ref("a"), ref("n")
	tests := []struct {
		src  string
		want ir.Stmt
	}{
		{"write(*,*) a, 'x'", &ir.FortranIO{Op: "write", Unit: star, Specs: specs{"fmt": star}, Items: []ir.Expr{a, str("x")}}},
		{"WRITE (10, '(a)') a", &ir.FortranIO{Op: "write", Unit: num(10), Specs: specs{"fmt": str("(a)")}, Items: []ir.Expr{a}}},
		{"write(6, 100) a", &ir.FortranIO{Op: "write", Unit: num(6), Specs: specs{"fmt": num(100)}, Items: []ir.Expr{a}}},
		{"write(6, 100), a", &ir.FortranIO{Op: "write", Unit: num(6), Specs: specs{"fmt": num(100)}, Items: []ir.Expr{a}}},
		{"read(u, fmt=100) a", &ir.FortranIO{Op: "read", Unit: u, Specs: specs{"fmt": num(100)}, Items: []ir.Expr{a}}},
		{"write(unit=u, rec=n) a", &ir.FortranIO{Op: "write", Unit: u, Specs: specs{"rec": n}, Items: []ir.Expr{a}}},
		{"write(unit=*, fmt=*, advance='no') n", &ir.FortranIO{Op: "write", Unit: star, Specs: specs{"fmt": star, "advance": str("no")}, Items: []ir.Expr{n}}},
		{"write(u, pos=n*8+1) a", &ir.FortranIO{Op: "write", Unit: u, Specs: specs{"pos": bin("+", bin("*", n, num(8)), num(1))}, Items: []ir.Expr{a}}},
		{"write(u, nml=config)", &ir.FortranIO{Op: "write", Unit: u, Specs: specs{"nml": ref("config")}}},
		{"read(u, *, iostat=ios, end=10) n, (a(i), i = 1, n)", &ir.FortranIO{Op: "read", Unit: u,
			Specs: specs{"fmt": star, "iostat": ref("ios"), "end": num(10)},
			Items: []ir.Expr{n, ir.ImpliedDo{Items: []ir.Expr{idx("a", ref("i"))}, Var: "i", Lo: num(1), Hi: n, Step: num(1)}}}},
		{"read(u) ((b(i, j), c(i), i = 1, n, 2), j = 1, n)", &ir.FortranIO{Op: "read", Unit: u, Items: []ir.Expr{ir.ImpliedDo{
			Items: []ir.Expr{ir.ImpliedDo{Items: []ir.Expr{idx("b", ref("i"), ref("j")), idx("c", ref("i"))}, Var: "i", Lo: num(1), Hi: n, Step: num(2)}},
			Var:   "j", Lo: num(1), Hi: n, Step: num(1)}}}},
		{"print '(i5)', n", &ir.FortranIO{Op: "print", Specs: specs{"fmt": str("(i5)")}, Items: []ir.Expr{n}}},
		{"print *", &ir.FortranIO{Op: "print", Specs: specs{"fmt": star}}},
		{"read *, n", &ir.FortranIO{Op: "read", Unit: star, Specs: specs{"fmt": star}, Items: []ir.Expr{n}}},
		{"read 100, n", &ir.FortranIO{Op: "read", Unit: star, Specs: specs{"fmt": num(100)}, Items: []ir.Expr{n}}},
		{"open(10, file='out.dat', form='unformatted', access='direct', recl=8*n, status='replace', action='write', asynchronous='yes')",
			&ir.FortranIO{Op: "open", Unit: num(10), Specs: specs{"file": str("out.dat"), "form": str("unformatted"),
				"access": str("direct"), "recl": bin("*", num(8), n), "status": str("replace"), "action": str("write"),
				"asynchronous": str("yes")}}},
		{"open(newunit=u, file=trim(dir)//'/log', access='stream', position='append', iostat=ios)",
			&ir.FortranIO{Op: "open", Specs: specs{"newunit": u, "file": bin("//", call("trim", ref("dir")), str("/log")),
				"access": str("stream"), "position": str("append"), "iostat": ref("ios")}}},
		{"close(10, status='delete')", &ir.FortranIO{Op: "close", Unit: num(10), Specs: specs{"status": str("delete")}}},
		{"inquire(unit=10, opened=isopen, size=sz)", &ir.FortranIO{Op: "inquire", Unit: num(10), Specs: specs{"opened": ref("isopen"), "size": ref("sz")}}},
		{"inquire(iolength=len) a, n", &ir.FortranIO{Op: "inquire", Specs: specs{"iolength": ref("len")}, Items: []ir.Expr{a, n}}},
		{"flush(10)", &ir.FortranIO{Op: "flush", Unit: num(10)}},
		{"flush 10", &ir.FortranIO{Op: "flush", Unit: num(10)}},
		{"flush(unit=u, iostat=ios)", &ir.FortranIO{Op: "flush", Unit: u, Specs: specs{"iostat": ref("ios")}}},
		{"call flush(10)", callStmt("flush", num(10))},
		{"rewind 10", &ir.FortranIO{Op: "rewind", Unit: num(10)}},
		{"rewind(u)", &ir.FortranIO{Op: "rewind", Unit: u}},
		{"backspace(unit=u)", &ir.FortranIO{Op: "backspace", Unit: u}},
		{"endfile 10", &ir.FortranIO{Op: "endfile", Unit: num(10)}},
		{"end file (10)", &ir.FortranIO{Op: "endfile", Unit: num(10)}},
		{"wait(u, id=req)", &ir.FortranIO{Op: "wait", Unit: u, Specs: specs{"id": ref("req")}}},
	}
	for _, tt := range tests {
		checkBody(t, tt.src, ir.Block{tt.want})
	}
}

func TestIOHoistsCalls(t *testing.T) {
	checkBody(t, "write(unit_of(n), *) norm(a), sqrt(b)", ir.Block{
		callStmt("unit_of", ref("n")),
		callStmt("norm", ref("a")),
		&ir.FortranIO{Op: "write", Unit: call("unit_of", ref("n")), Specs: map[string]ir.Expr{"fmt": str("*")},
			Items: []ir.Expr{call("norm", ref("a")), call("sqrt", ref("b"))}},
	})
}
