package fortran

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

func doLoop(v string, lo, hi, step ir.Expr, body ...ir.Stmt) *ir.Loop {
	return &ir.Loop{Kind: ir.Do, Var: v, Lo: lo, Hi: hi, Step: step, Inclusive: true, Body: body}
}

func assign(target string, v ir.Expr) *ir.Assign {
	return &ir.Assign{Target: target, Op: "=", Value: v}
}

func callStmt(name string, args ...ir.Expr) *ir.Call {
	if args == nil {
		args = []ir.Expr{}
	}
	return &ir.Call{Callee: name, Args: args}
}

func jump(kind, label string) *ir.Jump { return &ir.Jump{Kind: kind, Label: label} }

func TestControlFlow(t *testing.T) {
	i, n := ref("i"), ref("n")
	tests := []struct {
		name, src string
		want      ir.Block
	}{
		{"labelled DO sharing a terminal label", `
      do 10 i = 1, n
        do 10 j = 1, n, 2
          a(i, j) = 0
10    continue
      x = 1`, ir.Block{
			doLoop("i", num(1), n, num(1), doLoop("j", num(1), n, num(2), &ir.Assign{Target: "a", Op: "=", Value: num(0), Partial: true})),
			assign("x", num(1)),
		}},
		{"labelled DO ending on an action statement", `
      do 20, i = n, 1, -1
20    x = x + i`, ir.Block{
			doLoop("i", n, num(1), num(-1), assign("x", bin("+", ref("x"), i))),
		}},
		{"labelled DO ending on END DO", "do 30 i = 1, 2\n x = i\n30 end do", ir.Block{
			doLoop("i", num(1), num(2), num(1), assign("x", i)),
		}},
		{"block DO with call in bounds, ENDDO", "do i = lo(n), 10\n call work(i)\nenddo", ir.Block{
			callStmt("lo", n),
			doLoop("i", call("lo", n), num(10), num(1), callStmt("work", i)),
		}},
		{"DO WHILE hoists its condition's calls into the body", "do while (more(n) .and. n > 0)\n n = n - 1\nend do", ir.Block{
			&ir.Loop{Kind: ir.While, Cond: bin("&&", call("more", n), bin(">", n, num(0))), Body: ir.Block{
				callStmt("more", n), assign("n", bin("-", n, num(1)))}},
		}},
		{"DO forever with EXIT and CYCLE", "do\n if (n > 5) exit\n if (n < 0) cycle\n n = n + 1\nend do", ir.Block{
			&ir.Loop{Kind: ir.DoForever, Body: ir.Block{
				&ir.If{Cond: bin(">", n, num(5)), Then: ir.Block{jump("exit", "")}},
				&ir.If{Cond: bin("<", n, num(0)), Then: ir.Block{jump("cycle", "")}},
				assign("n", bin("+", n, num(1))),
			}},
		}},
		{"named loops", "outer: do i = 1, n\n inner: do j = 1, n\n  if (j > i) exit outer\n  cycle inner\n end do inner\nend do outer", ir.Block{
			doLoop("i", num(1), n, num(1), doLoop("j", num(1), n, num(1),
				&ir.If{Cond: bin(">", ref("j"), i), Then: ir.Block{jump("exit", "outer")}},
				jump("cycle", "inner"))),
		}},
		{"DO CONCURRENT with mask", "do concurrent (i = 1:n, j = 1:n:2, i > j)\n b(i, j) = 1\nend do", ir.Block{
			doLoop("i", num(1), n, num(1), doLoop("j", num(1), n, num(2),
				&ir.If{Cond: bin(">", i, ref("j")), Then: ir.Block{&ir.Assign{Target: "b", Op: "=", Value: num(1), Partial: true}}})),
		}},
		{"block IF, ELSE IF with a hoisted call, ELSE", "if (n == 1) then\n x = 1\nelse if (ok(n)) then\n x = 2\nelse\n x = 3\nend if", ir.Block{
			&ir.If{Cond: bin("==", n, num(1)), Then: ir.Block{assign("x", num(1))}, Else: ir.Block{
				callStmt("ok", n),
				&ir.If{Cond: call("ok", n), Then: ir.Block{assign("x", num(2))}, Else: ir.Block{assign("x", num(3))}},
			}},
		}},
		{"named IF construct", "check: if (n > 0) then\n x = 1\nendif check", ir.Block{
			&ir.If{Cond: bin(">", n, num(0)), Then: ir.Block{assign("x", num(1))}},
		}},
		{"logical IF with calls", "if (ready(n)) call flush_all(n)", ir.Block{
			callStmt("ready", n),
			&ir.If{Cond: call("ready", n), Then: ir.Block{callStmt("flush_all", n)}},
		}},
		{"logical IF with GO TO", "if (n .lt. 0) go to 99\n99 continue", ir.Block{
			&ir.If{Cond: bin("<", n, num(0)), Then: ir.Block{jump("goto", "99")}},
		}},
		{"arithmetic IF", "if (n - 1) 10, 20, 30\n10 continue\n20 continue\n30 continue", ir.Block{
			&ir.If{Cond: bin("<", bin("-", n, num(1)), num(0)), Then: ir.Block{jump("goto", "10")}, Else: ir.Block{
				&ir.If{Cond: bin("==", bin("-", n, num(1)), num(0)), Then: ir.Block{jump("goto", "20")}, Else: ir.Block{jump("goto", "30")}},
			}},
		}},
		{"SELECT CASE", "select case (n)\ncase (1, 2:3)\n x = 1\ncase (:0)\ncase default\n x = 2\nend select", ir.Block{
			&ir.Switch{Tag: n, Cases: []ir.Block{{assign("x", num(1))}, nil, {assign("x", num(2))}}},
		}},
		{"SELECT TYPE", "select type (p => obj)\ntype is (integer)\n x = 1\nclass default\n x = 2\nend select", ir.Block{
			&ir.Switch{Tag: ref("obj"), Cases: []ir.Block{{assign("x", num(1))}, {assign("x", num(2))}}},
		}},
		{"WHERE statement and construct", "where (a > 0) a = 1\nwhere (a < 0)\n a = 0\nelsewhere (a > 9)\n a = 9\nelsewhere\n a = 5\nend where", ir.Block{
			&ir.If{Cond: bin(">", ref("a"), num(0)), Then: ir.Block{assign("a", num(1))}},
			&ir.If{Cond: bin("<", ref("a"), num(0)), Then: ir.Block{assign("a", num(0))}, Else: ir.Block{
				&ir.If{Cond: bin(">", ref("a"), num(9)), Then: ir.Block{assign("a", num(9))}, Else: ir.Block{assign("a", num(5))}},
			}},
		}},
		{"FORALL statement and construct", "forall (i = 1:n) a(i) = i\nforall (i = 1:n, j = 1:n, i /= j)\n b(i, j) = 0\nend forall", ir.Block{
			doLoop("i", num(1), n, num(1), &ir.Assign{Target: "a", Op: "=", Value: i, Partial: true}),
			doLoop("i", num(1), n, num(1), doLoop("j", num(1), n, num(1),
				&ir.If{Cond: bin("!=", i, ref("j")), Then: ir.Block{&ir.Assign{Target: "b", Op: "=", Value: num(0), Partial: true}}})),
		}},
		{"jumps and returns", "go to (10, 20), n\ngoto 10\n10 stop 'bad'\n20 error stop 2\nreturn", ir.Block{
			jump("goto", ""), jump("goto", "10"), jump("stop", ""), jump("stop", ""), &ir.Return{},
		}},
		{"assignments", "n = f(x)\np => t\nx%y = 1\na(1:2) = 0", ir.Block{
			&ir.Call{Callee: "f", Args: []ir.Expr{ref("x")}, Result: "n"},
			assign("n", call("f", ref("x"))),
			assign("p", ref("t")),
			&ir.Assign{Target: "x", Op: "=", Value: num(1), Partial: true, Field: "y"},
			&ir.Assign{Target: "a", Op: "=", Value: num(0), Partial: true},
		}},
		{"CALL forms", "call init\ncall mpi_file_write(fh, buf, n, mpi_byte, st, ierr)\ncall grid%dump(6)\ncall cells(2)%move()", ir.Block{
			callStmt("init"),
			callStmt("mpi_file_write", ref("fh"), ref("buf"), n, ref("mpi_byte"), ref("st"), ref("ierr")),
			&ir.Call{Callee: "dump", Receiver: ref("grid"), Args: []ir.Expr{num(6)}},
			&ir.Call{Callee: "move", Receiver: ir.Index{X: ref("cells"), Idx: []ir.Expr{num(2)}}, Args: []ir.Expr{}},
		}},
		{"ALLOCATE and DEALLOCATE", "allocate(a(n, 0:m), b(-1:1), c%d(10), stat=ierr)\nallocate(real(8) :: w(n))\ndeallocate(a, b, stat=ierr)", ir.Block{
			callStmt("allocate", idx("a", n, bin("+", ref("m"), num(1))), idx("b", num(3)),
				ir.Index{X: ir.Field{X: ref("c"), Name: "d"}, Idx: []ir.Expr{num(10)}}),
			callStmt("allocate", idx("w", n)),
			callStmt("deallocate", ref("a"), ref("b")),
		}},
		{"BLOCK and ASSOCIATE bodies are inline", "block\n x = 1\nend block\nassociate (q => a(1))\n q = 2\nend associate", ir.Block{
			assign("x", num(1)), assign("q", num(2)),
		}},
		{"skipped statements", "continue\n100 format(1x, 'a!', i5)\nnullify(p)\ndata x /1.0/\nsave\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkBody(t, tt.src, tt.want) })
	}
}
