package flight

import (
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/monitor"
)

// silence follows each port's traffic (probes.Traffic: its RDMA byte
// counters, or its netdev's where the driver has none) for
// TriggerSilence: the port carried traffic, then none for
// Options.Silence while QPs on it
// stayed in RTS. No transport error comes of it (an idle QP has nothing
// to time out), so nothing else triggers: the job above the QPs hung.
type silence struct {
	after time.Duration // 0: off
	ports map[string]*portQuiet
}

type portQuiet struct {
	active time.Time // the last Frame with traffic
	fired  bool      // this silence has triggered
}

// judge returns the detail of a port gone silent in f, if one has, and
// when it last carried traffic.
func (s *silence) judge(f *monitor.Frame) (string, time.Time, bool) {
	if s.after <= 0 || f.Snapshot == nil {
		return "", time.Time{}, false
	}
	type key struct {
		dev  string
		port int
	}
	rts := map[key]int{}
	for _, q := range f.Snapshot.QPs {
		if q.State == "RTS" {
			rts[key{q.Device, q.Port}]++
		}
	}
	if s.ports == nil {
		s.ports = map[string]*portQuiet{}
	}
	seen := map[string]bool{}
	detail, since, found := "", time.Time{}, false
	for _, p := range f.Snapshot.Ports {
		id := fmt.Sprintf("%s/%d", p.Device, p.Port)
		seen[id] = true
		tr := p.Traffic
		if tr.RxBytesPerSec == nil || tr.TxBytesPerSec == nil {
			continue // no rate this tick: no evidence either way
		}
		st := s.ports[id]
		if st == nil {
			st = &portQuiet{}
			s.ports[id] = st
		}
		if *tr.RxBytesPerSec+*tr.TxBytesPerSec > 0 {
			st.active, st.fired = f.Time, false
			continue
		}
		n := rts[key{p.Device, p.Port}]
		if st.active.IsZero() || st.fired || n == 0 || f.Time.Sub(st.active) < s.after {
			continue
		}
		st.fired = true
		if !found {
			detail, found = fmt.Sprintf("%s: no RDMA traffic for %s while %d QPs stay in RTS", id, f.Time.Sub(st.active).Round(time.Second), n), true
			since = st.active
		}
	}
	for id := range s.ports {
		if !seen[id] {
			delete(s.ports, id) // the port went away: its state with it
		}
	}
	return detail, since, found
}
