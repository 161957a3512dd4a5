package probes

// Counter semantics. Kernel counters come in three kinds, and a rate must be
// right for each: 64-bit counters that only a reset brings back to zero,
// narrower counters that wrap (mlx5 q-counters are 32-bit), and IBTA PMA
// counters that saturate at their width and stay there. Any of them can
// reset (device reset, driver reload). Rates are never negative and never
// spike on a reset: an interval whose delta cannot be known has no rate.

// Behavior is how a counter moves past its maximum.
type Behavior uint8

// Counter behaviours.
const (
	Wraps      Behavior = iota // modulo 2^Width
	Saturates                  // stops at 2^Width-1 (IBTA PMA counters)
	NotCounter                 // a gauge or setting: no delta
)

// Width is a counter's width in bits; 0 means 64.
type Width uint8

// Note explains a delta that is not simply cur-prev.
type Note string

// Delta notes.
const (
	NoteNone      Note = ""
	NoteFirst     Note = "first_sample" // nothing to compare with yet
	NoteWrapped   Note = "wrapped"      // passed 2^width and wrapped: delta corrected
	NoteReset     Note = "reset"        // went backwards: reset, delta unknown
	NoteSaturated Note = "saturated"    // at its maximum: the delta is a lower bound
	NoteGauge     Note = "gauge"        // not a counter
	// NoteStale: not read in this sample (its source or file did not
	// answer); Value is the last reading, StaleS old. No delta, no rate:
	// a value carried forward did not "move 0".
	NoteStale Note = "stale"
)

func (w Width) max() uint64 {
	if w == 0 || w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// Delta returns how much a counter grew from prev to cur, and whether that
// is known. A 32-bit counter that went backwards from the upper half of its
// range by less than half its range wrapped; anything else that goes
// backwards was reset.
func Delta(prev, cur uint64, w Width, b Behavior) (delta uint64, known bool, note Note) {
	switch b {
	case NotCounter:
		return 0, false, NoteGauge
	case Saturates:
		if cur < prev {
			return 0, false, NoteReset
		}
		if cur == w.max() {
			return cur - prev, true, NoteSaturated
		}
		return cur - prev, true, NoteNone
	}
	if cur >= prev {
		return cur - prev, true, NoteNone
	}
	m := w.max()
	if m != ^uint64(0) && prev <= m && prev > m/2 {
		if d := m - prev + cur + 1; d <= m/2 {
			return d, true, NoteWrapped
		}
	}
	return 0, false, NoteReset
}
