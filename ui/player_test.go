package ui

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
)

func lossyTimeline(t *testing.T) *monitor.Timeline {
	t.Helper()
	tl := monitor.NewTimeline(context.Background(), func() (*monitor.Run, error) {
		tape, err := monitor.OpenCapture(fixtures + "rxe/pcap/lossy1.pcap")
		if err != nil {
			return nil, err
		}
		return monitor.New(monitor.Config{Tape: tape, Interval: 500 * time.Millisecond, Packets: 4096})
	})
	t.Cleanup(tl.Close)
	return tl
}

// probe wraps a Player in a real Program so that a test can ask for the
// screen as the Player's Model draws it (the terminal output is only the
// renderer's diffs).
type probe struct {
	p   *Player
	out chan string
}

type renderReq struct{}

func (m probe) Init() tea.Cmd { return m.p.Init() }
func (m probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(renderReq); ok {
		m.out <- m.p.ui.Render()
		return m, nil
	}
	_, cmd := m.p.Update(msg)
	return m, cmd
}
func (m probe) View() tea.View { return m.p.View() }

// waitScreen polls the screen until it shows every want, or fails at a
// deadline. A replay reads its whole file first: seconds on an idle machine,
// and more than 10 s under the race detector beside the lab's VM (make
// test, 06:15: 62 % read at 10 s). Waiting costs only when it fails.
func waitScreen(t *testing.T, tm *teatest.TestModel, pr probe, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		tm.Send(renderReq{})
		screen = <-pr.out
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(screen, w)
		}
		if ok {
			return screen
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the screen never showed %q:\n%s", want, screen)
	return ""
}

// A replay through a real Program opens on the answer (issue 18, item 4):
// the whole file read, paused at its end, every finding of the file in
// the strip (the file's conclusion) and the worst selected: flow 1, which
// lost 22 PSNs, not flow 5 whose loss came last. t goes to the tick that
// first showed it; the player
// fetches Frames in commands, steps and seeks.
func TestPlayerReplay(t *testing.T) {
	p := NewPlayer(New(Options{NoColor: true, Mode: monitor.ModeReplay}), PlayerOptions{Timeline: lossyTimeline(t), Label: "lossy1.pcap"})
	pr := probe{p, make(chan string)}
	tm := teatest.NewTestModel(t, pr, teatest.WithInitialTermSize(120, 40))
	screen := waitScreen(t, tm, pr, "10/10", "[PAUSED]", "[END]")
	sel := ""
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "▶ ") {
			sel = l
		}
	}
	if !strings.Contains(sel, "RoCE packets are being lost") || !strings.Contains(sel, "flow=1 ") {
		t.Errorf("selected at the end: %q, want flow 1's packet-loss", sel)
	}
	// Flow 1's losses began in the file's first seconds (lossy1: its 22
	// gaps from 20:25:40): t goes back there, paused.
	tm.Send(keyMsg("t"))
	screen = waitScreen(t, tm, pr, "@20:25:40", "[PAUSED]")
	if strings.Contains(screen, "10/10") || strings.Contains(screen, "[END]") {
		t.Errorf("t did not leave the end:\n%s", screen)
	}
	tm.Send(keyMsg("G"))
	waitScreen(t, tm, pr, "10/10", "[END]")
	tm.Send(keyMsg("left"))
	waitScreen(t, tm, pr, " 9/10")
	tm.Send(keyMsg("g"))
	waitScreen(t, tm, pr, " 1/10")
	tm.Send(keyMsg("q"))
	tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	if p.Err() != nil || p.pos != 0 {
		t.Errorf("final: err %v pos %d", p.Err(), p.pos)
	}
}

// Playback at the end, while playing (issue 18, item 8): the bar is full
// at the last Frame; ← steps back and pauses, so the next play tick does
// not step forward again at once; [END] goes once the screen is no longer
// at the end. (Keys wait for the screen between them: their requests are
// commands, whose order only a human's pace guarantees.)
func TestPlayerPlaybackAtEnd(t *testing.T) {
	p := NewPlayer(New(Options{NoColor: true, Mode: monitor.ModeReplay}), PlayerOptions{Timeline: lossyTimeline(t), Label: "lossy1.pcap"})
	pr := probe{p, make(chan string)}
	tm := teatest.NewTestModel(t, pr, teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, pr, "[===========>] 10/10", "[END]", "[PAUSED]")
	tm.Send(keyMsg("g"))
	screen := waitScreen(t, tm, pr, "[>-----------] 1/10")
	if strings.Contains(screen, "[END]") {
		t.Errorf("[END] at the start:\n%s", screen)
	}
	tm.Send(keyMsg("p")) // play to the end
	screen = waitScreen(t, tm, pr, "10/10", "[END]")
	if strings.Contains(screen, "[PAUSED]") {
		t.Fatalf("not playing:\n%s", screen)
	}
	tm.Send(keyMsg("left"))
	screen = waitScreen(t, tm, pr, " 9/10", "[PAUSED]")
	if strings.Contains(screen, "[END]") {
		t.Errorf("[END] after stepping back:\n%s", screen)
	}
	// Two play ticks later (500 ms Frames at ×1), still there.
	time.Sleep(1200 * time.Millisecond)
	waitScreen(t, tm, pr, " 9/10")
	tm.Send(keyMsg("q"))
	tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
}

// Live: the player takes the newest Frame from a Latest; +/- change the
// run's interval through SetInterval.
func TestPlayerLive(t *testing.T) {
	l := monitor.NewLatest()
	var set []time.Duration
	p := NewPlayer(New(Options{NoColor: true, Interval: time.Second}), PlayerOptions{Latest: l, Interval: time.Second,
		SetInterval: func(d time.Duration) time.Duration { set = append(set, d); return d }})
	pr := probe{p, make(chan string)}
	tm := teatest.NewTestModel(t, pr, teatest.WithInitialTermSize(120, 40))
	f := fixtureFrame(t)
	f.Mode = monitor.ModeLive
	l.Put(f)
	waitScreen(t, tm, pr, "LIVE every 1s")
	tm.Send(keyMsg("+"))
	waitScreen(t, tm, pr, "LIVE every 2s")
	l.Close(nil)
	tm.Send(keyMsg("q"))
	tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	if len(set) != 1 || set[0] != 2*time.Second {
		t.Errorf("SetInterval calls %v, want [2s]", set)
	}
}

// A live Frame: the header says how late the tick is and why the wire is
// missing; the flows view puts the flow troubled in the last tick first.
func TestLiveFrameHeaderAndFlows(t *testing.T) {
	f := fixtureFrame(t)
	f.Mode, f.LateS, f.SampleS = monitor.ModeLive, 2.0, 3.0
	st := probes.Status{Source: "capture eth0", State: probes.StatePermissionDenied, Detail: "needs CAP_NET_RAW"}
	noWire := f
	noWire.Wire, noWire.WireStatus = nil, &st
	out := sized(New(Options{NoColor: true}), 160, 40)
	out = send(out, FrameMsg{noWire})
	r := out.Render()
	if !strings.Contains(r, "late 2.0s, sample 3.0s") || !strings.Contains(r, "wire unavailable: no permission (needs CAP_NET_RAW") {
		t.Errorf("header:\n%s", strings.Join(strings.Split(r, "\n")[:3], "\n"))
	}

	// Only flow 6 (quiet over the capture) is in trouble in the last tick.
	iv := &capture.Summary{DurationSec: 1, Flows: []capture.FlowSummary{}}
	for _, fl := range f.Wire.Flows {
		if fl.ID == 6 {
			fl.Troubled, fl.Gbps = true, 0.5
			iv.Flows = append(iv.Flows, fl)
		}
	}
	f.Interval = iv
	m := press(send(sized(New(Options{NoColor: true}), 160, 40), FrameMsg{f}), "3")
	var rows []string
	for _, l := range strings.Split(m.Render(), "\n") {
		if strings.Contains(l, " → ") && strings.Contains(l, "192.168.77.") {
			rows = append(rows, l)
		}
	}
	if len(rows) < 2 || !strings.HasPrefix(strings.Fields(strings.TrimPrefix(rows[0], "▶"))[0], "6") ||
		!strings.HasSuffix(strings.TrimSpace(rows[0]), "!!") || !strings.Contains(rows[0], "0.50") ||
		!strings.HasSuffix(strings.TrimSpace(rows[1]), "!") || strings.HasSuffix(strings.TrimSpace(rows[1]), "!!") {
		t.Errorf("flows view, flow 6 troubled now, first with !! and its rate now:\n%s", strings.Join(rows, "\n"))
	}
}

// At [END] the screen says what the findings and the report say (issue
// 33, item 3): the lab incident recording goes on capturing after its
// last host tick, and the view at the end counts every RoCE packet of the
// file (as replay --report does: the file's own analysis, checked against
// tshark in capture's oracle tests), flow 1's packets as its packet-loss
// evidence does.
func TestPlayerEndCoversTheWholeFile(t *testing.T) {
	const path = fixtures + "lab/pipeline/incident.pcapng.gz"
	open := func() (*monitor.Run, error) {
		tape, err := monitor.OpenBundle(path)
		if err != nil {
			return nil, err
		}
		return monitor.New(monitor.Config{Tape: tape, Source: path})
	}
	r, err := open()
	if err != nil {
		t.Fatal(err)
	}
	var last monitor.Frame
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		last = f
	}
	res := r.Result()
	if res.Wire == nil || last.Wire == nil || last.Wire.RoCEPackets >= res.Wire.RoCEPackets {
		t.Fatalf("the recording no longer captures after its last tick: the test shows nothing")
	}
	tl := monitor.NewTimeline(context.Background(), open)
	t.Cleanup(tl.Close)
	p := NewPlayer(New(Options{NoColor: true, Mode: monitor.ModeReplay}), PlayerOptions{Timeline: tl, Label: "incident"})
	pr := probe{p, make(chan string)}
	tm := teatest.NewTestModel(t, pr, teatest.WithInitialTermSize(160, 45))
	waitScreen(t, tm, pr, "[END]", "wire "+strconv.FormatUint(res.Wire.RoCEPackets, 10)+" RoCE pkts")
	tm.Send(keyMsg("3"))
	var flow1 uint64
	for _, fl := range res.Wire.Flows {
		if fl.ID == 1 {
			flow1 = fl.Packets
		}
	}
	screen := waitScreen(t, tm, pr, "[3 Flows]")
	ev := ""
	for _, f := range res.Findings {
		if f.Rule == "packet-loss" && f.Objects["flow"] == "1" {
			ev = f.Evidence
		}
	}
	n := strconv.FormatUint(flow1, 10)
	if !strings.Contains(ev, "in "+n+" packets") || !strings.Contains(screen, " "+n+" ") {
		t.Errorf("flow 1: %s packets in the file; its finding says %q; the Flows view at the end:\n%s", n, ev, screen)
	}
	tm.Send(keyMsg("q"))
	tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
}
