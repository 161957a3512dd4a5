package rules_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// A real log of GPUDirect RDMA disabled on two RoCE HCAs, checked beside
// a host: the finding says what the host's /sys/module says of the
// peer-memory module, and nothing of it when /sys/module was not read.
func TestNCCLGDROffNamesPeerMem(t *testing.T) {
	events := ncclLogEvents(t, "31-nccl1537-v2.19-2.20-gdr-disabled-roce-two-hcas.log")
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	evidence := func(g *probes.GPUDirectConfig) string {
		s := &probes.Snapshot{Time: time.Unix(1_800_000_000, 0), Events: events, Config: probes.Config{GPUDirect: g}}
		res := rules.NewEngine(pack).Evaluate(rules.Frame{Time: s.Time, Snapshot: s})
		for _, f := range res.Findings {
			if f.Rule == "nccl-gdr-off" {
				return f.Evidence
			}
		}
		t.Fatalf("no nccl-gdr-off on %+v", g)
		return ""
	}
	for _, c := range []struct {
		g          *probes.GPUDirectConfig
		want, lack string
	}{
		{&probes.GPUDirectConfig{NVIDIA: true}, "this host has the nvidia driver loaded and no peer-memory module", ""},
		{&probes.GPUDirectConfig{NVIDIA: true, PeerMem: []string{"nvidia_peermem"}}, "this host has nvidia_peermem loaded: the reason is elsewhere", "no peer-memory"},
		{&probes.GPUDirectConfig{}, "neither the nvidia driver nor a peer-memory module", ""},
		{nil, "NCCL logged GPU Direct RDMA disabled for HCA", "this host has"},
	} {
		ev := evidence(c.g)
		if !strings.Contains(ev, c.want) || c.lack != "" && strings.Contains(ev, c.lack) {
			t.Errorf("%+v: evidence %q, want %q without %q", c.g, ev, c.want, c.lack)
		}
	}
}
