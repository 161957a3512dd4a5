package capture

import "testing"

// Percent rounds to the nearest, half away from zero, and is 0 of nothing.
func TestPercent(t *testing.T) {
	for _, c := range []struct {
		part, whole float64
		want        int
	}{{2635775, 3307464, 80}, {1, 8, 13}, {793, 1000, 79}, {5, 0, 0}, {3, 3, 100}} {
		if got := Percent(c.part, c.whole); got != c.want {
			t.Errorf("Percent(%v, %v) = %d, want %d", c.part, c.whole, got, c.want)
		}
	}
}
