package rules

import (
	"maps"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/scenario"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/saved"
)

// The QoS rules (pack/qos.yaml) judge the wire's classes by a host's
// settings. The wire is real (the lab's Soft-RoCE captures, whose classes
// Wireshark's oracle confirms) or generated (scenario, for CNPs, which
// Soft-RoCE does not send); the host's settings are stated by each case,
// as `mlnx_qos` would show them: the lab's veths have no DCB.

var qosRuleIDs = []string{"qos-direction-unprotected", "cnp-data-same-class", "cnp-class-not-strict", "ecn-disabled-roce-prio"}

func qosPack(t *testing.T) *Pack {
	t.Helper()
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// qosFired maps each rule of ids that fired to its objects (wLabel).
func qosFired(fs []Finding, ids ...string) map[string][]string {
	out := map[string][]string{}
	for _, f := range fs {
		if slices.Contains(ids, f.Rule) {
			out[f.Rule] = append(out[f.Rule], wLabel(f))
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

// qosHost is a snapshot of one RoCE port on netdev eth0 with these DCB
// and ECN settings (nil: not reported).
func qosHost(dcb *probes.DCBConfig, ecn *probes.ECNConfig) *probes.Snapshot {
	s := &probes.Snapshot{Ports: []probes.Port{{Device: "mlx5_0", Port: 1, Netdev: "eth0", State: "ACTIVE", LinkLayer: "Ethernet"}}}
	if dcb != nil {
		dcb.Netdev = "eth0"
		s.Config.DCB = []probes.DCBConfig{*dcb}
	}
	if ecn != nil {
		ecn.Netdev = "eth0"
		s.Config.ECN = []probes.ECNConfig{*ecn}
	}
	return s
}

// oracleClasses reads a lab oracle: the DSCP/ECN pairs each sender used.
func oracleClasses(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path + ".oracle.csv")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		c := strings.Split(l, ",")
		if v := "dscp " + c[8] + " ecn " + c[9]; !slices.Contains(seen[c[6]], v) {
			seen[c[6]] = append(seen[c[6]], v)
		}
	}
	return seen
}

// flowFrom is the label of the flow from src in a two-flow capture.
func flowFrom(t *testing.T, s *capture.Summary, src string) string {
	t.Helper()
	for _, f := range s.Flows {
		if f.Src == src {
			return wFlows(src, int(f.DestQP))[0]
		}
	}
	t.Fatalf("no flow from %s", src)
	return ""
}

// cannotEvaluate reports whether res says rule could not be evaluated.
func cannotEvaluate(res Result, rule string) bool {
	for _, r := range res.Rules {
		if r.Rule == rule {
			return r.State == "cannot_evaluate"
		}
	}
	return false
}

func dscpMap(m map[int]int) *probes.DCBConfig {
	return &probes.DCBConfig{Trust: "dscp", DSCPToPrio: m, PFCEnabled: []int{3}}
}

func TestQoSDirectionUnprotected(t *testing.T) {
	p := qosPack(t)
	const lab = wtd + "lab/qos/"
	// The truth of the wire, from Wireshark: one class per sender.
	for file, want := range map[string]map[string][]string{
		"tclass.pcap":       {wRxeA: {"dscp 24 ecn 0"}, wRxeB: {"dscp 0 ecn 0"}},
		"srv106.pcapng.gz":  {wRxeA: {"dscp 0 ecn 0"}, wRxeB: {"dscp 26 ecn 2"}},
		"read106.pcapng.gz": {wRxeA: {"dscp 0 ecn 0"}, wRxeB: {"dscp 26 ecn 2"}},
		"both106.pcapng.gz": {wRxeA: {"dscp 26 ecn 2"}, wRxeB: {"dscp 26 ecn 2"}},
	} {
		if got := oracleClasses(t, lab+file); !equalClasses(got, want) {
			t.Fatalf("%s: the oracle has %v, the job made %v", file, got, want)
		}
	}
	// The RoCE class (24 or 26) is lossless on priority 3; DSCP 0 maps
	// to priority 0, without PFC.
	host := qosHost(dscpMap(map[int]int{0: 0, 24: 3, 26: 3}), nil)
	for _, c := range []struct {
		file, unprotected string
	}{
		{"tclass.pcap", wRxeB},       // the responder's ACKs
		{"srv106.pcapng.gz", wRxeA},  // the requester's WRITEs
		{"read106.pcapng.gz", wRxeA}, // the READ requests; their responses ride 26
		{"both106.pcapng.gz", ""},
	} {
		s := wAnalyze(t, lab+c.file)
		res := wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: host, Wire: s})
		got := qosFired(res.Findings, qosRuleIDs...)["qos-direction-unprotected"]
		var want []string
		if c.unprotected != "" {
			want = []string{flowFrom(t, s, c.unprotected)}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: fired on %v, want %v", c.file, got, want)
		}
		for _, f := range res.Findings {
			switch {
			case f.Rule == "qos-direction-unprotected" && !strings.Contains(f.Evidence, "priority 0 on this host: PFC off"):
				t.Errorf("%s: evidence %q", c.file, f.Evidence)
			case f.Rule == "qos-direction-mismatch" && c.unprotected != "" && f.ExplainedBy == nil:
				t.Errorf("%s: qos-direction-mismatch not explained by the unprotected direction", c.file)
			}
		}
	}
	// Both priorities lossless: two classes, both protected.
	s := wAnalyze(t, lab+"tclass.pcap")
	both := qosHost(&probes.DCBConfig{Trust: "dscp", DSCPToPrio: map[int]int{0: 0, 24: 3}, PFCEnabled: []int{0, 3}}, nil)
	res := wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: both, Wire: s})
	if got := qosFired(res.Findings, qosRuleIDs...)["qos-direction-unprotected"]; len(got) > 0 {
		t.Errorf("PFC on both priorities: fired on %v", got)
	}
	// A DSCP the host's map does not list has no known priority: the rule
	// cannot tell, and says so, rather than calling it protected.
	partial := qosHost(dscpMap(map[int]int{24: 3}), nil)
	e := NewEngine(p)
	e.IgnoreFor = true
	res = e.Evaluate(Frame{Time: time.Unix(0, 0), Snapshot: partial, Wire: s})
	if got := qosFired(res.Findings, qosRuleIDs...)["qos-direction-unprotected"]; len(got) > 0 {
		t.Errorf("DSCP 0 not in the map: fired on %v", got)
	}
	if !cannotEvaluate(res, "qos-direction-unprotected") {
		t.Errorf("DSCP 0 not in the map: not reported as cannot evaluate")
	}
}

func equalClasses(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func TestECNDisabledRoCEPrio(t *testing.T) {
	p := qosPack(t)
	s := wAnalyze(t, wtd+"lab/qos/srv106.pcapng.gz")
	on3 := &probes.ECNConfig{NPEnabled: map[int]bool{0: false, 3: true}, RPEnabled: map[int]bool{0: false, 3: true}}
	host := qosHost(dscpMap(map[int]int{0: 0, 26: 3}), on3)
	res := wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: host, Wire: s})
	got := qosFired(res.Findings, qosRuleIDs...)["ecn-disabled-roce-prio"]
	if want := []string{flowFrom(t, s, wRxeA)}; !slices.Equal(got, want) {
		t.Errorf("fired on %v, want the requests on DSCP 0 %v", got, want)
	}
	// ecn-not-capable, per direction: the requests are Not-ECT while
	// their other direction is ECT(0).
	for _, f := range res.Findings {
		if f.Rule == "ecn-not-capable" && !strings.Contains(f.Evidence, "its other direction") {
			t.Errorf("ecn-not-capable evidence %q does not compare the directions", f.Evidence)
		}
	}
	if got := qosFired(res.Findings, "ecn-not-capable")["ecn-not-capable"]; !slices.Equal(got, []string{flowFrom(t, s, wRxeA)}) {
		t.Errorf("ecn-not-capable fired on %v", got)
	}
	// DCQCN nowhere: a PFC-only host by choice.
	off := &probes.ECNConfig{NPEnabled: map[int]bool{0: false, 3: false}, RPEnabled: map[int]bool{0: false, 3: false}}
	res = wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: qosHost(dscpMap(map[int]int{0: 0, 26: 3}), off), Wire: s})
	if got := qosFired(res.Findings, qosRuleIDs...)["ecn-disabled-roce-prio"]; len(got) > 0 {
		t.Errorf("DCQCN off everywhere: fired on %v", got)
	}
	// Without a capture: the lossless priority 3 has its reaction point
	// off while priority 0 has DCQCN.
	wrong := &probes.ECNConfig{NPEnabled: map[int]bool{0: true, 3: true}, RPEnabled: map[int]bool{0: true, 3: false}}
	res = wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: qosHost(dscpMap(map[int]int{26: 3}), wrong)})
	got = qosFired(res.Findings, qosRuleIDs...)["ecn-disabled-roce-prio"]
	if !slices.Equal(got, []string{"mlx5_0/1"}) {
		t.Errorf("port: fired on %v", got)
	}
	for _, f := range res.Findings {
		if f.Rule == "ecn-disabled-roce-prio" && !strings.Contains(f.Evidence, "3 (notification point on, reaction point off)") {
			t.Errorf("port evidence %q", f.Evidence)
		}
	}
	res = wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: qosHost(dscpMap(map[int]int{26: 3}), on3)})
	if got := qosFired(res.Findings, qosRuleIDs...)["ecn-disabled-roce-prio"]; len(got) > 0 {
		t.Errorf("port with DCQCN on its lossless priority: fired on %v", got)
	}
}

// cnpCapture writes a connection on dscp with ACKs and CNPs (DSCP
// scenario.CNPDSCP) from B to A.
func cnpCapture(t *testing.T, dscp uint8) *capture.Summary {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cnps.pcap")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := scenario.NewCapture(out, 0)
	conn := cp.Open(scenario.Conn{
		A:    scenario.Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, IP: netip.MustParseAddr(wGenA), QPN: 0x11, PSN: 100},
		B:    scenario.Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, IP: netip.MustParseAddr(wGenB), QPN: 0x22, PSN: 900},
		DSCP: dscp, ECN: scenario.ECT0})
	for range 12 {
		conn.Ack(conn.Write(1024))
		conn.CNP()
	}
	if err := cp.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return wAnalyze(t, path)
}

func TestCNPClass(t *testing.T) {
	p := qosPack(t)
	cnpFlow := wGenB + ">0x000011" // the CNPs carry the ACKs' key
	for _, c := range []struct {
		name     string
		dscp     uint8
		host     *probes.Snapshot
		same     bool
		notStrct bool
	}{
		{"data on 26, CNPs on 48, no host data", 26, nil, false, false},
		{"data on 48 like the CNPs", scenario.CNPDSCP, nil, true, false},
		{"26 and 48 both map to priority 3", 26, qosHost(dscpMap(map[int]int{26: 3, 48: 3}), nil), true, false},
		{"26 to 3, 48 to 6", 26, qosHost(dscpMap(map[int]int{26: 3, 48: 6}), nil), false, false},
		{"priority 6 on an ETS class", 26, qosHost(&probes.DCBConfig{Trust: "dscp", DSCPToPrio: map[int]int{26: 3, 48: 6}, PFCEnabled: []int{3},
			PrioToTC: []int{0, 1, 2, 3, 4, 5, 6, 7}, TCTSA: []string{"ets", "ets", "ets", "ets", "ets", "ets", "ets", "strict"}}, nil), false, true},
		{"priority 6 on a strict class", 26, qosHost(&probes.DCBConfig{Trust: "dscp", DSCPToPrio: map[int]int{26: 3, 48: 6}, PFCEnabled: []int{3},
			PrioToTC: []int{0, 1, 2, 3, 4, 5, 6, 7}, TCTSA: []string{"ets", "ets", "ets", "ets", "ets", "ets", "strict", "strict"}}, nil), false, false},
		{"mlx5's default vendor group is not judged", 26, qosHost(&probes.DCBConfig{Trust: "dscp", DSCPToPrio: map[int]int{26: 3, 48: 6}, PFCEnabled: []int{3},
			PrioToTC: []int{0, 1, 2, 3, 4, 5, 6, 7}, TCTSA: slices.Repeat([]string{"vendor"}, 8)}, nil), false, false},
	} {
		s := cnpCapture(t, c.dscp)
		for _, f := range s.Flows {
			if f.CNPsCarried > 0 && (f.CNPDSCP == nil || *f.CNPDSCP != scenario.CNPDSCP || f.DSCP != c.dscp) {
				t.Fatalf("%s: flow %s: DSCP %d, CNP DSCP %v", c.name, f.Src, f.DSCP, f.CNPDSCP)
			}
		}
		res := wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: c.host, Wire: s})
		got := qosFired(res.Findings, qosRuleIDs...)
		if same := got["cnp-data-same-class"]; !slices.Equal(same, onlyIf(c.same, cnpFlow)) {
			t.Errorf("%s: cnp-data-same-class fired on %v", c.name, same)
		}
		if ns := got["cnp-class-not-strict"]; !slices.Equal(ns, onlyIf(c.notStrct, cnpFlow)) {
			t.Errorf("%s: cnp-class-not-strict fired on %v", c.name, ns)
		}
	}
	// The host's own notification point: CNPs get DSCP 26, priority 3,
	// where the notification point is on (the data's priority).
	for _, c := range []struct {
		cnpDSCP string
		same    bool
	}{{"26", true}, {"48", false}} {
		ecn := &probes.ECNConfig{NPEnabled: map[int]bool{3: true, 6: false}, RPEnabled: map[int]bool{3: true}, Params: map[string]string{"roce_np/cnp_dscp": c.cnpDSCP, "roce_np/cnp_802p_prio": "6"}}
		res := wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: qosHost(dscpMap(map[int]int{26: 3, 48: 6}), ecn)})
		if got := qosFired(res.Findings, qosRuleIDs...)["cnp-data-same-class"]; !slices.Equal(got, onlyIf(c.same, "mlx5_0/1")) {
			t.Errorf("host CNP DSCP %s: fired on %v", c.cnpDSCP, got)
		}
	}
}

func onlyIf(cond bool, label string) []string {
	if cond {
		return []string{label}
	}
	return nil
}

// Each side tags its packets with its own QP's service level: under PCP
// trust (or on any switch that classifies by PCP) one DSCP with two PCPs
// is two classes. Generated: no tagged capture in testdata differs by
// direction.
func TestQoSDirectionMismatchPCP(t *testing.T) {
	p := qosPack(t)
	for _, c := range []struct {
		pcpB  uint8
		fires bool
	}{{3, false}, {0, true}} {
		path := filepath.Join(t.TempDir(), "pcp.pcap")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		cp := scenario.NewCapture(out, 0)
		pcpB := c.pcpB
		conn := cp.Open(scenario.Conn{
			A:    scenario.Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, IP: netip.MustParseAddr(wGenA), QPN: 0x11, PSN: 100},
			B:    scenario.Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, IP: netip.MustParseAddr(wGenB), QPN: 0x22, PSN: 900},
			DSCP: 26, ECN: scenario.ECT0, VLAN: 100, PCP: 3, PCPB: &pcpB})
		for range 12 {
			conn.Ack(conn.Write(1024))
		}
		if err := cp.Close(); err != nil {
			t.Fatal(err)
		}
		out.Close()
		s := wAnalyze(t, path)
		// Under PCP trust with PFC on 3 the untagged-priority direction
		// is also unprotected.
		host := qosHost(&probes.DCBConfig{Trust: "pcp", PFCEnabled: []int{3}}, nil)
		res := wEvalOnce(t, p, Frame{Time: time.Unix(0, 0), Snapshot: host, Wire: s})
		fired := qosFired(res.Findings, "qos-direction-mismatch", "qos-direction-unprotected")
		want := onlyIf(c.fires, wGenA+">0x000022")
		if !slices.Equal(fired["qos-direction-mismatch"], want) {
			t.Errorf("B's PCP %d: qos-direction-mismatch fired on %v, want %v", c.pcpB, fired["qos-direction-mismatch"], want)
		}
		if want := onlyIf(c.fires, wGenB+">0x000011"); !slices.Equal(fired["qos-direction-unprotected"], want) {
			t.Errorf("B's PCP %d: qos-direction-unprotected fired on %v, want %v", c.pcpB, fired["qos-direction-unprotected"], want)
		}
		for _, f := range res.Findings {
			if f.Rule == "qos-direction-mismatch" && !strings.Contains(f.Evidence, "DSCP 26 PCP 3") {
				t.Errorf("evidence %q", f.Evidence)
			}
		}
	}
}

// The mlx5 fixture trees (ConnectX-6 Dx, MLNX_OFED ecn/: DCQCN on
// priority 3 of eth0, off everywhere on eth1, CNPs on DSCP 48 and
// PCP 6) have no DCB, which is netlink: the settings come from the real
// `mlnx_qos -i eth4` output in testdata/real (trust dscp, DSCP d to
// priority d/8, PFC on 3, every TC vendor), given to eth0. As is, the
// host is consistent: nothing fires. One stated change each makes one
// rule fire.
func TestQoSOnMLX5Fixtures(t *testing.T) {
	p := qosPack(t)
	_, snap := wMLX5Pair(t)
	res, err := saved.Load([]string{wtd + "real/mlnx_qos_trust_dscp_pfc3_att_netarbiter.txt"})
	if err != nil {
		t.Fatal(err)
	}
	real := res.Snapshots[len(res.Snapshots)-1].Config.DCB[0]
	if real.Trust != "dscp" || !slices.Equal(real.PFCEnabled, []int{3}) || real.DSCPToPrio[48] != 6 || real.DSCPToPrio[26] != 3 {
		t.Fatalf("the real mlnx_qos reads %+v", real)
	}
	with := func(edit func(d *probes.DCBConfig)) *probes.Snapshot {
		s := *snap
		d := real
		d.Netdev = "eth0"
		d.DSCPToPrio = maps.Clone(real.DSCPToPrio)
		edit(&d)
		s.Config.DCB = []probes.DCBConfig{d}
		return &s
	}
	for _, c := range []struct {
		name string
		edit func(d *probes.DCBConfig)
		want map[string][]string
	}{
		{"as is", func(*probes.DCBConfig) {}, map[string][]string{}},
		{"DSCP 48 mapped to 3: CNPs on the data's priority", func(d *probes.DCBConfig) { d.DSCPToPrio[48] = 3 },
			map[string][]string{"cnp-data-same-class": {"mlx5_0/1"}}},
		{"PFC moved to 4, DCQCN stays on 3", func(d *probes.DCBConfig) { d.PFCEnabled = []int{4} },
			map[string][]string{"ecn-disabled-roce-prio": {"mlx5_0/1"}}},
		{"priority 6 on an ETS class", func(d *probes.DCBConfig) {
			d.TCTSA = slices.Clone(d.TCTSA)
			d.TCTSA[d.PrioToTC[6]] = "ets"
		}, map[string][]string{"cnp-class-not-strict": {"mlx5_0/1"}}},
	} {
		r := wEvalOnce(t, p, Frame{Time: snap.Time, Snapshot: with(c.edit)})
		got := qosFired(r.Findings, qosRuleIDs...)
		if !maps.EqualFunc(got, c.want, slices.Equal[[]string]) {
			t.Errorf("%s: fired %v, want %v", c.name, got, c.want)
		}
	}
}
