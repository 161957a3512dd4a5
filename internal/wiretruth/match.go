package wiretruth

import (
	"math/bits"
	"slices"
)

// Fate is what the network did to one upstream packet, or where a
// downstream packet came from.
type Fate uint8

const (
	Delivered Fate = iota
	Lost
	Corrupted // delivered with other bytes
	Duplicate // a downstream copy of a delivered packet (network-made)
	Orphan    // downstream, matching no upstream packet (should not happen)
)

// pair is one matched upstream and downstream copy.
type pair struct{ up, down int }

// direction holds the matching of one sender's packets: up is the
// capture on its side of the impairment, down the other.
type direction struct {
	up, down   []Packet
	upIdx      []int // indices into the capture of this sender's packets
	downIdx    []int
	upFate     []Fate // by position in upIdx
	downFate   []Fate // by position in downIdx
	downOf     []int  // upstream position a downstream copy belongs to (-1: none)
	upDown     []int  // downstream position of an upstream packet's first delivery (-1: none)
	typicalDly int64
}

// skipCost makes an unmatched copy cost more than any plausible delay
// mismatch (ns): the alignment matches as many copies as it can first,
// then picks the pairing whose delays are closest to the typical one.
const skipCost = int64(1) << 50

// maxAlign bounds the alignment of one key's copies (m×n cells); beyond
// it copies are paired first in, first out.
const maxAlign = 1 << 16

// match pairs the upstream and downstream copies of each byte pattern.
// Copies with the same bytes (a resend, a duplicate) are interchangeable
// on the wire; they are paired in order (a network does not reorder two
// copies of one packet in a way anyone could tell) choosing, among the
// pairings that deliver the most copies, the one whose delays are closest
// to the path's typical delay.
func (d *direction) match() {
	byKey := func(pk []Packet, idx []int) map[uint64][]int {
		m := make(map[uint64][]int, len(idx))
		for pos, i := range idx {
			m[pk[i].Key] = append(m[pk[i].Key], pos)
		}
		return m
	}
	ups, downs := byKey(d.up, d.upIdx), byKey(d.down, d.downIdx)
	d.upFate = make([]Fate, len(d.upIdx))
	d.downFate = make([]Fate, len(d.downIdx))
	d.downOf = make([]int, len(d.downIdx))
	d.upDown = make([]int, len(d.upIdx))
	for i := range d.downOf {
		d.downOf[i] = -1
	}
	// The typical delay, from byte patterns seen exactly once on each side.
	var delays []int64
	for k, u := range ups {
		if dn := downs[k]; len(u) == 1 && len(dn) == 1 {
			delays = append(delays, d.tsDown(dn[0])-d.tsUp(u[0]))
		}
	}
	if len(delays) > 0 {
		slices.Sort(delays)
		d.typicalDly = delays[len(delays)/2]
	}
	for k, u := range ups {
		ps := d.align(u, downs[k])
		matched := make(map[int]bool, len(ps))
		for _, p := range ps {
			matched[p.up] = true
			d.downOf[p.down] = p.up
		}
		for _, pos := range u {
			if !matched[pos] {
				d.upFate[pos] = Lost
			}
		}
	}
	for i := range d.upDown {
		d.upDown[i] = -1
	}
	// Downstream copies not paired: a copy of the delivered packet with the
	// same bytes just before it (a duplicate), else an orphan.
	for k, dn := range downs {
		last := -1
		for _, pos := range dn {
			if up := d.downOf[pos]; up >= 0 {
				last = up
				if d.upDown[up] < 0 {
					d.upDown[up] = pos
				}
				continue
			}
			if last >= 0 {
				d.downFate[pos] = Duplicate
				d.downOf[pos] = last
			} else if u := ups[k]; len(u) > 0 && d.tsUp(u[0]) <= d.tsDown(pos) {
				// A copy of a packet whose original was lost and whose
				// delivered copy came later: the copy arrived first.
				d.downFate[pos] = Duplicate
				d.downOf[pos] = u[0]
			} else {
				d.downFate[pos] = Orphan
			}
		}
	}
	d.corruption()
}

func (d *direction) tsUp(pos int) int64   { return d.up[d.upIdx[pos]].TS }
func (d *direction) tsDown(pos int) int64 { return d.down[d.downIdx[pos]].TS }

// align pairs upstream copies u with downstream copies dn (both in time
// order) monotonically, never a copy delivered before it was sent.
func (d *direction) align(u, dn []int) []pair {
	m, n := len(u), len(dn)
	if m == 0 || n == 0 {
		return nil
	}
	if m*n > maxAlign {
		var out []pair
		j := 0
		for _, up := range u {
			for j < n && d.tsDown(dn[j]) < d.tsUp(up) {
				j++
			}
			if j == n {
				break
			}
			out = append(out, pair{up, dn[j]})
			j++
		}
		return out
	}
	// cost[i][j]: the best alignment of u[i:] with dn[j:].
	cost := make([][]int64, m+1)
	for i := range cost {
		cost[i] = make([]int64, n+1)
	}
	for i := m; i >= 0; i-- {
		for j := n; j >= 0; j-- {
			switch {
			case i == m:
				cost[i][j] = int64(n-j) * skipCost
			case j == n:
				cost[i][j] = int64(m-i) * skipCost
			default:
				best := min(cost[i+1][j], cost[i][j+1]) + skipCost
				if dl := d.tsDown(dn[j]) - d.tsUp(u[i]); dl >= 0 {
					best = min(best, cost[i+1][j+1]+abs(dl-d.typicalDly))
				}
				cost[i][j] = best
			}
		}
	}
	var out []pair
	for i, j := 0, 0; i < m && j < n; {
		if dl := d.tsDown(dn[j]) - d.tsUp(u[i]); dl >= 0 && cost[i][j] == cost[i+1][j+1]+abs(dl-d.typicalDly) {
			out = append(out, pair{u[i], dn[j]})
			i, j = i+1, j+1
		} else if cost[i][j] == cost[i+1][j]+skipCost {
			i++
		} else {
			j++
		}
	}
	return out
}

// corruptWindow: a corrupted copy is looked for among lost packets of the
// same length sent up to this long before it arrived (ns), beyond the
// typical delay. netem corrupts in place, so the copy keeps its place in
// the queue; a second is far more than any queue in the lab holds.
const corruptWindow = int64(1e9)

// maxCorruptBits: netem's corrupt flips one bit; a copy that differs in
// more than a few bits is another packet, not this one damaged.
const maxCorruptBits = 8

// corruption pairs orphans with lost packets of the same length whose
// bytes differ in a few bits: delivered, but damaged on the way.
func (d *direction) corruption() {
	type cand struct{ pos int }
	lostByLen := make(map[int][]int)
	for pos, f := range d.upFate {
		if f == Lost {
			l := len(d.up[d.upIdx[pos]].Norm)
			lostByLen[l] = append(lostByLen[l], pos)
		}
	}
	for pos, f := range d.downFate {
		if f != Orphan {
			continue
		}
		o := &d.down[d.downIdx[pos]]
		best, bestBits := -1, maxCorruptBits+1
		for _, up := range lostByLen[len(o.Norm)] {
			if d.upFate[up] != Lost {
				continue
			}
			dl := o.TS - d.tsUp(up) - d.typicalDly
			if dl < -corruptWindow || dl > corruptWindow || o.TS < d.tsUp(up) {
				continue
			}
			if b := bitDiff(o.Norm, d.up[d.upIdx[up]].Norm, bestBits); b < bestBits {
				best, bestBits = up, b
			}
		}
		if best >= 0 {
			d.upFate[best] = Corrupted
			d.downFate[pos] = Corrupted
			d.downOf[pos] = best
			d.upDown[best] = pos
		}
	}
}

// bitDiff counts differing bits, stopping once it reaches limit.
func bitDiff(a, b []byte, limit int) int {
	n := 0
	for i := range a {
		if n += bits.OnesCount8(a[i] ^ b[i]); n >= limit {
			return n
		}
	}
	return n
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
