package capture

import (
	"slices"
)

// Intervals: a live run or a capture replayed as a timeline is cut into
// ticks, and each tick needs what happened in it (which flows moved, their
// gaps, NAKs and CNPs since the previous tick) besides the running totals.
// The tracker notes the flows touched since the last cut, with their
// counters as they were when first touched, so a cut costs O(flows active
// in the interval), not O(all flows).

// flowCounters are the counters of a flow that an interval reports as a
// difference.
type flowCounters struct {
	packets, bytes, payload       uint64
	requests, responses, messages uint64
	acks                          uint64
	ecn                           ECNCounts
	icrcOK, icrcUnver             uint64
	troubleCounts
}

func (f *Flow) counters() flowCounters {
	c := flowCounters{packets: f.packets, bytes: f.bytes, payload: f.payload, requests: f.requests,
		responses: f.responses, messages: f.messages, acks: f.acks, ecn: f.ecn,
		icrcOK: f.icrcOK, icrcUnver: f.icrcUnver}
	if t := f.trouble; t != nil {
		c.troubleCounts = t.troubleCounts
	}
	return c
}

// ivCounters are the flow's counters as intervals report them: gaps and
// missing PSNs without those still undecided at the last cut.
func (f *Flow) ivCounters() flowCounters {
	c := f.counters()
	if t := f.trouble; t != nil {
		c.gaps, c.missing = sub(c.gaps, t.pendGaps), sub(c.missing, t.pendMissing)
	}
	return c
}

// touched is a flow active in the current interval and its state when the
// interval first saw it. Its counters then are kept apart (touchLog.marks)
// and only when they are not all zero: in a capture of many short-lived
// QPs nearly every flow touched is new, and a log entry is 56 bytes, not
// the 328 it was with the counters in it.
type touched struct {
	f           *Flow
	mark        uint32 // 1 + index of its counters in the log's marks; 0: none yet
	opcodes     []OpcodeCount
	firstTS     int64
	firstPacket uint64
	firstPSN    uint32
}

// touch notes that f is about to change in this interval (when the
// analyzer is cut into intervals at all: otherwise nothing is kept).
func (t *Tracker) touch(f *Flow, ts int64, pkt uint64, psn uint32) {
	if !t.intervals || f.touchGen == t.gen {
		return
	}
	f.touchGen = t.gen
	tc := touched{f: f, firstTS: ts, firstPacket: pkt, firstPSN: psn}
	if c := f.ivCounters(); c != (flowCounters{}) {
		tc.mark = t.touched.addMark(c)
	}
	if len(f.opcodes) > 0 {
		tc.opcodes = slices.Clone(f.opcodes)
	}
	f.touchIdx = t.touched.add(tc)
}

// sub returns a−b, or 0 when b > a: a gap later explained as reordering is
// taken back from the running count, but the interval that reported it
// keeps it.
func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

func (e ECNCounts) minus(o ECNCounts) ECNCounts {
	return ECNCounts{NotECT: sub(e.NotECT, o.NotECT), ECT1: sub(e.ECT1, o.ECT1), ECT0: sub(e.ECT0, o.ECT0), CE: sub(e.CE, o.CE)}
}

func (c flowCounters) minus(o flowCounters) flowCounters {
	return flowCounters{packets: sub(c.packets, o.packets), bytes: sub(c.bytes, o.bytes), payload: sub(c.payload, o.payload),
		requests: sub(c.requests, o.requests), responses: sub(c.responses, o.responses), messages: sub(c.messages, o.messages),
		acks: sub(c.acks, o.acks), ecn: c.ecn.minus(o.ecn), icrcOK: sub(c.icrcOK, o.icrcOK), icrcUnver: sub(c.icrcUnver, o.icrcUnver),
		troubleCounts: c.troubleCounts.minus(&o.troubleCounts)}
}

func (c *troubleCounts) minus(o *troubleCounts) troubleCounts {
	return troubleCounts{gaps: sub(c.gaps, o.gaps), missing: sub(c.missing, o.missing), retrans: sub(c.retrans, o.retrans),
		goBackN: sub(c.goBackN, o.goBackN), outOfOrder: sub(c.outOfOrder, o.outOfOrder),
		duplicates: sub(c.duplicates, o.duplicates), readReissues: sub(c.readReissues, o.readReissues),
		readReissuesUnanswered: sub(c.readReissuesUnanswered, o.readReissuesUnanswered),
		readReissuesLate:       sub(c.readReissuesLate, o.readReissuesLate),
		timerEpisodes:          sub(c.timerEpisodes, o.timerEpisodes),
		zeroCreditACKs:         sub(c.zeroCreditACKs, o.zeroCreditACKs), repeatedACKs: sub(c.repeatedACKs, o.repeatedACKs),
		resendsAfterACK:   sub(c.resendsAfterACK, o.resendsAfterACK),
		undoneNAKEpisodes: sub(c.undoneNAKEpisodes, o.undoneNAKEpisodes), undoneTimerEpisodes: sub(c.undoneTimerEpisodes, o.undoneTimerEpisodes),
		naks: c.naks.minus(o.naks), cnps: sub(c.cnps, o.cnps), cnpsCarried: sub(c.cnpsCarried, o.cnpsCarried),
		becn: sub(c.becn, o.becn), fecn: sub(c.fecn, o.fecn), icrcBad: sub(c.icrcBad, o.icrcBad)}
}

func (c *flowCounters) score() uint64 {
	return c.gaps*4 + c.retrans + c.outOfOrder + c.naks.Total()*4 + c.icrcBad*4 + c.ecn.CE + c.cnps
}

// addTo adds the flow's counts to t: Totals.add is the one sum, this
// only says which counter is which total.
func (c *flowCounters) addTo(t *Totals) {
	t.add(&Totals{PSNGaps: c.gaps, MissingPSNs: c.missing, RetransmittedPackets: c.retrans, GoBackN: c.goBackN,
		OutOfOrder: c.outOfOrder, Duplicates: c.duplicates, ReadReissues: c.readReissues,
		ReadReissuesUnanswered: c.readReissuesUnanswered, TimerEpisodes: c.timerEpisodes, ACKs: c.acks,
		ZeroCreditACKs: c.zeroCreditACKs, RepeatedACKs: c.repeatedACKs, NAKs: c.naks, CNPs: c.cnpsCarried,
		ECN: c.ecn, ECNCE: c.ecn.CE, BECN: c.becn, FECN: c.fecn,
		ICRCOK: c.icrcOK, ICRCErrors: c.icrcBad, ICRCUnverifiable: c.icrcUnver})
}

// analyzerCounts are the capture-wide counts an interval reports as a
// difference.
type analyzerCounts struct {
	packets, roce, v1, v2, nonRoCE, malformed, truncated, bytes, headersCut uint64
	evicted, anomaliesDropped                                               uint64
	icrcUnchecked                                                           uint64
	opcodes                                                                 [256]uint64
}

func (a *Analyzer) counts() analyzerCounts {
	return analyzerCounts{packets: a.packets, roce: a.roce, v1: a.v1, v2: a.v2, nonRoCE: a.nonRoCE,
		malformed: a.malformed, truncated: a.truncated, bytes: a.bytes, headersCut: a.headersCut,
		evicted: a.tracker.evicted, anomaliesDropped: a.tracker.anomaliesDropped, opcodes: a.opcodes,
		icrcUnchecked: a.icrcUnchecked}
}

// MaxIntervalAnomalies bounds the anomalies one interval reports; the
// rest are counted in its AnomaliesDropped.
const MaxIntervalAnomalies = 256

// Cut ends the current interval at end (Unix nanoseconds; packets up to it
// have been given to Packet) and returns its analysis: the packets since
// the previous Cut (or since the start), the flows that moved with their
// counters for the interval only, the interval's totals and anomalies.
// DurationSec is the interval's length, so rates are per second of
// interval, and FirstTS/LastTS are its bounds. The running analysis
// (Summary) is not affected.
//
// Counter differences never go negative: a gap that a later packet shows
// to have been reordering is taken back from the running count but stays
// in the interval that reported it. A flow's RTT in an interval is its
// running distribution (percentiles cannot be subtracted).
func (a *Analyzer) Cut(end int64) *Summary {
	t := a.tracker
	t.intervals = true
	cur := a.counts()
	s := a.intervalHead(cur, end)
	undecided := t.intervalFlows(s, end)
	for _, an := range t.ivAnomalies {
		s.Anomalies = append(s.Anomalies, an.format())
	}
	// Start the next interval.
	a.mark, a.markTS = cur, end
	t.touched.reset()
	t.ivGone = Totals{}
	t.ivAnomalies, t.ivDropped = t.ivAnomalies[:0], 0
	t.gen++
	// A flow with undecided gaps is in the next interval whether or not
	// it moves: that interval reports them once decided (a flow gone
	// quiet after a tail loss too).
	for _, f := range undecided {
		t.touch(f, end, 0, 0)
	}
	return s
}

// intervalHead is the interval's summary up to its flows: the packet
// counts since the last cut (cur against the mark), its times and opcodes.
func (a *Analyzer) intervalHead(cur analyzerCounts, end int64) *Summary {
	t := a.tracker
	m := &a.mark
	s := &Summary{
		Packets: cur.packets - m.packets, RoCEPackets: cur.roce - m.roce, RoCEv1Packets: cur.v1 - m.v1,
		RoCEv2Packets: cur.v2 - m.v2, RoCEPacketsSoFar: cur.roce, NonRoCEPackets: cur.nonRoCE - m.nonRoCE, MalformedPackets: cur.malformed - m.malformed,
		TruncatedPackets: cur.truncated - m.truncated, HeadersCutPackets: cur.headersCut - m.headersCut,
		Bytes: cur.bytes - m.bytes, FlowsEvicted: cur.evicted - m.evicted, FlowTableCap: t.cfg.MaxFlows,
		AnomaliesDropped: t.ivDropped, Opcodes: []OpcodeCount{}, Flows: nil,
		ICRC: a.icrcVerdict(), ICRCUnchecked: cur.icrcUnchecked - m.icrcUnchecked,
		Anomalies: make([]Anomaly, 0, len(t.ivAnomalies)),
	}
	start := a.markTS
	if start == 0 && a.packets > 0 {
		start = a.firstTS
	}
	if start == 0 || start > end {
		start = end
	}
	s.FirstTS, s.LastTS = tsString(start), tsString(end)
	s.DurationSec = float64(end-start) / 1e9
	s.PMTU, s.PMTUSource = a.pmtu()
	for op := range cur.opcodes {
		if n := cur.opcodes[op] - m.opcodes[op]; n > 0 {
			s.Opcodes = append(s.Opcodes, OpcodeCount{Opcode: uint8(op), Name: opName(op), Packets: n})
		}
	}
	return s
}

// intervalFlows fills s's flows and totals with what each flow touched
// in the interval did in it, troubled flows first, and returns the flows
// with gaps still undecided at end.
func (t *Tracker) intervalFlows(s *Summary, end int64) (undecided []*Flow) {
	// Sorted by small keys, then each summary built once in its place: a
	// FlowSummary is half a kilobyte, and an interval of a busy cluster
	// touches 100,000 flows.
	type sortKey struct {
		rank
		tc *touched
	}
	keys := make([]sortKey, 0, t.touched.len())
	s.Totals = t.ivGone // the evicted flows' part of the interval
	t.touched.each(func(tc *touched) {
		if tc.f == nil {
			return // evicted (untouch)
		}
		if t.pendingGaps(tc.f, end) {
			undecided = append(undecided, tc.f)
		}
		d := t.touched.since(tc, tc.f.ivCounters())
		if d == (flowCounters{}) {
			return
		}
		d.addTo(&s.Totals)
		s.Totals.Flows++
		keys = append(keys, sortKey{rank{d.score(), d.packets, tc.f.id}, tc})
	})
	// Troubled flows first, as in Summary.
	slices.SortFunc(keys, func(a, b sortKey) int { return a.compare(b.rank) })
	s.Flows = newFlowSummaries(len(keys))
	t.fillFlows(len(keys), func(lo, hi int, names *addrNames) {
		for j, k := range keys[lo:hi] {
			tc := k.tc
			d := t.touched.since(tc, tc.f.ivCounters())
			fs := &s.Flows[lo+j]
			fs.fill(tc.f, names)
			d.set(fs)
			fs.FirstTS, fs.FirstPacket, fs.FirstPSN = tsString(tc.firstTS), tc.firstPacket, tc.firstPSN
			fs.Opcodes = opcodeDelta(tc.f.opcodes, tc.opcodes)
			fs.Gbps = 0
			if s.DurationSec > 0 {
				fs.Gbps = float64(d.bytes) * 8 / (s.DurationSec * 1e9)
			}
			fs.Troubled = k.score > 0
		}
	})
	return undecided
}

// pendingGaps sets f's undecided gaps at time now (Unix ns) and reports
// whether it has any. A gap still open at a cut is not yet loss: the
// original of its PSNs may still come, late, as reordering brings it (it
// is then taken back, see Tracker.unmiss). Until then an interval does
// not report it, so that intervals add up to what the whole capture says
// and a counter of gaps (the exporter's) never counts reordering. A gap
// is undecided while one of its holes is open and an original could
// still be told from a resend: with the sender's IPv4 IDs within
// lateHorizon of its opening; without IDs (request streams only) within
// the reorder window and before any NAK or go-back-N, after which a fill
// counts as a resend.
func (t *Tracker) pendingGaps(f *Flow, now int64) bool {
	var gaps, missing uint64
	rs := &f.troubles().resend
	noIDs := !rs.nakSeen && !rs.inRetrans
	gaps, missing = f.req.holes.pending(now, int64(t.cfg.ReorderWindow), noIDs, gaps, missing)
	gaps, missing = f.resp.holes.pending(now, 0, false, gaps, missing)
	if gaps > 0 || f.trouble != nil {
		t := f.troubled()
		t.pendGaps, t.pendMissing = gaps, missing
	}
	return gaps > 0
}

// Begin makes the analyzer keep what Cut needs, from the first packet on,
// and sets the start of the first interval (Unix nanoseconds): the time
// the capture opened, or the first tick of a timeline; 0 starts it at the
// first packet. An analyzer that is never cut (AnalyzeFile) keeps nothing
// per interval.
func (a *Analyzer) Begin(ts int64) {
	a.markTS = ts
	a.tracker.intervals = true
}

// EndIntervals says that no Cut follows (a replay reached the end of its
// capture): what the next interval would have reused, the touch log of a
// busy interval, is let go before the whole-capture summary is built.
func (a *Analyzer) EndIntervals() {
	t := a.tracker
	t.intervals = false
	t.touched = touchLog{}
	t.ivAnomalies = nil
	t.noteGone, t.goneIDs = false, nil // no RunningUpdate follows either
}

// set writes the interval's counters into a flow summary.
func (c *flowCounters) set(fs *FlowSummary) {
	fs.Packets, fs.Bytes, fs.PayloadBytes = c.packets, c.bytes, c.payload
	fs.Requests, fs.Responses, fs.Messages = c.requests, c.responses, c.messages
	fs.PSNGaps, fs.MissingPSNs, fs.RetransmittedPackets = c.gaps, c.missing, c.retrans
	fs.GoBackN, fs.OutOfOrder, fs.ACKs, fs.ZeroCreditACKs = c.goBackN, c.outOfOrder, c.acks, c.zeroCreditACKs
	fs.RepeatedACKs, fs.ResendsAfterACK = c.repeatedACKs, c.resendsAfterACK
	fs.UndoneNAKEpisodes, fs.UndoneTimerEpisodes = c.undoneNAKEpisodes, c.undoneTimerEpisodes
	fs.Duplicates = c.duplicates
	fs.ReadReissues, fs.ReadReissuesUnanswered, fs.ReadReissuesLate = c.readReissues, c.readReissuesUnanswered, c.readReissuesLate
	fs.TimerEpisodes = c.timerEpisodes
	fs.NAKs, fs.CNPs, fs.CNPsCarried = c.naks, c.cnps, c.cnpsCarried
	fs.ECN, fs.ECNCE = c.ecn, c.ecn.CE
	fs.ICRCErrors, fs.ICRCUnverifiable = c.icrcBad, c.icrcUnver
}

// opcodeDelta returns cur − before, by opcode, in opcode order.
func opcodeDelta(cur, before []OpcodeCount) []OpcodeCount {
	out := make([]OpcodeCount, 0, len(cur))
	for _, c := range cur {
		n := c.Packets
		for _, b := range before {
			if b.Opcode == c.Opcode {
				n = sub(n, b.Packets)
				break
			}
		}
		if n > 0 {
			out = append(out, OpcodeCount{Opcode: c.Opcode, Name: c.Name, Packets: n})
		}
	}
	return sortedOpcodes(out)
}

// touchChunk is how many touched flows one chunk of the log holds.
const touchChunk = 1024

// touchLog is the flows touched in the current interval, in chunks: it
// grows without copying (an entry carries the flow's counters, some 400
// bytes) and keeps its chunks from one interval to the next.
type touchLog struct {
	chunks [][]touched
	n      int
	free   []uint32 // entries of evicted flows, to reuse
	// marks are the counters of touched flows that had counted something
	// before the interval (no pointers: the collector skips them), and
	// freeMarks those of evicted flows, to reuse.
	marks     []flowCounters
	freeMarks []uint32
}

// addMark keeps c and returns its reference for touched.mark.
func (l *touchLog) addMark(c flowCounters) uint32 {
	if n := len(l.freeMarks); n > 0 {
		m := l.freeMarks[n-1]
		l.freeMarks = l.freeMarks[:n-1]
		l.marks[m-1] = c
		return m
	}
	l.marks = append(l.marks, c)
	return uint32(len(l.marks))
}

// since returns what tc's flow did in the interval, given its counters
// now: now less its counters when the interval first saw it. A flow with
// no mark had none (most, in a capture of many short-lived QPs): its
// counters are the interval's, and no subtraction is made.
func (l *touchLog) since(tc *touched, now flowCounters) flowCounters {
	if tc.mark == 0 {
		return now
	}
	return now.minus(l.marks[tc.mark-1])
}

// add puts tc in the log and returns its index.
func (l *touchLog) add(tc touched) uint32 {
	if n := len(l.free); n > 0 {
		i := l.free[n-1]
		l.free = l.free[:n-1]
		*l.at(i) = tc
		return i
	}
	c := l.n / touchChunk
	if c == len(l.chunks) {
		l.chunks = append(l.chunks, make([]touched, 0, touchChunk))
	}
	l.chunks[c] = append(l.chunks[c], tc)
	l.n++
	return uint32(l.n - 1)
}

func (l *touchLog) len() int { return l.n }

func (l *touchLog) at(i uint32) *touched { return &l.chunks[i/touchChunk][i%touchChunk] }

// untouch takes an evicted flow out of the interval: what it did in the
// interval stays in the interval's totals (as the evicted flows' totals
// stay in the capture's), and the log no longer keeps the flow alive, so
// an interval touching more flows than the table holds costs no more
// memory than the table. now is the flow's counters (Flow.counters).
func (t *Tracker) untouch(f *Flow, now *flowCounters) {
	if !t.intervals || f.touchGen != t.gen {
		return
	}
	tc := t.touched.at(f.touchIdx)
	// Its undecided gaps can no longer be decided: the interval reports
	// them, as the capture's evicted totals do.
	d := t.touched.since(tc, *now)
	if d != (flowCounters{}) {
		d.addTo(&t.ivGone)
		t.ivGone.Flows++
	}
	if tc.mark != 0 {
		t.touched.freeMarks = append(t.touched.freeMarks, tc.mark)
	}
	*tc = touched{}
	t.touched.free = append(t.touched.free, f.touchIdx)
}

func (l *touchLog) each(fn func(*touched)) {
	for _, c := range l.chunks {
		for i := range c {
			fn(&c[i])
		}
	}
}

// reset empties the log, dropping the flow pointers (evicted flows can be
// collected) and keeping the chunks. Chunks beyond what a quiet interval
// needs are let go, so one burst does not pin its memory for the run.
func (l *touchLog) reset() {
	l.free = l.free[:0]
	l.freeMarks = l.freeMarks[:0]
	if cap(l.marks) > 2*max(len(l.marks), touchChunk) {
		l.marks = nil // a burst's marks are not kept for the run
	}
	l.marks = l.marks[:0]
	used := (l.n + touchChunk - 1) / touchChunk
	for i := range l.chunks {
		clear(l.chunks[i])
		l.chunks[i] = l.chunks[i][:0]
	}
	if keep := max(used, 1); len(l.chunks) > 2*keep {
		clear(l.chunks[keep:])
		l.chunks = l.chunks[:keep]
	}
	l.n = 0
}
