package wiretruth

import (
	"cmp"
	"net/netip"
	"slices"
)

// nakWindow: a resend is credited to a NAK naming its PSN that reached the
// sender at most this long before (ns). The sender answers a NAK within
// microseconds on hardware and milliseconds under emulation; a NAK older
// than a second is from an earlier episode.
const nakWindow = int64(1e9)

// readAsk is a READ request's range of response PSNs.
type readAsk struct {
	psn  uint32
	n    int
	rank int
}

// maxReadsKept: READ requests a flow remembers to recognise a re-issue;
// more than any QP keeps outstanding (IBTA's responder resources are a
// byte, NICs offer 16 to 128).
const maxReadsKept = 256

func ceilDiv(l uint32, m int) int {
	if m <= 0 {
		return 1
	}
	return max(1, (int(l)+m-1)/m)
}

// flowAcc gathers one flow's truth.
type flowAcc struct {
	ft     FlowTruth
	upPos  []int // positions in d.upIdx, upstream order
	delays []int64
	kinds  map[string]bool
	// lastRank: first-sending rank of the flow's previous upstream
	// request. Only requests: on a connection used both ways the flow
	// also carries its sender's ACKs and READ responses to the peer's
	// requests, another sequence; one of those between two resends is no
	// going back.
	lastRank int
	reads    []readAsk
	// psnRank: the first-sending rank of each request PSN but READs'
	// (see addFlows: a request at a PSN sent before is a resend).
	psnRank map[uint32]int
	// The upstream IPv4 packets seen and when (copyBefore), and the
	// highest PSN first sent of the requests and of the READ responses
	// (firstSent).
	keys map[uint64]int64
	high [2]psnHigh
}

// psnHigh is the highest PSN first sent in a stream.
type psnHigh struct {
	seen bool
	psn  uint32
}

// idHorizon: how long an IPv4 identification is compared (ns). Linux
// numbers a sender's packets to one destination from one 16-bit counter;
// Soft-RoCE sends at most some 10^5 packets a second, so the counter
// takes over 300 ms to come round, and 100 ms keeps a copy's ID from
// being taken for a new packet's.
const idHorizon = int64(100e6)

// copyBefore notes an upstream IPv4 packet's identification and reports
// whether the same packet, ID and all, was seen before: a copy made before
// the upstream capture (a sender builds a resend afresh, with a new ID).
// With IPv6 or ID 0 a copy and a resend look alike: not counted.
func (fa *flowAcc) copyBefore(p *Packet) bool {
	if p.IPID == 0 {
		return false
	}
	if fa.keys == nil {
		fa.keys = map[uint64]int64{}
	}
	if ts, ok := fa.keys[p.Key]; ok && p.TS-ts <= idHorizon {
		fa.ft.DuplicatedBefore++
		return true
	}
	fa.keys[p.Key] = p.TS
	return false
}

// firstSent notes the first sending of a packet of a tracked PSN stream
// (content not seen before) and counts it reordered before the upstream
// capture when its PSN is behind another first sending's: a sender
// numbers new packets in order (IBTA 9.7.1), and requests and READ
// responses are separate streams.
func (fa *flowAcc) firstSent(p *Packet) {
	if !tracked(p.Opcode) {
		return // ACKs and datagrams: no order to keep (as observeDown)
	}
	s := &fa.high[0]
	if !isRequest(p.Opcode) {
		s = &fa.high[1]
	}
	if s.seen && int32((p.PSN-s.psn)<<8) < 0 {
		fa.ft.ReorderedBefore++
		return
	}
	*s = psnHigh{seen: true, psn: p.PSN}
}

// reissues finds the newest earlier READ whose response PSNs hold psn.
func (fa *flowAcc) reissues(psn uint32, pmtu int) (rank int, ok bool) {
	for i := len(fa.reads) - 1; i >= 0; i-- {
		r := fa.reads[i]
		if d := int32((psn - r.psn) << 8); d >= 0 && int(d>>8) < r.n {
			return r.rank, true
		}
	}
	return 0, false
}

func (t *Truth) addFlows(d *direction, upName, downName string, pmtu int) {
	u := &upPass{t: t, d: d, pmtu: pmtu, flows: map[Flow]*flowAcc{},
		firstRank: map[uint64]int{}, resent: make([]bool, len(d.upIdx)), rankAt: make([]int, len(d.upIdx))}
	sender := d.up[d.upIdx[0]].Src
	u.naks = sendersNAKs(d.up, sender)
	// Requests that reached the sender again, seen on its own side: the
	// only reason a responder sends an ACK again (IBTA C9-105).
	u.againIn = requestsAgain(d.up, sender)
	for pos, i := range d.upIdx {
		u.packet(pos, &d.up[i], upName, downName)
	}
	// Copies of the packets no analyser follows by PSN (ACKs, UD): what the
	// network did all the same (observeDown counts the others').
	for dp, fate := range d.downFate {
		if fate != Duplicate {
			continue
		}
		if p := &d.up[d.upIdx[d.downOf[dp]]]; !tracked(p.Opcode) {
			u.flows[p.flow()].ft.Duplicated++
		}
	}
	for fi, k := range u.order {
		u.observe(len(t.Flows)+fi, u.flows[k], upName, downName)
	}
	for _, k := range u.order {
		t.Flows = append(t.Flows, u.flows[k].ft)
	}
	slices.SortStableFunc(t.Events, func(x, y Event) int { return cmp.Compare(x.UpTS, y.UpTS) })
}

// nakKey names the NAKs (or RNR NAKs) of one PSN.
type nakKey struct {
	psn uint32
	rnr bool
}

// nakIndex holds when the sender received each NAK and RNR NAK.
type nakIndex map[nakKey][]int64

// sendersNAKs returns the NAKs and RNR NAKs sender received, seen on its
// own side: the peer's acknowledgements addressed to it, in the upstream
// capture.
func sendersNAKs(up []Packet, sender netip.Addr) nakIndex {
	naks := nakIndex{}
	for i := range up {
		p := &up[i]
		if p.Dst != sender || !p.HasAETH {
			continue
		}
		switch p.AETH >> 5 {
		case 1: // RNR NAK
			naks[nakKey{p.PSN, true}] = append(naks[nakKey{p.PSN, true}], p.TS)
		case 3: // NAK
			if p.AETH&0x1f == 0 { // PSN sequence error
				naks[nakKey{p.PSN, false}] = append(naks[nakKey{p.PSN, false}], p.TS)
			}
		}
	}
	return naks
}

// before reports whether a NAK of k reached the sender within nakWindow
// before ts.
func (n nakIndex) before(k nakKey, ts int64) bool {
	for _, at := range n[k] {
		if at <= ts && ts-at <= nakWindow {
			return true
		}
	}
	return false
}

// upPass walks one direction's upstream capture in order, flow by flow:
// what each packet was (first sending, resend, copy) and what became of
// it.
type upPass struct {
	t     *Truth
	d     *direction
	pmtu  int
	flows map[Flow]*flowAcc
	order []Flow
	naks  nakIndex
	// againIn: when requests reached the sender again (requestsAgain);
	// acksRepeated: the ACKs it sent again so far.
	againIn      []int64
	acksRepeated int
	// A resend is a packet whose content the sender sent before; rank is
	// the place of a content's first sending in the flow, so a resend
	// whose rank is not after the previous packet's is the sender going
	// back: a new resend episode.
	firstRank map[uint64]int
	resent    []bool
	rankAt    []int // first-sending rank, a re-issued READ's that of the READ it repeats
}

// acc returns p's flow, new ones in the order first seen.
func (u *upPass) acc(p *Packet, upName, downName string) *flowAcc {
	k := p.flow()
	fa := u.flows[k]
	if fa == nil {
		fa = &flowAcc{ft: FlowTruth{Src: k.Src.String(), Dst: k.Dst.String(), DstQP: k.DstQP,
			Upstream: upName, Downstream: downName,
			Seen: map[string]Observed{upName: {}, downName: {}}}, kinds: map[string]bool{}}
		u.flows[k] = fa
		u.order = append(u.order, k)
	}
	return fa
}

// packet accounts the upstream packet at position pos.
func (u *upPass) packet(pos int, p *Packet, upName, downName string) {
	fa := u.acc(p, upName, downName)
	if tracked(p.Opcode) {
		fa.upPos = append(fa.upPos, pos)
	}
	fa.ft.Sent++
	if p.ECN == 3 && p.Opcode != 0x81 { // a CNP's own codepoint is the NP's choice
		fa.ft.CEBefore++
	}
	if p.BadICRC {
		fa.ft.CorruptedBefore++
	} else if p.HasAETH && p.AETH>>5 == 1 {
		fa.ft.RNRNAKs++
	}
	copyBefore := fa.copyBefore(p)
	fa.kinds[kindOf(p.Opcode)] = true
	rank, again := u.rank(fa, p)
	if !again && !p.BadICRC { // (a damaged header's PSN says nothing)
		fa.firstSent(p)
	}
	switch {
	case copyBefore:
		// A copy made before the capture: not the sender going back.
	case again && isAck(p.Opcode) && u.acksRepeated >= arrivedBy(u.againIn, p.TS):
		// An ACK again with no request received again to answer: a
		// copy made before this capture, on the sender's own egress
		// (without IPv4 IDs copyBefore cannot tell it).
		fa.ft.DuplicatedBefore++
	case again && isAck(p.Opcode):
		// An ACK sent again answers a request received again; it
		// is counted apart from resent data.
		u.acksRepeated++
		fa.ft.ACKsRepeated++
	case again:
		u.resent[pos] = true
		fa.ft.Resent++
		if isRequest(p.Opcode) && rank <= fa.lastRank {
			u.episode(fa, p)
		}
	}
	if !copyBefore && isRequest(p.Opcode) {
		fa.lastRank = rank
	}
	u.rankAt[pos] = rank
	u.fate(pos, fa, p)
}

// rank returns the first-sending rank of p's content in its flow and
// whether the sender sent it before.
func (u *upPass) rank(fa *flowAcc, p *Packet) (rank int, again bool) {
	if rank, again = u.firstRank[p.Content]; again {
		return rank, true
	}
	rank = len(u.firstRank)
	u.firstRank[p.Content] = rank
	switch {
	case p.Opcode&0x1f == 0x0c: // READ request
		// A READ asking again, from the middle, for responses an
		// earlier READ of the flow asked for is new bytes but a
		// resend: it takes that READ's rank.
		if r, ok := fa.reissues(p.PSN, u.pmtu); ok {
			rank, again = r, true
			// The same READ asked again later is the same resend.
			u.firstRank[p.Content] = r
		}
		fa.reads = append(fa.reads, readAsk{psn: p.PSN, n: ceilDiv(p.ReadLen, u.pmtu), rank: rank})
		if len(fa.reads) > maxReadsKept {
			fa.reads = fa.reads[1:]
		}
	case isRequest(p.Opcode) && !p.BadICRC:
		// A request at a PSN the flow sent before is the sender going
		// back to it, whatever its bytes: Soft-RoCE may cut a SEND into
		// packets differently when it resends it (training seed 26's
		// s26-47: PSN 12208610 sent 286 times as SEND LAST and 13 times
		// as SEND FIRST), and the packet with new bytes is no first
		// sending. It takes the PSN's rank.
		if fa.psnRank == nil {
			fa.psnRank = map[uint32]int{}
		}
		if r, ok := fa.psnRank[p.PSN]; ok {
			rank, again = r, true
			u.firstRank[p.Content] = r
		} else {
			fa.psnRank[p.PSN] = rank
		}
	}
	return rank, again
}

// episode counts the sender going back to p, by what made it.
func (u *upPass) episode(fa *flowAcc, p *Packet) {
	switch {
	case u.naks.before(nakKey{p.PSN, false}, p.TS):
		fa.ft.Episodes.NAK++
	case u.naks.before(nakKey{p.PSN, true}, p.TS):
		fa.ft.Episodes.RNR++
	default:
		fa.ft.Episodes.Timer++
	}
}

// fate accounts what the path did to the upstream packet at pos.
func (u *upPass) fate(pos int, fa *flowAcc, p *Packet) {
	d := u.d
	event := func(what string, downTS int64) {
		fi := len(u.t.Flows) + slices.Index(u.order, p.flow())
		u.t.Events = append(u.t.Events, Event{Flow: fi, PSN: p.PSN, Opcode: p.Opcode, What: what, UpTS: p.TS, DownTS: downTS})
	}
	switch d.upFate[pos] {
	case Lost:
		fa.ft.Lost++
		event("lost", 0)
	case Corrupted:
		fa.ft.Corrupted++
		event("corrupted", d.tsDown(d.upDown[pos]))
	default:
		if dp := d.upDown[pos]; dp >= 0 {
			fa.ft.Delivered++
			q := &d.down[d.downIdx[dp]]
			fa.delays = append(fa.delays, q.TS-p.TS)
			if q.ECN == 3 && p.ECN != 3 {
				fa.ft.CEMarked++
				event("ce", q.TS)
			}
		}
	}
}

// observe completes flow fa (index fi of the truth's flows): its kind,
// what each capture point sees of it and its delays.
func (u *upPass) observe(fi int, fa *flowAcc, upName, downName string) {
	d, ft := u.d, &fa.ft
	if len(fa.kinds) > 1 {
		delete(fa.kinds, "acks") // a responder's flow: its READ responses and its ACKs
	}
	kinds := make([]string, 0, len(fa.kinds))
	for s := range fa.kinds {
		kinds = append(kinds, s)
	}
	slices.Sort(kinds)
	ft.Kind = kinds[0]
	if len(kinds) > 1 {
		ft.Kind = "mixed"
	}
	upObs := d.observeUp(fa.upPos, u.resent)
	downObs := d.observeDown(fa.upPos, u.resent, u.rankAt, func(pos int, what string, over uint64, downTS int64) {
		p := &d.up[d.upIdx[pos]]
		u.t.Events = append(u.t.Events, Event{Flow: fi, PSN: p.PSN, Opcode: p.Opcode, What: what, UpTS: p.TS, DownTS: downTS, Overtaken: over})
	}, ft)
	ft.Seen[upName], ft.Seen[downName] = upObs, downObs
	if len(fa.delays) > 0 {
		slices.Sort(fa.delays)
		ft.DelayNs = DelayStats{fa.delays[0], fa.delays[len(fa.delays)/2], fa.delays[len(fa.delays)-1]}
	}
}

// requestsAgain returns when requests addressed to sender reached it
// again (a content it had received before), in the order of capture: up
// is the capture on the sender's own side, which holds every request it
// received.
func requestsAgain(up []Packet, sender netip.Addr) []int64 {
	seen := map[uint64]bool{}
	var at []int64
	for i := range up {
		p := &up[i]
		if p.Dst != sender || !isRequest(p.Opcode) {
			continue
		}
		if seen[p.Content] {
			at = append(at, p.TS)
		}
		seen[p.Content] = true
	}
	return at
}

// arrivedBy counts the times in at (ascending) no later than ts.
func arrivedBy(at []int64, ts int64) int {
	n, _ := slices.BinarySearch(at, ts+1)
	return n
}
