package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatop/rdmatop/monitor"
)

// With colour on, the footer's escape codes take no cells: the help line
// fits whole at 160 columns and is cut by display width at 80. clip used
// to count the escape codes and cut it to "q quit • ? help • tab …".
func TestFooterFitsWithColour(t *testing.T) {
	for _, w := range []int{160, 80} {
		m := sized(New(Options{}), w, 40)
		m = send(m, FrameMsg{fixtureFrame(t)})
		lines := strings.Split(m.Render(), "\n")
		foot := lines[len(lines)-1]
		if !strings.Contains(foot, "\x1b[") {
			t.Fatalf("width %d: the footer has no colour, the test proves nothing: %q", w, foot)
		}
		plain := ansi.Strip(foot)
		if got := ansi.StringWidth(foot); got > w {
			t.Errorf("width %d: footer %d cells wide: %q", w, got, plain)
		}
		if !strings.HasPrefix(plain, "q quit") {
			t.Errorf("width %d: footer %q does not start with q quit", w, plain)
		}
		if w == 160 && strings.HasSuffix(plain, "…") {
			t.Errorf("width 160: footer cut: %q", plain)
		}
	}
}

// At 80 columns the header keeps its state markers: the host, the file
// name and the rest give way. They used to be cut off the end.
func TestHeaderKeepsStateAt80(t *testing.T) {
	m := loaded(t, monitor.ModeReplay)
	m = sized(m, 80, 24)
	f := fixtureFrame(t)
	f.Mode, f.Source = monitor.ModeReplay, "/var/tmp/a-rather-long-path/to/the/recording-of-the-incident.pcapng.gz"
	m = send(m, FrameMsg{f})
	m, _ = sendCmd(m, keyMsg("p"))
	m = send(m, SourceDoneMsg{})
	head := ansi.Strip(strings.Split(m.Render(), "\n")[0])
	if !strings.HasSuffix(head, "[PAUSED]  [END]") || ansi.StringWidth(head) > 80 {
		t.Errorf("header at 80 columns: %q", head)
	}
}

// One QP notation: the QPs view shows 0x0001a3 as findings do, and the
// filter finds it by 419, 0x1a3 or 0x0001a3 (/0x1a4 used to find nothing:
// the views showed decimal).
func TestQPFilterEitherNotation(t *testing.T) {
	for _, f := range []string{"419", "0x1a3", "0x0001a3"} {
		m := press(loaded(t, monitor.ModeLive), "2")
		m = press(m, append([]string{"/"}, strings.Split(f, "")...)...)
		tb := m.tables[ViewQPs]
		if len(tb.View) != 1 || tb.Rows[tb.View[0]].Cells[2] != "0x0001a3" {
			t.Errorf("filter %q: %d rows", f, len(tb.View))
		}
	}
}
