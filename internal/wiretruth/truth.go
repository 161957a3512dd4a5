package wiretruth

import (
	"cmp"
	"fmt"
	"slices"
)

// Truth is what the network did between two capture points.
type Truth struct {
	Captures []CaptureInfo `json:"captures"`
	Flows    []FlowTruth   `json:"flows"`
	// Events lists every packet the network did not simply deliver, in
	// upstream order: lost, corrupted, duplicated, reordered, CE-marked.
	Events []Event `json:"events"`
}

// CaptureInfo names one capture point.
type CaptureInfo struct {
	Name    string `json:"name"`
	Packets int    `json:"roce_packets"`
	// Unmatched: packets here that match nothing on the other side, not
	// even as a corrupted copy (0 in a sound run).
	Unmatched int `json:"unmatched"`
}

// FlowTruth is one flow (a sender, a destination and its QP): what the
// network did to its packets, and what an analyser at each capture point
// can see of it.
type FlowTruth struct {
	Src        string `json:"src"`
	Dst        string `json:"dst"`
	DstQP      uint32 `json:"dest_qp"`
	Kind       string `json:"kind"` // requests, responses, cnp or mixed
	Upstream   string `json:"upstream"`
	Downstream string `json:"downstream"`
	Sent       uint64 `json:"sent"`      // packets upstream
	Delivered  uint64 `json:"delivered"` // of those, arrived intact (first copy)
	Lost       uint64 `json:"lost"`
	Corrupted  uint64 `json:"corrupted"`
	Duplicated uint64 `json:"duplicated"` // extra copies made on the path
	// Reordered: packets that arrived after one their sender sent later;
	// MaxOvertaken: the most later-sent packets that passed one of them.
	Reordered    uint64 `json:"reordered"`
	MaxOvertaken uint64 `json:"max_overtaken"`
	CEMarked     uint64 `json:"ce_marked"`
	// Resent: packets the sender sent again (same bytes), and the runs of
	// them: an episode starts where the sender goes back in its own order
	// of sending, credited to what the sender received first: a NAK (PSN
	// sequence error) or RNR NAK naming the PSN it goes back to, else its
	// timer.
	Resent   uint64       `json:"resent"`
	Episodes EpisodeCount `json:"resend_episodes"`
	// ACKsRepeated: acknowledgements sent again with the same content (a
	// responder answers a duplicate request with the same ACK).
	ACKsRepeated uint64     `json:"acks_repeated"`
	DelayNs      DelayStats `json:"delay_ns"`
	// Seen: what can be seen at each capture point, by its name.
	Seen map[string]Observed `json:"seen"`
}

// EpisodeCount counts resend runs by what triggered them.
type EpisodeCount struct {
	NAK   uint64 `json:"nak"`
	RNR   uint64 `json:"rnr"`
	Timer uint64 `json:"timer"`
}

// DelayStats summarises the one-way delay between the capture points.
type DelayStats struct {
	Min    int64 `json:"min"`
	Median int64 `json:"median"`
	Max    int64 `json:"max"`
}

// Observed is what the network's doing looks like at one capture point:
// the counts an analyser there should report.
type Observed struct {
	Packets uint64 `json:"packets"`
	// Missing: packets lost before this point that leave a hole: a packet
	// their sender sent later is seen here before any copy of them.
	Missing uint64 `json:"missing"`
	// Duplicates: copies made on the path before this point.
	Duplicates uint64 `json:"duplicates"`
	// OutOfOrder: packets seen here after one their sender sent later.
	OutOfOrder uint64 `json:"out_of_order"`
	// Resent: resends by the sender that reach this point.
	Resent uint64 `json:"resent"`
}

// Event is one packet the network did not simply deliver.
type Event struct {
	Flow   int    `json:"flow"` // index into Flows
	PSN    uint32 `json:"psn"`
	Opcode uint8  `json:"opcode"`
	// What: lost, corrupted, duplicated, reordered, ce; and hole for a
	// lost packet that leaves a hole downstream (see Observed.Missing).
	What      string `json:"what"`
	UpTS      int64  `json:"up_ts"`
	DownTS    int64  `json:"down_ts,omitempty"`
	Overtaken uint64 `json:"overtaken,omitempty"`
}

// Analyze compares two captures of the same traffic taken on either side
// of an impairment. Which side is upstream is decided per sender, from
// the packets both captures hold: a sender's packets are seen first on
// its own side.
func Analyze(nameA string, a []Packet, nameB string, b []Packet) (*Truth, error) {
	t := &Truth{Captures: []CaptureInfo{{Name: nameA, Packets: len(a)}, {Name: nameB, Packets: len(b)}}}
	senders := map[string]bool{}
	for _, p := range a {
		senders[p.Src.String()] = true
	}
	for _, p := range b {
		senders[p.Src.String()] = true
	}
	names := make([]string, 0, len(senders))
	for s := range senders {
		names = append(names, s)
	}
	slices.Sort(names)
	// A sender with no packet in both captures is a corrupted source
	// address (or traffic only one side saw): its packets are strays,
	// offered to every direction downstream of where they were captured
	// as corrupted copies of a lost packet.
	var dirs []*direction
	var upNames, downNames []string
	stray := map[string][]int{nameA: nil, nameB: nil}
	for _, s := range names {
		ia, ib := indicesOf(a, s), indicesOf(b, s)
		aFirst, ok := seenFirst(a, ia, b, ib)
		if !ok {
			stray[nameA] = append(stray[nameA], ia...)
			stray[nameB] = append(stray[nameB], ib...)
			continue
		}
		d := &direction{up: a, down: b, upIdx: ia, downIdx: ib}
		upName, downName := nameA, nameB
		if !aFirst {
			d = &direction{up: b, down: a, upIdx: ib, downIdx: ia}
			upName, downName = nameB, nameA
		}
		dirs = append(dirs, d)
		upNames, downNames = append(upNames, upName), append(downNames, downName)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("the two captures share no packet: are they of the same traffic?")
	}
	// The path MTU: a MIDDLE packet's payload (READ re-issues need it).
	pmtu := 0
	for _, pk := range [][]Packet{a, b} {
		for i := range pk {
			pmtu = max(pmtu, pk[i].MiddlePayload)
		}
	}
	for i, d := range dirs {
		d.downIdx = append(d.downIdx, stray[downNames[i]]...)
		slices.SortFunc(d.downIdx, func(x, y int) int { return cmp.Compare(d.down[x].TS, d.down[y].TS) })
		d.match()
	}
	claimed := map[string]map[int]bool{nameA: {}, nameB: {}}
	for i, d := range dirs {
		for pos, f := range d.downFate {
			if f == Corrupted {
				claimed[downNames[i]][d.downIdx[pos]] = true
			}
		}
	}
	for i, d := range dirs {
		t.addFlows(d, upNames[i], downNames[i], pmtu)
		for pos, f := range d.downFate {
			if f == Orphan && !claimed[downNames[i]][d.downIdx[pos]] {
				c := &t.Captures[slices.IndexFunc(t.Captures, func(c CaptureInfo) bool { return c.Name == downNames[i] })]
				c.Unmatched++
				claimed[downNames[i]][d.downIdx[pos]] = true // count a stray once
			}
		}
	}
	return t, nil
}

func indicesOf(pk []Packet, src string) []int {
	var out []int
	for i := range pk {
		if pk[i].Src.String() == src {
			out = append(out, i)
		}
	}
	return out
}

// seenFirst says whether a sender's packets reach capture a before b: the
// median time difference of packets both hold once.
func seenFirst(a []Packet, ia []int, b []Packet, ib []int) (aFirst, ok bool) {
	first := make(map[uint64]int64, len(ia))
	for _, i := range ia {
		if _, dup := first[a[i].Key]; !dup {
			first[a[i].Key] = a[i].TS
		}
	}
	var diffs []int64
	seen := map[uint64]bool{}
	for _, i := range ib {
		k := b[i].Key
		if ta, in := first[k]; in && !seen[k] {
			seen[k] = true
			diffs = append(diffs, b[i].TS-ta)
		}
	}
	if len(diffs) == 0 {
		return false, false
	}
	slices.Sort(diffs)
	return diffs[len(diffs)/2] >= 0, true
}

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
	ft       FlowTruth
	upPos    []int // positions in d.upIdx, upstream order
	delays   []int64
	kinds    map[string]bool
	lastRank int // first-sending rank of the previous upstream packet
	reads    []readAsk
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
	var order []Flow
	flows := map[Flow]*flowAcc{}
	acc := func(p *Packet) *flowAcc {
		k := p.flow()
		fa := flows[k]
		if fa == nil {
			fa = &flowAcc{ft: FlowTruth{Src: k.Src.String(), Dst: k.Dst.String(), DstQP: k.DstQP,
				Upstream: upName, Downstream: downName,
				Seen: map[string]Observed{upName: {}, downName: {}}}, kinds: map[string]bool{}}
			flows[k] = fa
			order = append(order, k)
		}
		return fa
	}
	// NAKs and RNR NAKs the sender received, seen on its own side: the
	// peer's acknowledgements addressed to it, in the upstream capture.
	type nakKey struct {
		psn uint32
		rnr bool
	}
	naks := map[nakKey][]int64{}
	sender := d.up[d.upIdx[0]].Src
	for i := range d.up {
		p := &d.up[i]
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
	nakBefore := func(k nakKey, ts int64) bool {
		for _, n := range naks[k] {
			if n <= ts && ts-n <= nakWindow {
				return true
			}
		}
		return false
	}
	// A resend is a packet whose content the sender sent before; rank is
	// the place of a content's first sending in the flow, so a resend
	// whose rank is not after the previous packet's is the sender going
	// back: a new resend episode.
	firstRank := map[uint64]int{}
	resent := make([]bool, len(d.upIdx))
	rankAt := make([]int, len(d.upIdx)) // first-sending rank, a re-issued READ's that of the READ it repeats
	for pos, i := range d.upIdx {
		p := &d.up[i]
		fa := acc(p)
		if tracked(p.Opcode) {
			fa.upPos = append(fa.upPos, pos)
		}
		fa.ft.Sent++
		fa.kinds[kindOf(p.Opcode)] = true
		rank, again := firstRank[p.Content]
		if !again {
			rank = len(firstRank)
			firstRank[p.Content] = rank
			if p.Opcode&0x1f == 0x0c { // READ request
				// A READ asking again, from the middle, for responses an
				// earlier READ of the flow asked for is new bytes but a
				// resend: it takes that READ's rank.
				if r, ok := fa.reissues(p.PSN, pmtu); ok {
					rank, again = r, true
				}
				fa.reads = append(fa.reads, readAsk{psn: p.PSN, n: ceilDiv(p.ReadLen, pmtu), rank: rank})
				if len(fa.reads) > maxReadsKept {
					fa.reads = fa.reads[1:]
				}
			}
		}
		switch {
		case again && p.Opcode&0x1f == 0x11 && !isRequest(p.Opcode):
			// An ACK sent again answers a request received again; it
			// is counted apart from resent data.
			fa.ft.ACKsRepeated++
		case again:
			resent[pos] = true
			fa.ft.Resent++
			if isRequest(p.Opcode) && rank <= fa.lastRank {
				switch {
				case nakBefore(nakKey{p.PSN, false}, p.TS):
					fa.ft.Episodes.NAK++
				case nakBefore(nakKey{p.PSN, true}, p.TS):
					fa.ft.Episodes.RNR++
				default:
					fa.ft.Episodes.Timer++
				}
			}
		}
		fa.lastRank = rank
		rankAt[pos] = rank
		switch d.upFate[pos] {
		case Lost:
			fa.ft.Lost++
			t.Events = append(t.Events, Event{Flow: len(t.Flows) + slices.Index(order, p.flow()), PSN: p.PSN, Opcode: p.Opcode, What: "lost", UpTS: p.TS})
		case Corrupted:
			fa.ft.Corrupted++
			t.Events = append(t.Events, Event{Flow: len(t.Flows) + slices.Index(order, p.flow()), PSN: p.PSN, Opcode: p.Opcode, What: "corrupted", UpTS: p.TS, DownTS: d.tsDown(d.upDown[pos])})
		default:
			if dp := d.upDown[pos]; dp >= 0 {
				fa.ft.Delivered++
				q := &d.down[d.downIdx[dp]]
				fa.delays = append(fa.delays, q.TS-p.TS)
				if q.ECN == 3 && p.ECN != 3 {
					fa.ft.CEMarked++
					t.Events = append(t.Events, Event{Flow: len(t.Flows) + slices.Index(order, p.flow()), PSN: p.PSN, Opcode: p.Opcode, What: "ce", UpTS: p.TS, DownTS: q.TS})
				}
			}
		}
	}
	// Copies of the packets no analyser follows by PSN (ACKs, UD): what the
	// network did all the same (observeDown counts the others').
	for dp, fate := range d.downFate {
		if fate != Duplicate {
			continue
		}
		if p := &d.up[d.upIdx[d.downOf[dp]]]; !tracked(p.Opcode) {
			acc(p).ft.Duplicated++
		}
	}
	// Per flow: what each capture point sees.
	for fi, k := range order {
		fa := flows[k]
		ft := &fa.ft
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
		upObs := Observed{Packets: uint64(len(fa.upPos))}
		for _, pos := range fa.upPos {
			if resent[pos] {
				upObs.Resent++
			}
		}
		downObs := d.observeDown(fa.upPos, resent, rankAt, func(pos int, what string, over uint64, downTS int64) {
			p := &d.up[d.upIdx[pos]]
			t.Events = append(t.Events, Event{Flow: len(t.Flows) + fi, PSN: p.PSN, Opcode: p.Opcode, What: what, UpTS: p.TS, DownTS: downTS, Overtaken: over})
		}, ft)
		ft.Seen[upName], ft.Seen[downName] = upObs, downObs
		if len(fa.delays) > 0 {
			slices.Sort(fa.delays)
			ft.DelayNs = DelayStats{fa.delays[0], fa.delays[len(fa.delays)/2], fa.delays[len(fa.delays)-1]}
		}
	}
	for _, k := range order {
		t.Flows = append(t.Flows, flows[k].ft)
	}
	slices.SortStableFunc(t.Events, func(x, y Event) int { return cmp.Compare(x.UpTS, y.UpTS) })
}

// observeDown works out what the downstream capture shows of one flow
// whose upstream packets are upPos (in upstream order).
func (d *direction) observeDown(upPos []int, resent []bool, rankAt []int, event func(pos int, what string, over uint64, downTS int64), ft *FlowTruth) Observed {
	var o Observed
	rank := make(map[int]int, len(upPos)) // upstream position -> rank in the flow
	for r, pos := range upPos {
		rank[pos] = r
	}
	// Downstream copies of this flow in arrival order.
	var arrivals []int // downstream positions
	for dp, up := range d.downOf {
		if up >= 0 {
			if _, mine := rank[up]; mine {
				arrivals = append(arrivals, dp)
			}
		}
	}
	slices.SortFunc(arrivals, func(x, y int) int { return cmp.Compare(d.tsDown(x), d.tsDown(y)) })
	firstSeen := map[uint64]int64{} // content -> first downstream arrival
	// Reordering: a delivered packet arriving after one sent later. A
	// Fenwick tree over upstream ranks counts the later-sent ones already
	// arrived.
	fen := make([]int, len(upPos)+1)
	add := func(i int) {
		for i++; i < len(fen); i += i & -i {
			fen[i]++
		}
	}
	sum := func(i int) (s int) { // arrivals with rank <= i
		for i++; i > 0; i -= i & -i {
			s += fen[i]
		}
		return
	}
	// Contents ranked by their first sending, for what a resend shows.
	contentRank := make(map[uint64]int, len(upPos))
	for _, pos := range upPos {
		if k := d.up[d.upIdx[pos]].Content; contentRank[k] == 0 {
			contentRank[k] = len(contentRank) + 1
		}
	}
	maxRankSeen := 0
	arrived := 0
	for _, dp := range arrivals {
		o.Packets++
		up := d.downOf[dp]
		key := d.up[d.upIdx[up]].Content
		if _, ok := firstSeen[key]; !ok {
			firstSeen[key] = d.tsDown(dp)
		}
		if d.downFate[dp] == Duplicate {
			o.Duplicates++
			ft.Duplicated++
			event(up, "duplicated", 0, d.tsDown(dp))
			continue
		}
		// A resend is visible here when this point saw its content before,
		// or a packet first sent after it (it fills a skip); otherwise it
		// is the first copy seen here and looks like the first sending.
		if resent[up] && (firstSeen[key] != d.tsDown(dp) || rankAt[up] < maxRankSeen) {
			o.Resent++
		}
		maxRankSeen = max(maxRankSeen, rankAt[up])
		r := rank[up]
		if later := arrived - sum(r); later > 0 {
			o.OutOfOrder++
			ft.Reordered++
			ft.MaxOvertaken = max(ft.MaxOvertaken, uint64(later))
			event(up, "reordered", uint64(later), d.tsDown(dp))
		}
		add(r)
		arrived++
	}
	// Holes: a packet whose first sending was lost (or corrupted), when a
	// packet first sent after it is seen here before any copy of it.
	// Contents are ranked by their first sending, so a resend of an older
	// packet arriving meanwhile makes no hole.
	never := int64(1) << 62
	type content struct {
		key       uint64
		firstLost bool
		pos       int
	}
	var byRank []content
	ranked := map[uint64]bool{}
	for _, pos := range upPos {
		key := d.up[d.upIdx[pos]].Content
		if ranked[key] {
			continue
		}
		ranked[key] = true
		byRank = append(byRank, content{key, d.upFate[pos] != Delivered, pos})
	}
	seenAt := func(key uint64) int64 {
		if ts, ok := firstSeen[key]; ok {
			return ts
		}
		return never
	}
	// The observer's stream begins with the first packet it sees: what
	// was sent before that is before its capture, not a hole in it.
	startRank := len(byRank)
	if len(arrivals) > 0 {
		startRank = contentRank[d.up[d.upIdx[d.downOf[arrivals[0]]]].Content] - 1
	}
	suffixMin := never
	for r := len(byRank) - 1; r >= 0; r-- {
		c := byRank[r]
		fs := seenAt(c.key)
		if c.firstLost && suffixMin < fs && r > startRank {
			o.Missing++
			event(c.pos, "hole", 0, 0)
		}
		suffixMin = min(suffixMin, fs)
	}
	return o
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
