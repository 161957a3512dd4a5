package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/internal/bundletest"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// hungRecording rewrites a recording so that sysfs, ethtool and
// rtnetlink say "timeout" on every tick, as when RTNL is held while the
// recorder runs; RDMA netlink and the kernel log answered as recorded.
// Packets are left out: the host alone must tell.
func hungRecording(t *testing.T, src string) string {
	t.Helper()
	r, recs := bundletest.Read(t, src)
	out := filepath.Join(t.TempDir(), "hung.bundle")
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	bw, err := bundle.NewPcapngWriter(w, r.Header, bundle.PcapngOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hung := []string{"sysfs", "ethtool", "rtnetlink"}
	ticks := 0
	for _, rec := range recs {
		tk := rec.Tick
		if tk == nil {
			continue
		}
		var st []probes.Status
		for _, s := range tk.Status {
			if !slices.Contains(hung, s.Source) {
				st = append(st, s)
			}
		}
		for _, name := range hung {
			st = append(st, probes.Status{Source: name, State: probes.StateTimeout, Detail: "no answer within 2s"})
		}
		tk.Status = st
		if err := bw.WriteTick(tk); err != nil {
			t.Fatal(err)
		}
		ticks++
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	if ticks < 5 {
		t.Fatalf("%s: %d ticks", src, ticks)
	}
	return out
}

// Issue 31: a recording where sysfs, ethtool and rtnetlink timed out on
// every tick while RDMA netlink and the kernel log answered, through a
// link flap: the port is there (from RDMA netlink), link-flap and
// port-down are judged (on RDMA netlink's port state and the kernel
// log's port events) rather than "cannot evaluate: no RDMA ports", and
// the report says which sources hung and why that is likely.
func TestCheckJudgesLinkFlapWhileSysfsHangs(t *testing.T) {
	rec := hungRecording(t, "../../testdata/evalset/link-flap-1s-5m.pcapng.gz")
	out, errOut, code := runCLI(t, "check", rec)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (findings)\n%s\n%s", code, out, errOut)
	}
	first := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "WARNING ") || strings.HasPrefix(l, "CRITICAL ") {
			first = l
			break
		}
	}
	if !strings.Contains(first, "[link-flap]") {
		t.Errorf("first finding %q, want link-flap\n%s", first, out)
	}
	for _, want := range []string{"port-down", "HUNG sysfs: no answer since", "HUNG ethtool", "HUNG rtnetlink",
		"likely RTNL (the kernel's networking lock) is likely held", "cmd exec timeout"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the report:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no RDMA ports") {
		t.Errorf("the port was lost:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if _, list, ok := strings.Cut(l, "cannot evaluate here (data not available; see --json for why): "); ok {
			for _, r := range strings.Split(list, ", ") {
				if r == "link-flap" || r == "port-down" {
					t.Errorf("%s cannot evaluate: %s", r, l)
				}
			}
		}
	}
}
