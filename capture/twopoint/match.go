package twopoint

import (
	"slices"
	"time"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// matchHorizon is how long after its upstream passage a packet may reach
// the downstream point and still be the same packet: no switch or host
// queue holds a packet for a second (RoCE's ACK timeouts are tens of
// milliseconds: a packet that late has been resent), and the lab's
// largest netem delay is 790 ms. Upstream packets the downstream capture
// stopped before reaching by this much are not counted lost.
const matchHorizon = int64(time.Second)

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
	slack  int64
	sc     *scratch // shared by the comparison's pairings
	fate   Fate
	delays []int64 // one-way delays of delivered packets, ns
	// lostAt are the upstream times of lost packets, orphanAt those of
	// downstream packets that matched nothing and whose ICRC fails or
	// cannot be checked: a packet corrupted in its headers matches
	// nothing, and is paired with a loss afterwards (corruptedInHeaders).
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
	typical := p.typicalDelay()
	upOf := p.align(typical) // upstream position of each downstream packet, -1 none
	paired := make([]bool, len(p.up))
	delivered := map[uint64]int64{} // signature → upstream-clock time of its last delivery
	upAt := make([]int, 0, len(p.down))
	for j, d := range p.down {
		dt := d.ts - p.off // on the upstream clock
		if i := upOf[j]; i >= 0 {
			paired[i] = true
			p.paired(i, d, dt)
			upAt = append(upAt, i)
			delivered[d.sig] = dt
			continue
		}
		if last, ok := delivered[d.sig]; ok && dt-last <= matchHorizon {
			p.fate.Duplicated++
			continue
		}
		if dt >= p.windowStart() {
			p.fate.Appeared++
			if d.bad || d.cut {
				// Its ICRC fails, or cannot be checked: it may be a
				// packet corrupted in its headers.
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

// typicalDelay is the median delay of the flow's packets whose signature
// each point holds once, 0 when there is none.
func (p *pairing) typicalDelay() int64 {
	ds := p.sc.delays[:0]
	p.sc.joinBySig(p.up, p.down, func(us, dn []int) {
		if len(us) == 1 && len(dn) == 1 {
			ds = append(ds, p.down[dn[0]].ts-p.off-p.up[us[0]].ts)
		}
	})
	p.sc.delays = ds
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// windowStart is the upstream time of the flow's first packet.
func (p *pairing) windowStart() int64 {
	if len(p.up) == 0 {
		return 0
	}
	return p.up[0].ts - matchHorizon
}

// paired counts upstream packet i delivered as d at dt.
func (p *pairing) paired(i int, d pkt, dt int64) {
	u := p.up[i]
	switch {
	case d.bad && !u.bad:
		p.fate.Corrupted++
	default:
		p.fate.Delivered++
		p.delays = append(p.delays, dt-u.ts)
	}
	if d.ecn == ecnCE && u.ecn != ecnCE {
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
