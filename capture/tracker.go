package capture

import (
	"time"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// TrackerConfig bounds and tunes a Tracker.
type TrackerConfig struct {
	// PMTU is the path MTU in bytes (256..4096) used to count the PSNs a
	// READ request consumes; 0 infers it from FIRST/MIDDLE payloads.
	PMTU int
	// MaxFlows caps the flow table; the least recently seen flows are
	// evicted (and counted) beyond it. 0 means DefaultMaxFlows.
	MaxFlows int
	// MaxAnomalies caps the anomaly log; 0 means DefaultMaxAnomalies.
	MaxAnomalies int
	// ReorderWindow: a packet filling a PSN gap within this time, with no
	// NAK in between, is counted as reordered rather than retransmitted.
	// 0 means DefaultReorderWindow.
	ReorderWindow time.Duration
	// Shard and Shards make this tracker shard Shard (0-based) of Shards
	// that analyse one capture split by host pair (live PACKET_FANOUT):
	// its flow IDs and packet numbers are Shard+1, Shard+1+Shards, … so
	// the shards' summaries merge (MergeSummaries) without clashing. 0 or
	// 1 Shards: one tracker, IDs 1, 2, 3, ….
	Shard, Shards int
}

// Defaults for TrackerConfig.
const (
	DefaultMaxFlows      = 65536
	DefaultMaxAnomalies  = 10000
	DefaultReorderWindow = 3 * time.Millisecond
)

// Tracker follows every flow's PSN stream. It never reads the clock: time
// comes from the packets. Not safe for concurrent use.
type Tracker struct {
	cfg   TrackerConfig
	flows flowTable
	// hosts is the host pairs of the flows in the table, each with its
	// request flows, those still unpaired and its ID clock (hostpair.go);
	// unpairedAt lists the unpaired ones by the block their next PSN is
	// in: what a response's lookup scans (see requester).
	hosts      hostPairs
	unpairedAt blockIndex
	last       *Flow
	// spare is the unused rest of the last block of flows (newFlow).
	spare   []Flow
	lru     recency // every flow, newest first: what evictOne drops
	nextID  int
	pmtu    int
	evicted uint64
	gone    Totals // totals of evicted flows, so that totals stay whole

	anomalies        []anomaly
	anomaliesDropped uint64

	recent recentRing

	// The current interval (see Analyzer.Cut): its generation, the flows
	// it touched and its anomalies.
	intervals bool // Begin or Cut was called: keep touched flows
	gen       uint32
	// noteGone says a RunningUpdate was taken: the ids of flows evicted
	// since are kept for the next one (goneIDs).
	noteGone    bool
	goneIDs     []int
	touched     touchLog
	names       addrNames      // formatted flow addresses (names.go)
	ivGone      Totals         // what flows evicted in this interval did in it
	rings       []*pendingRing // spare pending-request rings (spareRing)
	ivAnomalies []anomaly
	ivDropped   uint64
}

// anomaly is the raw form of an Anomaly, formatted only when reported.
type anomaly struct {
	kind   anomalyKind
	packet uint64
	ts     int64
	flow   int
	psn    uint32
	a, b   uint32
}

type anomalyKind uint8

const (
	anGap anomalyKind = iota
	anGoBackN
	anReorder
	anNAK
	anRNR
	anICRC
	anMalformed
	anCE
	anCNP
	anEvicted
)

// NewTracker returns a tracker with cfg's bounds.
func NewTracker(cfg TrackerConfig) *Tracker {
	if cfg.MaxFlows <= 0 {
		cfg.MaxFlows = DefaultMaxFlows
	}
	if cfg.MaxAnomalies <= 0 {
		cfg.MaxAnomalies = DefaultMaxAnomalies
	}
	if cfg.ReorderWindow <= 0 {
		cfg.ReorderWindow = DefaultReorderWindow
	}
	return &Tracker{cfg: cfg, flows: newFlowTable(), hosts: newHostPairs(),
		unpairedAt: newBlockIndex(), gen: 1}
}

func (t *Tracker) note(a anomaly) {
	if !t.intervals {
		// not cut into intervals: nothing to keep
	} else if len(t.ivAnomalies) < MaxIntervalAnomalies {
		t.ivAnomalies = append(t.ivAnomalies, a)
	} else {
		t.ivDropped++
	}
	if len(t.anomalies) >= t.cfg.MaxAnomalies {
		t.anomaliesDropped++
		return
	}
	t.anomalies = append(t.anomalies, a)
}

func (t *Tracker) flow(k *flowKey, d *Decoded, ts int64, pkt uint64) *Flow {
	if f := t.last; f != nil && f.key == *k {
		return f
	}
	h := t.flows.hash(k)
	f := t.flows.get(k, h)
	if f == nil {
		var gone *Flow
		if t.flows.len() >= t.cfg.MaxFlows {
			gone = t.evictOne(ts, pkt)
		}
		t.nextID++
		// The evicted flow's memory becomes the new flow's: a full table
		// turns over without garbage (nothing refers to an evicted flow;
		// evictOne unlinked it everywhere).
		f = gone
		var ops []OpcodeCount
		var rtt *rttHist
		var tr *flowTrouble
		if f != nil {
			// Its opcode list, RTT histogram and troubles too (a flow's
			// own: every summary copies them).
			t.spareRing(f.req.pending)
			ops, rtt, tr = f.opcodes[:0], f.rtt, f.trouble
			if rtt != nil {
				*rtt = rttHist{bins: rtt.bins[:0]}
			}
			if tr != nil {
				*tr = flowTrouble{}
			}
		} else {
			f = t.newFlow()
		}
		// Cleared in place, then set: a literal would be built aside
		// and copied in, a second pass over the flow's 500 bytes.
		*f = Flow{}
		f.key, f.id, f.ipv4, f.encap = *k, t.cfg.sharded(t.nextID), d.IPv4, d.Encap
		f.firstTS, f.firstPacket = ts, pkt
		f.opcodes, f.rtt, f.trouble = ops, rtt, tr
		f.pair = t.hosts.acquire(k)
		if d.IPv4 {
			f.pair.followClock()
		}
		t.flows.put(f, h)
	} else {
		t.lru.remove(f)
	}
	t.lru.pushNewest(f)
	t.last = f
	return f
}

// flowBlock is how many flows newFlow allocates at once: one allocation
// per 256 flows (about 200 KiB) instead of one per flow. A flow is never
// freed on its own (an evicted flow's memory becomes the next flow's), so
// a block lives as long as the tracker, like each of its flows would.
const flowBlock = 256

// newFlow returns a zero flow from the current block, allocating the
// next block (never past MaxFlows) when it is used up.
func (t *Tracker) newFlow() *Flow {
	if len(t.spare) == 0 {
		t.spare = make([]Flow, max(1, min(flowBlock, t.cfg.MaxFlows-t.flows.len())))
	}
	f := &t.spare[0]
	t.spare = t.spare[1:]
	return f
}

// evictOne drops the least recently seen flow: exactly, in O(1), and the
// same flow on every run of a capture.
func (t *Tracker) evictOne(ts int64, pkt uint64) *Flow {
	victim := t.lru.oldest
	if victim == nil {
		return nil
	}
	t.lru.remove(victim)
	c := victim.counters() // what it did: the interval's and the capture's
	t.untouch(victim, &c)
	t.evicted++
	if t.noteGone {
		t.goneIDs = append(t.goneIDs, victim.id)
	}
	t.note(anomaly{kind: anEvicted, packet: pkt, ts: ts, flow: victim.id, a: uint32(victim.packets)})
	c.addTo(&t.gone)
	t.gone.Flows++
	t.flows.del(victim)
	t.unlist(victim)
	if victim.indexed {
		victim.pair.requests.remove(victim, requestSlot)
	}
	if victim.ipv4 {
		victim.pair.unfollowClock()
	}
	t.hosts.release(victim.pair)
	if s := victim.peer; s != nil {
		// The survivor waits for a new peer again.
		s.peer = nil
		if s.indexed {
			t.enlist(s)
		}
	}
	if t.last == victim {
		t.last = nil
	}
	return victim
}

// Track accounts one decoded RoCE packet. pkt is its 1-based number in the
// capture, ts its timestamp in Unix nanoseconds.
func (t *Tracker) Track(d *Decoded, ts int64, pkt uint64) {
	p := &d.RoCE
	k := flowKey{src: d.Src, dst: d.Dst, qp: p.BTH.DestQP}
	f := t.flow(&k, d, ts, pkt)
	t.touch(f, ts, pkt, p.BTH.PSN)
	seq, copied := t.count(f, d, ts, pkt)
	syn := int16(-1)
	if p.Has(roce.HasAETH) {
		syn = int16(p.AETH.Syndrome)
	}
	t.recent.add(PacketLine{Packet: pkt, TS: ts, FlowID: f.id, Opcode: p.BTH.Opcode, PSN: p.BTH.PSN, AckReq: p.BTH.AckReq,
		Syndrome: syn, Length: uint16(min(d.WireLen, 65535)), ECN: d.ECN, ICRC: d.ICRC})
	if d.ICRC == ICRCBad && corruptAhead(f, p) {
		// Its header may be what was corrupted: a flipped PSN bit would
		// open a gap of 2^k PSNs, or make every PSN after it a resend.
		// A damaged packet ahead of its stream is counted above and
		// followed no further; one at the PSN expected or behind it
		// fills what it fills (it reached this point, damaged, as the
		// truth of a capture counts it; the receiver drops it).
		return
	}
	t.follow(f, d, seq, copied, ts, pkt)
}

// count adds the packet to its flow's counters (sizes, opcodes, class,
// ECN, ICRC) and returns its place in its sender's order and whether the
// path copied it.
func (t *Tracker) count(f *Flow, d *Decoded, ts int64, pkt uint64) (seq idSeq, copied bool) {
	p := &d.RoCE
	op := p.BTH.Opcode
	f.lastTS, f.lastPacket = ts, pkt
	f.packets++
	f.bytes += uint64(d.WireLen)
	f.payload += uint64(p.PayloadLen)
	f.maxPayload = max(f.maxPayload, int32(p.PayloadLen))
	f.ipIDs = f.ipIDs || d.IPID != 0
	// The packet's place in its sender's order, and whether the path
	// copied it; a packet whose ICRC failed may carry a damaged ID, and
	// tells neither.
	seq, copied = f.clock().see(d.IPID, p.BTH.PSN, ts, d.ICRC != ICRCBad)
	f.transports |= 1 << op.Transport()
	if d.Encap == EncapRoCEv2 {
		if f.sport != 0 && d.SrcPort != f.sport {
			f.sportChanges++
		}
		f.sport = d.SrcPort
	}
	f.countOpcode(op)
	// The flow's class is its data's; CNPs keep theirs apart (cnp).
	if !op.IsCNP() || !f.dscpData {
		f.dscp, f.dscpData = d.DSCP, !op.IsCNP()
		f.vlan, f.vlanID, f.pcp = d.VLAN, d.VLANID, d.PCP
	}
	t.countMarks(f, d, ts, pkt)
	return seq, copied
}

// countMarks counts the packet's ECN codepoint, its BTH congestion bits
// and its ICRC verdict; the first CE mark and every bad ICRC go to the
// anomaly log.
func (t *Tracker) countMarks(f *Flow, d *Decoded, ts int64, pkt uint64) {
	p := &d.RoCE
	switch d.ECN {
	case 0:
		f.ecn.NotECT++
	case 1:
		f.ecn.ECT1++
	case 2:
		f.ecn.ECT0++
	case 3:
		if f.ecn.CE == 0 {
			t.note(anomaly{kind: anCE, packet: pkt, ts: ts, flow: f.id, psn: p.BTH.PSN})
		}
		f.ecn.CE++
	}
	if p.BTH.BECN {
		f.troubled().becn++
	}
	if p.BTH.FECN {
		f.troubled().fecn++
	}
	switch d.ICRC {
	case ICRCOK:
		f.icrcOK++
	case ICRCBad:
		f.troubled().icrcBad++
		t.note(anomaly{kind: anICRC, packet: pkt, ts: ts, flow: f.id, psn: p.BTH.PSN, a: p.ICRC})
	case ICRCUnverifiable:
		f.icrcUnver++
	}
}

// follow follows the packet in its stream by what it is: a CNP, a
// request (PSN order, messages, the path MTU) or a response (ACKs, NAKs,
// READ data, round trips).
func (t *Tracker) follow(f *Flow, d *Decoded, seq idSeq, copied bool, ts int64, pkt uint64) {
	p := &d.RoCE
	op := p.BTH.Opcode
	tr := op.Transport()
	switch {
	case op.IsCNP():
		t.cnp(f, d, ts, pkt)
	case !op.Valid():
		// Reserved or vendor opcode: counted, not interpreted.
	case op.IsRequest():
		f.requests++
		if p.PayloadLen > standardPayload {
			f.req.jumbo |= jumboSent | jumboPending
		}
		if op.IsLast() {
			f.messages++
		}
		t.learnPMTU(f, p)
		if psnTracked(tr) {
			t.request(f, p, seq, copied, ts, pkt)
			return
		}
		// UD/RD flows mix senders' PSN spaces: report, don't track.
		r := &f.req
		if !r.init {
			r.init, r.first = true, p.BTH.PSN
		}
		r.last = p.BTH.PSN
		if tr == roce.TransportUD {
			t.datagram(f, p) // copies only (datagram.go)
		}
	case op.IsResponse():
		f.responses++
		if d.ICRC == ICRCBad && !op.IsReadResponse() {
			// An ACK or NAK whose ICRC fails is dropped by the requester
			// unread (IBTA: a packet failing its ICRC is silently
			// discarded): counted above, never an answer. Its AETH is what
			// may have been damaged - an ACK with a flipped syndrome bit
			// reads as an RNR NAK (training seed 24, s24-56: ACKs
			// corrupted at the responder's egress, called
			// rnr-nak-no-receive on a WRITE connection).
			return
		}
		t.learnPMTU(f, p)
		t.response(f, p, seq, copied, ts, pkt)
	}
}

// standardPayload is the largest RoCE payload a standard 1500-byte
// Ethernet frame carries: IB MTU 1024 (the next, 2048, needs a larger
// frame). More needs jumbo frames on every hop.
const standardPayload = 1024

// psnTracked reports whether a transport's requests form one PSN stream
// per flow. UD and RD flows mix several senders' PSN spaces.
func psnTracked(tr roce.Transport) bool {
	return tr == roce.TransportRC || tr == roce.TransportXRC || tr == roce.TransportUC
}

// corruptAhead reports whether a packet (one whose ICRC failed) carries a
// PSN past what its stream expects next.
func corruptAhead(f *Flow, p *roce.Packet) bool {
	op := p.BTH.Opcode
	switch {
	case op.IsRequest():
		return f.req.init && psnDiff(f.req.next, p.BTH.PSN) > 0
	case op.IsResponse():
		return f.resp.init && psnDiff(f.resp.highest, p.BTH.PSN) > 1
	}
	return false
}
