package monitor

import (
	"context"
	"testing"
	"time"
)

func lossyTimeline(t *testing.T, ctx context.Context) (*Timeline, *int) {
	t.Helper()
	opened := 0
	tl := NewTimeline(ctx, func() (*Run, error) {
		opened++
		tape, err := OpenCapture(lossy)
		if err != nil {
			return nil, err
		}
		return New(Config{Tape: tape, Interval: 50 * time.Millisecond})
	})
	t.Cleanup(tl.Close)
	return tl, &opened
}

// Random access over a replay: forward, to the end, back within the
// window, and back before it (which replays from the start) all give the
// same Frames as one pass.
func TestTimelineRandomAccess(t *testing.T) {
	want, _ := replayFrames(t, lossy, 50*time.Millisecond, false)
	tl, opened := lossyTimeline(t, context.Background())
	tl.MaxBytes = 1 // keep only the newest two Frames
	check := func(i int) {
		t.Helper()
		f, ok, err := tl.At(i)
		if err != nil || !ok {
			t.Fatalf("At(%d): ok %v err %v", i, ok, err)
		}
		if f.Seq != i || !f.Time.Equal(want[i].Time) || f.Interval.Packets != want[i].Interval.Packets {
			t.Errorf("At(%d) = seq %d at %v with %d packets; want %v with %d", i, f.Seq, f.Time,
				f.Interval.Packets, want[i].Time, want[i].Interval.Packets)
		}
	}
	check(0)
	check(3)
	if n, final := tl.Len(); n != 4 || final {
		t.Errorf("after At(3): Len %d final %v, want 4 false", n, final)
	}
	f, ok, err := tl.At(1 << 20) // the end
	if ok || err != nil || f.Seq != len(want)-1 || f.Total != len(want) {
		t.Errorf("At(end) = seq %d total %d ok %v err %v; want the last of %d", f.Seq, f.Total, ok, err, len(want))
	}
	if _, done := tl.Result(); !done {
		t.Error("no result at the end")
	}
	check(len(want) - 2) // still in the window
	before := *opened
	check(2) // before the window: replayed from the start
	if *opened != before+1 {
		t.Errorf("going back before the window opened the recording %d more times, want 1", *opened-before)
	}
	if n, final := tl.Len(); n != len(want) || !final {
		t.Errorf("Len %d final %v after restart, want %d true", n, final, len(want))
	}
}

// Cancelling the context (the user quit during a long read) stops the
// computation, and no goroutine is left behind (iter.Pull's coroutine, the
// run).
func TestTimelineCancel(t *testing.T) {
	noLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	tl, _ := lossyTimeline(t, ctx)
	if _, _, err := tl.At(1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, ok, err := tl.At(1 << 20); ok || err == nil {
		t.Errorf("At after cancel: ok %v err %v", ok, err)
	}
	tl.Close()
}

// IndexAfter answers while At computes (the screen calls it from a key,
// and a long read of the recording must not freeze the screen): it does
// not take the lock At holds.
func TestIndexAfterDoesNotWaitForAt(t *testing.T) {
	tl := NewTimeline(context.Background(), nil)
	tl.times = []int64{10, 20, 30}
	tl.mu.Lock() // as At does while it reads
	defer tl.mu.Unlock()
	done := make(chan int, 1)
	go func() {
		i, _ := tl.IndexAfter(time.Unix(0, 15))
		done <- i
	}()
	select {
	case i := <-done:
		if i != 1 {
			t.Errorf("IndexAfter(15) = %d, want 1 (the Frame at 20)", i)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("IndexAfter waited for At's lock")
	}
}
