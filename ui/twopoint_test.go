package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/rdmatop/rdmatop/capture/twopoint"
)

// twoPointsFixture is the comparison of a lab run's two captures, a
// netem loss of 5 % between them (testdata/wiretruth).
func twoPointsFixture(t *testing.T) *twopoint.Result {
	t.Helper()
	const dir = "../testdata/wiretruth/loss5-write/"
	r, err := twopoint.CompareFiles(dir+"veth0.pcap.gz", dir+"veth1.pcap.gz", twopoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.A.File, r.B.File = "veth0.pcap.gz", "veth1.pcap.gz" // the same text wherever the test runs
	return r
}

// Golden: the two-point screen at 80×24 and 140×30, plain text.
func TestGoldenTwoPoints(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {140, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			var m tea.Model = NewTwoPoints(twoPointsFixture(t), Options{NoColor: true})
			m, _ = m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			out := m.(TwoPoints).Render()
			for i, l := range strings.Split(out, "\n") {
				if n := len([]rune(l)); n > size[0] {
					t.Errorf("line %d is %d cells wide, the screen %d: %q", i, n, size[0], l)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

// The keys move the cursor within the flows, and q quits.
func TestTwoPointsKeys(t *testing.T) {
	var m tea.Model = NewTwoPoints(twoPointsFixture(t), Options{NoColor: true})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press := func(code rune) tea.Cmd {
		var cmd tea.Cmd
		m, cmd = m.Update(tea.KeyPressMsg{Code: code, Text: string(code)})
		return cmd
	}
	press('j')
	if got := m.(TwoPoints).sel; got != 1 {
		t.Errorf("after j: flow %d selected, want 1", got)
	}
	press('j')
	if got := m.(TwoPoints).sel; got != 1 {
		t.Errorf("past the last flow: %d selected, want 1 (two flows)", got)
	}
	press('g')
	if got := m.(TwoPoints).sel; got != 0 {
		t.Errorf("after g: %d selected, want 0", got)
	}
	if cmd := press('q'); cmd == nil {
		t.Fatal("q: no command")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("q: %T, want tea.QuitMsg", cmd())
	}
}
