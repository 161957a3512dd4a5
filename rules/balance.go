package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
)

// PortBalance is the snapshot's probes.RDMABalance as rules see it: how
// a host's RDMA bytes spread over its ACTIVE ports of one kind, the
// ports named with their kind.
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
	// carry next to nothing (under probes.IdleOfLine of their line rate;
	// unjudged when the rate is unknown).
	Ports int      `expr:"ports"`
	Idle  []string `expr:"idle"`
}

// portBalance is the snapshot's balance for rules, its ports labelled
// with their kind ("mlx5_0/1 Ethernet 100 Gb/s"); nil when it is.
func portBalance(sb *probes.RDMABalance) *PortBalance {
	if sb == nil {
		return nil
	}
	label := func(key string) string {
		i := strings.LastIndexByte(key, '/') // "mlx5_0/1"
		n, _ := strconv.Atoi(key[i+1:])
		return portLabel(&probes.Port{Device: key[:max(i, 0)], Port: n, LinkLayer: sb.LinkLayer, RateGbps: sb.RateGbps})
	}
	b := &PortBalance{Busiest: label(sb.Busiest), BytesPerSec: sb.BytesPerSec, Share: sb.Share, Ports: sb.Ports}
	if sb.Util != nil {
		b.Util = *sb.Util
	}
	for _, k := range sb.Idle {
		b.Idle = append(b.Idle, label(k))
	}
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
