package twopoint

import (
	"slices"
	"time"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// matchHorizon is how long after its upstream passage a packet may reach
// the downstream point and still be the same packet: no switch queue
// holds a packet for more than milliseconds, RoCE's ACK timeouts are tens
// of milliseconds (a packet that late has been resent), and the longest
// one-way delay the lab has made is 1.54 s (netem's jitter of up to
// 790 ms, and the queue of packets held behind it: s24-31's ACKs, whose
// every header byte is unique, so the delay is not a pairing's guess).
// Upstream packets the downstream capture stopped before reaching by
// this much are not counted lost.
const matchHorizon = int64(2 * time.Second)

// Fate counts what the path did to one flow's packets between its
// upstream and downstream capture points.
type Fate struct {
	Sent       uint64 `json:"sent"`      // packets upstream
	Delivered  uint64 `json:"delivered"` // arrived intact, first copy
	Lost       uint64 `json:"lost"`
	Corrupted  uint64 `json:"corrupted"`  // arrived with an ICRC that fails
	Duplicated uint64 `json:"duplicated"` // copies the path made
	// Reordered: packets that arrived after one sent later; MaxOvertaken
	// the most later-sent packets that passed one of them.
	Reordered    uint64 `json:"reordered"`
	MaxOvertaken uint64 `json:"max_overtaken"`
	CEMarked     uint64 `json:"ce_marked"` // marked CE on the way
	// Appeared: packets downstream that the upstream capture does not
	// hold: that capture missed them (its own drops), or they came from
	// elsewhere.
	Appeared uint64 `json:"appeared"`
	// Unknown: packets sent before the downstream capture's first packet
	// or after its last, that it does not hold: lost, or sent while it
	// was not capturing; a capture's last packet is all that says it ran.
	Unknown uint64 `json:"unknown"`
}

// add adds g's counts to f (MaxOvertaken: the larger).
func (f *Fate) add(g Fate) {
	f.Sent += g.Sent
	f.Delivered += g.Delivered
	f.Lost += g.Lost
	f.Corrupted += g.Corrupted
	f.Duplicated += g.Duplicated
	f.Reordered += g.Reordered
	f.MaxOvertaken = max(f.MaxOvertaken, g.MaxOvertaken)
	f.CEMarked += g.CEMarked
	f.Appeared += g.Appeared
	f.Unknown += g.Unknown
}

// pairing is one flow matched between its points.
type pairing struct {
	up, down []pkt
	off      int64 // downstream clock minus upstream clock
	// slack lets a downstream copy be stamped a little before its
	// upstream one: the offset is known only within its uncertainty.
	slack int64
	sc    *scratch // shared by the comparison's pairings
	// rewrite is what the path does to the flow's per-hop fields.
	rewrite pathRewrite
	fate    Fate
	delays  []int64 // one-way delays of delivered packets, ns
	// lostAt are the upstream times of lost packets, orphanAt those of
	// downstream packets that matched nothing and may be damaged (their
	// ICRC fails or cannot be checked, or they are unlike the packet of
	// their signature): a packet corrupted in its headers matches
	// nothing, or another packet, and is paired with a loss afterwards
	// (corruptedInHeaders).
	lostAt   []int64
	orphanAt []int64
}

// match pairs up's packets with down's (align, for each signature), then
// walks the downstream packets in the order they arrived: a paired one
// was delivered; one left over is a copy the path made when its
// signature was delivered within the horizon before, else it appeared.
// downFrom and downTo are the downstream capture's window on the
// upstream clock: packets sent outside it are unknown, not lost.
func (p *pairing) match(downFrom, downTo int64) {
	typical := p.typical()
	upOf, alike := p.align(typical) // upstream position of each downstream packet, -1 none
	paired := make([]bool, len(p.up))
	type delivery struct {
		at int64 // upstream-clock time
		up int   // upstream position
	}
	delivered := map[uint64]delivery{} // by signature, its last delivery
	upAt := make([]int, 0, len(p.down))
	for j := range p.down {
		d := &p.down[j]
		dt := d.ts - p.off // on the upstream clock
		if i := upOf[j]; i >= 0 {
			paired[i] = true
			p.paired(i, d, dt, alike[j])
			upAt = append(upAt, i)
			delivered[d.sig] = delivery{dt, i}
			continue
		}
		// A path's copy has its original's bytes; one whose ICRC fails,
		// or whose headers differ from the delivered packet's, is another
		// packet corrupted into this one's signature.
		unlike := false
		if last, ok := delivered[d.sig]; ok && dt-last.at <= matchHorizon {
			if !p.changed(&p.up[last.up], d) {
				p.fate.Duplicated++
				continue
			}
			unlike = true
		}
		if dt >= p.windowStart() {
			p.fate.Appeared++
			if d.doubtful() || unlike {
				// It may be a packet corrupted in its headers.
				p.orphanAt = append(p.orphanAt, dt)
			}
		}
	}
	p.unpaired(paired, downFrom, downTo)
	p.reordering(upAt)
}

// ecnCE is the IP ECN codepoint Congestion Experienced.
const ecnCE = 3

// ecnCould reports whether a packet sent with ECN codepoint up can arrive
// with down: unchanged, or marked CE on the way (RFC 3168: a router
// marks an ECN-capable packet CE and never clears a mark).
func ecnCould(up, down uint8) bool {
	return down == up || down == ecnCE && up != 0
}

// typical sets the flow's path rewrite and returns its typical delay:
// the medians over the packets whose signature each point holds once
// (0 and unknown when there is none).
func (p *pairing) typical() int64 {
	ds, hops, tcs := p.sc.delays[:0], p.sc.hops[:0], p.sc.tcs[:0]
	unlike := 0 // pairs whose prints differ
	p.sc.joinBySig(p.up, p.down, func(us, dn []int) {
		if len(us) == 1 && len(dn) == 1 {
			u, d := &p.up[us[0]], &p.down[dn[0]]
			ds = append(ds, d.ts-p.off-u.ts)
			hops = append(hops, u.hop-d.hop)
			tcs = append(tcs, uint16(u.tc)<<8|uint16(d.tc))
			if u.print != d.print {
				unlike++
			}
		}
	})
	p.sc.delays, p.sc.hops, p.sc.tcs = ds, hops, tcs
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	slices.Sort(hops)
	slices.Sort(tcs)
	tc := tcs[len(tcs)/2]
	p.rewrite = pathRewrite{hops: hops[len(hops)/2], tcUp: uint8(tc >> 8), tcDn: uint8(tc), known: true,
		printVaries: 2*unlike > len(ds)}
	return ds[len(ds)/2]
}

// windowStart is the upstream time of the flow's first packet.
func (p *pairing) windowStart() int64 {
	if len(p.up) == 0 {
		return 0
	}
	return p.up[0].ts - matchHorizon
}

// paired counts upstream packet i delivered as d at dt; alike: the
// pairing was a choice among copies alike.
func (p *pairing) paired(i int, d *pkt, dt int64, alike bool) {
	u := &p.up[i]
	switch {
	case p.changed(u, d) || !alike && p.ecnChanged(u, d):
		p.fate.Corrupted++
	default:
		p.fate.Delivered++
		p.delays = append(p.delays, dt-u.ts)
	}
	if d.ecn() == ecnCE && u.ecn() != ecnCE && ecnCould(u.ecn(), d.ecn()) {
		p.fate.CEMarked++
	}
}

// unpaired counts the upstream packets left: lost when sent while the
// downstream capture ran (from its first packet to its last), else
// unknown. Sent is every upstream packet of the flow.
func (p *pairing) unpaired(paired []bool, downFrom, downTo int64) {
	for i, u := range p.up {
		switch {
		case paired[i]:
		case u.ts >= downFrom && u.ts <= downTo:
			p.fate.Lost++
			p.lostAt = append(p.lostAt, u.ts)
		default:
			p.fate.Unknown++
		}
	}
	p.fate.Sent = p.fate.Delivered + p.fate.Corrupted + p.fate.Lost + p.fate.Unknown
}

// reordering counts delivered packets that arrived after one sent later,
// upAt being their upstream positions in arrival order. Order is counted
// within a PSN stream, where it means something to the transport: a
// connected transport's requests, and its READ responses. ACKs are
// coalesced (an ACK overtaken by a later one is superseded), and UD and
// CNPs carry no stream.
func (p *pairing) reordering(upAt []int) {
	var fw [2]fenwick
	var arrived [2]uint64
	for n := range fw {
		fw[n] = make(fenwick, len(p.up)+1)
	}
	for _, i := range upAt {
		s := streamOf(roce.Opcode(p.up[i].op))
		if s < 0 {
			continue
		}
		before := uint64(fw[s].sum(i)) // arrived already, sent earlier
		if over := arrived[s] - before; over > 0 {
			p.fate.Reordered++
			p.fate.MaxOvertaken = max(p.fate.MaxOvertaken, over)
		}
		fw[s].add(i + 1)
		arrived[s]++
	}
}

// streamOf is the PSN stream op belongs to: 0 requests, 1 READ responses,
// -1 none (acknowledgements, UD, RD, CNPs).
func streamOf(op roce.Opcode) int {
	switch op.Transport() {
	case roce.TransportRC, roce.TransportUC, roce.TransportXRC:
	default:
		return -1
	}
	switch {
	case op.IsReadResponse():
		return 1
	case op.IsRequest():
		return 0
	}
	return -1
}

// fenwick counts positions: add(i) marks 1-based position i, sum(i) the
// marks at positions 1..i.
type fenwick []int

func (f fenwick) add(i int) {
	for ; i < len(f); i += i & -i {
		f[i]++
	}
}

func (f fenwick) sum(i int) (s int) {
	for ; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}
