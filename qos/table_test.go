package qos

import (
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// The lab's srv106 recording: the requester sets no class, the responder
// --tclass=106. Wireshark's oracle (testdata/lab/qos/srv106.pcapng.gz.
// oracle.csv) counts 1,200 packets from 192.168.77.1 on DSCP 0 Not-ECT
// and 300 from 192.168.77.2 on DSCP 26 ECT(0). The host's settings are
// stated: the lab's veths have no DCB.
func TestTableOfLab(t *testing.T) {
	w, err := capture.AnalyzeFile("../testdata/lab/qos/srv106.pcapng.gz", capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &probes.Config{
		DCB: []probes.DCBConfig{{Netdev: "eth0", Trust: "dscp", DSCPToPrio: map[int]int{0: 0, 26: 3}, PFCEnabled: []int{3}}},
		ECN: []probes.ECNConfig{{Netdev: "eth0", NPEnabled: map[int]bool{0: false, 3: true}, RPEnabled: map[int]bool{0: false, 3: true}}},
	}
	tb := TableOf(cfg, w)
	if len(tb.Classes) != 2 {
		t.Fatalf("classes %+v", tb.Classes)
	}
	req, ack := tb.Classes[0], tb.Classes[1]
	if req.Role != RoleRequests || req.DSCP != 0 || req.Packets != 1200 || req.ECN.NotECT != 1200 ||
		*req.Priority != 0 || *req.PFC || *req.NP || *req.RP {
		t.Errorf("requests %+v", req)
	}
	if ack.Role != RoleACKs || ack.DSCP != 26 || ack.Packets != 300 || ack.ECN.ECT0 != 300 ||
		*ack.Priority != 3 || !*ack.PFC || !*ack.NP || !*ack.RP {
		t.Errorf("acks %+v", ack)
	}
	var b strings.Builder
	tb.Write(&b)
	for _, want := range []string{"eth0: trust dscp; PFC on 3", "requests                DSCP 0", "Not-ECT 100%", "acks                    DSCP 26", "ECT(0) 100%"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	// The host's GIDs say which way each class goes: the recording is
	// rxe0's (192.168.77.1), the requester's.
	cfg.GIDs = []probes.GID{{Device: "rxe0", Port: 1, Index: 1, GID: "::ffff:192.168.77.1"}}
	tb = TableOf(cfg, w)
	if tb.Classes[0].Dir != "sent" || tb.Classes[0].Role != RoleRequests || tb.Classes[1].Dir != "received" {
		t.Errorf("directions %+v", tb.Classes)
	}
	// Without settings every priority is unknown, never "off".
	tb = TableOf(nil, w)
	if tb.Classes[0].Priority != nil || tb.Classes[0].PFC != nil {
		t.Errorf("no settings: %+v", tb.Classes[0])
	}
}

// CNPs travel with the key of the ACKs they ride beside; the table
// takes them out of the ACKs' codepoints at their own (cnp-storm-ecn:
// 20 ACKs ECT(0), 24 CNPs Not-ECT on DSCP 48, per its README).
func TestTableCNPsApart(t *testing.T) {
	w, err := capture.AnalyzeFile("../testdata/scenarios/cnp-storm-ecn.pcap", capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tb := TableOf(nil, w)
	var acks, cnps *Class
	for i := range tb.Classes {
		switch tb.Classes[i].Role {
		case RoleACKs:
			acks = &tb.Classes[i]
		case RoleCNPs:
			cnps = &tb.Classes[i]
		}
	}
	if acks == nil || cnps == nil {
		t.Fatalf("classes %+v", tb.Classes)
	}
	if acks.Packets != 20 || acks.ECN.NotECT != 0 || acks.ECN.ECT0 != 20 {
		t.Errorf("acks %+v %+v", acks, acks.ECN)
	}
	if cnps.DSCP != 48 || cnps.Packets != 24 || cnps.ECN != nil {
		t.Errorf("cnps %+v", cnps)
	}
}

func TestAgree(t *testing.T) {
	h := Host{Netdevs: []Netdev{
		{Name: "a", Trust: "dscp", DSCPToPrio: map[int]int{26: 3}},
		{Name: "b", Trust: "dscp", DSCPToPrio: map[int]int{26: 4}},
		{Name: "c"}, // cannot tell
	}}
	ask := func(n *Netdev) (int, bool) { return n.Priority(26, nil) }
	if _, ok := Agree(h, "", ask); ok {
		t.Error("two netdevs that disagree: known")
	}
	if p, ok := Agree(h, "a", ask); !ok || p != 3 {
		t.Errorf("netdev a: %d %v", p, ok)
	}
	if _, ok := Agree(h, "c", ask); ok {
		t.Error("a netdev without a trust mode: known")
	}
	pcp := Netdev{Trust: "pcp"}
	five := uint8(5)
	if p, ok := pcp.Priority(26, &five); !ok || p != 5 {
		t.Errorf("pcp trust, tagged 5: %d %v", p, ok)
	}
	if p, ok := pcp.Priority(26, nil); !ok || p != 0 {
		t.Errorf("pcp trust, untagged: %d %v", p, ok)
	}
}

// A WRITE connection's responder sends NAKs and, on a copying path, ACKs
// twice: responses that are no positive ACK. They are still ACKs, not
// READ responses (issue 33: the QoS table called them "read responses");
// a READ's responder is one.
func TestRoleByOpcode(t *testing.T) {
	for _, c := range []struct {
		file string
		want string // the role of the flow without requests
	}{
		{"loss5-write/veth0.pcap.gz", RoleACKs},     // NAKs
		{"dup10-ack-write/veth0.pcap.gz", RoleACKs}, // copied ACKs
		{"clean-read16/veth0.pcap.gz", RoleReadResponses},
	} {
		w, err := capture.AnalyzeFile("../testdata/wiretruth/"+c.file, capture.Config{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range w.Flows {
			f := &w.Flows[i]
			if f.Requests > 0 || f.Transport == "CNP" {
				continue
			}
			if f.Responses <= f.ACKs && c.want == RoleACKs {
				t.Errorf("%s: flow %d has no response beyond its ACKs: the case tests nothing", c.file, f.ID)
			}
			if got := roleOf(f); got != c.want {
				t.Errorf("%s: flow %d (%d responses, %d ACKs): role %q, want %q", c.file, f.ID, f.Responses, f.ACKs, got, c.want)
			}
		}
	}
}
