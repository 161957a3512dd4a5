package capture

import (
	"cmp"
	"math"
	"slices"
)

// Percent is part as a whole percentage of whole, rounded to the nearest
// (half away from zero: 79.7 is 80, 12.5 is 13), 0 when whole is 0. It is
// the one rounding of a share that the screen, the reports and the rules'
// evidence print, so that the same capture says the same percentage in
// each of them.
func Percent(part, whole float64) int {
	if whole == 0 {
		return 0
	}
	return int(math.Round(100 * part / whole))
}

// PathSummary is the RoCEv2 traffic from one host to another, as the
// flows in the table show it: how many QPs carry it and over how many UDP
// source ports. Between two hosts the UDP source port is the only field of
// the 5-tuple that differs from QP to QP (RoCEv2 puts a QP's entropy
// there), so a fabric's ECMP can spread the pair's traffic over at most
// UDPSrcPorts of its equal-cost paths, however many it has.
type PathSummary struct {
	Src         string `json:"src" expr:"src"`
	Dst         string `json:"dst" expr:"dst"`
	QPs         int    `json:"qps" expr:"qps"` // flows: a QP's packets toward Dst
	UDPSrcPorts int    `json:"udp_sports" expr:"udp_sports"`
	Bytes       uint64 `json:"bytes" expr:"bytes"`
	// MaxQPBytes is the busiest QP's bytes: against Bytes/QPs, how
	// unevenly the QPs share the path's traffic.
	MaxQPBytes uint64 `json:"max_qp_bytes" expr:"max_qp_bytes"`
	// MaxPortBytes is the bytes of the busiest UDP source port (the
	// busiest 5-tuple): ECMP places a 5-tuple on one link, so however
	// wide the fabric, one link carries at least this share of the
	// path's traffic.
	MaxPortBytes uint64 `json:"max_port_bytes" expr:"max_port_bytes"`
}

// Paths sums flows up per source and destination host, the busiest path
// first. RoCE v1 flows have no UDP header and are left out. It runs at
// the end of a replay, when 65,536 flow summaries are at the heap's peak:
// one integer key and byte count per flow (its path's number and its
// port), sorted to count each path's ports and their bytes, and no set
// of ports per path.
func Paths(flows []FlowSummary) []PathSummary {
	type pair struct{ src, dst string }
	// tuple is one flow's path number << 16 | UDP source port, and its
	// bytes: sorted, each run is one 5-tuple.
	type tuple struct{ key, bytes uint64 }
	v2 := EncapRoCEv2.String()
	num := map[pair]uint64{}
	var out []PathSummary
	tuples := make([]tuple, 0, len(flows))
	for i := range flows {
		f := &flows[i]
		if f.Encap != v2 {
			continue
		}
		k := pair{f.Src, f.Dst}
		n, ok := num[k]
		if !ok {
			n = uint64(len(out))
			num[k] = n
			out = append(out, PathSummary{Src: f.Src, Dst: f.Dst})
		}
		p := &out[n]
		p.QPs++
		p.Bytes += f.Bytes
		p.MaxQPBytes = max(p.MaxQPBytes, f.Bytes)
		tuples = append(tuples, tuple{n<<16 | uint64(f.UDPSrcPort), f.Bytes})
	}
	slices.SortFunc(tuples, func(a, b tuple) int { return cmp.Compare(a.key, b.key) })
	for i := 0; i < len(tuples); {
		j, sum := i, uint64(0)
		for ; j < len(tuples) && tuples[j].key == tuples[i].key; j++ {
			sum += tuples[j].bytes
		}
		p := &out[tuples[i].key>>16]
		p.UDPSrcPorts++
		p.MaxPortBytes = max(p.MaxPortBytes, sum)
		i = j
	}
	slices.SortStableFunc(out, func(x, y PathSummary) int {
		return cmp.Or(cmp.Compare(y.Bytes, x.Bytes), cmp.Compare(x.Src, y.Src), cmp.Compare(x.Dst, y.Dst))
	})
	return out
}

// FewUDPPorts is the UDP source port count at or below which a path is
// pointed out: a host pair whose traffic rides one or two 5-tuples can use
// at most one or two of the fabric's equal-cost paths, whatever the
// fabric offers (ECMP hashes the 5-tuple; between two hosts only the UDP
// source port varies). The rule low-flow-entropy has it as a param.
const FewUDPPorts = 2
