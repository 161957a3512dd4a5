package monitor

import (
	"context"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/capture/scenario"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// fanoutRing is one ring of a fanout group, faked: its frames, one every
// pace, then ErrTimeout until closed; each Stats call adds drops.
type fanoutRing struct {
	mu     sync.Mutex
	frames [][]byte
	pace   time.Duration
	closed bool
	drops  uint64
	step   uint64
	lag    time.Duration // how old each frame is when read
}

func (w *fanoutRing) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	time.Sleep(w.pace)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, gopacket.CaptureInfo{}, 0, io.EOF
	}
	if len(w.frames) == 0 {
		return nil, gopacket.CaptureInfo{}, 0, live.ErrTimeout
	}
	f := w.frames[0]
	w.frames = w.frames[1:]
	return f, gopacket.CaptureInfo{Timestamp: time.Now().Add(-w.lag), CaptureLength: len(f), Length: len(f)}, layers.LinkTypeEthernet, nil
}

func (w *fanoutRing) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}

func (w *fanoutRing) Stats() (live.Stats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drops += w.step
	return live.Stats{Drops: w.drops}, nil
}

// A live capture on two rings of a fanout group: every Frame merges both
// shards, the flows and totals equal the capture analysed in one piece,
// flow IDs never clash, and drops are reported per ring.
func TestLiveFanoutMerged(t *testing.T) {
	noLeak(t)
	frames, err := scenario.FabricFrames(24)
	if err != nil {
		t.Fatal(err)
	}
	whole := capture.NewAnalyzer(capture.Config{})
	rings := []*fanoutRing{{pace: 20 * time.Microsecond, step: 1}, {pace: 20 * time.Microsecond, step: 3}}
	total := len(frames)
	for _, f := range frames {
		whole.Packet(f.Data, f.CI, layers.LinkTypeEthernet)
		r := rings[live.FanoutShard(f.Data, len(rings))]
		r.frames = append(r.frames, f.Data)
	}
	if len(rings[0].frames) == 0 || len(rings[1].frames) == 0 {
		t.Fatalf("the split left a ring empty: %d and %d frames", len(rings[0].frames), len(rings[1].frames))
	}
	want := whole.Summary()

	r, err := New(Config{Wire: rings[0], Fanout: []Wire{rings[1]}, WireName: "veth0", Interval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sum uint64
	var last Frame
	for f, err := range r.Frames(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		sum += f.Interval.Packets
		if d := f.Interval.RingDrops; len(d) != 2 || d[0] != 1 || d[1] != 3 || *f.Interval.KernelDrops != 4 {
			t.Errorf("frame %d: interval ring drops %v, kernel drops %v; want [1 3] and 4", f.Seq, d, *f.Interval.KernelDrops)
		}
		last = f
		if f.Wire.Packets == uint64(total) && f.Seq > 2 {
			cancel()
		}
	}
	if sum != uint64(total) {
		t.Errorf("intervals hold %d packets, the rings had %d", sum, total)
	}
	got := last.Wire
	if got.Totals != want.Totals || len(got.Flows) != len(want.Flows) {
		t.Errorf("merged: %d flows, totals %+v\nwant %d flows, totals %+v", len(got.Flows), got.Totals, len(want.Flows), want.Totals)
	}
	ids := map[int]bool{}
	for _, f := range got.Flows {
		if ids[f.ID] {
			t.Errorf("flow ID %d twice", f.ID)
		}
		ids[f.ID] = true
		if f.PeerID == 0 {
			t.Errorf("flow %d (%s > %s) lost its peer across the split", f.ID, f.Src, f.Dst)
		}
	}
	res := r.Result()
	if res.Wire.Totals != want.Totals || len(res.Wire.RingDrops) != 2 {
		t.Errorf("result: totals %+v, ring drops %v", res.Wire.Totals, res.Wire.RingDrops)
	}
}

// Fanout rings need the first ring, and a recording needs one order of
// packets and ticks: one ring.
func TestFanoutNeedsOneOrder(t *testing.T) {
	w := &fanoutRing{}
	if _, err := New(Config{Fanout: []Wire{w}, Host: &slowHost{}}); err == nil {
		t.Error("fanout without a wire: no error")
	}
	var rec bundle.PcapngWriter
	if _, err := New(Config{Wire: &fanoutRing{}, Fanout: []Wire{w}, Recorder: &rec}); err == nil {
		t.Error("fanout with a recorder: no error")
	}
	r, err := New(Config{Wire: &fanoutRing{}, Fanout: []Wire{w}})
	if err != nil {
		t.Fatalf("two rings: %v", err)
	}
	r.Close()
}

// With --icrc=auto a live reader that falls behind the wire verifies one
// ICRC in 16 and says so; one that keeps up, and --icrc=on, verify all.
func TestLiveICRCSampling(t *testing.T) {
	frames, err := scenario.FabricData(40)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		mode  capture.ICRCMode
		lag   time.Duration
		icrc  string
		check bool // some packets unchecked
	}{
		{"auto keeping up", capture.ICRCAuto, 0, capture.ICRCVerifiedAll, false},
		{"auto behind", capture.ICRCAuto, time.Second, capture.ICRCSampled, true},
		{"on behind", capture.ICRCOn, time.Second, capture.ICRCVerifiedAll, false},
		{"off", capture.ICRCOff, 0, capture.ICRCNotVerified, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &fanoutRing{frames: slices.Clone(frames), lag: c.lag}
			r, err := New(Config{Wire: w, WireName: "veth0", Interval: 20 * time.Millisecond,
				Analysis: capture.Config{ICRC: c.mode}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for f, err := range r.Frames(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				if f.Wire.Packets == uint64(len(frames)) && f.Seq > 1 {
					cancel()
				}
			}
			s := r.Result().Wire
			if s.ICRC != c.icrc || (s.ICRCUnchecked > 0) != c.check {
				t.Errorf("icrc %q with %d unchecked; want %q, unchecked %v", s.ICRC, s.ICRCUnchecked, c.icrc, c.check)
			}
			if c.check && (s.Totals.ICRCOK == 0 || s.Totals.ICRCOK+s.ICRCUnchecked != s.RoCEPackets) {
				t.Errorf("%d ICRCs verified OK + %d unchecked != %d RoCE packets", s.Totals.ICRCOK, s.ICRCUnchecked, s.RoCEPackets)
			}
		})
	}
}
