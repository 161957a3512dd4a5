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

// The bounds of TestBackfillDoesNotStallTheLoop. The work they bound is
// small: a tick here is a few packets and a small tick kept (well under
// a millisecond), Stats copies a few counters, and the incident writer
// holds the lock they wait on for one batch at a time (a copy of at most
// 1 MiB: a tenth of a millisecond, a few under the race detector). What
// is left is the scheduler of a 2-core machine that the writer's gzip,
// the race detector, the test's feeders and the machine's other tenants
// share: Go preempts a goroutine after 10 ms, so 100 ms is ten slices of
// headroom, and still ten to a hundred times less than the seconds the
// back-fill of 64 MiB takes (on the base, under the lock).
//
// A tick's lateness (how long after its due time it started) is the
// test's own timer on that loaded machine: up to 80 ms was seen under
// -race while the tick path itself took under 5 ms. It is bounded at two
// and a half periods: a run that lost its period (the base: 16 s) is far
// past it, a busy scheduler is not.
const (
	stallPeriod = 100 * time.Millisecond // the simulated run's tick
	stallBound  = 100 * time.Millisecond // a tick's work, a Stats, a scrape, a Trigger
	lateBound   = 250 * time.Millisecond // a tick's start after its due time
)

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
// packets through gzip while the run keeps ticking on time, the
// collector and Stats answer within 100 ms, and Observe and Trigger
// never wait on the file (go test -race).
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

	// The operator's trigger; the run ticks on, every stallPeriod, with
	// traffic, until the writer has written the ring's past.
	r.Trigger("test")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var worstStats, worstScrape, worstTrigger time.Duration
	var slow []string
	var mu sync.Mutex
	report := func(what string, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		if !ok {
			slow = append(slow, what+" did not answer within "+stallBound.String())
		}
	}
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			d, ok := within(stallBound, func() { r.Stats() })
			report("Stats", ok)
			worstStats = max(worstStats, d)
			d, ok = within(stallBound, func() {
				if _, err := reg.Gather(); err != nil {
					t.Error(err)
				}
			})
			report("the collector", ok)
			worstScrape = max(worstScrape, d)
			if i%50 == 0 {
				d, ok = within(stallBound, func() { r.Trigger("again") }) // merged into the incident
				report("Trigger", ok)
				worstTrigger = max(worstTrigger, d)
			}
		}
	})

	var target uint64 // the ring's newest item when the trigger was acted on
	var worstTick, worstLate time.Duration
	ticks := 0
	next := time.Now()
	deadline := next.Add(3 * time.Minute)
	for {
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		}
		if late := time.Since(next); late > worstLate {
			worstLate = late
		}
		d, ok := within(stallBound, func() {
			for range 50 {
				packet()
			}
			at = at.Add(stallPeriod)
			tick(false)
			f := &monitor.Frame{Time: at, Snapshot: &probes.Snapshot{Time: at}, Rules: []rules.RuleState{{Rule: "x"}}}
			r.Observe(f)
		})
		if !ok {
			t.Fatalf("tick %d: the tick path did not return within %s while an incident was back-filled", ticks, stallBound)
		}
		worstTick = max(worstTick, d)
		ticks++
		next = next.Add(stallPeriod)
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
	}
	close(stop)
	wg.Wait()
	t.Logf("back-fill of %d MiB kept: %d ticks of %s; worst tick %s, worst lateness %s, worst Stats %s, scrape %s, Trigger %s",
		kept>>20, ticks, stallPeriod, worstTick, worstLate, worstStats, worstScrape, worstTrigger)
	for _, s := range slow {
		t.Error(s)
	}
	if worstLate > lateBound {
		t.Errorf("a tick started %s late: the run lost its period", worstLate)
	}
	if ticks < 3 {
		t.Errorf("the back-fill took %d ticks: too few to have measured anything", ticks)
	}
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
