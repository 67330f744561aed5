package features

import (
	"math"
	"strings"
	"testing"

	"github.com/iolens/iolens/static/cfront"
	"github.com/iolens/iolens/static/ir"
	"github.com/iolens/iolens/static/pdg"
)

// masterWorker hands out NITEMS items from rank 0 to a worker that
// computes each; COND selects the roles.
const masterWorker = `#include <mpi.h>
#include <stdio.h>
#define NITEMS 40
static double work(const double *b) {
    double s = 0;
    for (int i = 0; i < 100000; i++) s += b[i % 64] * i;
    return s;
}
static void master(FILE *f) {
    double b[64], r;
    for (int k = 0; k < NITEMS; k++) {
        MPI_Send(b, 64, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&r, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fprintf(f, "%f\n", r);
    }
}
static void worker(void) {
    double b[64], r;
    for (;;) {
        MPI_Recv(b, 64, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        r = work(b);
        MPI_Send(&r, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
}
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    FILE *f = fopen("results.txt", "w");
    if (COND) master(f); else worker();
    fclose(f);
    MPI_Finalize();
    return 0;
}
`

// TestRoleWaits: in a branch on the rank, the master's receive waits, per
// message, for the worker's compute per message, whatever the trip count
// of the worker's loop; a branch on anything else charges nothing.
func TestRoleWaits(t *testing.T) {
	blocks := func(cond string) []Block {
		f, err := cfront.Parse("mw.c", []byte(strings.Replace(masterWorker, "COND", cond, 1)))
		if err != nil {
			t.Fatal(err)
		}
		_, bs := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
		return bs
	}
	plain := blocks("argc > 5")
	split := blocks("rank == 0")
	loop := func(bs []Block, fn string) Params {
		t.Helper()
		for _, c := range find(t, bs, FunctionBlock, fn).Children {
			if c.Kind == LoopBlock {
				return c.Params
			}
		}
		t.Fatalf("%s has no loop", fn)
		return Params{}
	}
	const items = 40
	masterLoop, workerLoop := loop(plain, "master"), loop(plain, "worker")
	if workerLoop.Calls != 0 || masterLoop.Calls != items {
		t.Fatalf("loops: master %v I/O calls, worker %v", masterLoop.Calls, workerLoop.Calls)
	}
	perWorker := workerLoop.Work / pdg.DefaultWhileTrip
	perMaster := masterLoop.Work / items
	before := find(t, plain, FunctionBlock, "master").Params.Work
	after := find(t, split, FunctionBlock, "master").Params.Work
	if want := before + items*(perWorker-perMaster); math.Abs(after-want) > 1e-9*want {
		t.Errorf("master's work %v with roles, want %v (%v without, %v per item of the worker, %v of the master)",
			after, want, before, perWorker, perMaster)
	}
	if w, p := find(t, split, FunctionBlock, "worker").Params.Work, find(t, plain, FunctionBlock, "worker").Params.Work; w != p {
		t.Errorf("worker's work %v with roles, want %v: it does not wait", w, p)
	}
}
