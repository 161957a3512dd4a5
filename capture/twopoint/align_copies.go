package twopoint

// Copies with one signature (a packet, its resends when the sender
// stamps no IPv4 ID, the path's copies) are alike at both points: which
// downstream copy is which upstream one is the pairing's choice. They are
// paired in order (a path does not reorder two copies of one packet in a
// way anyone could tell), as many as can be: each downstream copy no
// earlier than its upstream one (within the offset's uncertainty) and
// within the horizon. Among the pairings of that size, the one whose
// delays are closest to the flow's typical delay, and that never pairs a
// copy with one damaged on the way (a copy marked CE upstream with one
// unmarked downstream: a path marks, never clears; intact.go) where
// another pairing avoids it. A greedy choice copy by copy would take a
// resend for a late original and leave the original's downstream copy to
// be called a path's copy; so would making the damage rule absolute
// where the path reordered the copies of one packet (the
// lab's slowest runs send a PSN twenty times, 10 to 30 ms apart, over a
// path whose delay varies from 10 to 200 ms).

// maxAlign bounds the cells of one signature's alignment; past it, copies
// are paired first come, first served.
const maxAlign = 1 << 16

// align returns the upstream position of each downstream packet, -1 for
// none, and which downstream packets had copies alike at either point
// (their pairing is a choice).
func (p *pairing) align(typical int64) (upOf []int, alike []bool) {
	upOf = make([]int, len(p.down))
	alike = make([]bool, len(p.down))
	for j := range upOf {
		upOf[j] = -1
	}
	p.sc.joinBySig(p.up, p.down, func(us, ds []int) {
		if len(us) > 1 || len(ds) > 1 {
			for _, j := range ds {
				alike[j] = true
			}
		}
		switch {
		case len(us) == 1 && len(ds) == 1:
			if p.fits(us[0], ds[0]) {
				upOf[ds[0]] = us[0]
			}
		case p.onePrint(us, ds):
			p.alignCopies(us, ds, typical, upOf)
		default:
			p.alignByPrint(us, ds, typical, upOf)
		}
		p.earliest(ds, upOf)
	})
	return upOf, alike
}

// alignCopies pairs copies alike, in order.
func (p *pairing) alignCopies(us, ds []int, typical int64, upOf []int) {
	if len(us)*len(ds) > maxAlign {
		p.inOrder(us, ds, upOf)
	} else {
		p.bestOrder(us, ds, typical, upOf)
	}
}

// onePrint reports whether the packets of one signature at both points
// share one header print, or some print is unknown, or the path rewrites
// the flow's headers (prints tell nothing then).
func (p *pairing) onePrint(us, ds []int) bool {
	if p.rewrite.printVaries {
		return true
	}
	first := p.up[us[0]].print
	for _, i := range us {
		if u := &p.up[i]; u.print != first || u.flags&pktHdrCut != 0 {
			return u.flags&pktHdrCut != 0
		}
	}
	for _, j := range ds {
		if d := &p.down[j]; d.print != first || d.flags&pktHdrCut != 0 {
			return d.flags&pktHdrCut != 0
		}
	}
	return true
}

// alignByPrint pairs packets of one signature whose prints differ: those
// of one print in order, then what is left (damaged on the way). Copies
// alike are one packet, which a path delivers in order; packets of one
// signature with other headers are not (a READ answered again carries a
// new MSN, and the path may deliver the second answer first), nor is a
// packet damaged on the way in a field the signature leaves out.
func (p *pairing) alignByPrint(us, ds []int, typical int64, upOf []int) {
	done := map[uint32]bool{}
	var su, sd []int
	for _, j := range ds {
		key := p.down[j].print
		if done[key] {
			continue
		}
		done[key] = true
		su, sd = su[:0], sd[:0]
		for _, i := range us {
			if p.up[i].print == key {
				su = append(su, i)
			}
		}
		for _, k := range ds {
			if p.down[k].print == key {
				sd = append(sd, k)
			}
		}
		if len(su) > 0 {
			p.alignCopies(su, sd, typical, upOf)
		}
	}
	// What is left downstream may be a packet damaged on the way where
	// the ICRC covers it, or where it cannot be checked; one whose ICRC
	// holds is another packet (a path's copy, an answer the upstream
	// capture missed), left for the walk after (match).
	used := make(map[int]bool, len(ds))
	su, sd = su[:0], sd[:0]
	for _, j := range ds {
		if i := upOf[j]; i >= 0 {
			used[i] = true
		} else if p.down[j].doubtful() {
			sd = append(sd, j)
		}
	}
	for _, i := range us {
		if !used[i] {
			su = append(su, i)
		}
	}
	if len(su) > 0 && len(sd) > 0 {
		p.alignCopies(su, sd, typical, upOf)
	}
}

// earliest moves each pairing to the first downstream copy it could be,
// after the previous pairing's: of copies alike, the first to arrive is
// the delivery, the ones after it the path's copies.
func (p *pairing) earliest(ds []int, upOf []int) {
	free := 0 // ds[free:] are after the previous pairing
	for k, j := range ds {
		i := upOf[j]
		if i < 0 {
			continue
		}
		for f := free; f < k; f++ {
			if upOf[ds[f]] < 0 && p.fits(i, ds[f]) && p.damaged(&p.up[i], &p.down[ds[f]]) == p.damaged(&p.up[i], &p.down[j]) {
				upOf[j], upOf[ds[f]] = -1, i
				k = f
				break
			}
		}
		free = k + 1
	}
}

// fits reports whether downstream packet j can be upstream packet i.
func (p *pairing) fits(i, j int) bool {
	u, d := &p.up[i], &p.down[j]
	dt := d.ts - p.off
	return dt >= u.ts-p.slack && dt-u.ts <= matchHorizon
}

// cost is how far a pairing's delay is from the typical one.
func (p *pairing) cost(i, j int, typical int64) int64 {
	u, d := &p.up[i], &p.down[j]
	c := d.ts - p.off - u.ts - typical
	if c < 0 {
		c = -c
	}
	if p.damaged(u, d) {
		c += matchHorizon // damaged on the way: the last resort
	}
	return c
}

// inOrder pairs each downstream copy with the first upstream one after
// the last paired that fits.
func (p *pairing) inOrder(us, ds []int, upOf []int) {
	k := 0
	for _, j := range ds {
		for k < len(us) && !p.fits(us[k], j) && p.up[us[k]].ts < p.down[j].ts-p.off {
			k++
		}
		if k < len(us) && p.fits(us[k], j) {
			upOf[j] = us[k]
			k++
		}
	}
}

// bestOrder pairs us and ds in order, as many as fit, at the least cost.
func (p *pairing) bestOrder(us, ds []int, typical int64, upOf []int) {
	type cell struct {
		n    int   // pairs
		cost int64 // their cost
		move uint8 // 0 skip up, 1 skip down, 2 pair
	}
	better := func(a, b cell) bool { return a.n > b.n || a.n == b.n && a.cost < b.cost }
	m, n := len(us), len(ds)
	t := make([]cell, (m+1)*(n+1))
	at := func(i, j int) *cell { return &t[i*(n+1)+j] }
	for i := 1; i <= m; i++ {
		for j := 1; j <= n; j++ {
			c := *at(i-1, j)
			c.move = 0
			if s := *at(i, j-1); better(s, c) {
				c, c.move = s, 1
			}
			if p.fits(us[i-1], ds[j-1]) {
				d := *at(i-1, j-1)
				d.n++
				d.cost += p.cost(us[i-1], ds[j-1], typical)
				if d.move = 2; better(d, c) {
					c = d
				}
			}
			*at(i, j) = c
		}
	}
	for i, j := m, n; i > 0 && j > 0; {
		switch at(i, j).move {
		case 2:
			upOf[ds[j-1]] = us[i-1]
			i, j = i-1, j-1
		case 1:
			j--
		default:
			i--
		}
	}
}
