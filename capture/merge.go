package capture

import (
	"cmp"
	"slices"
	"time"
)

// MergeSummaries joins the summaries of analyzers that each saw part of
// one capture (the shards of a PACKET_FANOUT capture, TrackerConfig.Shard)
// over the same span: counts add up, flows and anomalies are put together
// and ranked as one Analyzer ranks them. A flow is in exactly one part
// (the capture is split by host pair), so nothing is counted twice. The
// parts are not modified; flows and anomalies are copied.
func MergeSummaries(parts ...*Summary) *Summary {
	switch len(parts) {
	case 0:
		return &Summary{Opcodes: []OpcodeCount{}, Flows: []FlowSummary{}, Anomalies: []Anomaly{}}
	}
	out := *parts[0]
	out.Opcodes, out.Flows, out.Anomalies = nil, nil, nil
	out.KernelDrops, out.RingDrops, out.Unrecorded = nil, nil, nil
	var opcodes [256]uint64
	nflows, nanoms := 0, 0
	for _, p := range parts {
		nflows += len(p.Flows)
		nanoms += len(p.Anomalies)
	}
	out.Flows = make([]FlowSummary, 0, nflows)
	out.Anomalies = make([]Anomaly, 0, nanoms)
	var first, last time.Time
	for i, p := range parts {
		if i > 0 {
			addCounts(&out, p)
		}
		for _, o := range p.Opcodes {
			opcodes[o.Opcode] += o.Packets
		}
		out.Flows = append(out.Flows, p.Flows...)
		out.Anomalies = append(out.Anomalies, p.Anomalies...)
		if p.Packets > 0 || p.FirstTS != "" {
			if t, err := time.Parse(time.RFC3339Nano, p.FirstTS); err == nil && (first.IsZero() || t.Before(first)) {
				first = t
			}
			if t, err := time.Parse(time.RFC3339Nano, p.LastTS); err == nil && t.After(last) {
				last = t
			}
		}
		if out.Error == "" {
			out.Error = p.Error
		}
		// A path MTU given by flag holds for every part; otherwise the
		// largest inferred.
		if p.PMTUSource == "flag" || (out.PMTUSource != "flag" && p.PMTU > out.PMTU) {
			out.PMTU, out.PMTUSource = p.PMTU, p.PMTUSource
		}
	}
	if !first.IsZero() {
		out.FirstTS, out.LastTS = tsString(first.UnixNano()), tsString(last.UnixNano())
		out.DurationSec = last.Sub(first).Seconds()
	}
	out.Opcodes = []OpcodeCount{}
	for op, n := range opcodes {
		if n > 0 {
			out.Opcodes = append(out.Opcodes, OpcodeCount{Opcode: uint8(op), Name: opName(op), Packets: n})
		}
	}
	// Ranked as Summary and Cut rank them: troubled flows first.
	slices.SortStableFunc(out.Flows, func(a, b FlowSummary) int { return a.rank().compare(b.rank()) })
	slices.SortStableFunc(out.Anomalies, func(a, b Anomaly) int {
		if c := cmp.Compare(a.TS, b.TS); c != 0 && len(a.TS) == len(b.TS) {
			return c
		}
		ta, _ := time.Parse(time.RFC3339Nano, a.TS)
		tb, _ := time.Parse(time.RFC3339Nano, b.TS)
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		return cmp.Compare(a.Packet, b.Packet)
	})
	// A path's flows may sit in several shards: summed again, over all.
	if out.Paths != nil {
		out.Paths = Paths(out.Flows)
	}
	return &out
}

// addCounts adds p's capture-wide counts to s.
func addCounts(s, p *Summary) {
	s.Packets += p.Packets
	s.RoCEPackets += p.RoCEPackets
	s.RoCEv1Packets += p.RoCEv1Packets
	s.RoCEv2Packets += p.RoCEv2Packets
	s.RoCEPacketsSoFar += p.RoCEPacketsSoFar
	s.NonRoCEPackets += p.NonRoCEPackets
	s.MalformedPackets += p.MalformedPackets
	s.TruncatedPackets += p.TruncatedPackets
	s.HeadersCutPackets += p.HeadersCutPackets
	s.Bytes += p.Bytes
	s.FlowsEvicted += p.FlowsEvicted
	s.FlowTableCap += p.FlowTableCap
	s.AnomaliesDropped += p.AnomaliesDropped
	s.ICRCUnchecked += p.ICRCUnchecked
	if p.ICRC == ICRCSampled || s.ICRC == "" {
		s.ICRC = p.ICRC
	}
	s.Totals.add(&p.Totals)
}

// add adds o to t: the one place totals are summed (flows into a
// summary's totals, and shards' totals into one).
func (t *Totals) add(o *Totals) {
	t.Flows += o.Flows
	t.PSNGaps += o.PSNGaps
	t.MissingPSNs += o.MissingPSNs
	t.RetransmittedPackets += o.RetransmittedPackets
	t.GoBackN += o.GoBackN
	t.OutOfOrder += o.OutOfOrder
	t.Duplicates += o.Duplicates
	t.ReadReissues += o.ReadReissues
	t.ReadReissuesUnanswered += o.ReadReissuesUnanswered
	t.TimerEpisodes += o.TimerEpisodes
	t.ACKs += o.ACKs
	t.ZeroCreditACKs += o.ZeroCreditACKs
	t.RepeatedACKs += o.RepeatedACKs
	t.NAKs.add(o.NAKs)
	t.CNPs += o.CNPs
	t.ECN.NotECT += o.ECN.NotECT
	t.ECN.ECT1 += o.ECN.ECT1
	t.ECN.ECT0 += o.ECN.ECT0
	t.ECN.CE += o.ECN.CE
	t.ECNCE += o.ECNCE
	t.BECN += o.BECN
	t.FECN += o.FECN
	t.ICRCOK += o.ICRCOK
	t.ICRCErrors += o.ICRCErrors
	t.ICRCUnverifiable += o.ICRCUnverifiable
}

// score ranks a flow as Flow.score does, from its summary.
func (f *FlowSummary) score() uint64 {
	return f.PSNGaps*4 + f.RetransmittedPackets + f.OutOfOrder + f.NAKs.Total()*4 + f.ICRCErrors*4 + f.ECN.CE + f.CNPs
}

func (f *FlowSummary) rank() rank { return rank{f.score(), f.Packets, f.ID} }

// sharded maps the n-th flow or packet of a shard to its number in the
// whole capture (see TrackerConfig.Shards).
func (c *TrackerConfig) sharded(n int) int {
	if c.Shards <= 1 {
		return n
	}
	return (n-1)*c.Shards + c.Shard + 1
}
