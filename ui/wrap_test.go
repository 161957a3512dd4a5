package ui

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"
	"github.com/rdmatop/rdmatop/saved"
)

// realFindings are findings rdmatop made of testdata: the fixture frame's
// (mlx5 counters with a PFC storm, the lossy rxe capture) and those of
// the bundled sosreport, judged as `check` judges saved outputs.
func realFindings(t *testing.T) []rules.Finding {
	t.Helper()
	fs := append([]rules.Finding(nil), fixtureFrame(t).Findings...)
	paths, _ := filepath.Glob(fixtures + "sosreport/*")
	out, err := saved.Load(paths)
	if err != nil {
		t.Fatal(err)
	}
	r, err := monitor.New(monitor.Config{Mode: monitor.ModeReplay, Source: "sosreport",
		Tape: monitor.NewSnapshotTape(out.Snapshots)})
	if err != nil {
		t.Fatal(err)
	}
	for range r.Frames(context.Background()) {
	}
	res := r.Result()
	if len(res.Findings) == 0 {
		t.Fatal("the sosreport gave no finding: the test would prove nothing")
	}
	return append(fs, res.Findings...)
}

// packFindings are the rule pack's rules as findings: every confirm
// and fix line that a finding can show.
func packFindings(t *testing.T) []rules.Finding {
	t.Helper()
	p, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	var fs []rules.Finding
	for _, r := range p.Rules {
		fs = append(fs, rules.Finding{Rule: r.ID, Title: r.Title, Severity: r.Severity, Evidence: "pack",
			Cause: r.Cause, Confirm: r.Confirm, Fix: r.Fix, Docs: r.Docs})
	}
	return fs
}

// detailRender opens f's detail on a w-column terminal tall enough for
// all of it, and returns the screen's lines.
func detailRender(t *testing.T, f rules.Finding, w int) []string {
	t.Helper()
	m := sized(New(Options{NoColor: true}), w, 400)
	m = send(m, FrameMsg{monitor.Frame{Time: t0, Mode: monitor.ModeLive, Findings: []rules.Finding{f}}})
	m = press(m, "enter")
	if m.detail == nil {
		t.Fatalf("%s: enter opened no detail", f.Rule)
	}
	return strings.Split(m.Render(), "\n")
}

var (
	backquoted = regexp.MustCompile("`[^`]*`")
	// A confirm line's comment, as the rule pack writes it.
	confirmComment = regexp.MustCompile(`\s{2,}#\s`)
)

// commandsOf are the commands a finding's detail shows: each confirm
// line without its comment, and every `backquoted` command in its cause
// and fix, as the screen writes them (sanitised).
func commandsOf(f rules.Finding) []string {
	var out []string
	for _, c := range f.Confirm {
		c = termtext.Sanitize(c)
		if loc := confirmComment.FindStringIndex(c); loc != nil {
			c = c[:loc[0]]
		}
		out = append(out, "$ "+c)
	}
	for _, s := range append([]string{f.Cause}, f.Fix...) {
		out = append(out, backquoted.FindAllString(termtext.Sanitize(s), -1)...)
	}
	return out
}

// onOneLine reports whether some line holds s whole, or, for s wider
// than the screen, whether s starts on a line and runs to its edge
// there (cut by the screen, not wrapped: ←/→ show the rest).
func onOneLine(lines []string, s string, w int) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
		if i := strings.Index(l, s[:min(len(s), 20)]); i >= 0 && ansi.StringWidth(l) == w && strings.HasSuffix(l, "›") &&
			strings.HasPrefix(s, strings.TrimSuffix(l[i:], "›")) {
			return true
		}
	}
	return false
}

// Issue 33, item 8: at 80 columns the detail pane wrapped inside
// commands (`echo 1 >` on one line, its path on the next) and cut URLs.
// At 80 and 160 columns, every command of every real finding, and of
// every rule of the pack, stands on one line of the screen, and no word
// of the text (a path, a URL) is cut in two.
func TestDetailKeepsCommandsWhole(t *testing.T) {
	fs := append(realFindings(t), packFindings(t)...)
	for _, w := range []int{80, 160} {
		for _, f := range fs {
			lines := detailRender(t, f, w)
			for _, c := range commandsOf(f) {
				if !onOneLine(lines, c, w) {
					t.Errorf("%d columns, %s: the command %q is not on one line:\n%s", w, f.Rule, c, strings.Join(lines, "\n"))
				}
			}
			for _, s := range append(append([]string{f.Evidence, f.Cause}, f.Fix...), f.Docs...) {
				for _, wd := range strings.Fields(termtext.Sanitize(s)) {
					if !onOneLine(lines, wd, w) {
						t.Errorf("%d columns, %s: the word %q is cut", w, f.Rule, wd)
					}
				}
			}
		}
	}
}

// The layout loses nothing and adds only what marks a continuation: the
// lines of a prose line, or of a command and its comment, join back at
// spaces into the text (a "#" starting a wrapped comment's line is the
// mark); only a command or one unbreakable word is wider than the pane.
func TestLayoutJoinsBackAtSpaces(t *testing.T) {
	for _, f := range packFindings(t) {
		for _, w := range []int{60, 80, 160} {
			for _, pl := range findingDetail(f) {
				got := layoutPane([]paneLine{pl}, w)
				var fields []string
				for i, l := range got {
					fields = append(fields, strings.Fields(l)...)
					if ansi.StringWidth(l) > w && !(pl.cmd && i == 0) && len(words(strings.TrimSpace(l))) != 1 {
						t.Errorf("%s at %d: %q is wider than the pane", f.Rule, w, l)
					}
				}
				want := strings.Fields(pl.text)
				if pl.cmd { // a comment's mark, once or on each of its lines
					fields, want = dropMarks(fields), dropMarks(want)
				}
				if j, want := strings.Join(fields, " "), strings.Join(want, " "); j != want {
					t.Errorf("%s at %d: laid out as %q, from %q", f.Rule, w, got, pl.text)
				}
			}
		}
	}
}

// dropMarks leaves the comment marks ("#") out of a command's words.
func dropMarks(ws []string) []string {
	out := ws[:0:0]
	for _, w := range ws {
		if w != "#" {
			out = append(out, w)
		}
	}
	return out
}

// A command wider than the screen runs to its edge, marked, and ←/→
// scroll the pane sideways until its end is in view, and back.
func TestDetailScrollsSideways(t *testing.T) {
	const w = 80
	var f rules.Finding
	var cmd string
	for _, pf := range packFindings(t) {
		for _, c := range commandsOf(pf) {
			if strings.HasPrefix(c, "$ ") && len(c) > 2*w && !strings.ContainsAny(c, "\x7f") {
				f, cmd = pf, c
			}
		}
	}
	if cmd == "" {
		t.Fatal("no command of the pack is wider than two screens: the test would prove nothing")
	}
	m := sized(New(Options{NoColor: true}), w, 400)
	m = send(m, FrameMsg{monitor.Frame{Time: t0, Mode: monitor.ModeLive, Findings: []rules.Finding{f}}})
	m = press(m, "enter")
	out := m.Render()
	if !strings.Contains(out, "←/→ scroll") || !strings.Contains(out, cmd[:w-10]) {
		t.Fatalf("a command of %d cells at %d columns:\n%s", len(cmd), w, out)
	}
	tail := cmd[len(cmd)-20:]
	for i := 0; i < 10 && !strings.Contains(m.Render(), tail); i++ {
		m = press(m, "right")
	}
	if !strings.Contains(m.Render(), tail) {
		t.Errorf("→ never showed the end of %q:\n%s", cmd, m.Render())
	}
	right := m.Render()
	if m = press(m, "right"); m.Render() != right {
		t.Error("→ scrolled past the end of the widest line")
	}
	for range 10 {
		m = press(m, "left")
	}
	if !strings.Contains(m.Render(), cmd[:w-10]) {
		t.Errorf("← did not scroll back:\n%s", m.Render())
	}
}

// The no-RDMA screen's command to make a Soft-RoCE device was cut at 80
// columns ("…netdev…"): it stands whole on its own line, and no line of
// the screen is cut.
func TestNoDevicesCommandWhole(t *testing.T) {
	for _, w := range []int{MinWidth, 80, 160} {
		n := send(sized(New(Options{NoColor: true}), w, 30), FrameMsg{noDevicesFrame()})
		out := n.Render()
		if !strings.Contains(out, "\n    rdma link add rxe0 type rxe netdev eth0\n") {
			t.Errorf("%d columns: the rxe command is not whole on its line:\n%s", w, out)
		}
		for _, l := range strings.Split(out, "\n")[3:] { // below the header
			if strings.HasSuffix(l, "…") || ansi.StringWidth(l) > w {
				t.Errorf("%d columns: %q is cut", w, l)
			}
		}
	}
}
