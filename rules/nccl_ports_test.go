package rules_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/nccl"
	"github.com/rdmatop/rdmatop/rules"
)

// A real healthy IB log whose job was given one device (NCCL_IB_HCA set
// to mlx5_0: testdata/nccl/21-*) on a host of eight ACTIVE 200 Gb/s IB
// ports: the seven others are named idle. With only mlx5_0 ACTIVE, or
// the others of another rate or link layer, nothing is said.
func TestNCCLFewerNICs(t *testing.T) {
	events := ncclLogEvents(t, "21-nccltests182-v2.19.3-healthy-ib-init.log")
	host := func(edit func(i int, p *probes.Port)) *probes.Snapshot {
		s := &probes.Snapshot{Time: time.Unix(1_800_000_000, 0), Events: events}
		for i := range 8 {
			p := probes.Port{Device: "mlx5_" + string(rune('0'+i)), Port: 1, State: "ACTIVE", LinkLayer: "InfiniBand", RateGbps: 200}
			edit(i, &p)
			s.Ports = append(s.Ports, p)
		}
		return s
	}
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	find := func(s *probes.Snapshot) *rules.Finding {
		res := rules.NewEngine(pack).Evaluate(rules.Frame{Time: s.Time, Snapshot: s})
		for i := range res.Findings {
			if res.Findings[i].Rule == "nccl-fewer-nics" {
				return &res.Findings[i]
			}
		}
		return nil
	}
	f := find(host(func(int, *probes.Port) {}))
	if f == nil {
		t.Fatal("no nccl-fewer-nics on a host of eight ACTIVE ports")
	}
	want := "NCCL's network uses 1 of this host's RDMA ports (mlx5_0/1 InfiniBand 200 Gb/s); 7 more ACTIVE"
	if !strings.Contains(f.Evidence, want) || !strings.Contains(f.Evidence, "mlx5_7/1 InfiniBand 200 Gb/s") {
		t.Errorf("evidence %q", f.Evidence)
	}
	for name, edit := range map[string]func(int, *probes.Port){
		"the others down":   func(i int, p *probes.Port) { p.State = map[bool]string{true: "ACTIVE", false: "DOWN"}[i == 0] },
		"the others slower": func(i int, p *probes.Port) { p.RateGbps = map[bool]float64{true: 200, false: 100}[i == 0] },
		"the others Ethernet": func(i int, p *probes.Port) {
			p.LinkLayer = map[bool]string{true: "InfiniBand", false: "Ethernet"}[i == 0]
		},
	} {
		if f := find(host(edit)); f != nil {
			t.Errorf("%s: %s", name, f.Evidence)
		}
	}
	if !slices.ContainsFunc(events, func(e probes.Event) bool { return e.Kind == nccl.KindSetting && e.NCCL.Value == "mlx5_0" }) {
		t.Error("the log's NCCL_IB_HCA line is not read")
	}
}

// ncclLogEvents parses a real log of testdata/nccl into its events.
func ncclLogEvents(t *testing.T, name string) []probes.Event {
	t.Helper()
	raw, err := os.ReadFile("../testdata/nccl/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var events []probes.Event
	p := nccl.NewParser()
	for _, l := range strings.Split(string(raw), "\n") {
		if ev, ok := p.Line(l); ok {
			events = append(events, ev)
		}
	}
	return events
}
