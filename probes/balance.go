package probes

// RDMABalance is how a host's RDMA bytes spread over its ACTIVE ports of
// one kind: the busiest port's link layer and rate (ports of another
// kind are another job's, or cannot stand in for it). The Overview shows
// it; the rule rdma-traffic-on-one-nic judges it.
type RDMABalance struct {
	// Busiest is the port carrying the most RDMA bytes, rx + tx
	// ("mlx5_0/1"); LinkLayer and RateGbps are its kind.
	Busiest   string  `json:"busiest"`
	LinkLayer string  `json:"link_layer,omitempty"`
	RateGbps  float64 `json:"rate_gbps,omitempty"`
	// BytesPerSec is what the ports of its kind carry in all, Share the
	// busiest's part of it (0 to 1; 0 when nothing flows).
	BytesPerSec float64 `json:"bytes_per_s"`
	Share       float64 `json:"share"`
	// Util is the busiest's busier direction against its line rate (0 to
	// 1); nil when the rate is unknown.
	Util *float64 `json:"util,omitempty"`
	// Ports counts the ACTIVE ports of the kind; Idle names those that
	// carry next to nothing (under IdleOfLine of their line rate),
	// sorted; unjudged when the rate is unknown.
	Ports int      `json:"ports"`
	Idle  []string `json:"idle,omitempty"`
}

// IdleOfLine: a port whose RDMA bytes (rx + tx) stay under a thousandth
// of its line rate (12.5 MB/s at 100 Gb/s) carries no workload. What an
// unused RoCE port still moves (LLDP, ARP/ND, connection management,
// keep-alives) is kB/s; any workload's data stream, a job's channel or a
// storage client's, is MB/s and more while it moves. A port above it
// carries something, perhaps another job's traffic on a NIC kept for it,
// and is not called idle.
const IdleOfLine = 1e-3
