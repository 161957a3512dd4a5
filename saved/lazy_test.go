package saved

import (
	"regexp"
	"sync"
	"testing"
)

// TestLazyPatterns compiles every pattern: they are compiled on first use,
// so a bad one would otherwise panic only when a file reaches it. Several
// goroutines ask at once, as concurrent callers would (run alone under
// -race, this is their first use).
func TestLazyPatterns(t *testing.T) {
	all := []func() *regexp.Regexp{reIBPort, reIBAttr, reIBGID, reNetStat, reNetAttr, reGrepLine, reCatHeader,
		rePrompt, reDevinfoState, reDevinfoPhys, reDevinfoGID, reIPLinkHead, reCounterName, reMlxconfig}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, re := range all {
				re()
			}
			if ipColumn()["rx"]["bytes"] != "rx_bytes" {
				t.Error("ipColumn lost rx bytes")
			}
		})
	}
	wg.Wait()
}
