package flight

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/internal/bundletest"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

// labRun is a real recording of the Soft-RoCE lab (clean RDMA WRITE
// traffic of ib_write_bw from 16:36:20 to 16:36:26, about 880 bytes a
// frame, 5,000 to 15,000 frames a tick; no PSN gap): a live run to feed
// a recorder with, record by record.
const labRun = "../testdata/lab/flight-stopped/stopped/rdmatop-incident-20261204T163634Z-traffic-stopped.pcapng.gz"

func labRecords(t *testing.T) []bundle.Record {
	t.Helper()
	_, recs := bundletest.Read(t, labRun)
	return recs
}

// checked is what a replay of an incident says, and what the incident
// holds: its ticks' running Capture.Unrecorded and its sidecar.
type checked struct {
	res   monitor.Result
	unrec []uint64 // per tick that says (Capture)
	side  Sidecar
}

func checkIncident(t *testing.T, dir string) checked {
	t.Helper()
	recs, _ := filepath.Glob(filepath.Join(dir, "*"+recordingExt))
	if len(recs) != 1 {
		t.Fatalf("incidents %v, want one", recs)
	}
	var c checked
	b, err := os.ReadFile(strings.TrimSuffix(recs[0], recordingExt) + sidecarExt)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c.side); err != nil {
		t.Fatal(err)
	}
	_, all := bundletest.Read(t, recs[0])
	sawPacket := false
	for _, rec := range all {
		tk := rec.Tick
		if tk == nil {
			sawPacket = true
			continue
		}
		// Ticks before any frame was handed to the recorder may say
		// nothing of a capture; from the first that does, or the first
		// after a frame, all do.
		if tk.Capture == nil && (len(c.unrec) > 0 || sawPacket) {
			t.Fatalf("tick %s has no capture state", tk.Time)
		}
		if tk.Capture != nil {
			c.unrec = append(c.unrec, tk.Capture.Unrecorded)
		}
	}
	tape, err := monitor.OpenBundle(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	run, err := monitor.New(monitor.Config{Tape: tape, Source: recs[0]})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range run.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
	}
	c.res = run.Result()
	return c
}

func (c checked) fired(rule string) bool {
	return slices.ContainsFunc(c.res.Findings, func(f rules.Finding) bool { return f.Rule == rule })
}

func (c checked) rules() []string {
	var out []string
	for _, f := range c.res.Findings {
		out = append(out, f.Rule)
	}
	return out
}

// The packets reach back less far than the ticks (a busy link fills
// --keep-packets first): when the trigger comes, the ring has let go of
// the first intervals' frames. The incident's ticks say so, their
// running Unrecorded counting the frames each interval lacks, and its
// check reads capture-incomplete, not the network's loss; the sidecar
// counts them.
func TestEvictedFramesAreUnrecorded(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) {
		o.Keep, o.Before, o.After, o.KeepPackets = time.Hour, time.Hour, time.Hour, 8<<20
	})
	fed := 0 // frames after the first tick
	ticks := 0
	for _, rec := range labRecords(t) {
		if p := rec.Packet; p != nil {
			if err := r.WritePacket(p.CI, p.Data); err != nil {
				t.Fatal(err)
			}
			fed++
			continue
		}
		if rec.Tick.Time.Format("15:04:05") == "16:36:27" {
			r.Trigger("test") // the ring holds the last 8 MiB: from 16:36:25 on
		}
		if err := r.WriteTick(rec.Tick); err != nil {
			t.Fatal(err)
		}
		settle(t, r)
		ticks++
	}
	r.Close()
	c := checkIncident(t, dir)
	if len(c.unrec) != ticks { // decided after frames came: every tick says
		t.Fatalf("%d ticks written, want the %d fed", len(c.unrec), ticks)
	}
	missing := uint64(fed) - c.side.Packets
	if missing < 30000 || c.unrec[len(c.unrec)-1]-c.unrec[0] != missing || c.side.PacketsUnrecorded != missing {
		t.Errorf("%d frames fed, %d written: the ticks' Unrecorded run %v, the sidecar says %d: want %d", fed, c.side.Packets, c.unrec, c.side.PacketsUnrecorded, missing)
	}
	if w := c.res.Wire; w == nil || w.Unrecorded == nil || *w.Unrecorded != missing {
		t.Errorf("the replay's whole capture says unrecorded %v, want %d", unrecordedOf(w), missing)
	}
	if !c.fired("capture-incomplete") || c.fired("packet-loss") {
		t.Errorf("findings %v: want capture-incomplete and no packet-loss", c.rules())
	}
}

// The disk falls behind: the incident writer, which kept up so far, is
// held back while 6,000 frames (5.3 MB) pass through a 4 MiB ring, which
// lets go of those it had not written. The hole is in the middle of a flow, a gap
// of PSNs: the incident's ticks count it, and its check reads
// capture-incomplete with the count, never packet-loss. Without the
// count (the marking undone) the same incident reads as packet loss.
func TestWriterFallingBehindIsUnrecorded(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) {
		o.Keep, o.Before, o.After, o.KeepPackets = time.Hour, time.Hour, time.Hour, 4<<20
	})
	var gate atomic.Pointer[chan struct{}] // while set, the writer waits for it to close
	r.beforeTake = func() {
		if g := gate.Load(); g != nil {
			<-*g
		}
	}
	var hold chan struct{}
	fed, inTick, ticks := 0, 0, 0
	for _, rec := range labRecords(t) {
		if p := rec.Packet; p != nil {
			inTick++
			if ticks == 6 && inTick == 500 { // mid-stream, in the interval to 16:36:24
				settle(t, r)
				hold = make(chan struct{})
				gate.Store(&hold)
			}
			if err := r.WritePacket(p.CI, p.Data); err != nil {
				t.Fatal(err)
			}
			fed++
			if gate.Load() == nil && fed%1000 == 0 {
				settle(t, r) // a disk that keeps up with the link (880 KB of frames)
			}
			if ticks == 6 && inTick == 500+6000 { // 5.3 MB: past the ring
				gate.Store(nil)
				close(hold)
			}
			continue
		}
		if ticks == 2 {
			r.Trigger("test") // before the traffic: the incident holds all of it
		}
		if err := r.WriteTick(rec.Tick); err != nil {
			t.Fatal(err)
		}
		settle(t, r)
		ticks, inTick = ticks+1, 0
	}
	r.Close()
	c := checkIncident(t, dir)
	missing := uint64(fed) - c.side.Packets
	if missing == 0 || missing > 6000 || c.unrec[len(c.unrec)-1]-c.unrec[0] != missing || c.side.PacketsUnrecorded != missing {
		t.Errorf("%d frames fed, %d written: the ticks' Unrecorded run %v, the sidecar says %d: want %d", fed, c.side.Packets, c.unrec, c.side.PacketsUnrecorded, missing)
	}
	if !c.fired("capture-incomplete") || c.fired("packet-loss") {
		t.Errorf("findings %v: want capture-incomplete and no packet-loss", c.rules())
	}
}

func unrecordedOf(w *capture.Summary) any {
	if w == nil || w.Unrecorded == nil {
		return nil
	}
	return *w.Unrecorded
}

// A disk slower than the link, from the trigger on: the writer is held
// back before it takes anything while three rings' worth of frames come.
// The incident still holds the window's past whole (every frame the ring
// kept when the trigger was acted on); the frames missing are the
// newest (a few fit where the arena had room to spare), which the full ring could not keep without letting that past
// go, and they are counted. Without the pin the ring would have let the
// past go first, oldest first, and the incident would start where the
// eviction stopped.
func TestBackfillKeepsThePast(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) {
		o.Keep, o.Before, o.After, o.KeepPackets = time.Hour, time.Hour, time.Hour, 256<<10
	})
	var gate atomic.Pointer[chan struct{}]
	r.beforeTake = func() {
		if g := gate.Load(); g != nil {
			<-*g
		}
	}
	frames := realFrames(t)
	at, fed := t0, 0
	second := func() {
		for range 100 {
			d := frames[fed%len(frames)]
			fed++
			at = at.Add(time.Second / 101)
			if err := r.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(d), Length: len(d)}, d); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.WriteTick(&bundle.Tick{Time: at, Full: true, Capture: &bundle.CaptureState{}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.WriteTick(&bundle.Tick{Time: at, Full: true, Capture: &bundle.CaptureState{}}); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		second() // fills the ring
	}
	hold := make(chan struct{})
	gate.Store(&hold)
	r.Trigger("test")
	second() // acts on it: the writer wakes and waits at the gate
	r.mu.Lock()
	kept, mem := uint64(r.ring.pkts.len()), r.ring.pktSize
	r.mu.Unlock()
	triggered := at
	for range 3 * 256 << 10 / int(mem/int64(kept)) / 100 {
		second()
	}
	gate.Store(nil)
	close(hold)
	r.Close()
	c := checkIncident(t, dir)
	recs, _ := filepath.Glob(filepath.Join(dir, "*"+recordingExt))
	_, pkts, _ := readIncident(t, recs[0])
	past := uint64(0)
	for _, ts := range pkts {
		if !ts.After(triggered) {
			past++
		}
	}
	if past != kept || c.side.Packets+c.side.PacketsUnrecorded != uint64(fed) {
		t.Errorf("%d frames fed, the ring kept %d when triggered: the incident holds %d of those (%d in all) and lacks %d",
			fed, kept, past, c.side.Packets, c.side.PacketsUnrecorded)
	}
}
