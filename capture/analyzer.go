package capture

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// Config configures an Analyzer.
type Config struct {
	TrackerConfig
	// NoICRC skips ICRC verification (it is the most expensive step): the
	// same as ICRC: ICRCOff.
	NoICRC bool
	// ICRC chooses the packets whose ICRC is verified (see ICRCMode).
	ICRC ICRCMode
}

// Analyzer decodes frames and feeds the tracker; it keeps capture-wide counts.
type Analyzer struct {
	cfg      Config
	decoders decoders
	pd       Predecoded // Packet's frame
	tracker  *Tracker

	packets, roce, v1, v2, nonRoCE, malformed, truncated, bytes uint64
	headersCut                                                  uint64
	opcodes                                                     [256]uint64
	firstTS, lastTS                                             int64
	unsupported                                                 map[layers.LinkType]uint64

	// ICRC sampling (SampleICRC): verify one packet in icrcEvery; whether
	// it ever sampled; packets left unchecked.
	icrcEvery     uint64
	icrcSampled   bool
	icrcUnchecked uint64

	// running says what the last RunningUpdate saw: the interval
	// generation and packet count (running.go).
	running struct {
		valid   bool
		gen     uint32
		packets uint64
	}
	// mark holds the counts at the last Cut, markTS its time.
	mark   analyzerCounts
	markTS int64
}

// NewAnalyzer returns an analyzer with cfg.
func NewAnalyzer(cfg Config) *Analyzer {
	return &Analyzer{cfg: cfg, decoders: decoders{verify: !cfg.icrcOff()},
		tracker: NewTracker(cfg.TrackerConfig)}
}

// Tracker returns the analyzer's flow tracker.
func (a *Analyzer) Tracker() *Tracker { return a.tracker }

// Packet analyses one frame.
func (a *Analyzer) Packet(data []byte, ci gopacket.CaptureInfo, link layers.LinkType) {
	dec := a.decoders.get(link)
	if dec != nil {
		if a.icrcEvery > 1 {
			dec.VerifyICRC = a.verifyThis()
		} else if a.icrcSampled {
			dec.VerifyICRC = true
		}
	}
	a.pd.decode(dec, data, max(ci.Length, len(data)), link)
	a.account(data, ci, &a.pd)
}

// PacketDecoded analyses one frame decoded by a's Predecoder: the same as
// Packet.
func (a *Analyzer) PacketDecoded(data []byte, ci gopacket.CaptureInfo, pd *Predecoded) {
	a.account(data, ci, pd)
}

// account counts and tracks one decoded frame.
func (a *Analyzer) account(data []byte, ci gopacket.CaptureInfo, pd *Predecoded) {
	a.packets++
	ts := ci.Timestamp.UnixNano()
	if a.packets == 1 || ts < a.firstTS {
		a.firstTS = ts
	}
	if ts > a.lastTS {
		a.lastTS = ts
	}
	wire := max(ci.Length, len(data))
	if !pd.known {
		if a.unsupported == nil {
			a.unsupported = map[layers.LinkType]uint64{}
		}
		a.unsupported[pd.link]++
		a.nonRoCE++
		return
	}
	if !pd.roce {
		a.nonRoCE++
		return
	}
	d := &pd.d
	a.roce++
	a.bytes += uint64(wire)
	if d.Encap == EncapRoCEv1 {
		a.v1++
	} else {
		a.v2++
	}
	if err := pd.err; err != nil {
		if errors.Is(err, roce.ErrTruncated) && len(data) < wire {
			// The snap length cut the headers: a capture artifact, not a
			// broken packet. Counted, not analysed.
			a.headersCut++
			a.truncated++
			return
		}
		a.malformed++
		a.tracker.Malformed(ts, uint64(a.cfg.sharded(int(a.packets))), malformedReason(err))
		return
	}
	if d.RoCE.Truncated || len(data) < wire {
		a.truncated++
	}
	if !pd.verified && !a.cfg.icrcOff() {
		a.icrcUnchecked++
	}
	a.opcodes[d.RoCE.BTH.Opcode]++
	a.tracker.Track(d, ts, uint64(a.cfg.sharded(int(a.packets))))
}

// Malformed reasons, for the anomaly log.
const (
	malformedShort uint32 = iota
	malformedTruncated
	malformedPad
	malformedGRH
	malformedOther
)

func malformedReason(err error) uint32 {
	switch {
	case errors.Is(err, roce.ErrTooShort):
		return malformedShort
	case errors.Is(err, roce.ErrTruncated):
		return malformedTruncated
	case errors.Is(err, roce.ErrPadding):
		return malformedPad
	case errors.Is(err, roce.ErrGRHShort):
		return malformedGRH
	}
	return malformedOther
}

// Run reads src to its end, analysing every frame. It returns nil at a
// clean end of input and the read error otherwise; either way everything
// read before stays in the analyzer.
func (a *Analyzer) Run(src Source) error {
	for {
		data, ci, link, err := src.ReadPacket()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		a.Packet(data, ci, link)
	}
}

// AnalyzeFile reads a capture file and returns its summary. A damaged file
// yields the summary of what came before the damage together with the error
// (also recorded in Summary.Error).
func AnalyzeFile(path string, cfg Config) (*Summary, error) {
	src, err := pcapfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	a := NewAnalyzer(cfg)
	runErr := a.Run(src)
	s := a.Summary()
	s.File, s.Format, s.Compressed = path, string(src.Format), src.Compressed
	s.LinkType, s.Snaplen = LinkName(src.LinkType()), src.Snaplen
	if runErr != nil {
		s.Error = runErr.Error()
	}
	return s, runErr
}

// LinkName names a link type for reports: ethernet, linux_sll, linux_sll2, raw_ip.
func LinkName(l layers.LinkType) string {
	switch l {
	case layers.LinkTypeEthernet:
		return "ethernet"
	case layers.LinkTypeLinuxSLL:
		return "linux_sll"
	case layers.LinkTypeLinuxSLL2:
		return "linux_sll2"
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, linkTypeRawBSD, linkTypeRawOpenBSD:
		return "raw_ip"
	}
	return fmt.Sprintf("linktype_%d", int(l))
}

// Summary builds the report of everything seen so far.
func (a *Analyzer) Summary() *Summary {
	s := a.summary(true)
	s.Paths = Paths(s.Flows)
	return s
}

// Running is Summary without the anomaly log: what a tick needs of the
// running analysis (each interval carries its own anomalies), without
// formatting the whole log every tick.
func (a *Analyzer) Running() *Summary { return a.summary(false) }

func (a *Analyzer) summary(anomalies bool) *Summary {
	t := a.tracker
	s := a.head()
	// Scores are computed once per flow, not per comparison: a cluster
	// capture sorts 100,000 flows.
	type ranked struct {
		rank
		f *Flow
	}
	flows := make([]ranked, 0, t.flows.len())
	t.flows.each(func(f *Flow) {
		flows = append(flows, ranked{rank{f.score(), f.packets, f.id}, f})
	})
	slices.SortFunc(flows, func(a, b ranked) int { return a.compare(b.rank) })
	s.Flows = newFlowSummaries(len(flows))
	t.fillFlows(len(flows), func(lo, hi int, names *addrNames) {
		for j, r := range flows[lo:hi] {
			s.Flows[lo+j].fillRunning(r.f, names)
		}
	})
	for _, r := range flows {
		addTotals(&s.Totals, r.f)
		s.Totals.Flows++
	}
	if anomalies {
		for _, an := range t.anomalies {
			s.Anomalies = append(s.Anomalies, an.format())
		}
	}
	return s
}

// head is the running analysis without its flows and anomalies: the
// capture-wide counts, and the evicted flows' totals.
func (a *Analyzer) head() *Summary {
	t := a.tracker
	s := &Summary{
		Packets: a.packets, RoCEPackets: a.roce, RoCEv1Packets: a.v1, RoCEv2Packets: a.v2, RoCEPacketsSoFar: a.roce,
		NonRoCEPackets: a.nonRoCE, MalformedPackets: a.malformed, TruncatedPackets: a.truncated,
		HeadersCutPackets: a.headersCut,
		Bytes:             a.bytes, FlowsEvicted: t.evicted, FlowTableCap: t.cfg.MaxFlows,
		AnomaliesDropped: t.anomaliesDropped, Opcodes: []OpcodeCount{}, Flows: []FlowSummary{}, Anomalies: []Anomaly{},
		ICRC: a.icrcVerdict(), ICRCUnchecked: a.icrcUnchecked, Totals: t.gone,
	}
	if a.packets > 0 {
		s.FirstTS, s.LastTS = tsString(a.firstTS), tsString(a.lastTS)
		s.DurationSec = float64(a.lastTS-a.firstTS) / 1e9
	}
	s.PMTU, s.PMTUSource = a.pmtu()
	for op, n := range a.opcodes {
		if n > 0 {
			s.Opcodes = append(s.Opcodes, OpcodeCount{Opcode: uint8(op), Name: opName(op), Packets: n})
		}
	}
	return s
}

// pmtu returns the path MTU the analysis uses and where it comes from.
func (a *Analyzer) pmtu() (int, string) {
	t := a.tracker
	switch {
	case t.cfg.PMTU > 0:
		return t.cfg.PMTU, "flag"
	case t.pmtu > 0:
		return t.pmtu, "inferred"
	}
	return 0, "unknown"
}

func opName(op int) string { return roce.Opcode(op).String() }

func addTotals(t *Totals, f *Flow) {
	c := f.counters()
	c.addTo(t)
}

// fill sets fs, which must be zero, to f's summary, except what
// whole-capture and interval summaries tell differently (FirstTS and
// Opcodes are the caller's). It writes field by field in place: a summary is over half a kilobyte, and a replay of a cluster
// capture fills 100,000 of them in a slice, where building each on the
// stack and copying it in costs a second copy and, while the collector
// runs, a write barrier over all of it.
func (fs *FlowSummary) fill(f *Flow, names *addrNames) {
	v4 := f.ipv4 && f.encap == EncapRoCEv2
	fs.ID, fs.Src, fs.Dst = f.id, names.of(f.key.src, v4), names.of(f.key.dst, v4)
	fs.DestQP, fs.Encap, fs.Transport = roce.QPN(f.key.qp), f.encap.String(), transportNames(f.transports)
	ids := f.ipIDs
	fs.UDPSrcPort, fs.UDPSrcPortChanges, fs.IPIDs = f.sport, f.sportChanges, &ids
	fs.Packets, fs.Bytes, fs.PayloadBytes, fs.MaxPayload = f.packets, f.bytes, f.payload, int(f.maxPayload)
	fs.Requests, fs.Responses, fs.Messages = f.requests, f.responses, f.messages
	fs.LastTS = tsString(f.lastTS)
	fs.FirstPacket, fs.LastPacket = f.firstPacket, f.lastPacket
	fs.ACKs, fs.ECNCE, fs.ECN, fs.DSCP = f.acks, f.ecn.CE, f.ecn, f.dscp
	fs.ICRCUnverifiable, fs.RTTus = f.icrcUnver, f.rtt.summary()
	if t := f.trouble; t != nil { // fs is zero: nothing to write without
		fs.PSNGaps, fs.MissingPSNs, fs.RetransmittedPackets = t.gaps, t.missing, t.retrans
		fs.GoBackN, fs.OutOfOrder, fs.Duplicates = t.goBackN, t.outOfOrder, t.duplicates
		fs.ReadReissues, fs.ReadReissuesUnanswered, fs.ReadReissuesLate = t.readReissues, t.readReissuesUnanswered, t.readReissuesLate
		fs.TimerEpisodes, fs.RepeatedACKs, fs.NAKs = t.timerEpisodes, t.repeatedACKs, t.naks
		fs.ResendsAfterACK, fs.ZeroCreditACKs = t.resendsAfterACK, t.zeroCreditACKs
		fs.UndoneNAKEpisodes, fs.UndoneTimerEpisodes = t.undoneNAKEpisodes, t.undoneTimerEpisodes
		fs.CNPs, fs.CNPsCarried, fs.ICRCErrors = t.cnps, t.cnpsCarried, t.icrcBad
		fs.TimerWaitUs = float64(t.timerWait) / 1e3
		if t.hasNAK {
			v := t.lastNAKPSN
			fs.LastNAKPSN = &v
		}
		if t.cnpsCarried > 0 {
			d, e, p := t.cnpDSCP, t.cnpECN, t.cnpPCP
			fs.CNPDSCP, fs.CNPECN = &d, &e
			if t.cnpTagged {
				fs.CNPPCP = &p
			}
		}
	}
	fs.JumboSent, fs.JumboACKed = f.req.jumbo&jumboSent != 0, f.req.jumbo&jumboACKed != 0
	if f.req.init {
		fs.FirstPSN, fs.LastPSN = f.req.first, f.req.last
	} else if f.resp.init {
		fs.FirstPSN, fs.LastPSN = f.resp.highest, f.resp.highest
	}
	if f.peer != nil {
		fs.PeerID = f.peer.id
	}
	if f.hasCredits {
		c := f.lastCredits
		fs.LastACKCredits = &c
	}
	if f.vlan {
		id, pcp := f.vlanID, f.pcp
		fs.VLAN, fs.PCP = &id, &pcp
	}
	if d := f.lastTS - f.firstTS; d > 0 {
		fs.Gbps = float64(f.bytes) * 8 / float64(d)
	}
	fs.Troubled = f.score() > 0
}

func transportNames(bits uint8) string {
	name := ""
	for tr := roce.Transport(0); tr < 8; tr++ {
		if bits&(1<<tr) != 0 {
			if name != "" {
				name += "+"
			}
			name += tr.String()
		}
	}
	return name
}

func tsString(ns int64) string {
	var b [len(time.RFC3339Nano) + 8]byte // one allocation: the string
	return string(time.Unix(0, ns).UTC().AppendFormat(b[:0], time.RFC3339Nano))
}

// sortedOpcodes sorts ops by opcode in place (without sort.Slice's
// reflection: a summary of 100,000 flows sorts 100,000 lists).
func sortedOpcodes(ops []OpcodeCount) []OpcodeCount {
	slices.SortFunc(ops, func(a, b OpcodeCount) int { return cmp.Compare(a.Opcode, b.Opcode) })
	return ops
}

func (an anomaly) format() Anomaly {
	out := Anomaly{Packet: an.packet, TS: tsString(an.ts), FlowID: an.flow, PSN: an.psn}
	switch an.kind {
	case anGap:
		out.Kind = "psn_gap"
		out.Detail = fmt.Sprintf("expected PSN %d, got %d: %d PSN(s) missing", an.a, an.psn, an.b)
	case anGoBackN:
		out.Kind = "go_back_n"
		out.Detail = fmt.Sprintf("retransmission from PSN %d (highest sent %d)", an.psn, an.a)
	case anReorder:
		out.Kind = "out_of_order"
		out.Detail = fmt.Sprintf("PSN %d arrived after higher PSNs, before any NAK", an.psn)
	case anNAK:
		out.Kind = "nak"
		if an.a&0x100 != 0 {
			out.Detail = fmt.Sprintf("reserved AETH syndrome type, value %d", an.a&0xff)
		} else {
			out.Detail = fmt.Sprintf("NAK %s, responder expects PSN %d", roce.NAKCode(an.a), an.psn)
		}
	case anRNR:
		out.Kind = "rnr_nak"
		out.Detail = fmt.Sprintf("receiver not ready for PSN %d, retry after %s", an.psn, roce.RNRTimerDuration(uint8(an.a)))
	case anICRC:
		out.Kind = "icrc_error"
		out.Detail = fmt.Sprintf("ICRC mismatch (stored 0x%08x)", an.a)
	case anMalformed:
		out.Kind = "malformed"
		out.Detail = [...]string{"shorter than its opcode's headers and ICRC", "ends inside its headers",
			"pad count larger than the payload", "RoCEv1 frame shorter than its GRH", "undecodable transport header"}[min(an.a, malformedOther)]
	case anCE:
		out.Kind = "ecn_ce"
		out.Detail = "first ECN Congestion Experienced mark on this flow"
	case anCNP:
		out.Kind = "cnp"
		out.Detail = "first CNP throttling this flow"
	case anEvicted:
		out.Kind = "flow_evicted"
		out.Detail = fmt.Sprintf("flow table full: flow %d (%d packets) evicted", an.flow, an.a)
	}
	return out
}
