package monitor

import (
	"context"
	"errors"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

// Host samples a host live. The run never calls Sample concurrently nor
// before the previous call returned. tick is the raw data of the sample
// when recording (nil otherwise).
type Host interface {
	Sample(ctx context.Context, now time.Time) (snap *probes.Snapshot, tick *bundle.Tick, err error)
}

// Wire is a live capture: live.Source, or a fake in tests.
// ReadPacket returns live.ErrTimeout when nothing arrived for a while
// and io.EOF once closed; Close may be called from another goroutine.
//
// A frame's data may live in the source's memory (live.Source reads
// zero-copy from its ring): it is valid until the next ReadPacket or
// Close. So ReadPacket must return within a bounded time (ErrTimeout when
// idle), and a run closes the source only after its reader has stopped.
type Wire interface {
	capture.Source
}

// WireStats is implemented by live captures that know the kernel's drop
// count (live.Source).
type WireStats interface {
	Stats() (live.Stats, error)
}

// Record is one item of a recording played back: a host tick or a packet.
type Record struct {
	// Snapshot is a host tick, taken at Time.
	Snapshot *probes.Snapshot
	Time     time.Time
	// Phase labels the tick (the demo's episode).
	Phase string
	// Capture, Skipped and LateS: what a recording's tick says of its
	// capture's losses and of how the live run kept time (bundle.Tick).
	Capture *bundle.CaptureState
	Skipped int
	LateS   float64
	// Packet, when Snapshot is nil: one captured frame; Data is valid
	// until the next call to Next.
	Data []byte
	CI   gopacket.CaptureInfo
	Link layers.LinkType
	// Decoded, when not nil, is the frame decoded ahead by the tape
	// (CaptureTape.DecodeAhead); valid as long as Data.
	Decoded *capture.Predecoded
}

// Tape is a recording played back: host ticks and packets in the order
// they were analysed (a capture file has only packets, a version 1 bundle
// only ticks). Next returns io.EOF at the end; damage returns an error
// after everything before it was returned.
type Tape interface {
	Next(ctx context.Context) (Record, error)
	Close() error
}

// Describer is implemented by tapes that can say what they read: the
// capture file's format and link type, the bundle's header.
type Describer interface {
	Describe(s *capture.Summary)
}

// Progresser is implemented by tapes that know how far they have read
// (bytes of the file) and the total.
type Progresser interface {
	Progress() (done, total int64)
}

// TickCounter is implemented by tapes that know how many ticks they hold
// before they are played: each Frame carries that total (Frame.Total).
type TickCounter interface {
	Len() int
}

// Recorder receives what a live run saw, in the order it analysed it: the
// packets and the raw host ticks (bundle.PcapngWriter). It is called with
// the wire's lock held, so file order is analysis order.
type Recorder interface {
	WritePacket(ci gopacket.CaptureInfo, data []byte) error
	WriteTick(t *bundle.Tick) error
}

// Config is a run: its sources, its rules and its clock.
type Config struct {
	Mode   Mode
	Source string // what the run reads, for Frames and reports

	// Live: Host and/or Wire, sampled every Interval on the wall clock.
	Host Host
	Wire Wire
	// Fanout are the further rings of Wire's PACKET_FANOUT group
	// (live.OpenFanout): each is read by its own goroutine into its
	// own analysis shard, and the shards merge at every tick. Not with a
	// Recorder, whose file needs one order of packets and ticks.
	Fanout []Wire
	// WireName names the live capture (the interface) in statuses;
	// WireErr, when Wire is nil, says why there is no capture (no
	// CAP_NET_RAW, no such interface): reported in every Frame.
	WireName string
	WireErr  error

	// Replay: a Tape, with Interval as the capture timeline's step when it
	// has no host ticks.
	Tape Tape
	// IntervalsOnly: Frames carry the interval's analysis and not the
	// running one (Frame.Wire is nil), for front ends that read the
	// intervals and the Result (a report, the JSON series, check, capture,
	// record): on a capture of 100,000 flows the running analysis is the
	// whole flow table, summarised at every tick (some 120 ms), and live
	// under the lock the packet reader needs.
	IntervalsOnly bool
	// AutoInterval lets a replayed capture shorter than a few intervals use
	// finer ones (the user did not choose the interval).
	AutoInterval bool

	Interval time.Duration
	// Ticks stops the run after this many Frames (0: until the sources end
	// or the context is cancelled).
	Ticks int
	// Warmup Frames are not judged by the rules (their Findings are empty):
	// --once takes two samples and judges the second.
	Warmup int
	// OneShot makes every rule fire as soon as its condition holds: the
	// run is too short for any `for`.
	OneShot bool

	Analysis capture.Config
	Pack     *rules.Pack // nil: the built-in pack
	// Retention and MaxResolved bound the resolved findings the rules keep
	// (rules.Engine); 0 means the mode's policy: live forgets after
	// rules.LiveRetention, a replay keeps everything up to
	// rules.DefaultMaxResolved.
	Retention   time.Duration
	MaxResolved int
	// Packets is how many of the most recent decoded packets each Frame
	// carries (the screen's per-flow packet list; at most 4096); 0: none.
	Packets int
	// Recorder, when set, receives the live run's packets and host ticks.
	Recorder Recorder

	// Now is the live clock (time.Now when nil); tests set it.
	Now func() time.Time
}

// Errors of New.
var (
	ErrNoSources = errors.New("monitor: a run needs a host, a wire or a tape")
	errBoth      = errors.New("monitor: a run is live (host, wire) or a replay (tape), not both")
)

func (c *Config) check() error {
	live := c.Host != nil || c.Wire != nil || c.WireErr != nil
	switch {
	case live && c.Tape != nil:
		return errBoth
	case !live && c.Tape == nil:
		return ErrNoSources
	case c.Interval < 0:
		return errors.New("monitor: negative interval")
	case len(c.Fanout) > 0 && c.Wire == nil:
		return errors.New("monitor: fanout rings without a wire")
	case len(c.Fanout) > 0 && c.Recorder != nil:
		return errors.New("monitor: a recording reads one ring (no fanout)")
	}
	if c.Interval == 0 {
		c.Interval = time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Mode == "" {
		c.Mode = ModeReplay
		if live {
			c.Mode = ModeLive
		}
	}
	return nil
}
