package rules

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// soakTicks is the length of TestSoak: 100,000 frames, 27.8 hours of a
// live run at 1 s ticks. -short, and the race detector (ten times slower,
// and the engine has a single goroutine), run a tenth of it.
const soakTicks = 100_000

// TestSoak runs the whole built-in pack over 100,000 frames of a live run
// (1 s ticks: 27.8 hours) whose QPs churn: soakQPs QPs per frame, soakNew
// of them destroyed and replaced every tick (each QP lives soakQPs/soakNew
// ticks). Halfway through its life one new QP in four goes to ERR (an
// RTS -> ERR event, then the state) and stays there until it is
// destroyed, so qp-error-state fires and resolves all along: one finding
// every other tick, and two a tick during a burst of 100 ticks every
// 1,000, when every QP fails (65,000 findings in the run).
//
// The engine forgets as a live run does, scaled down so that both limits
// act: a retention of 2 minutes (about 60 resolved findings in calm
// times) and a cap of 150 (reached in the bursts). The scale keeps each
// frame small (the engine copies every finding it keeps into each Result),
// so the 100,000 frames take seconds; TestChurnLeavesNoState covers the
// policies' exact behaviour.
//
// It asserts that the engine's state stays bounded (timers, findings,
// their order and the resolution queue, checked every 1,000 ticks) and
// that the live heap after GC does not grow between the end of the
// warm-up and the end of the run (see soakHeapSlack). Not timed: the
// run's length is logged.
func TestSoak(t *testing.T) {
	ticks := soakTicks
	if testing.Short() || raceOn {
		ticks = soakTicks / 10
	}
	const (
		soakQPs = 32 // per frame; few, so that 100,000 frames take seconds
		soakNew = 2  // replaced per tick: each QP lives 16 ticks
		warmup  = 2_000
	)
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(p)
	e.Retention, e.MaxResolved = soakRetention, soakMaxResolved

	// The frame is reused, as the sampler's would not be, so that the heap
	// measured is the engine's. It has no port: the port and priority rules
	// cost the same every tick whatever the run's length (BenchmarkEvaluatePack
	// measures them), and without them 100,000 ticks take seconds.
	snap := &probes.Snapshot{QPs: make([]probes.QP, soakQPs),
		Status: []probes.Status{{Source: "sysfs", State: probes.StateOK}, {Source: "rdma netlink", State: probes.StateOK}}}
	pid := 4242
	born := make([]int, soakQPs) // tick each slot's QP was created
	qpns := make([]uint32, soakQPs)
	var next uint32 = 0x100
	for i := range snap.QPs {
		snap.QPs[i] = probes.QP{Device: "mlx5_0", Port: 1, LQPN: next, Type: "RC", State: "RTS", PID: &pid, Comm: "trainer", MemlockUnlimited: true}
		next++
	}
	events := make([]probes.Event, 0, soakNew)
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)

	var heap0 uint64
	var res Result
	start := time.Now()
	fired := 0
	for tick := range ticks {
		now := t0.Add(time.Duration(tick) * time.Second)
		snap.Time = now
		events = events[:0]
		for k := range soakNew { // replace the oldest soakNew QPs
			i := (tick*soakNew + k) % soakQPs
			snap.QPs[i].LQPN, snap.QPs[i].State = next, "RTS"
			born[i] = tick
			next++
		}
		burst := tick%1000 >= 900
		for i := range snap.QPs { // one in four (all in a burst) goes to ERR halfway
			if q := &snap.QPs[i]; (burst || q.LQPN%4 == 0) && q.State == "RTS" && tick-born[i] == soakQPs/soakNew/2 {
				q.State = "ERR"
				qpns[i] = q.LQPN
				events = append(events, probes.Event{Time: now, Source: "qp", Kind: "qp_state", Severity: probes.SevCritical,
					Device: q.Device, QPN: &qpns[i], Detail: "RTS -> ERR"})
			}
		}
		snap.Events = events
		res = e.Evaluate(Frame{Time: now, Snapshot: snap, Live: true})
		for _, f := range res.Findings {
			if f.Rule == "qp-error-state" && !f.Resolved && f.FirstSeen.Equal(now) {
				fired++
			}
		}
		if tick%1000 == 999 || tick%1000 == 50 { // the end of a burst, and calm
			soakCheckBounded(t, e, tick, soakQPs)
		}
		if tick == warmup-1 {
			heap0 = soakHeap()
		}
	}
	elapsed := time.Since(start)
	heap1 := soakHeap()
	// The engine, the frame and the last result are live at both
	// measurements (without this the compiler may let them die first).
	runtime.KeepAlive(e)
	runtime.KeepAlive(snap)
	runtime.KeepAlive(res)

	// One new QP in four fails, all of them one tick in ten.
	if want := ticks * soakNew * 325 / 1000; fired < want*95/100 || fired > want {
		t.Errorf("qp-error-state fired %d times in %d ticks, want about %d", fired, ticks, want)
	}
	if kept := len(res.Findings); uint64(kept)+res.Forgotten != uint64(fired) || kept > soakMaxResolved+soakQPs {
		t.Errorf("at the end: %d findings reported, %d forgotten, %d fired", kept, res.Forgotten, fired)
	}
	growth := int64(heap1) - int64(heap0)
	t.Logf("%d ticks in %v (%.1f µs a tick); qp-error-state fired %d times, %d findings kept at the end, %d forgotten; live heap after GC %d KiB after the warm-up (%d ticks), %d KiB at the end (%+d KiB)",
		ticks, elapsed.Round(time.Millisecond), float64(elapsed.Microseconds())/float64(ticks), fired, len(res.Findings), res.Forgotten,
		heap0>>10, warmup, heap1>>10, growth>>10)
	if growth > soakHeapSlack {
		t.Errorf("live heap grew by %d KiB over %d ticks (slack %d KiB): the engine keeps something per tick", growth>>10, ticks-warmup, soakHeapSlack>>10)
	}
}

// The soak's forgetting policy (see TestSoak).
const (
	soakRetention   = 2 * time.Minute
	soakMaxResolved = 150
)

// soakHeapSlack is how much the live heap may differ between the end of the
// warm-up and the end of the soak without a leak. Both measurements fall
// at the same point of the 1,000-tick cycle, where the engine keeps the
// same number of findings, but its containers are sized by history: the
// order slice and the findings map are rebuilt when half of them are
// holes, so either may hold anywhere between one and two times its
// content (a few hundred entries: a few KiB of slice, ~20 KiB of map); the
// resolution queue likewise; findings' evidence strings differ in length
// by a few bytes (QP numbers grow); and the runtime's own heap (the
// testing package, profiling buckets) moves by a few KiB. 128 KiB covers
// all of that, and a leak of 2 bytes a tick over 98,000 ticks exceeds it.
const soakHeapSlack = 128 << 10

func soakHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC() // the second cycle frees what the first one's finalizers released
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// soakCheckBounded checks the engine's containers against what the run can
// justify: timers for the objects of at most two frames (this one and
// the one missed), findings for soakMaxResolved resolved plus the active
// ones (at most one per QP and rule, and a few for the host), and order
// and queue at most twice their content.
func soakCheckBounded(t *testing.T, e *Engine, tick, qps int) {
	t.Helper()
	timers, found, order, queue := e.stateSize()
	limit := soakMaxResolved + 2*qps + 64
	if timers > 2*(qps+64) || found > limit || order > 2*found+1 || queue > 2*soakMaxResolved+1 || len(e.active) > found {
		t.Fatalf("tick %d: %d timers, %d findings kept (limit %d), %d in order, %d queued, %d active", tick, timers, found, limit, order, queue, len(e.active))
	}
}

// BenchmarkEvaluateChurn is a live tick on a busy host: 10,000 QPs, 200 of
// them replaced each frame, one in twenty of those in ERR (about 500
// active qp-error-state findings, 10 resolving a tick), with the live
// policy (LiveRetention, LiveMaxResolved). Measured in the steady state:
// after 160 frames the engine keeps 1,000 resolved findings, forgets 10 a
// tick and copies 1,500 findings into every Result.
func BenchmarkEvaluateChurn(b *testing.B) {
	p, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	e := NewEngine(p)
	e.Retention, e.MaxResolved = LiveRetention, LiveMaxResolved
	const nQP, nNew = 10_000, 200
	snap := &probes.Snapshot{QPs: make([]probes.QP, nQP), Ports: []probes.Port{{Device: "mlx5_0", Port: 1, State: "ACTIVE", LinkLayer: "Ethernet"}},
		Status: []probes.Status{{Source: "sysfs", State: probes.StateOK}, {Source: "rdma netlink", State: probes.StateOK}}}
	var next uint32
	for i := range snap.QPs {
		snap.QPs[i] = probes.QP{Device: fmt.Sprintf("mlx5_%d", i%4), LQPN: next, Type: "RC", State: "RTS", MemlockUnlimited: true}
		next++
	}
	t := time.Unix(1_800_000_000, 0)
	tick := 0
	step := func() Result {
		for k := range nNew {
			i := (tick*nNew + k) % nQP
			snap.QPs[i].LQPN = next
			snap.QPs[i].State = map[bool]string{true: "ERR", false: "RTS"}[next%20 == 0]
			next++
		}
		tick++
		t = t.Add(time.Second)
		snap.Time = t
		return e.Evaluate(Frame{Time: t, Snapshot: snap, Live: true})
	}
	for range 160 { // 50 to replace every QP, then 100 of 10 resolutions
		step()
	}
	if res := step(); res.Forgotten == 0 {
		b.Fatalf("not in the steady state: %d findings, none forgotten", len(res.Findings))
	}
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}
