package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
