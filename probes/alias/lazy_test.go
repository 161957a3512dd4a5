package alias

import (
	"sync"
	"testing"
)

// TestConcurrentFirstUse: the tables are built on first use, and
// concurrent first callers must all see them whole (run alone under -race,
// this is their first use).
func TestConcurrentFirstUse(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if got := TableFor("mlx5_core", SourceHWCounters); got != TableMLX5 {
				t.Errorf("TableFor(mlx5_core, hw_counters) = %q", got)
			}
			if m, ok := Map("mlx5_core", "out_of_buffer"); !ok || m.Canonical == "" {
				t.Errorf("Map(mlx5_core, out_of_buffer) = %+v, %v", m, ok)
			}
			if in := Lookup("rx_packets"); in.Name != "rx_packets" {
				t.Errorf("Lookup(rx_packets) = %+v", in)
			}
			if len(Entries()) == 0 {
				t.Error("no entries")
			}
		})
	}
	wg.Wait()
}
