package rules

import (
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
)

func TestDefaultPackLoads(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) == 0 {
		t.Fatal("empty pack")
	}
}

func analyzeFile(t *testing.T, path string) *capture.Summary {
	t.Helper()
	s, err := capture.AnalyzeFile(path, capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func findings(t *testing.T, f Frame) []Finding {
	t.Helper()
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(p)
	e.IgnoreFor = true
	return e.Evaluate(f).Findings
}

func TestPacketLossOnRealLoss(t *testing.T) {
	fs := findings(t, Frame{Time: time.Unix(0, 0), Wire: analyzeFile(t, "../testdata/rxe/pcap/lossy1.pcap")})
	n := 0
	for _, f := range fs {
		if f.Rule == "packet-loss" {
			n++
		}
	}
	if n != 3 { // the three requester flows (write, read, send) each lost packets
		t.Errorf("packet-loss fired on %d flows, want 3: %+v", n, fs)
	}
	if fs := findings(t, Frame{Time: time.Unix(0, 0), Wire: analyzeFile(t, "../testdata/rxe/pcap/clean.pcap")}); len(fs) != 0 {
		t.Errorf("findings on the clean capture: %+v", fs)
	}
}
