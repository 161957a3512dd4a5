package monitor

import (
	"context"
	"testing"
	"time"
)

// BenchmarkReplayTimeline replays the real lossy capture (4,972 packets,
// 4.9 s) cut into 10 ms intervals: 488 Frames, each with its running
// analysis, interval, rules and event log. Reports Frames per second.
func BenchmarkReplayTimeline(b *testing.B) {
	b.ReportAllocs()
	frames := 0
	for b.Loop() {
		tape, err := OpenCapture(lossy)
		if err != nil {
			b.Fatal(err)
		}
		r, err := New(Config{Tape: tape, Interval: 10 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range r.Frames(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
			frames++
		}
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
}
