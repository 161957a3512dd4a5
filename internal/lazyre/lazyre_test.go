package lazyre

import (
	"sync"
	"testing"
)

// The pattern is compiled once, and concurrent first callers get the same
// Regexp.
func TestNewCompilesOnce(t *testing.T) {
	re := New(`a(b+)`)
	got := make([]any, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = re() })
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("different Regexps from one New")
		}
	}
	if m := re().FindStringSubmatch("xabbb"); len(m) != 2 || m[1] != "bbb" {
		t.Errorf("match %q", m)
	}
}
