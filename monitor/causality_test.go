package monitor

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// replayed is one recording of testdata played through: its result, its
// last host snapshot and its tick.
type replayed struct {
	name string
	res  Result
	snap *probes.Snapshot
	tick time.Duration
}

var (
	allOnce     sync.Once
	allReplayed []replayed
	allErr      error
)

// everyRecording plays every recording of testdata once per test binary.
func everyRecording(t *testing.T) []replayed {
	t.Helper()
	allOnce.Do(func() {
		var paths []string
		for _, glob := range []string{"../testdata/*/*.pcapng.gz", "../testdata/lab/*/*.bundle.gz", "../testdata/lab/*/*/*.bundle.gz"} {
			m, err := filepath.Glob(glob)
			if err != nil {
				allErr = err
				return
			}
			paths = append(paths, m...)
		}
		for _, p := range paths {
			tape, err := OpenBundle(p)
			if err != nil {
				continue // a plain capture, not a recording
			}
			r, err := New(Config{Tape: tape, Source: p})
			if err != nil {
				allErr = err
				return
			}
			for _, err := range r.Frames(context.Background()) {
				if err != nil {
					allErr = fmt.Errorf("%s: %w", p, err)
					return
				}
			}
			allReplayed = append(allReplayed, replayed{name: filepath.Base(p), res: r.Result(), snap: r.lastSnap, tick: r.tickLen()})
		}
	})
	if allErr != nil {
		t.Fatal(allErr)
	}
	if len(allReplayed) < 150 {
		t.Fatalf("%d recordings: testdata moved?", len(allReplayed))
	}
	return allReplayed
}

// Every explanation in every recording of testdata holds up: the cause is
// one of the findings, it shares an object with what it explains (and
// says which), and it was first seen no later than one tick after it, or
// it is about a flow of a capture that had not yet begun. (The demo has
// its own test: demo imports this package.)
func TestExplanationsHoldUpInEveryRecording(t *testing.T) {
	explained := 0
	for _, rp := range everyRecording(t) {
		explained += checkExplanations(t, rp.name, rp.res.Findings, rp.tick, firstTS(rp.res.Wire))
	}
	if explained < 100 {
		t.Errorf("only %d explanations in all of testdata: the test checks little", explained)
	}
}

// checkExplanations fails t on an explanation that does not hold, and
// returns how many it checked.
func checkExplanations(t *testing.T, name string, fs []rules.Finding, slack time.Duration, captureStart time.Time) int {
	t.Helper()
	n := 0
	for _, f := range fs {
		c := f.ExplainedBy
		if c == nil {
			continue
		}
		n++
		var cause *rules.Finding
		for i := range fs {
			if fs[i].Rule == c.Rule && sameObjects(fs[i].Objects, c.Objects) {
				cause = &fs[i]
			}
		}
		switch {
		case cause == nil:
			t.Errorf("%s: %s %v explained by %s %v, which is not among the findings", name, f.Rule, f.Objects, c.Rule, c.Objects)
		case c.Via == "":
			t.Errorf("%s: %s %v explained by %s %v with nothing in common said", name, f.Rule, f.Objects, c.Rule, c.Objects)
		case !cause.FirstSeen.IsZero() && !f.FirstSeen.IsZero() && cause.FirstSeen.After(f.FirstSeen.Add(slack)):
			_, flow := cause.Objects["flow"]
			if !flow || !f.FirstSeen.Before(captureStart) {
				t.Errorf("%s: %s %v (first seen %s) explained by %s %v first seen %s, later by more than a tick (%s)",
					name, f.Rule, f.Objects, f.FirstSeen.Format(time.StampMilli), c.Rule, c.Objects,
					cause.FirstSeen.Format(time.StampMilli), slack)
			}
		}
	}
	return n
}

func sameObjects(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// The same over every plain capture of testdata (public captures, the
// Soft-RoCE captures, both points of every wire-truth run): a capture's
// explanations are flow and port findings of the wire alone.
func TestExplanationsHoldUpInEveryCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("plays every capture of testdata")
	}
	var paths []string
	for _, glob := range []string{"../testdata/pcaps/*.pcap", "../testdata/pcaps/*.pcapng", "../testdata/rxe/pcap/*.pcap",
		"../testdata/wiretruth/*/*.pcap.gz"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	files, explained := 0, 0
	for _, p := range paths {
		tape, err := OpenCapture(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		r, err := New(Config{Tape: tape, Source: p})
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range r.Frames(context.Background()) {
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		}
		res := r.Result()
		explained += checkExplanations(t, filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), res.Findings, r.tickLen(), firstTS(res.Wire))
		files++
	}
	if files < 100 || explained < 50 {
		t.Errorf("%d captures, %d explanations: the test checks little", files, explained)
	}
	t.Logf("%d captures, %d explanations, each with its cause no later and an object in common", files, explained)
}
