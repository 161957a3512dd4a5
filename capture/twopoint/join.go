package twopoint

import (
	"cmp"
	"slices"
)

// scratch is working memory reused from flow to flow: a comparison walks
// hundreds of thousands of flows of a few packets each, and a map per
// flow was most of its time and memory.
type scratch struct {
	a, b   []int
	delays []int64
	hops   []uint8
	tcs    []uint16
}

// joinBySig calls fn for each signature both ps and qs hold, with the
// positions of its packets in each, in order. The slices are sc's, valid
// during the call.
func (sc *scratch) joinBySig(ps, qs []pkt, fn func(us, ds []int)) {
	sc.a = bySig(ps, sc.a)
	sc.b = bySig(qs, sc.b)
	a, b := sc.a, sc.b
	for len(a) > 0 && len(b) > 0 {
		sa, sb := ps[a[0]].sig, qs[b[0]].sig
		switch {
		case sa < sb:
			a = a[run(ps, a):]
		case sa > sb:
			b = b[run(qs, b):]
		default:
			na, nb := run(ps, a), run(qs, b)
			fn(a[:na], b[:nb])
			a, b = a[na:], b[nb:]
		}
	}
}

// bySig returns the positions of ps in buf, sorted by signature, then by
// position.
func bySig(ps []pkt, buf []int) []int {
	buf = buf[:0]
	for i := range ps {
		buf = append(buf, i)
	}
	slices.SortFunc(buf, func(x, y int) int {
		if c := cmp.Compare(ps[x].sig, ps[y].sig); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	return buf
}

// run is how many of the positions at the start of idx share a signature.
func run(ps []pkt, idx []int) int {
	n := 1
	for n < len(idx) && ps[idx[n]].sig == ps[idx[0]].sig {
		n++
	}
	return n
}
