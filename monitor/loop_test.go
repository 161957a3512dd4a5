package monitor

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A looped recording is one run whose clock only moves forward: each pass
// replays the same intervals, its Frames one mean tick after the previous
// pass's last, Seq counting on; stopping mid-pass leaves nothing running.
func TestLoopedContinuesTheClock(t *testing.T) {
	noLeak(t)
	once, _ := replayFrames(t, lossy, 100*time.Millisecond, false)
	n := len(once)
	if n < 3 {
		t.Fatalf("%d frames in one pass", n)
	}
	span := once[n-1].Time.Sub(once[0].Time)
	tick := span / time.Duration(n-1)
	open := func() (*Run, error) {
		tape, err := OpenCapture(lossy)
		if err != nil {
			return nil, err
		}
		return New(Config{Tape: tape, Source: lossy, Interval: 100 * time.Millisecond})
	}
	var got []Frame
	for f, err := range Looped(context.Background(), open) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, f); len(got) == 2*n+2 {
			break
		}
	}
	for i, f := range got {
		want := once[i%n]
		shift := time.Duration(i/n) * (span + tick)
		if f.Seq != i || f.Total != 0 || !f.Time.Equal(want.Time.Add(shift)) {
			t.Errorf("frame %d: seq %d total %d at %v, want seq %d total 0 at %v", i, f.Seq, f.Total, f.Time, i, want.Time.Add(shift))
		}
		if f.Interval.RoCEPackets != want.Interval.RoCEPackets {
			t.Errorf("frame %d: %d RoCE packets, the recording's interval %d has %d", i, f.Interval.RoCEPackets, i%n, want.Interval.RoCEPackets)
		}
		wantS := want.IntervalS
		if i > 0 && i%n == 0 {
			wantS = tick.Seconds()
		}
		if f.IntervalS != wantS {
			t.Errorf("frame %d: interval %v s, want %v", i, f.IntervalS, wantS)
		}
		if i > 0 && !f.Time.After(got[i-1].Time) {
			t.Errorf("frame %d at %v, not after %v", i, f.Time, got[i-1].Time)
		}
	}
}

// A recording that cannot be opened again, or holds no tick, ends the
// loop with an error rather than spinning.
func TestLoopedErrors(t *testing.T) {
	broken := errors.New("gone")
	for f, err := range Looped(context.Background(), func() (*Run, error) { return nil, broken }) {
		if !errors.Is(err, broken) {
			t.Errorf("frame %+v, error %v: want the open error", f, err)
		}
	}
	empty := func() (*Run, error) { return New(Config{Tape: NewSnapshotTape(nil), Source: "empty"}) }
	var errs int
	for _, err := range Looped(context.Background(), empty) {
		if err == nil {
			t.Fatal("a frame from an empty recording")
		}
		errs++
	}
	if errs != 1 {
		t.Errorf("%d errors from an empty recording, want 1", errs)
	}
}
