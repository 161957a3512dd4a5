package flight

import (
	"testing"
	"time"
)

// settle waits until the incident writer has written everything the
// recorder was handed (no incident, or the open one caught up with the
// ring), as a live run's next tick, a second later, finds it. Tests feed
// ticks back to back; without it the writer would be a run's minutes
// behind and find their windows gone from the ring.
func settle(t testing.TB, r *Recorder) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r.mu.Lock()
		idle := len(r.jobs) == 0 || len(r.jobs) == 1 && r.jobs[0].until == 0 && r.wrote == r.ring.seq
		r.mu.Unlock()
		if idle {
			return
		}
		r.wakeWriter() // frames since the last wake wait for a tick or a MiB
		if time.Now().After(deadline) {
			t.Fatal("the incident writer did not catch up in 30 s")
		}
		time.Sleep(100 * time.Microsecond)
	}
}
