package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rdmatop/rdmatop/monitor"
)

func loaded(t *testing.T, mode monitor.Mode) Model {
	f := fixtureFrame(t)
	f.Mode = mode
	f.Total = 10
	return send(sized(New(Options{NoColor: true, Mode: mode}), 120, 40), FrameMsg{f})
}

func TestViewSwitch(t *testing.T) {
	m := loaded(t, monitor.ModeLive)
	for i, want := range []string{"[1 Overview]", "[2 QPs]", "[3 Flows]", "[4 Events]", "[5 Counters]", "[6 Config]"} {
		m = press(m, itoa(i+1))
		if !strings.Contains(m.Render(), want) {
			t.Errorf("key %d: no %s", i+1, want)
		}
	}
	m = press(m, "tab")
	if m.view != ViewOverview {
		t.Errorf("tab from Config: view %d", m.view)
	}
	m = press(m, "tab", "tab")
	if m.view != ViewFlows {
		t.Errorf("tab tab: view %d", m.view)
	}
}

func TestSortAndFilterQPs(t *testing.T) {
	m := press(loaded(t, monitor.ModeLive), "2")
	tb := m.tables[ViewQPs]
	// s twice: sort on PORT then LQPN ascending.
	m = press(m, "s", "s", "s")
	if tb.SortCol != 2 || tb.Desc {
		t.Fatalf("sort col %d desc %v", tb.SortCol, tb.Desc)
	}
	if got := tb.Rows[tb.View[0]].Cells[2]; got != "16" {
		t.Errorf("first LQPN ascending %s", got)
	}
	m = press(m, "S")
	if got := tb.Rows[tb.View[0]].Cells[2]; !tb.Desc || got != "419" {
		t.Errorf("first LQPN descending %s", got)
	}
	if !strings.Contains(m.Render(), "LQPN▼") {
		t.Error("no sort marker")
	}
	m = press(m, "/", "n", "c", "c", "l")
	if !m.filtering || len(tb.View) != 1 || tb.Rows[tb.View[0]].Cells[9] != "nccl-test" {
		t.Fatalf("filter nccl: filtering %v, %d rows", m.filtering, len(tb.View))
	}
	m = press(m, "enter")
	if m.filtering || !strings.Contains(m.Render(), "filter: nccl") {
		t.Errorf("filter not kept after enter:\n%s", m.Render())
	}
	m = press(m, "esc")
	if len(tb.View) != 4 {
		t.Errorf("esc did not clear the filter: %d rows", len(tb.View))
	}
	// The filter belongs to the view; a sort survives a new frame.
	m = send(m, FrameMsg{fixtureFrame(t)})
	if tb.SortCol != 2 || tb.Rows[tb.View[0]].Cells[2] != "419" {
		t.Errorf("sort lost on new frame")
	}
}

func TestFlowsTroubledFirst(t *testing.T) {
	m := press(loaded(t, monitor.ModeLive), "3")
	tb := m.tables[ViewFlows]
	seenCalm := false
	for _, i := range tb.View {
		troubled := tb.Rows[i].Class == "warning"
		if troubled && seenCalm {
			t.Fatal("a troubled flow after a calm one")
		}
		seenCalm = seenCalm || !troubled
	}
}

func TestPauseLive(t *testing.T) {
	m := loaded(t, monitor.ModeLive)
	m, out := sendCmd(m, keyMsg("p"))
	if pm, ok := out.(PauseMsg); !ok || !pm.Paused || !strings.Contains(m.Render(), "[PAUSED]") {
		t.Fatalf("pause: %#v", out)
	}
	f := fixtureFrame(t)
	f.Seq = 99
	f.Snapshot = nil
	m = send(m, FrameMsg{f})
	if m.frame.Seq == 99 {
		t.Fatal("paused screen took a new frame")
	}
	m, out = sendCmd(m, keyMsg("space"))
	if pm, ok := out.(PauseMsg); !ok || pm.Paused || m.frame.Seq != 99 {
		t.Fatalf("resume: %#v, seq %d", out, m.frame.Seq)
	}
}

func TestReplayKeysEmitMessages(t *testing.T) {
	m := loaded(t, monitor.ModeReplay)
	for k, want := range map[string]tea.Msg{
		"left": StepMsg{Delta: -1}, "right": StepMsg{Delta: 1}, "<": SpeedMsg{Step: -1}, ">": SpeedMsg{Step: 1},
		"g": SeekMsg{End: false}, "G": SeekMsg{End: true}, "+": IntervalMsg{Step: 1}, "-": IntervalMsg{Step: -1},
	} {
		if _, got := sendCmd(m, keyMsg(k)); got != want {
			t.Errorf("%s: %#v, want %#v", k, got, want)
		}
	}
	if !strings.Contains(m.Render(), "REPLAY 2/10") {
		t.Errorf("replay position missing:\n%s", m.Render())
	}
	// Replay frames are shown even while paused: the caller steps.
	m, _ = sendCmd(m, keyMsg("p"))
	f := fixtureFrame(t)
	f.Mode, f.Seq, f.Total = monitor.ModeReplay, 2, 10
	m = send(m, FrameMsg{f})
	if !strings.Contains(m.Render(), "REPLAY 3/10") {
		t.Error("stepped frame not shown while paused")
	}
	// Live mode ignores replay keys.
	if _, got := sendCmd(loaded(t, monitor.ModeLive), keyMsg("right")); got != nil {
		t.Errorf("live right: %#v", got)
	}
}

func TestDetailOpenClose(t *testing.T) {
	m := loaded(t, monitor.ModeLive)
	m = press(m, "j", "enter")
	out := m.Render()
	for _, w := range []string{"Finding: A queue pair went to the error state", "EVIDENCE", "LIKELY CAUSE", "HOW TO CONFIRM", "FIX"} {
		if !strings.Contains(out, w) {
			t.Errorf("detail lacks %q:\n%s", w, out)
		}
	}
	m = press(m, "esc")
	if m.detail != nil || !strings.Contains(m.Render(), "PFC mlx5_0/1") {
		t.Error("esc did not close the detail")
	}
	// A table row's detail.
	m = press(m, "2", "j", "enter")
	if !strings.Contains(m.Render(), "QPs row") || !strings.Contains(m.Render(), "evil?]0;pwned??[2J") {
		t.Errorf("row detail:\n%s", m.Render())
	}
}

func TestHelpAndTooSmall(t *testing.T) {
	m := press(loaded(t, monitor.ModeLive), "?")
	for _, w := range []string{"quit", "sort order", "step back (replay)", "start (replay)", "filter"} {
		if !strings.Contains(m.Render(), w) {
			t.Errorf("help lacks %q", w)
		}
	}
	m = sized(m, 59, 20)
	if out := m.Render(); !strings.HasPrefix(out, "terminal too small: need at least 60×15") {
		t.Errorf("too small:\n%s", out)
	}
	m = sized(m, 80, 14)
	if !strings.Contains(m.Render(), "terminal too small") {
		t.Error("too short not detected")
	}
	m = sized(m, 60, 15)
	if strings.Contains(m.Render(), "terminal too small") {
		t.Error("60x15 refused")
	}
	for _, l := range strings.Split(m.Render(), "\n") {
		if n := len([]rune(l)); n > 60 {
			t.Errorf("line wider than 60: %d %q", n, l)
		}
	}
}

// Quit through a real Program, fed by a channel.
func TestProgramFramesChannelAndQuit(t *testing.T) {
	ch := make(chan monitor.Frame, 1)
	ch <- fixtureFrame(t)
	tm := teatest.NewTestModel(t, New(Options{NoColor: true, Frames: ch}), teatest.WithInitialTermSize(100, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "PFC pause storm") },
		teatest.WithDuration(5*time.Second))
	close(ch)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "[END]") },
		teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if !fm.done || fm.frames != 1 {
		t.Errorf("done %v frames %d", fm.done, fm.frames)
	}
}

func TestColourThemesRender(t *testing.T) {
	for _, th := range []Theme{ThemeDark, ThemeLight} {
		m := send(sized(New(Options{Theme: th}), 120, 40), FrameMsg{fixtureFrame(t)})
		for v := 1; v <= 6; v++ {
			out := press(m, itoa(v)).Render()
			if !strings.Contains(out, "\x1b[") {
				t.Errorf("%s view %d has no colour", th, v)
			}
			if strings.Contains(out, "\x1b]0;") {
				t.Errorf("%s view %d: injected OSC reached the screen", th, v)
			}
		}
	}
}
