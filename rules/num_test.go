package rules

import "testing"

// Evidence numbers read as a person writes them: no exponent (the report
// said "2.061e+04 pause frames/s"), 4 significant digits below 10,000.
func TestHumanFloat(t *testing.T) {
	for x, want := range map[float64]string{
		20610.3: "20610", 2.3e6: "2300000", 9999.6: "10000", 68.5512: "68.55", 0.5: "0.5",
		0.00051234: "0.0005123", 1.5e-7: "0.00000015", 0: "0", -15687.4: "-15687",
	} {
		if got := humanFloat(x); got != want {
			t.Errorf("humanFloat(%v) = %q, want %q", x, got, want)
		}
	}
}
