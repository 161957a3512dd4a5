package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tickDoc is what replay --json says of each tick.
type tickDoc struct {
	Series []struct {
		IntervalS   float64 `json:"interval_s"`
		RoCEPackets uint64  `json:"roce_packets"`
		Findings    []struct {
			Rule     string            `json:"rule"`
			Severity string            `json:"severity"`
			Objects  map[string]string `json:"objects"`
		} `json:"findings"`
	} `json:"series"`
}

// stripLine is one finding line of the screen's strip: severity, title,
// the objects as the strip prints them.
var stripLine = regexp.MustCompile(`^\s*(?:▶ )?\s*(?:↳ )?(CRIT|WARN|INFO) \S+ (.+?) — ((?:\S+=\S+ ?)+)`)

var sevWord = map[string]string{"critical": "CRIT", "warning": "WARN", "info": "INFO"}

// The screen at every tick of the lab incident says what replay --json
// says of that tick (issue 33): the RoCE packets so far and the rate of
// the tick in the header, the finding on top of the strip, and no
// finding in the strip that the tick's JSON does not hold.
func TestTmuxEveryTickAgreesWithReplayJSON(t *testing.T) {
	bin := buildBinary(t)
	wd, _ := os.Getwd()
	file := filepath.Join(wd, "../../testdata/lab/pipeline/incident.pcapng.gz")
	out, _, code := runCLI(t, "replay", "--json", file)
	if code != 0 && code != 1 {
		t.Fatalf("replay --json: exit %d", code)
	}
	var doc tickDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	titles := ruleTitles(t)
	n := len(doc.Series)
	if n < 5 {
		t.Fatalf("%d ticks: the fixture changed", n)
	}
	s := startTmux(t, 160, 45, bin+" replay "+file)
	s.waitFor("[END]")
	s.keys("g")
	var soFar uint64
	for i, tick := range doc.Series {
		if i > 0 {
			s.keys("Right")
		}
		soFar += tick.RoCEPackets
		want := []string{fmt.Sprintf("%d/%d @", i+1, n), fmt.Sprintf("wire %d RoCE pkts", soFar)}
		if tick.IntervalS > 0 {
			want = append(want, fmt.Sprintf("RoCE pkts (%d/s,", int(math.Round(float64(tick.RoCEPackets)/tick.IntervalS))))
		}
		pane := s.waitFor(want...)
		inJSON := map[string]bool{}
		for _, f := range tick.Findings {
			inJSON[sevWord[f.Severity]+" "+titles[f.Rule]+" — "+objectsText(f.Objects)] = true
		}
		top := tick.Findings[0]
		var lines []string
		for _, l := range strings.Split(pane, "\n") {
			m := stripLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			got := m[1] + " " + m[2] + " — " + strings.TrimSpace(m[3])
			if len(lines) == 0 {
				wantTop := sevWord[top.Severity] + " " + titles[top.Rule] + " — " + objectsText(top.Objects)
				if !strings.HasPrefix(l, "▶ ") || got != wantTop {
					t.Errorf("tick %d: the strip opens on %q, replay --json on %q", i+1, got, wantTop)
				}
			}
			if !inJSON[got] {
				t.Errorf("tick %d: the strip shows %q, which replay --json does not hold for the tick", i+1, got)
			}
			lines = append(lines, got)
		}
		if len(lines) == 0 {
			t.Errorf("tick %d: no finding in the strip:\n%s", i+1, pane)
		}
		t.Logf("tick %d: %d RoCE packets so far, %d strip lines, each in the tick's %d findings", i+1, soFar, len(lines), len(tick.Findings))
	}
	s.keys("q")
}

// objectsText is a finding's objects as the strip prints them: k=v,
// sorted by key.
func objectsText(objs map[string]string) string {
	keys := make([]string, 0, len(objs))
	for k := range objs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + objs[k])
	}
	return b.String()
}

// ruleTitles maps each built-in rule to its title, from rules --json.
func ruleTitles(t *testing.T) map[string]string {
	t.Helper()
	out, _, code := runCLI(t, "rules", "--json")
	if code != 0 {
		t.Fatalf("rules --json: exit %d", code)
	}
	var rules []struct{ ID, Title string }
	if err := json.Unmarshal([]byte(out), &rules); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, r := range rules {
		m[r.ID] = r.Title
	}
	if len(m) < 20 {
		t.Fatalf("%d rules", len(m))
	}
	return m
}
