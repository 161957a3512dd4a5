package monitor

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/internal/bundletest"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

// stoppedIncident is a real flight-recorder incident of clean WRITE
// traffic on Soft-RoCE (testdata/lab/flight-stopped): no PSN gap.
const stoppedIncident = "../testdata/lab/flight-stopped/stopped/rdmatop-incident-20261204T163634Z-traffic-stopped.pcapng.gz"

// TestRecordingWithUnrecordedFrames: a recording whose writer fell
// behind lacks a run of the frames its capture saw. Told so by its ticks'
// capture state, the replay reads the hole as the capture's
// (capture-incomplete, with the count), never as network loss; the same
// file without that state shows the hole as packet-loss, which is what
// recordings said before (and proves the hole is a PSN gap).
func TestRecordingWithUnrecordedFrames(t *testing.T) {
	const hole = 1390 // frames the lab's flight recorder lost while writing an incident
	said := holed(t, stoppedIncident, hole, true)
	silent := holed(t, stoppedIncident, hole, false)

	res := replayResult(t, said)
	if fired(res, "packet-loss") {
		t.Errorf("packet-loss fired on a hole the recording says it made: %s", evidenceOf(res, "packet-loss"))
	}
	if !fired(res, "capture-incomplete") {
		t.Errorf("capture-incomplete did not fire; findings %v", ruleIDs(res))
	} else if ev := evidenceOf(res, "capture-incomplete"); !bytes.Contains([]byte(ev), []byte("1390 it captured are not in the recording")) {
		t.Errorf("capture-incomplete does not count the frames: %s", ev)
	}
	if res.Wire.Unrecorded == nil || *res.Wire.Unrecorded != hole {
		t.Errorf("whole capture: unrecorded %v, want %d", res.Wire.Unrecorded, hole)
	}

	res = replayResult(t, silent)
	if !fired(res, "packet-loss") {
		t.Errorf("without the capture state the hole is not even a gap: findings %v", ruleIDs(res))
	}
}

// holed rewrites the recording at path without hole packets from the
// middle of its third interval on; with say, every tick carries capture
// state whose Unrecorded counts them from the tick after the hole.
func holed(t *testing.T, path string, hole int, say bool) string {
	t.Helper()
	r, recs := bundletest.Read(t, path)
	out := filepath.Join(t.TempDir(), "holed.pcapng")
	o, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	w, err := bundle.NewPcapngWriter(o, r.Header, bundle.PcapngOptions{Iface: "veth0"})
	if err != nil {
		t.Fatal(err)
	}
	ticks, inTick, skipped := 0, 0, 0
	for _, rec := range recs {
		if p := rec.Packet; p != nil {
			inTick++
			if ticks == 3 && inTick > 500 && skipped < hole {
				skipped++
				continue
			}
			if err := w.WritePacket(p.CI, p.Data); err != nil {
				t.Fatal(err)
			}
			continue
		}
		ticks, inTick = ticks+1, 0
		tick := *rec.Tick
		tick.Capture = nil
		if say {
			tick.Capture = &bundle.CaptureState{Unrecorded: uint64(skipped) + 7} // +7: the baseline is not counted
		}
		if err := w.WriteTick(&tick); err != nil {
			t.Fatal(err)
		}
	}
	if skipped != hole {
		t.Fatalf("left out %d packets, want %d: the recording is shorter than the test thinks", skipped, hole)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func replayResult(t *testing.T, path string) Result {
	t.Helper()
	tape, err := OpenBundle(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Tape: tape, Source: path})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
	}
	return r.Result()
}

func fired(res Result, id string) bool {
	return slices.ContainsFunc(res.Findings, func(f rules.Finding) bool { return f.Rule == id })
}

func evidenceOf(res Result, id string) string {
	for _, f := range res.Findings {
		if f.Rule == id {
			return f.Evidence
		}
	}
	return ""
}

func ruleIDs(res Result) []string {
	var ids []string
	for _, f := range res.Findings {
		ids = append(ids, f.Rule)
	}
	return ids
}

// flappyWire is a live capture whose link the test takes down and up:
// while down it answers as live.Source does (a *LinkDownError
// after the poll timeout), otherwise nothing (ErrTimeout).
type flappyWire struct {
	down   atomic.Bool
	closed atomic.Bool
	// told: when the wire first told its reader it was down, and then
	// that it was back (Unix ns): all a run can know of the flap.
	toldDown, toldUp atomic.Int64
}

func (w *flappyWire) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	time.Sleep(2 * time.Millisecond) // the poll timeout
	switch {
	case w.closed.Load():
		return nil, gopacket.CaptureInfo{}, 0, io.EOF
	case w.down.Load():
		w.toldDown.CompareAndSwap(0, time.Now().UnixNano())
		return nil, gopacket.CaptureInfo{}, 0, &live.LinkDownError{Iface: "veth0", Why: "administratively down"}
	}
	if w.toldDown.Load() != 0 {
		w.toldUp.CompareAndSwap(0, time.Now().UnixNano())
	}
	return nil, gopacket.CaptureInfo{}, 0, live.ErrTimeout
}

func (w *flappyWire) Close() error { w.closed.Store(true); return nil }

// tickKeeper is a recorder that keeps the ticks.
type tickKeeper struct {
	mu    sync.Mutex
	ticks []bundle.Tick
}

func (k *tickKeeper) WritePacket(gopacket.CaptureInfo, []byte) error { return nil }
func (k *tickKeeper) WriteTick(t *bundle.Tick) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ticks = append(k.ticks, *t)
	return nil
}

// TestLiveLinkDown: the captured interface goes down and comes back
// under a live run that records. While it is down the capture's status
// says so and since when, each interval says how long the capture was
// blind, and the recording's ticks carry it; after, the status says it
// came back, and the blind time adds up to the time it was down.
func TestLiveLinkDown(t *testing.T) {
	noLeak(t)
	w := &flappyWire{}
	rec := &tickKeeper{}
	r, err := New(Config{Host: &slowHost{}, Wire: w, WireName: "veth0", Interval: 20 * time.Millisecond, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sawDown, sawBack bool
	var blind float64
	for f, err := range r.Frames(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		blind += f.Interval.BlindS
		switch st := f.WireStatus; {
		case f.Seq == 3:
			w.down.Store(true)
		case f.Seq == 12:
			w.down.Store(false)
		case st.State == probes.StateLinkDown:
			sawDown = true
			if !strings.Contains(st.Detail, "link down since") || !strings.Contains(st.Detail, "administratively down") {
				t.Errorf("frame %d: status %q", f.Seq, st.Detail)
			}
			if f.Interval.LinkDown != "administratively down" {
				t.Errorf("frame %d: interval link_down %q", f.Seq, f.Interval.LinkDown)
			}
		case sawDown && st.State == probes.StateOK && strings.Contains(st.Detail, "link back at"):
			sawBack = true
		}
		if f.Seq == 20 {
			cancel()
		}
	}
	if !sawDown || !sawBack {
		t.Fatalf("status never said the link went down (%v) or came back (%v)", sawDown, sawBack)
	}
	// The run is blind from when its source first says the link is down
	// to when it first reads again: the times the wire told it, not the
	// times the test flipped it (a loaded machine runs the reader late:
	// 110 ms beside the lab VM and a niced test suite). Its own clock is
	// read right after the call returns: 20 ms covers a reader preempted
	// there.
	want := time.Duration(w.toldUp.Load() - w.toldDown.Load()).Seconds()
	if w.toldDown.Load() == 0 || w.toldUp.Load() == 0 || blind < want-0.02 || blind > want+0.02 {
		t.Errorf("intervals add up to %.3f s blind, the wire said down for %.3f s", blind, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var last *bundle.CaptureState
	downTicks := 0
	for _, tk := range rec.ticks {
		if tk.Capture == nil {
			t.Fatalf("a recorded tick has no capture state")
		}
		if tk.Capture.LinkDown != "" {
			downTicks++
		}
		last = tk.Capture
	}
	if downTicks == 0 || last.LinkDown != "" || last.BlindS < blind-0.001 || last.BlindS > blind+0.001 {
		t.Errorf("recording: %d ticks down, last state %+v; want ticks down and %.3f s blind", downTicks, last, blind)
	}
}
