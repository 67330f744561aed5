package tune

import (
	"math/rand/v2"
	"slices"
)

// latinDesign returns up to n distinct valid configurations (value
// indices) spread over the space like a Latin hypercube over the value
// indices: for every parameter, the n samples fall in n equal strata of
// its index range, in a random order, so that every part of every range
// is sampled. Samples that violate the constraints or repeat another (or
// for which skip holds) are replaced by random valid ones.
func latinDesign(s *Space, smp *sampler, rng *rand.Rand, n int, skip func([]int) bool) [][]int {
	if n <= 0 {
		return nil
	}
	d := len(s.params)
	perms := make([][]int, d)
	for i := range perms {
		perms[i] = rng.Perm(n)
	}
	var out [][]int
	taken := map[string]bool{}
	key := func(idx []int) string { return s.config(idx).Key() }
	fresh := func(idx []int) bool { return !taken[key(idx)] && !skip(idx) }
	for j := range n {
		idx := make([]int, d)
		for i, p := range s.params {
			u := (float64(perms[i][j]) + rng.Float64()) / float64(n)
			idx[i] = min(int(u*float64(len(p.Values))), len(p.Values)-1)
		}
		if !s.allowedIdx(idx) || !fresh(idx) {
			if idx = smp.randomValid(fresh); idx == nil {
				break
			}
		}
		taken[key(idx)] = true
		out = append(out, slices.Clone(idx))
	}
	return out
}
