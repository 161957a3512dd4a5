package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rdmatop/rdmatop/internal/faultspec"
)

func TestReadMeta(t *testing.T) {
	meta := `spec: x | ib_write_bw -n 10 | loss 3% | tbf rate 20mbit burst 3044 limit 6088 ; red limit 9 min 1 max 3 avpkt 1500 burst 2 probability 0.1 bandwidth 20mbit ecn |  | src mid | v4
mtu: 1500
client exit 0
server exit 0
## fwd impairment (veth0 egress, A->B, before the veth0 capture): loss 3%
qdisc prio 1: root refcnt 2 bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
 Sent 2253283 bytes 2094 pkt (dropped 55, overlimits 0 requeues 0)
qdisc netem 10: parent 1:1 limit 1000 loss 3%
 Sent 2251274 bytes 2073 pkt (dropped 55, overlimits 0 requeues 0)
## rev impairment (m0 egress, B->A): tbf ...
qdisc tbf 10: parent 1:1 rate 20Mbit burst 3044b lat 0us
 Sent 10 bytes 1 pkt (dropped 2, overlimits 0 requeues 0)
qdisc red 20: parent 10:1 limit 9b min 1b max 3b ecn
 Sent 10 bytes 1 pkt (dropped 1, overlimits 0 requeues 0)
  marked 40 early 1 pdrop 0 other 0
## tcpdump veth0
0 packets dropped by kernel
`
	p := filepath.Join(t.TempDir(), "meta.txt")
	if err := os.WriteFile(p, []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	exits, q := readMeta(p)
	if exits != "client exit 0, server exit 0" {
		t.Errorf("exits %q", exits)
	}
	if q["fwd"] != "netem dropped 55" || q["rev"] != "tbf dropped 2; red dropped 1, marked 40" {
		t.Errorf("qdiscs %q", q)
	}
}

func TestCaptureDrops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meta.txt")
	meta := "client exit 0\n## tcpdump veth0\n123417 packets dropped by kernel\n## tcpdump veth1\n0 packets dropped by kernel\n"
	if err := os.WriteFile(p, []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := captureDrops(p); got != "123417 at veth0" {
		t.Errorf("captureDrops = %q, want 123417 at veth0", got)
	}
}

func TestRowsNameFamiliesWithPlace(t *testing.T) {
	s, err := faultspec.Parse("x | ib_send_bw | loss 2% duplicate 5% | delay 2ms 1ms | | src mid | v6")
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(s); !slices.Equal(got, []string{"loss @src", "duplicate @src", "jitter @mid"}) {
		t.Errorf("rows %q", got)
	}
	s, _ = faultspec.Parse("clean | write | - | -")
	if got := rowsOf(s); !slices.Equal(got, []string{"none"}) {
		t.Errorf("rows %q", got)
	}
}

// A share held against a bar is never rounded up to it.
func TestPctRoundsDown(t *testing.T) {
	for _, c := range []struct {
		t    tally
		want string
	}{
		{tally{1434, 1479}, "96.9 %"}, // 96.957...: short of 97 %
		{tally{113, 118}, "95.7 %"},
		{tally{120, 120}, "100.0 %"},
		{tally{0, 3}, "0.0 %"},
		{tally{0, 0}, "–"},
	} {
		if got := pctOf(c.t); got != c.want {
			t.Errorf("%d/%d: %q, want %q", c.t.right, c.t.total, got, c.want)
		}
	}
}
