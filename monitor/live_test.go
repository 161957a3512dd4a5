package monitor

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// slowHost is a host whose sample takes delay; it notes any overlap.
type slowHost struct {
	delay    time.Duration
	inside   atomic.Int32
	overlaps atomic.Int32
	calls    atomic.Int32
}

func (h *slowHost) Sample(ctx context.Context, now time.Time) (*probes.Snapshot, *bundle.Tick, error) {
	if h.inside.Add(1) > 1 {
		h.overlaps.Add(1)
	}
	defer h.inside.Add(-1)
	h.calls.Add(1)
	select {
	case <-time.After(h.delay):
	case <-ctx.Done():
	}
	return &probes.Snapshot{Time: now, Host: probes.HostInfo{Hostname: "fake"}, Devices: []probes.Device{},
		Ports: []probes.Port{}, QPs: []probes.QP{}, Events: []probes.Event{}}, &bundle.Tick{Time: now}, nil
}

// The live pipeline with a host whose sample takes three intervals, for
// 100 ticks (run it under -race): samples never overlap, ticks are
// delayed, and each Frame says how late it was and how many ticks it
// skipped.
func TestLiveSlowHost(t *testing.T) {
	const iv = 4 * time.Millisecond
	h := &slowHost{delay: 3 * iv}
	r, err := New(Config{Host: h, Interval: iv, Ticks: 100})
	if err != nil {
		t.Fatal(err)
	}
	late, skipped := 0, 0
	var prev time.Time
	n := 0
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if f.Seq != n {
			t.Errorf("frame %d has seq %d", n, f.Seq)
		}
		if n > 0 {
			if gap := f.Time.Sub(prev); gap < h.delay {
				t.Errorf("tick %d started %v after the previous one, whose sample takes %v", n, gap, h.delay)
			}
			if f.LateS >= iv.Seconds() {
				late++
			}
			skipped += f.Skipped
		}
		if f.SampleS < h.delay.Seconds() {
			t.Errorf("tick %d: sample took %v s, the host takes %v", n, f.SampleS, h.delay)
		}
		prev = f.Time
		n++
	}
	if n != 100 || h.calls.Load() != 100 {
		t.Fatalf("%d frames, %d samples; want 100", n, h.calls.Load())
	}
	if h.overlaps.Load() != 0 {
		t.Errorf("%d overlapping samples", h.overlaps.Load())
	}
	if late < 90 || skipped < 90 {
		t.Errorf("only %d ticks reported late and %d skipped, of 99 delayed by a sample of 3 intervals", late, skipped)
	}
}

// onceSlowHost is a host whose second sample alone takes delay.
type onceSlowHost struct {
	slowHost
	slow time.Duration
}

func (h *onceSlowHost) Sample(ctx context.Context, now time.Time) (*probes.Snapshot, *bundle.Tick, error) {
	h.delay = 0
	if h.calls.Load() == 1 {
		h.delay = h.slow
	}
	return h.slowHost.Sample(ctx, now)
}

// One transient overrun (a sample of five intervals) is one late tick
// that says how many intervals were lost; the ticks after it keep time
// from it. None fires back to back with the one before: an interval near
// zero makes every rate spike (the loop used to catch up on its old grid,
// four Frames ~0 ms apart with skipped 4, 3, 2, 1).
func TestLiveTransientOverrun(t *testing.T) {
	const iv = 50 * time.Millisecond
	h := &onceSlowHost{slow: 5 * iv}
	r, err := New(Config{Host: h, Interval: iv, Ticks: 8})
	if err != nil {
		t.Fatal(err)
	}
	var frames []Frame
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	if len(frames) != 8 {
		t.Fatalf("%d frames, want 8", len(frames))
	}
	for i := 1; i < len(frames); i++ {
		// Half an interval leaves room for a loaded machine's timer
		// jitter; back to back is microseconds.
		if gap := frames[i].Time.Sub(frames[i-1].Time); gap < iv/2 {
			t.Errorf("frame %d started %v after frame %d (interval %v): back to back", i, gap, i-1, iv)
		}
	}
	// Frame 1's sample took 5 intervals: frame 2 is due 4 intervals
	// before it can start, and the 3 whole intervals after the one it
	// stands for are lost.
	if f := frames[2]; f.Skipped < 3 || f.LateS < (3*iv).Seconds() {
		t.Errorf("frame 2 after the overrun: skipped %d, late %.3f s; want skipped >= 3, late >= %.3f s", f.Skipped, f.LateS, (3 * iv).Seconds())
	}
	// Every skip reported is time that passed: a frame saying it skipped
	// n intervals started at least n intervals after the one before (less
	// timer jitter). The old catch-up reported frame 2's loss again as 3,
	// 2, 1 in frames a few microseconds apart. (A loaded machine, as under
	// -race, may overrun again for real: that is a new skip, backed by its
	// own time.)
	for i := 1; i < len(frames); i++ {
		gap := frames[i].Time.Sub(frames[i-1].Time)
		if n := frames[i].Skipped; n > 0 && gap < time.Duration(n)*iv-iv/2 {
			t.Errorf("frame %d reports %d skipped intervals %v after frame %d: the loss is reported more than once", i, n, gap, i-1)
		}
	}
}

// A consumer slower than the run gets the newest Frame through a Latest;
// nothing queues up.
func TestLatestSlowConsumer(t *testing.T) {
	h := &slowHost{}
	r, err := New(Config{Host: h, Interval: time.Millisecond, Ticks: 50})
	if err != nil {
		t.Fatal(err)
	}
	l := NewLatest()
	go Publish(context.Background(), r, l, nil)
	var got []int
	for {
		f, ok, err := l.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, f.Seq)
		time.Sleep(10 * time.Millisecond) // a slow screen
	}
	if len(got) >= 50 || got[len(got)-1] != 49 {
		t.Errorf("slow consumer took %v: want fewer than all 50 Frames, ending with the last", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Errorf("frames out of order: %v", got)
		}
	}
}

// fileWire plays a capture file as a live source: one packet every pace,
// then nothing (ErrTimeout) until closed.
type fileWire struct {
	mu     sync.Mutex
	src    *pcapfile.Source
	pace   time.Duration
	closed bool
	sent   int
	drops  uint64
}

func (w *fileWire) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	time.Sleep(w.pace)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, gopacket.CaptureInfo{}, 0, io.EOF
	}
	data, ci, link, err := w.src.ReadPacket()
	if err == io.EOF {
		return nil, ci, link, live.ErrTimeout
	}
	w.sent++
	ci.Timestamp = time.Now()
	return data, ci, link, err
}

func (w *fileWire) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return w.src.Close()
}

func (w *fileWire) Stats() (live.Stats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drops += 2
	return live.Stats{Packets: uint64(w.sent), Drops: w.drops}, nil
}

// Live host and wire in one run: every Frame has both; the intervals'
// packets add up to what the source sent; kernel drops are reported per
// interval; the capture's status is one of the snapshot's sources.
func TestLiveHostAndWire(t *testing.T) {
	noLeak(t) // the pump ends with the run
	src, err := pcapfile.Open("../testdata/rxe/pcap/ecn.pcap")
	if err != nil {
		t.Fatal(err)
	}
	w := &fileWire{src: src, pace: 50 * time.Microsecond}
	r, err := New(Config{Host: &slowHost{}, Wire: w, WireName: "veth0", Interval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sum uint64
	n := 0
	for f, err := range r.Frames(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if f.Snapshot == nil || f.Wire == nil || f.Interval == nil || f.WireStatus == nil {
			t.Fatalf("frame %d lacks host or wire: %+v", f.Seq, f)
		}
		if f.WireStatus.State != probes.StateOK || f.Wire.File != "veth0" || f.Wire.Format != "live" {
			t.Errorf("wire status %+v, file %q format %q", f.WireStatus, f.Wire.File, f.Wire.Format)
		}
		found := false
		for _, st := range f.Snapshot.Status {
			found = found || st.Source == "capture veth0"
		}
		if !found {
			t.Errorf("snapshot statuses lack the capture: %+v", f.Snapshot.Status)
		}
		if d := f.Interval.KernelDrops; d == nil || *d != 2 {
			t.Errorf("interval kernel drops %v, want 2 per tick", d)
		}
		sum += f.Interval.Packets
		if f.Wire.Packets == 504 && n > 3 {
			cancel()
		}
	}
	if sum != 504 {
		t.Errorf("intervals hold %d packets, the source sent 504", sum)
	}
	res := r.Result()
	if res.Wire == nil || res.Wire.RoCEPackets != 504 || res.Snapshot == nil {
		t.Errorf("result: %+v", res)
	}
}

// Without a capture (no CAP_NET_RAW), the host still runs and every Frame
// says why there is no wire.
func TestLiveWireUnavailable(t *testing.T) {
	perm := &probes.PermissionError{What: "CAP_NET_RAW", Err: errors.New("operation not permitted")}
	r, err := New(Config{Host: &slowHost{}, WireName: "eth0", WireErr: perm, Interval: time.Millisecond, Ticks: 2})
	if err != nil {
		t.Fatal(err)
	}
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if f.Wire != nil || f.WireStatus == nil || f.WireStatus.State != probes.StatePermissionDenied {
			t.Fatalf("wire %v status %+v", f.Wire, f.WireStatus)
		}
		if f.Snapshot == nil {
			t.Fatal("no host data")
		}
	}
}

// brokenWire fails after a few packets: an interface that went away.
type brokenWire struct{ n int }

func (w *brokenWire) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	time.Sleep(time.Millisecond)
	w.n++
	if w.n > 3 {
		return nil, gopacket.CaptureInfo{}, 0, errors.New("capture on veth9: network is down")
	}
	return nil, gopacket.CaptureInfo{}, 0, live.ErrTimeout
}
func (w *brokenWire) Close() error { return nil }

func TestLiveWireVanishes(t *testing.T) {
	noLeak(t)
	r, err := New(Config{Host: &slowHost{}, Wire: &brokenWire{}, WireName: "veth9", Interval: 10 * time.Millisecond, Ticks: 5})
	if err != nil {
		t.Fatal(err)
	}
	var last Frame
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		last = f
	}
	if last.WireStatus == nil || last.WireStatus.State != probes.StateFailed || last.Snapshot == nil {
		t.Errorf("after the wire failed: status %+v", last.WireStatus)
	}
}
