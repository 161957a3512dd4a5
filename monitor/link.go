package monitor

import (
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// linkWatch is the captured interface's state as the capture's readers
// find it (live.LinkDownError), and the time the capture was blind
// because of it: while the interface is down the kernel hands a packet
// socket nothing, so that time is missing from the analysis, and a
// Frame says how much of its interval it is. Guarded by wireState.mu.
type linkWatch struct {
	down  map[int]bool // rings that found the link down
	why   string
	since time.Time     // when the first ring found it down; zero while up
	back  time.Time     // when it came back last
	was   time.Duration // how long it was down then
	blind time.Duration // down time since the last cut, of spans that ended
	total time.Duration // down time since the capture opened, of spans that ended
	cut   time.Time     // the last cut
}

// wentDown notes that ring found the link down at now, for why.
func (l *linkWatch) wentDown(ring int, why string, now time.Time) {
	if l.down == nil {
		l.down = map[int]bool{}
	}
	if len(l.down) == 0 {
		l.since = now
	}
	l.down[ring] = true
	l.why = why
}

// cameUp notes that ring captures again at now; the link is up when no
// ring finds it down.
func (l *linkWatch) cameUp(ring int, now time.Time) {
	if !l.down[ring] {
		return
	}
	delete(l.down, ring)
	if len(l.down) > 0 {
		return
	}
	d := now.Sub(l.since)
	l.blind += now.Sub(laterOf(l.since, l.cut))
	l.total += d
	l.back, l.was, l.since, l.why = now, d, time.Time{}, ""
}

// take returns the blind time since the last cut and starts the next
// interval at end.
func (l *linkWatch) take(end time.Time) time.Duration {
	b := l.blind
	if !l.since.IsZero() {
		b += end.Sub(laterOf(l.since, l.cut))
	}
	l.blind, l.cut = 0, end
	return max(b, 0)
}

// totalAt is the blind time since the capture opened, as of now.
func (l *linkWatch) totalAt(now time.Time) time.Duration {
	if l.since.IsZero() {
		return l.total
	}
	return l.total + max(now.Sub(l.since), 0)
}

// status is the capture's status st as of now: link down while it is,
// and for a while after it came back (backNoted), ok but saying so.
func (l *linkWatch) status(st probes.Status, now time.Time) probes.Status {
	if st.State != probes.StateOK {
		return st // the capture itself failed: that says more
	}
	switch {
	case !l.since.IsZero():
		st.State = probes.StateLinkDown
		st.Detail = fmt.Sprintf("link down since %s (%s)", l.since.Format("15:04:05"), l.why)
	case !l.back.IsZero() && now.Sub(l.back) < backNoted:
		st.Detail = fmt.Sprintf("link back at %s after %s down, nothing captured then",
			l.back.Format("15:04:05"), l.was.Round(100*time.Millisecond))
	}
	return st
}

// backNoted is how long the capture's status says its link came back: a
// minute, long enough to be read on a screen that refreshes every second
// and by a Prometheus scrape (15 to 60 s).
const backNoted = time.Minute

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
