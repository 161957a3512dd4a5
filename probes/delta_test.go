package probes

import "testing"

func TestDelta(t *testing.T) {
	const u32 = 1<<32 - 1
	for _, c := range []struct {
		name      string
		prev, cur uint64
		w         Width
		b         Behavior
		delta     uint64
		known     bool
		note      Note
	}{
		{"64-bit grows", 100, 250, 0, Wraps, 150, true, NoteNone},
		{"64-bit reset", 1 << 40, 12, 0, Wraps, 0, false, NoteReset},
		{"32-bit wraps", u32 - 9, 5, 32, Wraps, 15, true, NoteWrapped},
		{"32-bit wraps from exactly max", u32, 0, 32, Wraps, 1, true, NoteWrapped},
		{"32-bit low value going back is a reset", 1000, 10, 32, Wraps, 0, false, NoteReset},
		{"32-bit implausible wrap is a reset", u32 - 10, u32 / 2, 32, Wraps, 0, false, NoteReset},
		{"32-bit value above width is a reset", 1 << 33, 5, 32, Wraps, 0, false, NoteReset},
		{"PMA saturates at max", 65530, 65535, 16, Saturates, 5, true, NoteSaturated},
		{"PMA stuck at max", 65535, 65535, 16, Saturates, 0, true, NoteSaturated},
		{"PMA reset", 65535, 3, 16, Saturates, 0, false, NoteReset},
		{"PMA grows", 7, 9, 32, Saturates, 2, true, NoteNone},
		{"gauge", 5, 3, 0, NotCounter, 0, false, NoteGauge},
	} {
		d, k, n := Delta(c.prev, c.cur, c.w, c.b)
		if d != c.delta || k != c.known || n != c.note {
			t.Errorf("%s: Delta(%d, %d) = %d %v %q, want %d %v %q", c.name, c.prev, c.cur, d, k, n, c.delta, c.known, c.note)
		}
	}
}
