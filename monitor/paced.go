package monitor

import (
	"context"
	"iter"
	"time"
)

// Paced yields a replay's Frames at the pace they were recorded, speed
// times faster (the exporter serving a recording, so that rates move as
// they did): after each Frame it waits the next Frame's interval / speed.
// It stops when ctx is cancelled.
func Paced(ctx context.Context, frames iter.Seq2[Frame, error], speed float64) iter.Seq2[Frame, error] {
	if speed <= 0 {
		speed = 1
	}
	return func(yield func(Frame, error) bool) {
		timer := time.NewTimer(0)
		defer timer.Stop()
		<-timer.C
		for f, err := range frames {
			if err == nil && f.Seq > 0 && f.IntervalS > 0 {
				timer.Reset(time.Duration(f.IntervalS / speed * float64(time.Second)))
				select {
				case <-ctx.Done():
					return
				case <-timer.C:
				}
			}
			if !yield(f, err) {
				return
			}
		}
	}
}
