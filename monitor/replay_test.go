package monitor

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/rules"
)

const lossy = "../testdata/rxe/pcap/lossy1.pcap"

func replayFrames(t *testing.T, path string, iv time.Duration, auto bool) ([]Frame, Result) {
	t.Helper()
	tape, err := OpenCapture(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Tape: tape, Source: path, Interval: iv, AutoInterval: auto})
	if err != nil {
		t.Fatal(err)
	}
	var out []Frame
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out, r.Result()
}

// A real lossy Soft-RoCE capture replayed as a timeline: the intervals'
// packets add up to the whole capture, the cumulative analysis of the last
// Frame is the whole capture, and the first interval with a gap is the one
// that holds the first missing PSN.
func TestCaptureTimeline(t *testing.T) {
	whole, err := capture.AnalyzeFile(lossy, capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	frames, res := replayFrames(t, lossy, 100*time.Millisecond, false)
	if len(frames) < 3 {
		t.Fatalf("%d frames: the capture lasts %.2f s, want a timeline of 100 ms steps", len(frames), whole.DurationSec)
	}
	var pkts, roce uint64
	for i, f := range frames {
		if f.Seq != i || f.Mode != ModeReplay {
			t.Errorf("frame %d: seq %d mode %s", i, f.Seq, f.Mode)
		}
		if i > 0 && !f.Time.After(frames[i-1].Time) {
			t.Errorf("frame %d at %v, not after %v", i, f.Time, frames[i-1].Time)
		}
		if f.Interval == nil || f.Wire == nil {
			t.Fatalf("frame %d has no wire", i)
		}
		if f.IntervalS > 0.1+1e-9 {
			t.Errorf("frame %d lasts %v s", i, f.IntervalS)
		}
		pkts += f.Interval.Packets
		roce += f.Interval.RoCEPackets
	}
	if pkts != whole.Packets || roce != whole.RoCEPackets {
		t.Errorf("intervals hold %d packets (%d RoCE), the capture %d (%d)", pkts, roce, whole.Packets, whole.RoCEPackets)
	}
	last := frames[len(frames)-1].Wire
	if last.Packets != whole.Packets || last.Totals != whole.Totals || len(last.Flows) != len(whole.Flows) {
		t.Errorf("last frame's running analysis differs from the whole capture:\n%+v\n%+v", last.Totals, whole.Totals)
	}
	if res.Wire.File != lossy || res.Wire.Format != "pcap" || res.Wire.Totals != whole.Totals {
		t.Errorf("result wire: file %q format %q totals %+v", res.Wire.File, res.Wire.Format, res.Wire.Totals)
	}

	var firstGap capture.Anomaly
	for _, a := range whole.Anomalies {
		if a.Kind == "psn_gap" {
			firstGap = a
			break
		}
	}
	at := parseTS(firstGap.TS)
	for i, f := range frames {
		if f.Interval.Totals.PSNGaps == 0 {
			continue
		}
		from := f.Time.Add(-time.Duration(f.IntervalS * float64(time.Second)))
		if i == 0 {
			from = parseTS(whole.FirstTS)
		}
		if at.Before(from) || at.After(f.Time) {
			t.Errorf("first frame with a gap covers [%v, %v]; the first gap is at %v", from, f.Time, at)
		}
		// The loss is a finding of that very frame, first seen then.
		fd := findRule(f.Findings, "packet-loss")
		if fd == nil || !fd.FirstSeen.Equal(f.Time) {
			t.Errorf("frame %d: packet-loss finding %+v, want first seen %v", i, fd, f.Time)
		}
		break
	}
}

func findRule(fs []rules.Finding, id string) *rules.Finding {
	for i := range fs {
		if fs[i].Rule == id {
			return &fs[i]
		}
	}
	return nil
}

// The run's conclusion on a capture is the one-shot evaluation of the
// whole capture, as check has always given: the same rules fire on the
// same flows, whatever the interval.
func TestCaptureResultIsWholeCapture(t *testing.T) {
	whole, err := capture.AnalyzeFile(lossy, capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := rules.Default()
	e := rules.NewEngine(p)
	e.IgnoreFor = true
	want := e.Evaluate(rules.Frame{Time: parseTS(whole.LastTS), Wire: whole}).Findings
	for _, iv := range []time.Duration{10 * time.Millisecond, time.Second} {
		_, res := replayFrames(t, lossy, iv, false)
		if got, w := keys(res.Findings), keys(want); !slices.Equal(got, w) {
			t.Errorf("interval %v: findings %v, want %v", iv, got, w)
		}
		for _, f := range res.Findings {
			if f.FirstSeen.IsZero() || f.LastSeen.Before(f.FirstSeen) || f.Resolved {
				t.Errorf("interval %v: %s first %v last %v resolved %v", iv, f.Rule, f.FirstSeen, f.LastSeen, f.Resolved)
			}
		}
	}
}

func keys(fs []rules.Finding) []string {
	var out []string
	for i := range fs {
		out = append(out, findingKey(&fs[i]))
	}
	slices.Sort(out)
	return out
}

// A capture shorter than a few intervals gets finer ones when the user did
// not choose the interval; a chosen interval is kept.
func TestAutoInterval(t *testing.T) {
	const short = "../testdata/rxe/pcap/ecn.pcap" // 45 ms of Soft-RoCE traffic
	frames, _ := replayFrames(t, short, time.Second, true)
	if len(frames) < autoTicks/2 || len(frames) > autoTicks+2 {
		t.Errorf("auto: %d frames, want %d to %d", len(frames), autoTicks/2, autoTicks)
	}
	if chosen, _ := replayFrames(t, short, time.Second, false); len(chosen) != 1 {
		t.Errorf("1 s chosen: %d frames, want 1", len(chosen))
	}
	// lossy1.pcap lasts 4.9 s: a few 1 s intervals already.
	if long, _ := replayFrames(t, lossy, time.Second, true); len(long) != 5 {
		t.Errorf("lossy1.pcap auto: %d frames, want 5", len(long))
	}
	for _, c := range []struct{ span, want int64 }{{0, 1000}, {19_000, 1000}, {2_000_000_000, 100_000_000}, {3_000_000_000, 200_000_000}, {1_500_000, 100_000}} {
		if got := autoStep(c.span); got != c.want {
			t.Errorf("autoStep(%d) = %d, want %d", c.span, got, c.want)
		}
	}
}

// A damaged capture is analysed up to the damage; the run reports it.
func TestCaptureDamage(t *testing.T) {
	// a copy of lossy1.pcap cut in the middle of a record
	frames, err := cutCopy(t, lossy, 20_000)
	if err == nil {
		t.Fatal("no error for a cut capture")
	}
	if len(frames) == 0 || frames[len(frames)-1].Wire.Packets == 0 {
		t.Fatal("nothing analysed before the damage")
	}
}

// A paced replay takes the recording's time (here at 10x): 10 frames of
// 100 ms each, about 90 ms at speed 10.
func TestPaced(t *testing.T) {
	tape, err := OpenCapture(lossy)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Tape: tape, Interval: 100 * time.Millisecond, Ticks: 10})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n := 0
	for _, err := range Paced(context.Background(), r.Frames(context.Background()), 10) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if d := time.Since(start); n != 10 || d < 80*time.Millisecond {
		t.Errorf("%d frames in %v, want 10 paced over at least 90 ms", n, d)
	}
}

// IntervalsOnly leaves the running analysis out of the Frames and changes
// nothing else: the intervals, the findings and the result are the same.
func TestReplayIntervalsOnly(t *testing.T) {
	run := func(only bool) (frames []string, result string) {
		tape, err := OpenCapture("../testdata/rxe/pcap/lossy1.pcap")
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(Config{Tape: tape, Interval: 10 * time.Millisecond, IntervalsOnly: only})
		if err != nil {
			t.Fatal(err)
		}
		for f, err := range r.Frames(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if (f.Wire == nil) != only {
				t.Fatalf("IntervalsOnly %v: frame %d has running analysis %v", only, f.Seq, f.Wire != nil)
			}
			b, _ := json.Marshal([]any{f.Interval, f.Findings})
			frames = append(frames, string(b))
		}
		res := r.Result()
		b, _ := json.Marshal([]any{res.Wire, res.Findings})
		return frames, string(b)
	}
	f1, r1 := run(false)
	f2, r2 := run(true)
	if len(f1) < 5 || !slices.Equal(f1, f2) || r1 != r2 {
		t.Errorf("%d frames; intervals equal %v, result equal %v", len(f1), slices.Equal(f1, f2), r1 == r2)
	}
}
