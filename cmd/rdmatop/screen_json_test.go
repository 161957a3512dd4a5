package main

import (
	"context"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/ui"
)

// headerWire reads the header's wire line: the RoCE packets so far and,
// when the tick has a length, its rate.
var headerWire = regexp.MustCompile(`(\d+) RoCE pkts(?: \(([0-9.]+)/s,)?`)

// Over every recording and capture of testdata, each tick's screen says
// what that tick's point of replay --json's series says (point, the one
// function that writes it): the RoCE packets so far and the tick's rate
// in the header, and a strip whose lines are the tick's findings, the
// worst first. TestTmuxEveryTickAgreesWithReplayJSON shows, end to end
// on the lab incident, that the screen and the JSON get the same frames.
func TestScreenAgreesWithReplayJSONEverywhere(t *testing.T) {
	titles := ruleTitles(t)
	var paths []string
	for _, glob := range []string{"../../testdata/*/*.pcapng.gz", "../../testdata/lab/*/*.bundle.gz", "../../testdata/lab/*/*/*.bundle.gz",
		"../../testdata/pcaps/*.pcap", "../../testdata/rxe/pcap/*.pcap"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	files, ticks := 0, 0
	for _, p := range paths {
		var tape monitor.Tape
		if b, err := monitor.OpenBundle(p); err == nil {
			tape = b
		} else if c, err := monitor.OpenCapture(p); err == nil {
			tape = c
		} else {
			continue // neither (a fixture cut on purpose)
		}
		r, err := monitor.New(monitor.Config{Tape: tape, Source: p})
		if err != nil {
			t.Fatal(err)
		}
		var m tea.Model = ui.New(ui.Options{NoColor: true, Mode: monitor.ModeReplay})
		m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 45})
		var soFar uint64
		seen := map[string]bool{} // every finding of the file's earlier ticks, as the strip names it
		for f, err := range r.Frames(context.Background()) {
			if err != nil {
				break // a damaged fixture: what came before it was checked
			}
			pt := point(&f)
			soFar += pt.RoCEPackets
			m, _ = m.Update(ui.FrameMsg{Frame: f})
			screen := m.(ui.Model).Render()
			ticks++
			where := filepath.Base(p) + " tick " + strconv.Itoa(f.Seq+1)
			if f.Wire != nil {
				checkHeaderWire(t, where, screen, soFar, pt)
			}
			checkStrip(t, where, screen, pt, titles, seen)
		}
		files++
	}
	if files < 100 {
		t.Fatalf("%d files: testdata moved?", files)
	}
	t.Logf("%d files, %d ticks: each screen as its JSON point", files, ticks)
}

func checkHeaderWire(t *testing.T, where, screen string, soFar uint64, pt seriesPoint) {
	t.Helper()
	m := headerWire.FindStringSubmatch(screen)
	if m == nil {
		t.Errorf("%s: no wire count in the header", where)
		return
	}
	if got, _ := strconv.ParseUint(m[1], 10, 64); got != soFar {
		t.Errorf("%s: the header says %d RoCE packets so far, the JSON series %d", where, got, soFar)
	}
	if m[2] == "" || pt.IntervalS <= 0 {
		return
	}
	got, _ := strconv.ParseFloat(m[2], 64)
	want := float64(pt.RoCEPackets) / pt.IntervalS
	// The header rounds to three significant digits at most.
	if math.Abs(got-want) > math.Max(0.006, want*0.005) {
		t.Errorf("%s: the header's rate %s/s, the JSON's %.3f/s", where, m[2], want)
	}
}

// checkStrip holds the strip's finding lines against the tick's findings:
// the first that holds is the JSON's first, each that holds is one of
// them, and each marked resolved was one of an earlier tick's (a replay's
// strip tells the story so far; the JSON's point, what held in the tick).
func checkStrip(t *testing.T, where, screen string, pt seriesPoint, titles map[string]string, seen map[string]bool) {
	t.Helper()
	inJSON := map[string]bool{}
	for _, f := range pt.Findings {
		inJSON[sevWord[string(f.Severity)]+" "+titles[f.Rule]+" — "+objectsText(f.Objects)] = true
	}
	defer func() {
		for k := range inJSON {
			seen[k] = true
		}
	}()
	// A line cut at the screen's edge ends in "…": it must begin what
	// it stands for.
	same := func(got, want string) bool {
		if cut, ok := strings.CutSuffix(got, "…"); ok {
			return strings.HasPrefix(want, strings.TrimSpace(cut))
		}
		return got == want
	}
	among := func(got string, set map[string]bool) bool {
		for k := range set {
			if same(got, k) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, l := range strings.Split(screen, "\n") {
		sm := stripLine.FindStringSubmatch(l)
		if sm == nil {
			continue
		}
		tail := ""
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") && !strings.HasSuffix(sm[3], "…") {
			tail = "…" // cut inside the next object: what shows must begin it
		}
		got := sm[1] + " " + sm[2] + " — " + strings.TrimSpace(sm[3]) + tail
		if title, ok := strings.CutSuffix(sm[2], " (resolved)"); ok {
			if k := sm[1] + " " + title + " — " + strings.TrimSpace(sm[3]) + tail; !among(k, seen) {
				t.Errorf("%s: the strip shows %q resolved, held in no earlier tick of the JSON", where, k)
			}
			continue
		}
		if n == 0 && len(pt.Findings) > 0 {
			f := pt.Findings[0]
			if want := sevWord[string(f.Severity)] + " " + titles[f.Rule] + " — " + objectsText(f.Objects); !same(got, want) {
				t.Errorf("%s: the strip opens on %q, the JSON on %q", where, got, want)
			}
		}
		if !among(got, inJSON) {
			t.Errorf("%s: the strip shows %q, not among the tick's findings in the JSON", where, got)
		}
		n++
	}
	if n == 0 && len(pt.Findings) > 0 {
		t.Errorf("%s: %d findings in the JSON, none in the strip", where, len(pt.Findings))
	}
}
