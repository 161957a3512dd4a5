package ui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
)

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func send(m Model, msg tea.Msg) Model {
	nm, _ := m.Update(msg)
	return nm.(Model)
}

func sendCmd(m Model, msg tea.Msg) (Model, tea.Msg) {
	nm, cmd := m.Update(msg)
	var out tea.Msg
	if cmd != nil {
		out = cmd()
	}
	return nm.(Model), out
}

func press(m Model, keys ...string) Model {
	for _, k := range keys {
		m = send(m, keyMsg(k))
	}
	return m
}

func sized(m Model, w, h int) Model { return send(m, tea.WindowSizeMsg{Width: w, Height: h}) }

// goldenViews renders every view of the fixture at each size through a
// real (test) Program by teatest, and checks each rendering.
func goldenViews(t *testing.T, o Options, sizes [][2]int, check func(t *testing.T, out string, w, h int)) {
	f := fixtureFrame(t)
	o.Interval = time.Second
	for _, size := range sizes {
		for v := 0; v < numViews; v++ {
			name := strings.ToLower(viewNames[v]) + "_" + itoa(size[0]) + "x" + itoa(size[1])
			t.Run(name, func(t *testing.T) {
				tm := teatest.NewTestModel(t, New(o), teatest.WithInitialTermSize(size[0], size[1]))
				tm.Send(FrameMsg{f})
				tm.Send(keyMsg(itoa(v + 1)))
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
				check(t, fm.Render(), size[0], size[1])
			})
		}
	}
}

// Golden views: every view at two sizes, compared as plain text
// (NO_COLOR).
func TestGoldenViews(t *testing.T) {
	goldenViews(t, Options{NoColor: true}, [][2]int{{100, 30}, {160, 48}}, func(t *testing.T, out string, _, _ int) {
		golden.RequireEqual(t, out)
	})
}

// Golden views with colour on, at 80×24 and 160×45 (issue 18, item 7):
// compared with their escape codes, and no line wider than the terminal
// once they are measured as cells.
func TestGoldenViewsColour(t *testing.T) {
	goldenViews(t, Options{}, [][2]int{{80, 24}, {160, 45}}, func(t *testing.T, out string, w, h int) {
		if !strings.Contains(out, "\x1b[") {
			t.Fatal("no colour: the test would prove nothing")
		}
		lines := strings.Split(out, "\n")
		if len(lines) > h {
			t.Errorf("%d lines on a %d-line terminal", len(lines), h)
		}
		for i, l := range lines {
			if cells := ansi.StringWidth(l); cells > w {
				t.Errorf("line %d is %d cells wide: %q", i, cells, ansi.Strip(l))
			}
		}
		golden.RequireEqual(t, out)
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

// Golden: a finding's detail pane, and the no-device screen.
func TestGoldenDetailAndNoDevices(t *testing.T) {
	m := sized(New(Options{NoColor: true}), 100, 30)
	m = send(m, FrameMsg{fixtureFrame(t)})
	m = press(m, "enter")
	t.Run("detail", func(t *testing.T) { golden.RequireEqual(t, m.Render()) })

	n := send(sized(New(Options{NoColor: true}), 100, 30), FrameMsg{noDevicesFrame()})
	t.Run("nodevices", func(t *testing.T) { golden.RequireEqual(t, n.Render()) })
	if out := n.Render(); !strings.Contains(out, "rdmatop demo") || !strings.Contains(out, "rdmatop replay FILE") ||
		!strings.Contains(out, "sysfs: not_supported") {
		t.Errorf("no-device screen:\n%s", out)
	}
}

// noDevicesFrame is a laptop's: no RDMA device, no capture.
func noDevicesFrame() monitor.Frame {
	return monitor.Frame{Time: t0, Mode: monitor.ModeLive, Snapshot: &probes.Snapshot{Time: t0,
		Host: probes.HostInfo{Hostname: "laptop", Kernel: "6.8.0"},
		Status: []probes.Status{{Source: "sysfs", State: probes.StateNotSupported, Detail: "no /sys/class/infiniband"},
			{Source: "rdma netlink", State: probes.StateNotSupported}}}}
}
