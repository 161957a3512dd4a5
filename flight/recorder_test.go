package flight

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/internal/bundletest"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

var t0 = time.Date(2026, 12, 4, 2, 13, 0, 0, time.UTC)

// realFrames reads the RoCE frames of a real Soft-RoCE capture.
func realFrames(t testing.TB) [][]byte {
	f, err := os.Open("../testdata/rxe/pcap/clean.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		data, _, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	if len(out) < 10 {
		t.Fatalf("only %d frames", len(out))
	}
	return out
}

// run feeds a recorder as a live run does, one tick a second from t0:
// per second ppt packets (timestamps within the second), then the tick,
// then the Frame of that tick (frame(i) gives it; nil: a quiet one).
type feed struct {
	r      *Recorder
	frames [][]byte
	ppt    int
	n      int // packets fed
}

func (fd *feed) second(t testing.TB, i int, frame func(*monitor.Frame)) {
	at := t0.Add(time.Duration(i) * time.Second)
	for k := range fd.ppt {
		d := fd.frames[fd.n%len(fd.frames)]
		fd.n++
		ci := gopacket.CaptureInfo{Timestamp: at.Add(-time.Second + time.Duration(k+1)*time.Second/time.Duration(fd.ppt+1)),
			CaptureLength: len(d), Length: len(d)}
		if err := fd.r.WritePacket(ci, d); err != nil {
			t.Fatal(err)
		}
	}
	tk := &bundle.Tick{Time: at, Raw: map[string]json.RawMessage{"probe": json.RawMessage(`{"second":` + itoa(i) + `}`)},
		Status: []probes.Status{{Source: "sysfs", State: probes.StateOK}}}
	if err := fd.r.WriteTick(tk); err != nil {
		t.Fatal(err)
	}
	settle(t, fd.r)
	f := &monitor.Frame{Time: at, Snapshot: &probes.Snapshot{Time: at}, Findings: []rules.Finding{},
		Rules: []rules.RuleState{{Rule: "port-down", State: "ok"}}} // judged
	if frame != nil {
		frame(f)
	}
	fd.r.Observe(f)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func newTestRecorder(t testing.TB, mod func(*Options)) (*Recorder, string, *[]string) {
	dir := t.TempDir()
	var logs []string
	var mu sync.Mutex
	o := Options{Dir: dir, Keep: 10 * time.Second, KeepPackets: 1 << 20, Before: 3 * time.Second, After: 2 * time.Second,
		Cooldown: time.Minute, Severity: rules.Critical,
		Header: bundle.Header{Tool: "rdmatop test", Host: bundle.Host{Hostname: "node7"}, Interval: "1s"},
		Log:    func(s string) { mu.Lock(); logs = append(logs, s); mu.Unlock() }}
	if mod != nil {
		mod(&o)
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() }) // its writer goroutine stops; a second Close is harmless
	return r, dir, &logs
}

// flapAt feeds seconds seconds, the link flapping at second flap.
func (fd *feed) flapAt(t testing.TB, seconds, flap int) {
	for i := range seconds {
		var fr func(*monitor.Frame)
		if i == flap {
			fr = linkFlap
		}
		fd.second(t, i, fr)
	}
}

func linkFlap(f *monitor.Frame) {
	f.Snapshot.Events = append(f.Snapshot.Events, probes.Event{Time: f.Time, Source: "port", Kind: "port_state",
		Severity: probes.SevWarning, Device: "rxe0", Port: 1, Detail: "ACTIVE/LinkUp -> DOWN/Disabled"})
}

// readIncident reads a recording back: its ticks' seconds and packets.
func readIncident(t *testing.T, path string) (ticks []time.Time, pkts []time.Time, rd *bundle.Reader) {
	rd, recs := bundletest.Read(t, path)
	for _, rec := range recs {
		if rec.Tick != nil {
			ticks = append(ticks, rec.Tick.Time)
		} else {
			pkts = append(pkts, rec.Packet.CI.Timestamp)
		}
	}
	return ticks, pkts, rd
}

func incidents(t *testing.T, dir string) []string {
	m, err := filepath.Glob(filepath.Join(dir, namePrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A link flap at second 10: one incident holding the ticks from 3 s
// before to 2 s after it and the packets between, a sidecar naming the
// trigger, nothing partial left.
func TestIncidentCoversItsWindow(t *testing.T) {
	r, dir, logs := newTestRecorder(t, nil)
	fd := &feed{r: r, frames: realFrames(t), ppt: 5}
	fd.flapAt(t, 20, 10)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	files := incidents(t, dir)
	if len(files) != 2 {
		t.Fatalf("want one recording and its sidecar, got %v", files)
	}
	rec := filepath.Join(dir, namePrefix+"20261204T021310Z-link-flap"+recordingExt)
	ticks, pkts, rd := readIncident(t, rec)
	// The trigger is seen with tick 10's Frame and acted on at tick 11:
	// the window is [7 s, 12 s].
	if len(ticks) != 6 || !ticks[0].Equal(t0.Add(7*time.Second)) || !ticks[5].Equal(t0.Add(12*time.Second)) {
		t.Errorf("ticks %v, want seconds 7..12", ticks)
	}
	if len(pkts) != 5*6 {
		t.Errorf("%d packets, want the 30 of ticks 7..12", len(pkts))
	}
	for _, p := range pkts {
		if p.Before(t0.Add(6*time.Second)) || p.After(t0.Add(12*time.Second)) {
			t.Errorf("packet at %s outside the window", p)
		}
	}
	if rd.Truncated || rd.Header.Tool != "rdmatop test" || rd.Header.Host.Hostname != "node7" {
		t.Errorf("header %+v, truncated %v", rd.Header, rd.Truncated)
	}
	var side Sidecar
	b, err := os.ReadFile(strings.TrimSuffix(rec, recordingExt) + sidecarExt)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &side); err != nil {
		t.Fatal(err)
	}
	if side.Trigger.Kind != TriggerLinkFlap || !strings.Contains(side.Trigger.Detail, "DOWN/Disabled") ||
		side.Ticks != 6 || side.Packets != 30 || side.EndedEarly != "" || !side.Start.Equal(t0.Add(7*time.Second)) {
		t.Errorf("sidecar %+v", side)
	}
	if st := r.Stats(); st.Incidents[TriggerLinkFlap] != 1 || st.Failures != 0 {
		t.Errorf("stats %+v", st)
	}
	if len(*logs) != 1 || !strings.Contains((*logs)[0], "link-flap") {
		t.Errorf("logs %q", *logs)
	}
}

// Without a trigger nothing is written, whatever the run.
func TestNoTriggerNoIncident(t *testing.T) {
	r, dir, _ := newTestRecorder(t, nil)
	fd := &feed{r: r, frames: realFrames(t), ppt: 20}
	for i := range 40 {
		fd.second(t, i, func(f *monitor.Frame) {
			// a warning that is no trigger at the default severity
			f.Findings = append(f.Findings, rules.Finding{Rule: "late-acks", Severity: rules.Warning, LastSeen: f.Time})
		})
	}
	r.Close()
	if files := incidents(t, dir); len(files) != 0 {
		t.Errorf("wrote %v", files)
	}
	if st := r.Stats(); st.MemBytes <= 0 || st.MemBytes > 1<<20+64<<10 {
		t.Errorf("memory %d bytes: want packets within KeepPackets and the ticks", st.MemBytes)
	}
}

// A finding that keeps holding triggers once; one that comes back after
// it resolved triggers again (past the cooldown). Triggers during an
// incident extend it; within the cooldown after it they are counted.
func TestTriggersMergeAndCooldown(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) { o.Cooldown = 10 * time.Second })
	fd := &feed{r: r, frames: realFrames(t), ppt: 1}
	qpErr := func(f *monitor.Frame) {
		f.Findings = append(f.Findings, rules.Finding{Rule: "qp-error-state", Severity: rules.Critical, Title: "QP in error",
			Objects: map[string]string{"qpn": "0x11"}, LastSeen: f.Time})
	}
	for i := range 40 {
		fd.second(t, i, func(f *monitor.Frame) {
			if i >= 5 && i <= 8 || i == 30 { // holds four seconds: one trigger; again at 30, past the cooldown
				qpErr(f)
			}
			if i == 6 || i == 14 { // during the incident (5 s to 7 s): merged; within 10 s of it: suppressed
				linkFlap(f)
			}
		})
	}
	r.Close()
	st := r.Stats()
	if st.Incidents[TriggerQPError] != 2 || st.Merged != 1 || st.Suppressed[TriggerLinkFlap] != 1 {
		t.Errorf("stats %+v", st)
	}
	if files := incidents(t, dir); len(files) != 4 {
		t.Errorf("files %v", files)
	}
	b, _ := os.ReadFile(filepath.Join(dir, namePrefix+"20261204T021305Z-qp-error"+sidecarExt))
	var side Sidecar
	json.Unmarshal(b, &side)
	if len(side.Triggers) != 2 || side.Triggers[1].Kind != TriggerLinkFlap || !side.End.Equal(t0.Add(8*time.Second)) {
		t.Errorf("merged incident %+v", side)
	}
	if len(side.Findings) != 1 || side.Findings[0].Rule != "qp-error-state" {
		t.Errorf("findings %+v", side.Findings)
	}
}

// Triggered again and again, the directory stays within --max-disk: the
// oldest incidents go first, each a recording and its sidecar together.
func TestMaxDiskEnforced(t *testing.T) {
	const maxDisk = 200 << 10
	r, dir, _ := newTestRecorder(t, func(o *Options) { o.Cooldown, o.MaxDisk, o.After = 0, maxDisk, time.Second })
	fd := &feed{r: r, frames: realFrames(t), ppt: 200}
	for i := range 60 {
		if i%3 == 0 {
			r.Trigger("test")
		}
		fd.second(t, i, nil)
		var total int64
		for _, f := range incidents(t, dir) {
			info, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			total += info.Size()
		}
		if total > maxDisk {
			t.Fatalf("second %d: %d bytes in the directory, over %d", i, total, maxDisk)
		}
	}
	r.Close()
	st := r.Stats()
	if st.Removed == 0 || st.Incidents[TriggerManual] < 15 {
		t.Errorf("stats %+v: want many incidents and some removed", st)
	}
	files := incidents(t, dir)
	if len(files)%2 != 0 {
		t.Errorf("a recording without its sidecar or the reverse: %v", files)
	}
}

// A crash while an incident is written leaves its .partial file, which
// replays up to the last tick written.
func TestPartialSurvivesACrash(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) { o.After = time.Hour })
	fd := &feed{r: r, frames: realFrames(t), ppt: 3}
	fd.flapAt(t, 12, 5)
	// no Close: the process died
	files := incidents(t, dir)
	if len(files) != 1 || !strings.HasSuffix(files[0], partialExt) {
		t.Fatalf("files %v", files)
	}
	ticks, pkts, rd := readIncident(t, files[0])
	if len(ticks) != 10 || !ticks[9].Equal(t0.Add(11*time.Second)) || len(pkts) != 30 {
		t.Errorf("ticks %v, %d packets: want seconds 2..11 and their 30 packets", ticks, len(pkts))
	}
	if rd.Truncated {
		t.Error("each tick is flushed whole: nothing should be cut")
	}
	// A new recorder in the directory says what it found.
	_, _, logs := newTestRecorder(t, func(o *Options) { o.Dir = dir })
	if len(*logs) != 1 || !strings.Contains((*logs)[0], "cut short") {
		t.Errorf("logs %q", *logs)
	}
}

// A directory that cannot be written is refused at the start, with the
// reason.
func TestUnwritableDirectory(t *testing.T) {
	o := Options{Dir: "/nonexistent/flight", Keep: time.Minute, Before: time.Second, Severity: rules.Critical}
	if _, err := New(o); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
	o.Dir = t.TempDir()
	o.Before = time.Hour
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "--before") {
		t.Errorf("--before past --keep: %v", err)
	}
}

// The run's recording goroutine, its front end and a signal handler use
// the recorder at once (go test -race).
func TestConcurrentUse(t *testing.T) {
	r, _, _ := newTestRecorder(t, func(o *Options) { o.Cooldown = 0 })
	frames := realFrames(t)
	var wg sync.WaitGroup
	ticks := make(chan time.Time, 64)
	wg.Go(func() {
		defer close(ticks)
		for i := range 50 {
			at := t0.Add(time.Duration(i) * time.Second)
			for k := range 10 {
				d := frames[k]
				r.WritePacket(gopacket.CaptureInfo{Timestamp: at.Add(-time.Millisecond * time.Duration(10-k)), CaptureLength: len(d), Length: len(d)}, d)
			}
			r.WriteTick(&bundle.Tick{Time: at})
			ticks <- at
		}
	})
	wg.Go(func() {
		i := 0
		for at := range ticks {
			f := &monitor.Frame{Time: at, Snapshot: &probes.Snapshot{Time: at}}
			if i%7 == 0 {
				linkFlap(f)
			}
			r.Observe(f)
			i++
		}
	})
	wg.Go(func() {
		for range 20 {
			r.Trigger("signal")
			r.Stats()
			time.Sleep(time.Millisecond)
		}
	})
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Failures != 0 {
		t.Errorf("stats %+v", st)
	}
}

// What already held when rdmatop started is not an incident (it would
// start a cooldown that hides the next real one); the same finding coming
// back after it resolved is.
func TestStandingFindingIsNoTrigger(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) { o.Cooldown = 0 })
	fd := &feed{r: r, frames: realFrames(t), ppt: 1}
	down := func(f *monitor.Frame) {
		f.Findings = append(f.Findings, rules.Finding{Rule: "port-down", Severity: rules.Warning, Title: "RDMA port is down",
			Objects: map[string]string{"device": "mlx5_1", "port": "1"}, LastSeen: f.Time})
	}
	for i := range 30 {
		fd.second(t, i, func(f *monitor.Frame) {
			if i == 0 {
				f.Rules = nil // a warm-up Frame: not judged, no baseline yet
			}
			if i < 10 || i >= 20 {
				down(f)
			}
		})
	}
	r.Close()
	st := r.Stats()
	if st.Incidents[TriggerLinkFlap] != 1 {
		t.Fatalf("stats %+v: want one incident, for the port going down again at 20 s", st)
	}
	if _, err := os.Stat(filepath.Join(dir, namePrefix+"20261204T021320Z-link-flap"+recordingExt)); err != nil {
		t.Error(err)
	}
}

// Between full ticks the probes keep what does not change (device
// attributes, GID tables), so an incident starts at the last full tick at
// or before its window: a replay of it reads the ports from its first
// tick on.
func TestIncidentStartsAtAFullTick(t *testing.T) {
	r, dir, _ := newTestRecorder(t, nil)
	for i := range 20 {
		at := t0.Add(time.Duration(i) * time.Second)
		if err := r.WriteTick(&bundle.Tick{Time: at, Full: i%5 == 0}); err != nil {
			t.Fatal(err)
		}
		settle(t, r)
		f := &monitor.Frame{Time: at, Snapshot: &probes.Snapshot{Time: at}, Rules: []rules.RuleState{{Rule: "x"}}}
		if i == 12 {
			linkFlap(f)
		}
		r.Observe(f)
	}
	r.Close()
	ticks, _, _ := readIncident(t, filepath.Join(dir, namePrefix+"20261204T021312Z-link-flap"+recordingExt))
	// The window starts at 9 s; the full tick before it is 5 s.
	if len(ticks) == 0 || !ticks[0].Equal(t0.Add(5*time.Second)) || !ticks[len(ticks)-1].Equal(t0.Add(14*time.Second)) {
		t.Errorf("ticks %v, want 5 s to 14 s", ticks)
	}
}

// The recording goroutine may act on a trigger after the front end has
// shown the recorder the next Frame (the lab saw it): the sidecar lists
// the findings of the trigger's Frame, not of a later one.
func TestSidecarFindingsAreTheTriggersFrame(t *testing.T) {
	r, dir, _ := newTestRecorder(t, nil)
	frame := func(i int, rule string) {
		at := t0.Add(time.Duration(i) * time.Second)
		f := &monitor.Frame{Time: at, Snapshot: &probes.Snapshot{Time: at}, Rules: []rules.RuleState{{Rule: "x"}},
			Findings: []rules.Finding{{Rule: rule, Severity: rules.Warning, Title: rule, LastSeen: at}}}
		if i == 3 {
			linkFlap(f)
		}
		r.Observe(f)
	}
	tick := func(i int) {
		if err := r.WriteTick(&bundle.Tick{Time: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		tick(i)
		frame(i, "roce-mtu-too-small")
	}
	tick(3)
	frame(3, "link-flap") // the trigger
	frame(4, "port-down") // the front end is a Frame ahead
	for i := 4; i < 10; i++ {
		tick(i)
	}
	r.Close()
	b, err := os.ReadFile(filepath.Join(dir, namePrefix+"20261204T021303Z-link-flap"+sidecarExt))
	if err != nil {
		t.Fatal(err)
	}
	var side Sidecar
	if err := json.Unmarshal(b, &side); err != nil {
		t.Fatal(err)
	}
	if len(side.Findings) != 1 || side.Findings[0].Rule != "link-flap" {
		t.Errorf("findings %+v, want the trigger's Frame's: link-flap", side.Findings)
	}
}

// A port that carried traffic and then none for --trigger-silence while
// its QPs stayed in RTS triggers once per silence; a port whose QPs left
// RTS (the job ended) or whose rate is unknown does not.
func TestTrafficStoppedWhileQPsInRTS(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) { o.Silence, o.Cooldown = 5*time.Second, 0 })
	rate := func(v float64) *float64 { return &v }
	pid := 4242 // the job's
	for i := range 40 {
		at := t0.Add(time.Duration(i) * time.Second)
		if err := r.WriteTick(&bundle.Tick{Time: at, Full: true}); err != nil {
			t.Fatal(err)
		}
		settle(t, r)
		busy := i < 5 || (i >= 20 && i < 22)
		var bps float64
		if busy {
			bps = 1e9
		}
		snap := &probes.Snapshot{Time: at,
			Ports: []probes.Port{
				{Device: "mlx5_0", Port: 1, Traffic: probes.Traffic{RxBytesPerSec: rate(bps), TxBytesPerSec: rate(bps), Source: trafficRDMA}},
				{Device: "mlx5_1", Port: 1, Traffic: probes.Traffic{RxBytesPerSec: rate(bps), TxBytesPerSec: rate(bps), Source: trafficRDMA}},
				{Device: "mlx5_2", Port: 1}, // no rate: no evidence
			},
			QPs: []probes.QP{{Device: "mlx5_0", Port: 1, LQPN: 0x40, State: "RTS", PID: &pid}, {Device: "mlx5_1", Port: 1, LQPN: 0x41, State: "RTS", PID: &pid},
				{Device: "mlx5_2", Port: 1, LQPN: 0x42, State: "RTS", PID: &pid}}}
		if i >= 30 {
			snap.QPs = snap.QPs[1:] // mlx5_0's QP is gone
		}
		if i >= 22 {
			snap.QPs[len(snap.QPs)-2].State = "ERR" // mlx5_1's QP left RTS
		}
		r.Observe(&monitor.Frame{Time: at, Snapshot: snap, Rules: []rules.RuleState{{Rule: "x"}}})
	}
	r.Close()
	// The last busy Frame is at 4 s: both ports are silent for 5 s at 9 s
	// (one incident). Busy again at 20-21 s: at 26 s mlx5_0 is silent with
	// its QP in RTS (a second incident); mlx5_1's QP left RTS at 22 s, and
	// mlx5_2 never had a rate.
	st := r.Stats()
	if st.Incidents[TriggerSilence] != 2 {
		t.Errorf("stats %+v, want two traffic-stopped incidents", st)
	}
	// The first incident's window reaches back --before (3 s) from the
	// port's last traffic (4 s), not from the trigger (9 s): the moment
	// the job stopped is in it.
	sides, _ := filepath.Glob(filepath.Join(dir, "*"+sidecarExt))
	if len(sides) != 2 {
		t.Fatalf("sidecars %v", sides)
	}
	slices.Sort(sides)
	var side Sidecar
	b, err := os.ReadFile(sides[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &side); err != nil {
		t.Fatal(err)
	}
	if !side.Trigger.Time.Equal(t0.Add(9*time.Second)) || !side.Trigger.Since.Equal(t0.Add(4*time.Second)) ||
		!side.Start.Equal(t0.Add(1*time.Second)) {
		t.Errorf("trigger %+v, start %s: want the trigger at 9 s, since 4 s, the window from 1 s", side.Trigger, side.Start)
	}
	ticks, _, _ := readIncident(t, strings.TrimSuffix(sides[0], sidecarExt)+recordingExt)
	if len(ticks) == 0 || !ticks[0].Equal(t0.Add(1*time.Second)) {
		t.Errorf("the recording's ticks %v, want from 1 s", ticks)
	}
}

// --trigger-silence plus --before must fit in --keep: otherwise the
// moment traffic stopped is gone from memory when the silence is judged.
func TestSilenceFitsInKeep(t *testing.T) {
	o := Options{Dir: t.TempDir(), Keep: DefaultKeep, Before: DefaultBefore, Silence: DefaultSilence, Severity: rules.Critical}
	if err := o.check(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	o.Silence = 9 * time.Minute
	if err := o.check(); err == nil || !strings.Contains(err.Error(), "--trigger-silence 9m0s plus --before 2m0s") {
		t.Errorf("9 m + 2 m against 10 m: %v", err)
	}
}

// The screen's header words: incidents written, one being written.
func TestState(t *testing.T) {
	r, _, _ := newTestRecorder(t, nil)
	if s := r.State(); s != "flight: 0 incidents" {
		t.Errorf("%q", s)
	}
	fd := &feed{r: r, frames: realFrames(t), ppt: 1}
	for i := range 12 {
		var fr func(*monitor.Frame)
		if i == 5 {
			fr = linkFlap
		}
		fd.second(t, i, fr)
		if i == 6 && r.State() != "flight: writing an incident" {
			t.Errorf("second 6: %q", r.State())
		}
	}
	if s := r.State(); s != "flight: 1 incident" {
		t.Errorf("%q", s)
	}
}

// Triggers waiting for a tick are bounded (a signal sent in a loop while
// no tick comes): the first maxPending are kept, the rest counted.
func TestPendingTriggersBounded(t *testing.T) {
	r, _, _ := newTestRecorder(t, nil)
	for range maxPending + 44 {
		r.Trigger("loop")
	}
	if err := r.WriteTick(&bundle.Tick{Time: t0, Full: true}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	st := r.Stats()
	if st.Suppressed[TriggerManual] != 44 || st.Merged != maxPending-1 || st.Incidents[TriggerManual] != 1 {
		t.Errorf("stats %+v", st)
	}
}

// How the live run kept time and what its recording queue dropped stay
// in the incident: its ticks keep their Skipped, LateS and running
// Capture.Unrecorded, and the sidecar counts the late ticks, the
// intervals skipped and the frames the queue dropped in the window (the
// lab's 1,390, which the sidecar said were 0).
func TestIncidentKeepsHowTheRunFared(t *testing.T) {
	r, dir, _ := newTestRecorder(t, nil)
	frames := realFrames(t)
	for i := range 12 {
		tk := &bundle.Tick{Time: t0.Add(time.Duration(i) * time.Second), Full: true, Capture: &bundle.CaptureState{Unrecorded: 10}}
		if i >= 6 {
			tk.Capture.Unrecorded = 10 + 1390 // the queue fell behind the disk
		}
		if i == 6 || i == 7 {
			tk.Skipped, tk.LateS = 2, 2.4 // a sample overran
		}
		if i == 4 {
			tk.LateS = 0.3 // late, nothing skipped
		}
		frame := frames[i%len(frames)] // a capture runs: the incident's ticks say what it lacks from its first on
		if err := r.WritePacket(gopacket.CaptureInfo{Timestamp: tk.Time.Add(-time.Millisecond), CaptureLength: len(frame), Length: len(frame)}, frame); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteTick(tk); err != nil {
			t.Fatal(err)
		}
		settle(t, r)
		f := &monitor.Frame{Time: tk.Time, Snapshot: &probes.Snapshot{Time: tk.Time}, Rules: []rules.RuleState{{Rule: "x"}}}
		if i == 5 {
			linkFlap(f)
		}
		r.Observe(f)
	}
	r.Close()
	rec := filepath.Join(dir, namePrefix+"20261204T021305Z-link-flap"+recordingExt)
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br, err := bundle.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[int]int{} // by second
	for {
		rec, err := br.ReadRecord()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if tk := rec.Tick; tk != nil {
			skipped[int(tk.Time.Sub(t0)/time.Second)] = tk.Skipped
			if want := map[bool]uint64{false: 10, true: 1400}[tk.Time.Sub(t0) >= 6*time.Second]; tk.Capture == nil || tk.Capture.Unrecorded != want {
				t.Errorf("tick %s: capture %+v, want unrecorded %d", tk.Time, tk.Capture, want)
			}
			if (tk.LateS > 0) != (tk.Skipped > 0 || tk.Time.Equal(t0.Add(4*time.Second))) {
				t.Errorf("tick %s: late %gs", tk.Time, tk.LateS)
			}
		}
	}
	if len(skipped) != 6 || skipped[6] != 2 || skipped[7] != 2 || skipped[5] != 0 {
		t.Errorf("the incident's ticks (2 s to 7 s) by second: skipped %v", skipped)
	}
	b, err := os.ReadFile(strings.TrimSuffix(rec, recordingExt) + sidecarExt)
	if err != nil {
		t.Fatal(err)
	}
	var side Sidecar
	if err := json.Unmarshal(b, &side); err != nil {
		t.Fatal(err)
	}
	if side.TicksLate != 3 || side.TicksSkipped != 4 || side.PacketsUnrecorded != 1390 {
		t.Errorf("sidecar: %d late ticks, %d skipped, %d frames unrecorded: want 3, 4 and 1390", side.TicksLate, side.TicksSkipped, side.PacketsUnrecorded)
	}
}
