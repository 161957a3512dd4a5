package monitor

import (
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/qos"
	"github.com/rdmatop/rdmatop/rules"
)

// Mode is where a run's Frames come from.
type Mode string

// Modes.
const (
	ModeLive   Mode = "live"
	ModeReplay Mode = "replay"
	ModeDemo   Mode = "demo"
)

// Frame is everything known at one tick. Field names are a stable JSON
// contract: add, never rename.
type Frame struct {
	Time   time.Time `json:"time"`
	Mode   Mode      `json:"mode"`
	Seq    int       `json:"seq"`              // 0-based tick number in the run
	Total  int       `json:"total,omitempty"`  // ticks in the run when known (a demo, a finished replay), else 0
	Source string    `json:"source,omitempty"` // file replayed, interface captured, or the demo scenario
	// IntervalS is the length of this tick in seconds: the time since the
	// previous tick (0 for the first).
	IntervalS float64 `json:"interval_s"`
	// LateS says how much later than scheduled a live tick started,
	// because the previous sample overran the interval; SampleS how long
	// this tick's host sample took. Both 0 in replay.
	LateS   float64 `json:"late_s,omitempty"`
	SampleS float64 `json:"sample_s,omitempty"`
	// Skipped counts the ticks that did not happen because a sample
	// overran (samples never overlap).
	Skipped int `json:"skipped,omitempty"`

	Snapshot *probes.Snapshot `json:"snapshot,omitempty"` // nil without host data
	// Wire is the capture analysed since the run started (nil without a
	// capture), without its anomaly log (Result has it); Interval is the
	// same analysis for this tick only: the flows that moved in it, with
	// their counters for the tick, and the tick's anomalies. The rules
	// judge the interval.
	Wire     *capture.Summary `json:"wire,omitempty"`
	Interval *capture.Summary `json:"interval,omitempty"`
	// WireStatus says how the live capture fares: ok, or why there is no
	// wire (permission_denied naming CAP_NET_RAW, failed, not_supported).
	// It is also one of the Snapshot's statuses when there is host data.
	WireStatus *probes.Status `json:"wire_status,omitempty"`
	// QoS is the host's QoS settings per priority beside the classes the
	// captured traffic rides (qos.TableOf of Snapshot and Wire), built once
	// here for whoever shows it.
	QoS qos.Table `json:"qos,omitzero"`
	// Packets are the capture's most recent decoded packets, oldest first,
	// all flows mixed (PacketLine.FlowID says whose); nil without them.
	Packets  []capture.PacketLine `json:"packets,omitempty"`
	Findings []rules.Finding      `json:"findings"`
	Rules    []rules.RuleState    `json:"rules,omitempty"`
	// Recent are the run's latest events up to this Frame (at most
	// RecentEvents), host and wire (the interval's anomalies as events of
	// source "wire"), oldest first: the screen's event timeline, whichever
	// Frame it jumps to. Shared between Frames: read only. Not in JSON
	// (each Frame's own events are in Snapshot.Events and
	// Interval.Anomalies).
	Recent []probes.Event `json:"-"`
	// Phase names the demo scenario's current episode ("healthy", "PFC
	// back-pressure on priority 3", ...); empty otherwise.
	Phase string `json:"phase,omitempty"`
}

// Checked reports whether the Frame had anything to judge RDMA health on:
// a port of an RDMA device in its snapshot (after -i/-d), or RoCE packets
// captured in its interval. Without either, "no findings" says nothing
// about the host: front ends report UNKNOWN (check, --once) or unhealthy
// (serve's /readyz and /healthz), never OK.
func (f *Frame) Checked() bool {
	return f.Snapshot != nil && len(f.Snapshot.Ports) > 0 || f.Interval != nil && f.Interval.RoCEPackets > 0
}
