//go:build linux

package sampler

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/internal/netnstest"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/gputcp"
)

func TestMain(m *testing.M) {
	netnstest.TalkerMain()
	os.Exit(m.Run())
}

// The gpu-tcp source's answers (a talker in namespaces of its own
// holding a stand-in /dev/nvidia0, pushing 1 MiB each way per socket
// between samples) land in the snapshot with the talker's rates, and a
// recording replays to the same snapshots.
func TestGPURecordReplay(t *testing.T) {
	g := netnstest.StartGPUTalker(t)
	rec := NewRecorder(Sources{GPU: gputcp.New("/", 0), Label: "fixture"}, Options{})
	var buf bytes.Buffer
	w, _ := bundle.NewPcapngWriter(&buf, bundle.Header{Interval: "1s"}, bundle.PcapngOptions{Gzip: true})
	t0 := time.Date(2026, 12, 7, 13, 0, 0, 0, time.UTC)
	var live [][]byte
	for i := range 3 {
		if i > 0 {
			g.Push(t, 1<<20)
		}
		snap, tick, err := rec.Sample(context.Background(), t0.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if st := js2status(snap, "gpu-tcp"); st != "ok: " {
			t.Errorf("sample %d: gpu-tcp status %q", i, st)
		}
		var found bool
		for _, p := range snap.GPUProcesses {
			if p.PID != g.Pid {
				continue
			}
			found = true
			if rated := p.TCPSentPerSec != nil; rated != (i > 0) {
				t.Errorf("sample %d: rated %v", i, rated)
			} else if rated && *p.TCPRecvPerSec != 2<<20 {
				// 2 MiB received in the second (what ACKs say may lag;
				// what was read may not).
				t.Errorf("sample %d: received %.0f B/s, the talker read 2 MiB", i, *p.TCPRecvPerSec)
			}
		}
		if !found {
			t.Errorf("sample %d: talker pid %d not in %+v", i, g.Pid, snap.GPUProcesses)
		}
		w.WriteTick(tick)
		js, _ := json.Marshal(snap)
		live = append(live, js)
	}
	w.Close()
	checkReplay(t, &buf, live)
}
