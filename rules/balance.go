package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
)

// PortBalance is how a host's RDMA bytes spread over its ACTIVE ports of
// one kind: the busiest port's link layer and rate (ports of another
// kind are another job's, or cannot stand in for it).
type PortBalance struct {
	// Busiest names the port carrying the most RDMA bytes (rx + tx);
	// BytesPerSec is what the ports of its kind carry in all, Share the
	// busiest's part of it (0 to 1), Util the busiest's busier direction
	// against its line rate (0 to 1, nil when its rate is unknown).
	Busiest     string  `expr:"busiest"`
	BytesPerSec float64 `expr:"bytes_per_s"`
	Share       float64 `expr:"share"`
	Util        any     `expr:"util"`
	// Ports counts the ACTIVE ports of that kind; Idle names those that
	// carry next to nothing (under idleOfLine of their line rate; unjudged when
	// the rate is unknown).
	Ports int      `expr:"ports"`
	Idle  []string `expr:"idle"`
}

// idleOfLine: a port whose RDMA bytes (rx + tx) stay under a thousandth
// of its line rate (12.5 MB/s at 100 Gb/s) carries no workload. What an
// unused RoCE port still moves (LLDP, ARP/ND, connection management,
// keep-alives) is kB/s; any workload's data stream, a job's channel or a
// storage client's, is MB/s and more while it moves. A port above it
// carries something, perhaps another job's traffic on a NIC kept for it,
// and is not called idle.
const idleOfLine = 1e-3

// portBalance is the balance of ports' RDMA bytes, nil when no ACTIVE
// port has a byte rate or a port of the busiest's kind lacks one (a
// first sample, a counter that did not answer): absent is not idle. When
// no bytes flow at all, Share is 0 and every port of the kind is idle
// (that has a known line rate).
func portBalance(ports []probes.Port) *PortBalance {
	rate := func(p *probes.Port, name string) (float64, bool) {
		if c := firstCounter(p.Counters, name); c != nil && c.Rate != nil {
			return *c.Rate, true
		}
		return 0, false
	}
	type load struct {
		p      *probes.Port
		rx, tx float64
		ok     bool
	}
	var loads []load
	busiest := -1
	for i := range ports {
		p := &ports[i]
		if p.State != "ACTIVE" {
			continue
		}
		rx, okr := rate(p, "rx_bytes")
		tx, okt := rate(p, "tx_bytes")
		loads = append(loads, load{p, rx, tx, okr && okt})
		if l := loads[len(loads)-1]; l.ok && (busiest < 0 || l.rx+l.tx > loads[busiest].rx+loads[busiest].tx) {
			busiest = len(loads) - 1
		}
	}
	if busiest < 0 {
		return nil
	}
	top := loads[busiest]
	b := &PortBalance{Busiest: portLabel(top.p)}
	if top.p.RateGbps > 0 {
		b.Util = max(top.rx, top.tx) * 8 / (top.p.RateGbps * 1e9)
	}
	for _, l := range loads {
		if l.p.LinkLayer != top.p.LinkLayer || l.p.RateGbps != top.p.RateGbps {
			continue
		}
		if !l.ok {
			return nil
		}
		b.Ports++
		b.BytesPerSec += l.rx + l.tx
		if l.p.RateGbps > 0 && (l.rx+l.tx)*8 < idleOfLine*l.p.RateGbps*1e9 {
			b.Idle = append(b.Idle, portLabel(l.p))
		}
	}
	if b.BytesPerSec > 0 {
		b.Share = (top.rx + top.tx) / b.BytesPerSec
	}
	slices.Sort(b.Idle)
	return b
}

// balanceEvidence says how the RDMA bytes spread: the busiest port, its
// share and line-rate use, and the idle ports of its kind. It is the
// evidence template function "balance".
func balanceEvidence(b *PortBalance) string {
	if b == nil {
		return ""
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s of the RDMA bytes of this host's %d ACTIVE ports alike went through %s (%s",
		percent(b.Share), b.Ports, b.Busiest, byteRate(b.BytesPerSec*b.Share))
	if u, ok := b.Util.(float64); ok {
		fmt.Fprintf(&s, ", %s of its line rate", percent(u))
	}
	fmt.Fprintf(&s, "); %d sat idle, under 0.1 %% of their line rate: %s", len(b.Idle), strings.Join(b.Idle, ", "))
	return s.String()
}

func percent(f float64) string { return humanFloat(100*f) + " %" }

// byteRate writes bytes per second with an SI prefix: "21.2 GB/s".
func byteRate(v float64) string {
	for _, u := range []struct {
		div  float64
		name string
	}{{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}} {
		if v >= u.div {
			return humanFloat(v/u.div) + " " + u.name
		}
	}
	return humanFloat(v) + " B/s"
}
