package kmsg

import (
	"regexp"
	"sync"
	"testing"
)

// TestLazyPatterns compiles every pattern: they are compiled on first use,
// so a bad one would otherwise panic only when a line reaches it. Several
// goroutines ask at once, as concurrent callers would (run alone under
// -race, this is their first use).
func TestLazyPatterns(t *testing.T) {
	all := []func() *regexp.Regexp{reSyslog, reISO, reFull, rePrio, reMono, reCaller, reWall, reHostKern,
		rePrompt, reJournalMarker, rePrefix, rePCI, reRDMAName, reModulePrefix, rePlugged}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, re := range all {
				re()
			}
			if len(rules()) == 0 {
				t.Error("no rules")
			}
		})
	}
	wg.Wait()
}
