package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/flight"
	"github.com/rdmatop/rdmatop/internal/bundletest"
)

const labFlight = "../../testdata/lab/flight/"

// testdata/lab/flight: serve --flight-recorder on the real Soft-RoCE stack
// while ib_write_bw runs (test/lab/flight.sh, MANIFEST.md). The truth is
// how the fault was made: the quiet run had none and must have written
// nothing; in the other the job set veth1 down for 3 s (flap.txt, the
// guest's clock, which rdmatop read too), and the recorder must have
// written one incident, covering the flap and the window asked for
// (--before 5s, --after 4s), in which check names the link flap first.
func TestLabFlightRecorder(t *testing.T) {
	// The quiet run: serve ran and stopped cleanly, said no incident, and
	// its directory is empty (git keeps no empty directory: the log says).
	quiet, err := os.ReadFile(labFlight + "quiet.err")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(quiet), "serve exit 0") || strings.Contains(string(quiet), "incident") {
		t.Errorf("the quiet run: %s", quiet)
	}
	if m, _ := filepath.Glob(labFlight + "quiet/*"); len(m) != 0 {
		t.Errorf("the quiet run wrote %v", m)
	}
	down, up := labFlapTimes(t, labFlight+"flap.txt")
	recs, _ := filepath.Glob(labFlight + "flap/*.pcapng.gz")
	sides, _ := filepath.Glob(labFlight + "flap/*.json")
	if len(recs) != 1 || len(sides) != 1 {
		t.Fatalf("want one incident and its sidecar, got %v %v", recs, sides)
	}
	var side flight.Sidecar
	b, err := os.ReadFile(sides[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &side); err != nil {
		t.Fatal(err)
	}
	trig := side.Trigger
	// The first sample after the port went down saw it (1 s ticks; the
	// emulated guest's samples run late by up to a few seconds).
	if trig.Kind != flight.TriggerLinkFlap || trig.Time.Before(down) || trig.Time.Sub(down) > 5*time.Second {
		t.Errorf("trigger %+v, the link went down at %s", trig, down)
	}
	if !slices.ContainsFunc(side.Findings, func(b flight.Brief) bool { return b.Rule == "link-flap" }) {
		t.Errorf("the sidecar's findings at the trigger %+v: no link-flap", side.Findings)
	}
	// The recording covers the window: from a tick at or before
	// trigger-5s (the last full one) to one at or after the end (4 s
	// after the last trigger), with packets from before the flap to
	// after the port came back.
	rec := readLabIncident(t, recs[0])
	ticks, firstPkt, lastPkt := rec.ticks, rec.firstPkt, rec.lastPkt
	if rec.truncated || len(ticks) == 0 || uint64(len(ticks)) != side.Ticks {
		t.Fatalf("%d ticks (sidecar %d), truncated %v", len(ticks), side.Ticks, rec.truncated)
	}
	if ticks[0].After(trig.Time.Add(-5*time.Second)) || ticks[len(ticks)-1].Before(side.End) || !side.End.After(up) {
		t.Errorf("ticks %s to %s, window %s to %s, flap %s to %s", ticks[0], ticks[len(ticks)-1], side.Start, side.End, down, up)
	}
	if !firstPkt.Before(down) || !lastPkt.After(up) || side.Packets == 0 {
		t.Errorf("packets %s to %s (%d), flap %s to %s", firstPkt, lastPkt, side.Packets, down, up)
	}
	// check reads the incident and names the link flap first.
	var out bytes.Buffer
	if code := run([]string{"check", "--json", recs[0]}, &out, io.Discard); code != exitFindings {
		t.Fatalf("check exit %d", code)
	}
	var res checkResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || res.Findings[0].Rule != "link-flap" {
		t.Errorf("check of the incident: first finding %+v, want link-flap", res.Findings[:min(1, len(res.Findings))])
	}
}

// testdata/lab/flight-stopped: the job stopped both perftest processes
// (SIGSTOP) with their QPs in RTS (qps.txt) and rxe0 sent nothing for 10 s
// (counters.txt); the recorder must have written one traffic-stopped
// incident, at least --trigger-silence (5 s) after the stop, whose window
// reaches back before the stop with the packets sent until it.
func TestLabFlightTrafficStopped(t *testing.T) {
	const dir = "../../testdata/lab/flight-stopped/"
	read := func(name string) string {
		b, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var stop time.Time
	for _, l := range strings.Split(strings.TrimSpace(read("stopped.txt")), "\n") {
		if v, ok := strings.CutPrefix(l, "stop "); ok {
			ts, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				t.Fatal(err)
			}
			stop = ts
		}
	}
	// The truth: nothing sent while stopped, the QP still in RTS.
	c := strings.Fields(read("counters.txt"))
	if len(c) != 9 || c[3] != c[8] {
		t.Fatalf("counters.txt: %q", c)
	}
	if !strings.Contains(read("qps.txt"), "link rxe0/1 lqpn 17 rqpn 17 type RC state RTS") {
		t.Fatalf("qps.txt: %s", read("qps.txt"))
	}
	sides, _ := filepath.Glob(dir + "stopped/*.json")
	recs, _ := filepath.Glob(dir + "stopped/*.pcapng.gz")
	if stop.IsZero() || len(sides) != 1 || len(recs) != 1 {
		t.Fatalf("stop %s, incidents %v %v", stop, sides, recs)
	}
	var side flight.Sidecar
	if err := json.Unmarshal([]byte(read(strings.TrimPrefix(sides[0], dir))), &side); err != nil {
		t.Fatal(err)
	}
	trig := side.Trigger
	if trig.Kind != flight.TriggerSilence || trig.Time.Sub(stop) < 5*time.Second || trig.Since.IsZero() ||
		!side.Start.Before(stop) || !side.Start.Equal(trig.Since.Add(-5*time.Second)) {
		t.Errorf("trigger %+v, window from %s; stopped at %s", trig, side.Start, stop)
	}
	rec := readLabIncident(t, recs[0])
	if rec.truncated || rec.pkts == 0 || rec.pkts != side.Packets || !rec.firstPkt.Before(stop) {
		t.Errorf("%d packets (sidecar %d), the first at %s, truncated %v; stopped at %s", rec.pkts, side.Packets, rec.firstPkt, rec.truncated, stop)
	}
}

// labIncident is what an incident recording holds: its ticks' times and
// its packets' count and span.
type labIncident struct {
	ticks             []time.Time
	firstPkt, lastPkt time.Time
	pkts              uint64
	truncated         bool
}

func readLabIncident(t *testing.T, path string) labIncident {
	t.Helper()
	rd, recs := bundletest.Read(t, path)
	var in labIncident
	for _, rec := range recs {
		if rec.Tick != nil {
			in.ticks = append(in.ticks, rec.Tick.Time)
			continue
		}
		if in.firstPkt.IsZero() {
			in.firstPkt = rec.Packet.CI.Timestamp
		}
		in.lastPkt = rec.Packet.CI.Timestamp
		in.pkts++
	}
	in.truncated = rd.Truncated
	return in
}
