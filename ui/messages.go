package ui

import (
	"time"

	"github.com/rdmatop/rdmatop/monitor"
)

// The messages of the screen: what the caller sends the model, and what
// the model asks of the caller.

// FrameMsg delivers a frame to the model.
type FrameMsg struct{ Frame monitor.Frame }

// FlightMsg says what the flight recorder did (rdmatop --flight-recorder):
// shown beside LIVE in the header; empty without one.
type FlightMsg struct{ State string }

// LoadingMsg reports progress while the caller reads a large file before
// the first frame: shown as a progress bar until a frame arrives.
type LoadingMsg struct {
	Label       string
	Done, Total int64 // bytes; Total 0 when unknown
}

// SourceDoneMsg says the frame source is exhausted (end of a replay).
type SourceDoneMsg struct{ Err error }

// Messages the model emits for the caller, which owns the clock and the
// sources. The caller's program filters them (tea.WithFilter) or the
// caller wraps the model; see README in the report.
type (
	// PauseMsg: p/space. Live: the screen holds its frame (the model does
	// this itself; the caller may stop sampling). Replay/demo: play/pause.
	PauseMsg struct{ Paused bool }
	// IntervalMsg: +/−. Step is +1 (longer) or −1 (shorter).
	IntervalMsg struct{ Step int }
	// StepMsg: ←/→ in replay. Delta is −1 or +1 tick.
	StepMsg struct{ Delta int }
	// SpeedMsg: </> in replay. Step is −1 (slower) or +1 (faster).
	SpeedMsg struct{ Step int }
	// SeekMsg: g/G in replay. End false seeks to the start, true to the end.
	SeekMsg struct{ End bool }
	// SeekTimeMsg: t in replay, to the tick that first showed the
	// selected finding (it began at Time).
	SeekTimeMsg struct{ Time time.Time }
)

// PlaybackMsg is sent by the caller to update what the header shows after
// it handled an IntervalMsg, SpeedMsg or StepMsg.
type PlaybackMsg struct {
	Interval time.Duration
	Speed    float64
	// Paused: playback stopped (a step pauses it, as in any player).
	Paused bool
}
