package wiretruth

import (
	"cmp"
	"slices"
)

// observeUp is what the upstream capture shows of one flow whose packets
// are upPos: every packet its sender sent, and which of them were resends.
func (d *direction) observeUp(upPos []int, resent []bool) Observed {
	o := Observed{Packets: uint64(len(upPos))}
	noIDs := true
	for _, pos := range upPos {
		noIDs = noIDs && d.up[d.upIdx[pos]].IPID == 0
	}
	var behind [2]behindLast
	for _, pos := range upPos {
		p := &d.up[d.upIdx[pos]]
		again := noIDs && behind[d.streamOf(pos)].again(p.Content, p.TS)
		if resent[pos] {
			o.Resent++
			if again {
				o.UnclearResends++
			}
		}
	}
	return o
}

// observeDown works out what the downstream capture shows of one flow
// whose upstream packets are upPos (in upstream order).
func (d *direction) observeDown(upPos []int, resent []bool, rankAt []int, event func(pos int, what string, over uint64, downTS int64), ft *FlowTruth) Observed {
	v := newDownView(d, upPos, resent, rankAt, event, ft)
	v.walk()
	v.holes()
	return v.o
}

// downView is one flow as its downstream capture point sees it, worked
// out by observeDown.
type downView struct {
	d      *direction
	upPos  []int
	resent []bool
	rankAt []int
	event  func(pos int, what string, over uint64, downTS int64)
	ft     *FlowTruth
	o      Observed
	// Ranks are kept per PSN stream: a flow of a connection used both
	// ways carries its sender's requests and its READ responses to the
	// peer, two sequences no receiver compares with each other - a
	// response overtaking a request is no reordering to anyone.
	rank      map[int]int // upstream position -> rank in its stream
	streamLen [2]int
	arrivals  []int            // downstream positions of the flow's copies, in arrival order
	firstSeen map[uint64]int64 // content -> first downstream arrival
	// contentRank: contents ranked by their first sending (from 1), for
	// what a resend shows; sends: how often each content was sent.
	contentRank map[uint64]int
	sends       map[uint64]int
	// Without IPv4 IDs (IPv6, or a sender that sends ID 0) the copies of
	// a packet sent more than once are alike: nobody at this point can
	// tell which copy arrived, so which later-sent packet it arrived
	// after is the matching's guess, not something to see. What the
	// point sees is the PSN order: a packet sent once, arriving after one
	// first sent after it. The network's reordering (ft.Reordered) is
	// counted either way.
	noIDs bool
}

func newDownView(d *direction, upPos []int, resent []bool, rankAt []int, event func(pos int, what string, over uint64, downTS int64), ft *FlowTruth) *downView {
	v := &downView{d: d, upPos: upPos, resent: resent, rankAt: rankAt, event: event, ft: ft,
		rank: make(map[int]int, len(upPos)), firstSeen: map[uint64]int64{},
		contentRank: make(map[uint64]int, len(upPos)), sends: make(map[uint64]int, len(upPos)), noIDs: true}
	for _, pos := range upPos {
		c := d.streamOf(pos)
		v.rank[pos] = v.streamLen[c]
		v.streamLen[c]++
		p := &d.up[d.upIdx[pos]]
		if v.contentRank[p.Content] == 0 {
			v.contentRank[p.Content] = len(v.contentRank) + 1
		}
		v.noIDs = v.noIDs && p.IPID == 0
		v.sends[p.Content]++
	}
	for dp, up := range d.downOf {
		if up >= 0 {
			if _, mine := v.rank[up]; mine {
				v.arrivals = append(v.arrivals, dp)
			}
		}
	}
	slices.SortFunc(v.arrivals, func(x, y int) int { return cmp.Compare(d.tsDown(x), d.tsDown(y)) })
	return v
}

// fenwick counts arrivals by upstream rank: how many of those with rank
// at most i arrived.
type fenwick []int

func (f fenwick) add(i int) {
	for i++; i < len(f); i += i & -i {
		f[i]++
	}
}

func (f fenwick) sum(i int) (s int) {
	for i++; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}

// walk goes through the flow's arrivals downstream: copies, resends the
// point can see, and reordering - a delivered packet arriving after one
// sent later (the Fenwick trees count the later-sent ones arrived).
func (v *downView) walk() {
	d, o := v.d, &v.o
	fens := [2]fenwick{make(fenwick, v.streamLen[0]+1), make(fenwick, v.streamLen[1]+1)}
	var maxContentRank, arrived [2]int
	maxRankSeen := 0
	var behind [2]behindLast
	for _, dp := range v.arrivals {
		up := d.downOf[dp]
		if d.downFate[dp] == Corrupted && d.misplaced(dp, up) {
			// Damaged where its place is written: here it belongs to
			// another flow, or stands at another PSN. Nobody at this
			// point can see it as this packet.
			continue
		}
		o.Packets++
		ts := d.tsDown(dp)
		key := d.up[d.upIdx[up]].Content
		if _, ok := v.firstSeen[key]; !ok {
			v.firstSeen[key] = ts
		}
		again := v.noIDs && behind[d.streamOf(up)].again(key, ts)
		if d.downFate[dp] == Duplicate {
			o.Duplicates++
			if again {
				o.UnclearCopies++
			}
			v.ft.Duplicated++
			v.event(up, "duplicated", 0, ts)
			continue
		}
		// A resend is visible here when this point saw its content before,
		// or a packet first sent after it (it fills a skip); otherwise it
		// is the first copy seen here and looks like the first sending.
		if v.resent[up] && (v.firstSeen[key] != ts || v.rankAt[up] < maxRankSeen) {
			o.Resent++
			if again {
				o.UnclearResends++
			}
		}
		maxRankSeen = max(maxRankSeen, v.rankAt[up])
		c, r := d.streamOf(up), v.rank[up]
		if v.noIDs {
			cr := v.contentRank[key]
			if v.firstSeen[key] == ts && v.sends[key] == 1 && cr < maxContentRank[c] {
				o.OutOfOrder++
			}
			maxContentRank[c] = max(maxContentRank[c], cr)
		}
		if later := arrived[c] - fens[c].sum(r); later > 0 {
			if !v.noIDs {
				o.OutOfOrder++
			}
			v.ft.Reordered++
			v.ft.MaxOvertaken = max(v.ft.MaxOvertaken, uint64(later))
			v.event(up, "reordered", uint64(later), ts)
		}
		fens[c].add(r)
		arrived[c]++
	}
}

// holes counts the packets whose first sending was lost (or corrupted)
// when a packet first sent after them is seen here before any copy of
// them. Contents are ranked by their first sending, so a resend of an
// older packet arriving meanwhile makes no hole.
func (v *downView) holes() {
	d, o := v.d, &v.o
	const never = int64(1) << 62
	type content struct {
		key       uint64
		firstLost bool
		pos       int
	}
	var byRank []content
	ranked := map[uint64]bool{}
	for _, pos := range v.upPos {
		key := d.up[d.upIdx[pos]].Content
		if ranked[key] {
			continue
		}
		ranked[key] = true
		byRank = append(byRank, content{key, d.upFate[pos] != Delivered, pos})
	}
	seenAt := func(key uint64) int64 {
		if ts, ok := v.firstSeen[key]; ok {
			return ts
		}
		return never
	}
	// The observer's stream begins with the first packet it sees: what
	// was sent before that is before its capture, not a hole in it.
	startRank := len(byRank)
	if len(v.arrivals) > 0 {
		startRank = v.contentRank[d.up[d.upIdx[d.downOf[v.arrivals[0]]]].Content] - 1
	}
	suffixMin := never
	for r := len(byRank) - 1; r >= 0; r-- {
		c := byRank[r]
		fs := seenAt(c.key)
		skipped := suffixMin < fs && r > startRank
		if c.firstLost && skipped {
			o.Missing++
			v.event(c.pos, "hole", 0, 0)
		}
		// Without IDs the first copy here of a packet sent more than once
		// is, to this point, the late original or the resend of a lost
		// one, alike to the bit: which it was is the two captures' to
		// know, not this one's.
		if v.noIDs && skipped && v.sends[c.key] > 1 {
			o.Unclear++
			if c.firstLost {
				o.UnclearLost++
			}
		}
		suffixMin = min(suffixMin, fs)
	}
}

// misplaced reports whether a corrupted copy lost what places it in its
// PSN stream: its addresses, destination QP, PSN or opcode differ from
// the packet sent (netem's corrupt flips a bit anywhere in the frame;
// with 128-byte payloads a third of the bits are headers).
func (d *direction) misplaced(downPos, upPos int) bool {
	o, p := &d.down[d.downIdx[downPos]], &d.up[d.upIdx[upPos]]
	return o.flow() != p.flow() || o.PSN != p.PSN || o.Opcode != p.Opcode
}

// tracked: the packets whose PSNs form a stream an analyser can follow,
// and so the ones Observed counts: requests of the connected transports
// (RC, UC, XRC) and READ responses. Acknowledgements are coalesced (a
// skipped ACK PSN is no loss), UD and RD mix senders' PSN spaces.
func tracked(op uint8) bool {
	switch op >> 5 {
	case 0, 1, 5: // RC, UC, XRC
	default:
		return false
	}
	switch op & 0x1f {
	case 0x11, 0x12: // ACKNOWLEDGE, ATOMIC ACKNOWLEDGE
		return false
	}
	return true
}

func kindOf(op uint8) string {
	switch {
	case op == 0x81:
		return "cnp"
	case op>>5 == 3:
		return "ud"
	case op&0x1f == 0x11 || op&0x1f == 0x12:
		return "acks"
	case isRequest(op):
		return "requests"
	}
	return "responses"
}

// behindLast remembers the last packet of a PSN stream seen at a point,
// to tell a packet seen again right behind itself (again).
type behindLast struct {
	key  uint64
	ts   int64
	seen bool
}

// ackTimerFloor: a sender resends without a NAK when its ACK timer fires,
// 4.096 µs × 2^timeout, at least 8 ms for any timeout a fabric uses (≥ 11)
// (capture's nakHorizon argues the same floor).
const ackTimerFloor = 8_000_000 // ns

// again notes a packet of content key seen at ts and reports whether it
// came right behind an earlier copy of itself: the last packet of its
// stream here, sooner than any ACK timer fires. Without IPv4 IDs such a
// packet is, to this point, a copy the path made or the sender's own
// immediate resend, alike to the bit and in timing: netem copies came
// 17-581 µs behind their originals in the lab, Soft-RoCE's resends with no
// NAK 169 µs (testdata/wiretruth/dup5-send, upstream) and 389 µs
// (testdata/rxe/pcap/lossy1.pcap) behind theirs.
func (b *behindLast) again(key uint64, ts int64) bool {
	is := b.seen && b.key == key && ts-b.ts >= 0 && ts-b.ts < ackTimerFloor
	b.key, b.ts, b.seen = key, ts, true
	return is
}

// streamOf is the PSN stream of the upstream packet at pos: 0 for its
// sender's requests, 1 for its READ responses.
func (d *direction) streamOf(pos int) int {
	if isRequest(d.up[d.upIdx[pos]].Opcode) {
		return 0
	}
	return 1
}
