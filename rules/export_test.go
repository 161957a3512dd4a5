package rules

import "testing"

// CheckNoFailures fails t when a condition of e's pack failed (raised an
// error) in any frame e evaluated: the bundled pack says what data it
// needs with known() and need(), so that its common path runs without
// errors.
func CheckNoFailures(t testing.TB, e *Engine) {
	t.Helper()
	for k, err := range e.failures {
		t.Errorf("%s failed: %v (a condition should say what it needs: known(), need())", k, err)
	}
}
