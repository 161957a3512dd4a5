// Package monitor joins rdmatop's sources into Frames: at each tick, the
// host snapshot, the wire analysis and the findings of the rules. Every
// consumer (the TUI, JSON output, check) reads Frames; none of them talks
// to the OS. The clock is the run's: the wall clock live, the recorded or
// simulated time in replay and demo.
package monitor

import (
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
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

// Frame is everything known at one tick.
type Frame struct {
	Time     time.Time        `json:"time"`
	Mode     Mode             `json:"mode"`
	Seq      int              `json:"seq"`                // 0-based tick number in the run
	Total    int              `json:"total,omitempty"`    // ticks in a replay or demo, 0 live
	Source   string           `json:"source,omitempty"`   // file replayed, or the demo scenario
	Snapshot *probes.Snapshot `json:"snapshot,omitempty"` // nil without host data
	Wire     *capture.Summary `json:"wire,omitempty"`     // nil without a capture
	// Packets are the capture's most recent decoded packets, oldest first,
	// all flows mixed (PacketLine.FlowID says whose); nil without them.
	Packets  []capture.PacketLine `json:"packets,omitempty"`
	Findings []rules.Finding      `json:"findings"`
	Rules    []rules.RuleState    `json:"rules,omitempty"`
	// Phase names the demo scenario's current episode ("healthy", "PFC
	// back-pressure on priority 3", ...); empty otherwise.
	Phase string `json:"phase,omitempty"`
}
