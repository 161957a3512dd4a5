package monitor

import (
	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// captureLoss is what a recorded capture could not see in some time:
// frames the kernel dropped, frames the file lacks, seconds its link was
// down.
type captureLoss struct {
	kernelDrops, unrecorded uint64
	blindS                  float64
	linkDown                string
}

// apply puts l on s; a nil l (the recording does not say) leaves s as
// it is: unknown, not zero.
func (l *captureLoss) apply(s *capture.Summary) {
	if l == nil {
		return
	}
	kd, un := l.kernelDrops, l.unrecorded
	s.KernelDrops, s.Unrecorded = &kd, &un
	s.BlindS, s.LinkDown = l.blindS, l.linkDown
}

// captureLedger turns a recording's running capture totals
// (bundle.CaptureState, at each tick) into what each interval missed:
// the difference from the previous tick's. The file's first tick is the
// baseline (an incident cut from a longer run counts only its own time).
type captureLedger struct {
	known bool
	first bundle.CaptureState // the baseline
	prev  bundle.CaptureState
}

// next takes a tick's state and returns the interval's loss and the
// loss since the file began; nil, nil when the tick does not say
// (a recording made before rdmatop wrote it, or no capture).
func (l *captureLedger) next(cur *bundle.CaptureState) (iv, total *captureLoss) {
	if cur == nil {
		return nil, nil
	}
	if !l.known {
		l.known, l.first, l.prev = true, *cur, *cur
		return &captureLoss{linkDown: cur.LinkDown}, &captureLoss{linkDown: cur.LinkDown}
	}
	iv = diff(*cur, l.prev)
	l.prev = *cur
	return iv, l.total()
}

// total is the loss since the file's first tick.
func (l *captureLedger) total() *captureLoss {
	return diff(l.prev, l.first)
}

// diff is what was missed between two ticks' running totals (a counter
// that went back, a capture reopened, counts from its new start).
func diff(cur, prev bundle.CaptureState) *captureLoss {
	d := func(a, b uint64) uint64 {
		if a < b {
			return a
		}
		return a - b
	}
	return &captureLoss{kernelDrops: d(cur.KernelDrops, prev.KernelDrops), unrecorded: d(cur.Unrecorded, prev.Unrecorded),
		blindS: max(cur.BlindS-prev.BlindS, 0), linkDown: cur.LinkDown}
}
