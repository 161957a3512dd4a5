package capture

import (
	"path/filepath"
	"reflect"
	"testing"
)

// A flow without troubles reads noTrouble; writing it would give every
// such flow the troubles of another. Real captures with loss, resends,
// NAKs, CNPs and duplicates exercise every writer.
func TestNoTroubleNeverWritten(t *testing.T) {
	var files []string
	for _, glob := range []string{"../testdata/rxe/pcap/*.pcap", "../testdata/pcaps/*.pcap*", "../testdata/wiretruth/*/*.pcap.gz"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d captures found", len(files))
	}
	troubled := 0
	for _, f := range files {
		if filepath.Ext(f) == ".csv" || filepath.Ext(f) == ".md" {
			continue
		}
		s, err := AnalyzeFile(f, Config{})
		if err != nil {
			continue // damaged on purpose: other tests say how
		}
		troubled += int(s.Totals.PSNGaps + s.Totals.RetransmittedPackets + s.Totals.NAKs.Total() + s.Totals.CNPs + s.Totals.Duplicates)
	}
	if troubled == 0 {
		t.Fatal("no capture had any trouble: the test exercises no writer")
	}
	if noTrouble != (flowTrouble{}) {
		t.Errorf("noTrouble was written: %+v", noTrouble)
	}
}

// A flow is what a capture of many short-lived QPs spends its time on:
// each new flow reuses the least recently seen one, never in cache, and
// the table of 65,536 flows is most of a replay's heap. Eight cache lines
// at most: what is needed only when something goes wrong lives in
// flowTrouble (trouble.go).
func TestFlowSize(t *testing.T) {
	size := reflect.TypeFor[Flow]().Size()
	t.Logf("a Flow is %d bytes, its troubles %d", size, reflect.TypeFor[flowTrouble]().Size())
	if size > 512 {
		t.Errorf("a Flow is %d bytes, over 512: keep what is rare in flowTrouble", size)
	}
}
