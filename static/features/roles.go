package features

import (
	"strings"

	"github.com/iolens/iolens/static/pdg"
)

// blockingReceives are the MPI routines in which a rank waits for a
// message or a request of another rank.
var blockingReceives = map[string]bool{
	"mpi_recv": true, "mpi_probe": true, "mpi_sendrecv": true, "mpi_sendrecv_replace": true,
	"mpi_wait": true, "mpi_waitall": true, "mpi_waitany": true, "mpi_waitsome": true,
}

// balanceRoles charges the waits of ranks that play different roles. In
// a branch on the rank (pdg.Node.RankSplit), such as a master that hands
// out work and a worker that computes it, each role exchanges messages
// in loops: per message received, a role does the compute of those
// loops' bodies. The role with less compute per message waits in its
// blocking receives for the others: each of its receives is charged, as
// compute, the difference per message, which is how long the collector
// sees it wait (x.waits). Per message, the roles compare whatever the
// trip counts of their loops (a worker's "for (;;)" until a stop message
// against the master's count of work items). It reports whether it
// charged anything; the extraction must then start again.
func (x *extractor) balanceRoles(g *pdg.Graph) bool {
	var splits []*pdg.Node
	seen := map[*pdg.Node]bool{}
	for _, f := range g.Funcs {
		visitTree(f, seen, func(n *pdg.Node) {
			if n.Kind == pdg.BranchNode && n.RankSplit && len(n.Children) > 1 {
				splits = append(splits, n)
			}
		})
	}
	charged := false
	for _, split := range splits {
		roles := make([]role, len(split.Children))
		for i, alt := range split.Children {
			roles[i] = x.role(alt)
		}
		for i, r := range roles {
			other := 0.0
			for j, o := range roles {
				if j != i {
					other = max(other, o.perMessage)
				}
			}
			if r.messages == 0 || other <= r.perMessage {
				continue
			}
			for n := range r.receives {
				x.waits[n] += other - r.perMessage
			}
			charged = true
		}
	}
	return charged
}

// role is what one alternative of a rank split does per message.
type role struct {
	receives   map[*pdg.Node]bool // its blocking receives in loops
	messages   float64            // their executions
	perMessage float64            // compute of the loops they are in, per message
}

// role sums the blocking receives under alt that are in loops, and the
// compute of the innermost loops around them.
func (x *extractor) role(alt *pdg.Node) role {
	r := role{receives: map[*pdg.Node]bool{}}
	loops := map[*pdg.Node]float64{}
	receives(alt, exchange{mult: 1}, 0, func(n *pdg.Node, at exchange) {
		if at.loop == nil {
			return
		}
		r.receives[n] = true
		r.messages += at.mult
		loops[at.loop] = max(loops[at.loop], at.loopExecs)
	})
	work := 0.0
	for l, execs := range loops {
		var discard []Block
		work += execs * x.node(l, frame{mult: 1}, &discard).inc.p.Work
	}
	if r.messages > 0 {
		r.perMessage = work / r.messages
	}
	return r
}

// exchange is where a node runs: how many times one execution of the
// role executes it, and its innermost loop with that loop's executions.
type exchange struct {
	mult      float64
	loop      *pdg.Node
	loopExecs float64
}

// receives calls f with each blocking receive under n and where it runs
// (loops multiply by their trips, branches by their odds when known;
// calls are followed).
func receives(n *pdg.Node, at exchange, depth int, f func(*pdg.Node, exchange)) {
	if depth > pdg.DefaultMaxDepth {
		return
	}
	switch n.Kind {
	case pdg.UnknownNode:
		if blockingReceives[strings.ToLower(n.Name)] {
			f(n, at)
		}
		return
	case pdg.LoopNode:
		at = exchange{mult: at.mult * float64(n.Trip), loop: n, loopExecs: at.mult}
	case pdg.CallNode:
		if n.Target != nil {
			receives(n.Target, at, depth+1, f)
		}
		return
	}
	for i, c := range n.Children {
		in := at
		if n.Kind == pdg.BranchNode {
			in.mult *= oddsOf(n, i)
		}
		receives(c, in, depth, f)
	}
}

// visitTree calls f on n and the nodes under it, callees included, once
// each.
func visitTree(n *pdg.Node, seen map[*pdg.Node]bool, f func(*pdg.Node)) {
	if seen[n] {
		return
	}
	seen[n] = true
	f(n)
	for _, c := range n.Children {
		visitTree(c, seen, f)
	}
	if n.Target != nil {
		visitTree(n.Target, seen, f)
	}
}
