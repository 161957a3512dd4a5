package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// testdata/lab/pipeline was recorded in the rxe-lab VM (test/lab/pipeline.sh)
// during ib_write_bw from rxe0 to rxe1 with 2% netem loss on veth0's RoCE
// egress: the screen of `rdmatop -i veth0` under tmux, `--once --json -i
// veth0` and `-i veth1`, and `rdmatop record -o incident.pcapng.gz -i veth0
// --duration 6s`. See its MANIFEST.md.
const labPipeline = "../../testdata/lab/pipeline/"

// The screen on the real stack showed the flows with their gaps and NAKs
// and rxe0's QP with its wire columns, both directions joined.
func TestLabPipelineScreen(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(labPipeline + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	flows := read("screen-flows.txt")
	var writes []string
	for _, l := range strings.Split(flows, "\n") {
		if strings.Contains(l, "192.168.77.1 → 192.168.77.2 qp 17") {
			writes = strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "▶"))
		}
	}
	// ID SRC → DST qp N TR PKTS Gb/s GAPS RETX NAKS CNPS CE p99 !
	if len(writes) < 15 || writes[len(writes)-1] != "!!" {
		t.Fatalf("flows view lacks rxe0's WRITE flow, troubled now:\n%s", flows)
	}
	if gaps, _ := strconv.Atoi(writes[9]); gaps == 0 {
		t.Errorf("the WRITE flow shows no gaps under 2%% loss: %v", writes)
	}
	qps := read("screen-qps.txt")
	var row []string
	for _, l := range strings.Split(qps, "\n") {
		if f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "▶")); len(f) > 3 && f[0] == "rxe0" && f[2] == "17" {
			row = f
		}
	}
	// ... COMM Gb/s GAPS RETX NAKS CNPS p99µs
	if len(row) < 16 || row[len(row)-6] == "-" {
		t.Fatalf("QPs view: rxe0 QP 17 lacks its wire columns:\n%s", qps)
	}
	gaps, _ := strconv.Atoi(row[len(row)-5])
	naks, _ := strconv.Atoi(row[len(row)-3])
	if gaps == 0 || naks == 0 {
		t.Errorf("rxe0 QP 17: gaps %d (its WRITEs) and NAKs %d (coming back) should both show: %v", gaps, naks, row)
	}
	if !strings.Contains(qps, "RoCE packets are being lost") {
		t.Errorf("the findings strip lacks packet-loss:\n%s", qps)
	}
}

// --once --json -i veth0 holds the rxe0 port and the wire with its gaps in
// one document; -i veth1 lists only rxe1's QPs (iproute2 saw rxe0's too).
func TestLabPipelineOnce(t *testing.T) {
	var v0 struct {
		Ports []struct{ Device, Netdev string }
		QPs   []struct{ Device string }
		Wire  *struct {
			File   string `json:"file"`
			Format string `json:"format"`
			RoCE   uint64 `json:"roce_packets"`
			Flows  []struct {
				PSNGaps uint64 `json:"psn_gaps"`
			}
			Duration float64 `json:"duration_s"`
		}
		Interval float64 `json:"interval_s"`
		Findings []struct{ Rule string }
	}
	readJSON(t, labPipeline+"once-veth0.json", &v0)
	if len(v0.Ports) != 1 || v0.Ports[0].Device != "rxe0" || v0.Ports[0].Netdev != "veth0" {
		t.Errorf("-i veth0 ports: %+v", v0.Ports)
	}
	if v0.Wire == nil || v0.Wire.File != "veth0" || v0.Wire.Format != "live" || v0.Wire.RoCE == 0 {
		t.Fatalf("-i veth0 wire: %+v", v0.Wire)
	}
	var gaps uint64
	for _, f := range v0.Wire.Flows {
		gaps += f.PSNGaps
	}
	if gaps == 0 {
		t.Error("the wire of the interval shows no gap under 2% loss")
	}
	// The wire covers the interval between the two samples (the first
	// sample's time included), as the counters' rates do.
	if v0.Wire.Duration < v0.Interval {
		t.Errorf("wire covers %.2f s, the samples are %.2f s apart", v0.Wire.Duration, v0.Interval)
	}
	found := false
	for _, f := range v0.Findings {
		found = found || f.Rule == "packet-loss"
	}
	if !found {
		t.Error("no packet-loss finding")
	}
	var v1 struct {
		QPs []struct{ Device string }
	}
	readJSON(t, labPipeline+"once-veth1.json", &v1)
	var all []struct{ Ifname string }
	readJSON(t, labPipeline+"rdma-res-qp.json", &all)
	other := 0
	for _, q := range all {
		if q.Ifname == "rxe0" {
			other++
		}
	}
	if other == 0 || len(v1.QPs) == 0 {
		t.Fatalf("iproute2 saw %d rxe0 QPs, -i veth1 %d QPs: the fixture does not test the selection", other, len(v1.QPs))
	}
	for _, q := range v1.QPs {
		if q.Device != "rxe1" {
			t.Errorf("-i veth1 lists a QP of %s", q.Device)
		}
	}
}

// The recording replays outside the VM with the host data and the
// packet-loss finding on the flows; tshark lists its RoCE packets.
func TestLabPipelineRecording(t *testing.T) {
	file := labPipeline + "incident.pcapng.gz"
	out, stderr, code := runCLI(t, "replay", file, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Bundle    struct{ Version int }
		Snapshots []struct {
			Ports []struct{ Device string }
		}
		Series []struct {
			RoCE uint64 `json:"roce_packets"`
		}
		Wire *struct {
			RoCE uint64 `json:"roce_packets"`
		}
		Findings []struct {
			Rule    string
			Objects map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Bundle.Version != 2 || len(doc.Snapshots) < 3 || len(doc.Series) != len(doc.Snapshots) {
		t.Fatalf("version %d, %d snapshots, %d series points", doc.Bundle.Version, len(doc.Snapshots), len(doc.Series))
	}
	for i, s := range doc.Snapshots {
		if len(s.Ports) != 1 || s.Ports[0].Device != "rxe0" {
			t.Errorf("tick %d: ports %+v, want rxe0 alone (recorded with -i veth0)", i, s.Ports)
		}
	}
	// The port's sequence errors are the capture's to judge (it is on
	// veth0 and sees rxe0's RoCE): packet-loss on the flow, not on the
	// port; the port's own resends come from the replayed counters.
	var lossOnPort, lossOnFlow, portResends bool
	for _, f := range doc.Findings {
		switch f.Rule {
		case "packet-loss":
			lossOnPort = lossOnPort || f.Objects["device"] == "rxe0"
			lossOnFlow = lossOnFlow || f.Objects["flow"] != ""
		case "retransmissions":
			portResends = portResends || f.Objects["device"] == "rxe0"
		}
	}
	if lossOnPort || !lossOnFlow || !portResends {
		t.Errorf("packet-loss on the port %v (want false), on a flow %v; retransmissions on the port %v: %+v",
			lossOnPort, lossOnFlow, portResends, doc.Findings)
	}
	if doc.Wire == nil || doc.Wire.RoCE == 0 {
		t.Fatal("no capture in the recording")
	}
	var inTicks uint64
	for _, p := range doc.Series {
		inTicks += p.RoCE
	}
	if inTicks > doc.Wire.RoCE {
		t.Errorf("the ticks hold %d packets, the capture %d", inTicks, doc.Wire.RoCE)
	}
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark not installed: cannot check that Wireshark lists the recording's packets")
	}
	list, err := exec.Command("tshark", "-r", file, "-Y", "infiniband").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	if n := uint64(strings.Count(string(list), "\n")); n != doc.Wire.RoCE {
		t.Errorf("tshark -Y infiniband lists %d packets, rdmatop analysed %d", n, doc.Wire.RoCE)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
