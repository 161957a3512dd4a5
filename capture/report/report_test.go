package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/capture"
)

// A report lists the troubled flows first and sums up the ones it does
// not list.
func TestReportSummarisesTheRest(t *testing.T) {
	s := &capture.Summary{RoCEPackets: 1}
	for i := range 60 {
		f := capture.FlowSummary{ID: i + 1, Src: "10.0.0.1", Dst: "10.0.0.2", Packets: 10, Bytes: 1000}
		if i < 3 || i == 55 {
			f.Troubled, f.PSNGaps = true, 1
		}
		s.Flows = append(s.Flows, f)
	}
	var b bytes.Buffer
	if err := Write(&b, s, Options{MaxFlows: 50}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// The table stays as narrow as its rows: the sum is a line of its own.
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "10.0.0.1 -> 10.0.0.2") && len(l) > 140 {
			t.Errorf("a flow row is %d characters wide: %q", len(l), l)
		}
	}
	for _, want := range []string{
		"flows (60, 4 troubled; troubled first)",
		"  ... 10 more flows (1 troubled, 9 calm): 100 packets, 10000 bytes; all of them with --json",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestReportRingDrops(t *testing.T) {
	drops := uint64(9)
	for _, c := range []struct {
		rings []uint64
		want  string
	}{
		{nil, "kernel   9 frames dropped by the kernel before rdmatop saw them\n"},
		{[]uint64{0, 9}, "kernel   9 frames dropped by the kernel before rdmatop saw them (by ring: 0 9)\n"},
	} {
		var b bytes.Buffer
		if err := Write(&b, &capture.Summary{KernelDrops: &drops, RingDrops: c.rings}, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("rings %v: report lacks %q:\n%s", c.rings, c.want, b.String())
		}
	}
}

// A file that sets no snap length (pcapng's 0: no limit) is said to set
// none, not to keep 0 bytes of each frame.
func TestReportSnapLength(t *testing.T) {
	for snap, want := range map[uint32]string{0: ", ethernet, no snap length set)", 128: ", ethernet, snaplen 128)"} {
		var b bytes.Buffer
		if err := Write(&b, &capture.Summary{File: "x.pcapng", Format: "pcapng", LinkType: "ethernet", Snaplen: snap}, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("snap length %d: %q", snap, strings.SplitN(b.String(), "\n", 2)[0])
		}
	}
}
