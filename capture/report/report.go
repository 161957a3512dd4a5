// Package report writes a capture's analysis for people: the capture's
// facts and a verdict, the opcode mix, the flows with the troubled ones
// first, the anomalies with their packet numbers and times. It only reads
// a capture.Summary: the analysis is package capture's.
package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/internal/termtext"
)

// Options tunes Write.
type Options struct {
	// MaxFlows and MaxAnomalies bound the tables (0: 50 and 100).
	MaxFlows, MaxAnomalies int
}

// Write prints a summary for people: capture facts, a verdict, the
// opcode mix, flows with the troubled ones first, and the anomalies with
// their packet numbers and times (WriteHead, then WriteBody).
func Write(w io.Writer, s *capture.Summary, o Options) error {
	if err := WriteHead(w, s); err != nil {
		return err
	}
	return WriteBody(w, s, o)
}

// WriteHead prints the capture's facts and its verdict: what a
// reader needs before the findings.
func WriteHead(w io.Writer, s *capture.Summary) error {
	b := &strings.Builder{}
	if s.File != "" {
		fmt.Fprintf(b, "capture  %s (%s", termtext.Sanitize(s.File), s.Format)
		if s.Compressed {
			b.WriteString(", gzip")
		}
		if s.LinkType != "" {
			fmt.Fprintf(b, ", %s", s.LinkType)
		}
		fmt.Fprintf(b, ", %s)\n", snaplenText(s.Snaplen))
	}
	fmt.Fprintf(b, "packets  %d: %d RoCE (v2 %d, v1 %d), %d other, %d malformed, %d cut by the snap length\n",
		s.Packets, s.RoCEPackets, s.RoCEv2Packets, s.RoCEv1Packets, s.NonRoCEPackets, s.MalformedPackets, s.TruncatedPackets)
	if s.FirstTS != "" {
		fmt.Fprintf(b, "time     %s .. %s (%.6f s)\n", s.FirstTS, s.LastTS, s.DurationSec)
	}
	pm := "unknown"
	if s.PMTU > 0 {
		pm = fmt.Sprintf("%d (%s)", s.PMTU, s.PMTUSource)
	}
	fmt.Fprintf(b, "path MTU %s; %d flows", pm, s.Totals.Flows)
	if s.FlowsEvicted > 0 {
		fmt.Fprintf(b, " (%d evicted from a table of %d)", s.FlowsEvicted, s.FlowTableCap)
	}
	b.WriteString("\n")
	if s.KernelDrops != nil {
		fmt.Fprintf(b, "kernel   %d frames dropped by the kernel before rdmatop saw them", *s.KernelDrops)
		if len(s.RingDrops) > 1 {
			rings := make([]string, len(s.RingDrops))
			for i, d := range s.RingDrops {
				rings[i] = fmt.Sprint(d)
			}
			fmt.Fprintf(b, " (by ring: %s)", strings.Join(rings, " "))
		}
		b.WriteString("\n")
	}
	if s.Unrecorded != nil && *s.Unrecorded > 0 {
		fmt.Fprintf(b, "recorder %d frames captured but not in this file (the writer fell behind)\n", *s.Unrecorded)
	}
	if s.BlindS > 0 || s.LinkDown != "" {
		fmt.Fprintf(b, "link     down %.1f s in all: the capture saw nothing then", s.BlindS)
		if s.LinkDown != "" {
			fmt.Fprintf(b, "; still down at the end (%s)", termtext.Sanitize(s.LinkDown))
		}
		b.WriteString("\n")
	}
	switch s.ICRC {
	case capture.ICRCSampled:
		fmt.Fprintf(b, "icrc     verified on a sample: %d packets unchecked while the live capture fell behind (--icrc=on verifies every one)\n", s.ICRCUnchecked)
	case capture.ICRCNotVerified:
		b.WriteString("icrc     not verified (--icrc=off)\n")
	}
	if s.Error != "" {
		fmt.Fprintf(b, "\nINPUT ERROR: %s\n(everything below describes the records before it)\n", termtext.Sanitize(s.Error))
	}
	b.WriteString("\nverdict  ")
	b.WriteString(verdict(s))
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteBody prints the evidence behind the verdict: the opcode mix,
// the flows with the troubled ones first, the paths and the anomalies.
func WriteBody(w io.Writer, s *capture.Summary, o Options) error {
	if o.MaxFlows <= 0 {
		o.MaxFlows = 50
	}
	if o.MaxAnomalies <= 0 {
		o.MaxAnomalies = 100
	}
	if len(s.Opcodes) > 0 {
		fmt.Fprintln(w, "\nopcodes")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, oc := range s.Opcodes {
			fmt.Fprintf(tw, "  0x%02x\t%s\t%d\t\n", oc.Opcode, oc.Name, oc.Packets)
		}
		tw.Flush()
	}

	if len(s.Flows) > 0 {
		troubled := 0
		for i := range s.Flows {
			if s.Flows[i].Troubled {
				troubled++
			}
		}
		fmt.Fprintf(w, "\nflows (%d, %d troubled; troubled first)\n", len(s.Flows), troubled)
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "id\tsrc -> dst\tqp\tsvc\tpackets\tGb/s\tgaps\tmissing\tretx\tgbn\tooo\tacks\tnak\trnr\tcnp\tce\ticrc!\trtt p50/p99 us\t")
		for i, f := range s.Flows {
			if i == o.MaxFlows {
				break
			}
			nak := f.NAKs.Total() - f.NAKs.RNR
			rtt := "-"
			if f.RTTus.Samples > 0 {
				rtt = fmt.Sprintf("%.1f/%.1f", f.RTTus.P50, f.RTTus.P99)
			}
			fmt.Fprintf(tw, "%d\t%s -> %s\t%s\t%s\t%d\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n",
				f.ID, f.Src, f.Dst, f.DestQP, f.Transport, f.Packets, f.Gbps, f.PSNGaps, f.MissingPSNs,
				f.RetransmittedPackets, f.GoBackN, f.OutOfOrder, f.ACKs, nak, f.NAKs.RNR, f.CNPs, f.ECNCE, f.ICRCErrors, rtt)
		}
		tw.Flush()
		if len(s.Flows) > o.MaxFlows {
			// Below the table, not in it: a cell this long would widen its column.
			fmt.Fprintf(w, "  ... %s\n", restOfFlows(s.Flows[o.MaxFlows:]))
		}
	}

	writePaths(w, s.Paths, o.MaxFlows)

	if len(s.Anomalies) > 0 {
		fmt.Fprintf(w, "\nanomalies (%d", len(s.Anomalies))
		if s.AnomaliesDropped > 0 {
			fmt.Fprintf(w, " kept, %d more not kept", s.AnomaliesDropped)
		}
		fmt.Fprintln(w, ")")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  packet\ttime\tflow\tkind\tdetail")
		for i, a := range s.Anomalies {
			if i == o.MaxAnomalies {
				fmt.Fprintf(tw, "  ...\t%d more (see --json)\t\t\t\n", len(s.Anomalies)-i)
				break
			}
			fmt.Fprintf(tw, "  %d\t%s\t%d\t%s\t%s\n", a.Packet, a.TS, a.FlowID, a.Kind, a.Detail)
		}
		tw.Flush()
	}
	return nil
}

// snaplenText says a file's snap length; 0 is a file that sets none
// (pcapng's "no limit"), not a length of nothing.
func snaplenText(n uint32) string {
	if n == 0 {
		return "no snap length set"
	}
	return fmt.Sprintf("snaplen %d", n)
}

// restOfFlows sums up the flows a report does not list: a cluster's
// capture has 100,000 of them, and the quiet ones are a count, not a table.
func restOfFlows(rest []capture.FlowSummary) string {
	var troubled int
	var packets, bytes uint64
	for i := range rest {
		f := &rest[i]
		if f.Troubled {
			troubled++
		}
		packets += f.Packets
		bytes += f.Bytes
	}
	return fmt.Sprintf("%d more flows (%d troubled, %d calm): %d packets, %d bytes; all of them with --json",
		len(rest), troubled, len(rest)-troubled, packets, bytes)
}

// verdict says in one line what the capture shows.
func verdict(s *capture.Summary) string {
	t := &s.Totals
	if s.RoCEPackets == 0 {
		return "no RoCE packets (RoCEv2 is UDP port 4791, RoCEv1 EtherType 0x8915). " +
			"Hardware RoCE bypasses the kernel, so a capture on the netdev sees none of it: " +
			"capture with the NIC's sniffer (`tcpdump -i mlx5_0` where libpcap has RDMA sniffing, or NVIDIA's `ibdump -d mlx5_0`) " +
			"or mirror the switch port."
	}
	var parts []string
	if t.PSNGaps > 0 {
		parts = append(parts, fmt.Sprintf("%d PSN gaps (%d PSNs missing)", t.PSNGaps, t.MissingPSNs))
	}
	if t.RetransmittedPackets > 0 {
		parts = append(parts, fmt.Sprintf("%d retransmitted packets in %d go-back-N episodes", t.RetransmittedPackets, t.GoBackN))
	}
	if t.OutOfOrder > 0 {
		parts = append(parts, fmt.Sprintf("%d packets out of order", t.OutOfOrder))
	}
	if t.Duplicates > 0 {
		parts = append(parts, fmt.Sprintf("%d requests captured twice (copies on the path, not resends)", t.Duplicates))
	}
	if n := t.NAKs.Total() - t.NAKs.RNR; n > 0 {
		parts = append(parts, fmt.Sprintf("%d NAKs (%s)", n, nakBreakdown(t.NAKs)))
	}
	if t.NAKs.RNR > 0 {
		parts = append(parts, fmt.Sprintf("%d RNR NAKs (receiver had no receive buffer posted)", t.NAKs.RNR))
	}
	if t.CNPs > 0 {
		parts = append(parts, fmt.Sprintf("%d CNPs", t.CNPs))
	}
	if t.ECNCE > 0 {
		parts = append(parts, fmt.Sprintf("%d ECN-CE marks", t.ECNCE))
	}
	if t.ICRCErrors > 0 {
		parts = append(parts, fmt.Sprintf("%d ICRC errors", t.ICRCErrors))
	}
	if s.MalformedPackets > 0 {
		parts = append(parts, fmt.Sprintf("%d malformed RoCE packets", s.MalformedPackets))
	}
	if len(parts) == 0 {
		return "clean: no PSN gaps, retransmissions, NAKs, CNPs, ECN marks or ICRC errors"
	}
	return strings.Join(parts, "; ")
}

func nakBreakdown(n capture.NAKCounts) string {
	var p []string
	for _, c := range n.Codes() {
		if c.Count > 0 && c.Key != "rnr" { // RNR NAKs have their own column
			p = append(p, fmt.Sprintf("%s %d", c.Name, c.Count))
		}
	}
	return strings.Join(p, ", ")
}

// writePaths prints the host pairs' ECMP entropy, the busiest first, and
// points out those riding few 5-tuples.
func writePaths(w io.Writer, paths []capture.PathSummary, most int) {
	if len(paths) == 0 {
		return
	}
	fmt.Fprintf(w, "\npaths (%d host pairs, RoCEv2; the busiest first)\n", len(paths))
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "src -> dst\tQPs\tUDP ports\tbytes\tbusiest QP\tbusiest 5-tuple\t")
	few := 0
	for i, p := range paths {
		if p.UDPSrcPorts <= capture.FewUDPPorts {
			few++
		}
		if i < most {
			fmt.Fprintf(tw, "%s -> %s\t%d\t%d\t%d\t%d%%\t%d%%\t\n", p.Src, p.Dst, p.QPs, p.UDPSrcPorts, p.Bytes,
				capture.Percent(float64(p.MaxQPBytes), float64(p.Bytes)), capture.Percent(float64(p.MaxPortBytes), float64(p.Bytes)))
		}
	}
	tw.Flush()
	if len(paths) > most {
		fmt.Fprintf(w, "  ... %d more\n", len(paths)-most)
	}
	if few > 0 {
		fmt.Fprintf(w, "  %d of %d paths ride at most %d UDP source ports: ECMP can spread each over at most that many of the fabric's\n"+
			"  equal-cost paths. More QPs per peer (NCCL_IB_QPS_PER_CONNECTION, NCCL_IB_SPLIT_DATA_ON_QPS) give more 5-tuples.\n",
			few, len(paths), capture.FewUDPPorts)
	}
}
