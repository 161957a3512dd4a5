package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatop/rdmatop/monitor"
)

// A process name carrying escape sequences must not reach the terminal.
func TestCommInjectionDoesNotReachScreen(t *testing.T) {
	m := sized(New(Options{NoColor: true}), 160, 48)
	m = send(m, FrameMsg{fixtureFrame(t)})
	m = press(m, "2")
	out := m.Render()
	if strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Fatalf("escape bytes on screen:\n%q", out)
	}
	if !strings.Contains(out, "evil?]0;pwned") { // the QP table cuts it there
		t.Errorf("sanitised comm not shown:\n%s", out)
	}
	m = press(m, "4")
	if out := m.Render(); strings.ContainsRune(out, '\x1b') || !strings.Contains(out, "CQE error?[31m") {
		t.Errorf("kernel log line not sanitised:\n%s", out)
	}
}

func TestTimeline(t *testing.T) {
	for _, c := range []struct {
		seq, total int
		want       string
	}{{0, 10, "[>---------]"}, {5, 10, "[=====>----]"}, {9, 10, "[=========>]"}, {0, 1, ""}} {
		if got := timeline(c.seq, c.total, 10); got != c.want {
			t.Errorf("timeline(%d, %d) = %q, want %q", c.seq, c.total, got, c.want)
		}
	}
}

// While a large file is read, the screen shows a progress bar.
func TestLoadingProgress(t *testing.T) {
	m := New(Options{Mode: monitor.ModeReplay, NoColor: true})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	mm, _ = mm.Update(LoadingMsg{Label: "big.pcap", Done: 50, Total: 200})
	if got := mm.(Model).Render(); !strings.Contains(got, "reading big.pcap [#######.......................] 25%") {
		t.Errorf("no progress bar:\n%s", got)
	}
}
