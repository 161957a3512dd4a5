package monitor

import (
	"context"

	"github.com/gopacket/gopacket"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// cutCopy replays the first n bytes of a capture and returns its Frames
// and the run's error.
func cutCopy(t *testing.T, path string, n int) ([]Frame, error) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(cut, b[:n], 0o644); err != nil {
		t.Fatal(err)
	}
	tape, err := OpenCapture(cut)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Tape: tape, Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var out []Frame
	var runErr error
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			runErr = err
			break
		}
		out = append(out, f)
	}
	if res := r.Result(); (res.Err == nil) != (runErr == nil) {
		t.Errorf("Result().Err %v, Frames error %v", res.Err, runErr)
	}
	return out, runErr
}

func captureInfo(ts time.Time, n int) gopacket.CaptureInfo {
	return gopacket.CaptureInfo{Timestamp: ts, CaptureLength: n, Length: n}
}

// noLeak fails the test when goroutines started during it outlive it
// (give them a moment to end: a closed capture ends its pump).
func noLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines left behind (%d before):\n%s", n-before, before, buf[:runtime.Stack(buf, true)])
		}
	})
}
