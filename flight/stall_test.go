package flight

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

// heldBound ends TestBackfillDoesNotStallTheLoop when a call waits on the
// writer held in its file I/O: such a call never returns while it is
// held, and a call that does not wait returns in microseconds. 30 s is
// only there so that the test ends, far beyond any scheduler's delay on
// a loaded machine (the earlier bound of 100 ms, a timing, failed under
// a lab VM and the race detector beside it).
const heldBound = 30 * time.Second

// stallPeriod is the simulated run's tick.
const stallPeriod = 100 * time.Millisecond

// within runs f and says how long it took, or that it did not return
// within d (it is left running).
func within(d time.Duration, f func()) (time.Duration, bool) {
	done := make(chan struct{})
	start := time.Now()
	go func() { f(); close(done) }()
	select {
	case <-done:
		return time.Since(start), true
	case <-time.After(d):
		return d, false
	}
}

// A trigger with a full ring: the incident writer back-fills 64 MiB of
// packets through gzip. Held inside its file I/O (as a disk that does not
// answer holds it), the run keeps ticking, and Observe, Stats, the
// collector and Trigger all answer: none waits on the file. Released, it
// writes the ring's past whole (go test -race). How fast the path is
// belongs in a benchmark; this proves what it never waits for.
func TestBackfillDoesNotStallTheLoop(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) {
		o.Keep, o.KeepPackets, o.Before, o.After, o.Cooldown = time.Hour, DefaultKeepPackets, 30*time.Minute, time.Hour, 0
	})
	reg := prometheus.NewRegistry()
	reg.MustRegister(r.Collector())
	frames := realFrames(t)

	// The run so far: a minute of traffic that fills the 64 MiB ring,
	// one tick a second.
	at, n := t0, 0
	packet := func() {
		d := frames[n%len(frames)]
		n++
		at = at.Add(10 * time.Microsecond)
		if err := r.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(d), Length: len(d)}, d); err != nil {
			t.Fatal(err)
		}
	}
	tick := func(full bool) {
		if err := r.WriteTick(&bundle.Tick{Time: at, Full: full, Capture: &bundle.CaptureState{}}); err != nil {
			t.Fatal(err)
		}
	}
	tick(true)
	for r.Stats().MemBytes < DefaultKeepPackets-64<<10 {
		for range 1000 {
			packet()
		}
		at = at.Add(time.Second / 100)
		tick(false)
	}
	kept := r.Stats().MemBytes
	r.mu.Lock()
	keptPkts := uint64(r.ring.pkts.len())
	r.mu.Unlock()

	// The operator's trigger; the writer takes its first batch and is
	// held in the file I/O of it.
	writing, release := make(chan struct{}), make(chan struct{})
	fed := time.Now()
	var once sync.Once
	r.inWrite = func() {
		once.Do(func() {
			close(writing)
			<-release
		})
	}
	// One tick of the run: packets, the host tick, the Frame observed
	// (which acts on a pending trigger).
	step := func() {
		for range 50 {
			packet()
		}
		at = at.Add(stallPeriod)
		tick(false)
		r.Observe(&monitor.Frame{Time: at, Snapshot: &probes.Snapshot{Time: at}, Rules: []rules.RuleState{{Rule: "x"}}})
	}
	var released sync.Once
	letGo := func() { released.Do(func() { close(release) }) }
	t.Cleanup(letGo) // a failure below lets the writer go before Close waits for it
	r.Trigger("test")
	for started := false; !started; {
		if d, ok := within(heldBound, step); !ok {
			t.Fatalf("the tick path waited on the writer as it started (no answer in %s)", d)
		}
		select {
		case <-writing:
			started = true
		case <-time.After(stallPeriod):
		}
		if !started && time.Since(fed) > time.Minute {
			t.Fatal("the writer did not start the back-fill in a minute")
		}
	}
	// The whole tick path, a scrape, Stats and a Trigger, while it is held.
	for i := range 20 {
		for what, call := range map[string]func(){
			"the tick path": step,
			"Stats":         func() { r.Stats() },
			"the collector": func() {
				if _, err := reg.Gather(); err != nil {
					t.Error(err)
				}
			},
			"Trigger": func() { r.Trigger("again") }, // merged into the incident
		} {
			if d, ok := within(heldBound, call); !ok {
				t.Fatalf("round %d: %s waited on the writer held in its file I/O (no answer in %s)", i, what, d)
			}
		}
	}
	letGo()
	// Released, it catches up with what the ring held when triggered and
	// with what came since; the run ticks on meanwhile.
	var target uint64
	deadline := time.Now().Add(3 * time.Minute)
	ticks := 0
	for {
		step()
		ticks++
		r.mu.Lock()
		if target == 0 && len(r.jobs) > 0 {
			target = r.ring.seq
		}
		done := target > 0 && (len(r.jobs) == 0 || r.wrote >= target)
		r.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the back-fill did not end in 3 minutes")
		}
		time.Sleep(stallPeriod)
	}
	t.Logf("back-fill of %d MiB kept: 20 rounds while the writer was held, %d ticks after", kept>>20, ticks)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if st.Incidents[TriggerManual] != 1 || st.Failures != 0 {
		t.Errorf("stats %+v", st)
	}
	// The incident holds the ring's past (the back-fill happened, whole)
	// and what came during it.
	sides, _ := filepath.Glob(filepath.Join(dir, "*"+sidecarExt))
	if len(sides) != 1 {
		t.Fatalf("sidecars %v", sides)
	}
	b, err := os.ReadFile(sides[0])
	if err != nil {
		t.Fatal(err)
	}
	var side Sidecar
	if err := json.Unmarshal(b, &side); err != nil {
		t.Fatal(err)
	}
	// Every frame is in it or counted (the ring's own evictions while it
	// filled are in its first intervals); the writer, slower than the
	// test's feeder under -race, kept the ring's past whole.
	if side.Packets+side.PacketsUnrecorded != uint64(n) || side.Packets < keptPkts {
		t.Errorf("the incident holds %d packets and lacks %d of the %d fed: want all of the %d the ring kept when triggered",
			side.Packets, side.PacketsUnrecorded, n, keptPkts)
	}
}
