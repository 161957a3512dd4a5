package capture

import (
	"testing"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// The oferby capture's responder advertises end-to-end credits (AETH credit
// codes 5 and 6 in Wireshark's decode: 6 and 8 credits).
func TestACKCredits(t *testing.T) {
	s := analyze(t, "../testdata/pcaps/oferby-proxy_roce.pcap", Config{})
	seen := map[int]bool{}
	for _, f := range s.Flows {
		if f.LastACKCredits != nil {
			seen[*f.LastACKCredits] = true
		}
		if f.ZeroCreditACKs != 0 {
			t.Errorf("flow %d: %d zero-credit ACKs", f.ID, f.ZeroCreditACKs)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no credits reported")
	}
	for c := range seen {
		if c != 6 && c != 8 {
			t.Errorf("credits %d: Wireshark shows codes 5 and 6 (6 and 8 credits) only", c)
		}
	}
}

func TestPSNDiffWraps(t *testing.T) {
	for _, c := range []struct {
		a, b uint32
		d    int
	}{{0, 1, 1}, {1, 0, -1}, {0xffffff, 0, 1}, {0, 0xffffff, -1}, {5, 5, 0}, {0, 1 << 23, 1 << 23}, {0, 1<<23 + 1, -(1<<23 - 1)}} {
		if got := psnDiff(c.a, c.b); got != c.d {
			t.Errorf("psnDiff(%#x, %#x) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
	if psnAdd(0xfffffe, 3) != 1 || psnAdd(0, -1) != 0xffffff {
		t.Error("psnAdd does not wrap at 2^24")
	}
}

func TestRTTHistogram(t *testing.T) {
	var h rttHist
	for i := 1; i <= 1000; i++ {
		h.add(int64(i) * 1000) // 1..1000 µs
	}
	s := h.summary()
	if s.Samples != 1000 || s.Min != 1 || s.Max != 1000 {
		t.Fatalf("%+v", s)
	}
	for _, c := range []struct{ got, want float64 }{{s.P50, 500}, {s.P99, 990}, {s.P999, 999}} {
		if c.got < c.want*0.99 || c.got > c.want*1.0625 {
			t.Errorf("percentile %v, want %v within the 6.25%% bucket", c.got, c.want)
		}
	}
	var one rttHist
	one.add(12345)
	if r := one.summary(); r.P50 != 12.345 || r.P99 != 12.345 {
		t.Errorf("a single sample must be exact: %+v", r)
	}
}

// The recent-packets ring lists a flow's last packets in order.
func TestRecentPackets(t *testing.T) {
	a := NewAnalyzer(Config{})
	src, err := pcapfile.Open("../testdata/rxe/faults/rnr-exceeded/capture.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := a.Run(src); err != nil {
		t.Fatal(err)
	}
	all := a.Tracker().Recent(0, 100)
	if len(all) != 12 {
		t.Fatalf("%d recent packets, want the capture's 12", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Packet <= all[i-1].Packet {
			t.Fatalf("not in order: %+v", all)
		}
	}
	// The responder's flow carries 3 RNR NAKs (syndrome 56) and 3
	// sequence NAKs (96), and nothing else (MANIFEST: rnr-exceeded).
	resp := -1
	for _, l := range all {
		if l.Syndrome == 56 {
			resp = l.FlowID
		}
	}
	var rnr, seq int
	lines := a.Tracker().Recent(resp, 100)
	for _, l := range lines {
		switch l.Syndrome {
		case 56:
			rnr++
		case 96:
			seq++
		}
	}
	if len(lines) != 6 || rnr != 3 || seq != 3 {
		t.Errorf("responder flow lines %d (RNR %d, seq %d), want 6 (3, 3)", len(lines), rnr, seq)
	}
}
