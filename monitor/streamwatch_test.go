package monitor

import (
	"strings"
	"testing"
	"time"
)

// What a stream's status says: its name and how far behind its packets
// come, that it has been quiet, or that its packets are too old to be
// joined with the tick's host sample.
func TestStreamWatchDetail(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tick := time.Second
	for _, c := range []struct {
		name string
		w    streamWatch
		want string
	}{
		{"not a stream", streamWatch{lag: time.Hour, lagKnown: true}, ""},
		{"no packet yet, quiet briefly", streamWatch{name: "stdin", idleSince: now.Add(-3 * time.Second)}, "stream stdin"},
		{"keeping up", streamWatch{name: "stdin", lag: 1234 * time.Microsecond, lagKnown: true}, "stream stdin, 1ms behind"},
		{"quiet", streamWatch{name: "/run/wire", lag: time.Millisecond, lagKnown: true, idleSince: now.Add(-42 * time.Second)},
			"stream /run/wire: no packet for 42s"},
		{"late", streamWatch{name: "stdin", lag: 3*time.Minute + 12*time.Second, lagKnown: true},
			"stream stdin 3m12s behind the host clock: not now's traffic"},
		{"days late", streamWatch{name: "stdin", lag: 179*time.Hour + 24*time.Minute + 54*time.Second, lagKnown: true},
			"stream stdin 179h25m behind the host clock: not now's traffic"},
	} {
		if got := c.w.detail(now, tick); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// A lag of a tick or less is the stream keeping up.
	w := streamWatch{name: "stdin", lag: tick, lagKnown: true}
	if d := w.detail(now, tick); strings.Contains(d, "not now's") {
		t.Errorf("a lag of one tick: %q", d)
	}
}
