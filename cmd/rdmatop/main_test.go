package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// The JSON contract of issue 2: these keys exist with these types.
func TestReplayJSONContract(t *testing.T) {
	out, stderr, code := runCLI(t, "replay", "../../testdata/rxe/faults/rnr-recover/capture.pcap", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"packets", "roce_packets", "non_roce_packets", "malformed_packets"} {
		if _, ok := doc[k].(float64); !ok {
			t.Errorf("%s missing or not a number", k)
		}
	}
	for _, k := range []string{"first_ts", "last_ts"} {
		if _, ok := doc[k].(string); !ok {
			t.Errorf("%s missing", k)
		}
	}
	ops := doc["opcodes"].([]any)
	op := ops[0].(map[string]any)
	for _, k := range []string{"opcode", "name", "packets"} {
		if _, ok := op[k]; !ok {
			t.Errorf("opcodes[].%s missing", k)
		}
	}
	flows := doc["flows"].([]any)
	if len(flows) != 2 {
		t.Fatalf("%d flows", len(flows))
	}
	var rnr float64
	for _, f := range flows {
		fm := f.(map[string]any)
		for _, k := range []string{"src", "dst", "dest_qp", "packets", "bytes", "first_psn", "last_psn", "psn_gaps",
			"missing_psns", "retransmitted_packets", "out_of_order", "acks", "naks", "cnps", "ecn_ce", "icrc_errors", "rtt_us"} {
			if _, ok := fm[k]; !ok {
				t.Errorf("flows[].%s missing", k)
			}
		}
		naks := fm["naks"].(map[string]any)
		for _, k := range []string{"psn_sequence_error", "rnr", "invalid_request", "remote_access_error", "remote_operational_error", "invalid_rd_request"} {
			if _, ok := naks[k]; !ok {
				t.Errorf("naks.%s missing", k)
			}
		}
		rnr += naks["rnr"].(float64)
		rtt := fm["rtt_us"].(map[string]any)
		for _, k := range []string{"samples", "p50", "p99", "max"} {
			if _, ok := rtt[k]; !ok {
				t.Errorf("rtt_us.%s missing", k)
			}
		}
	}
	if rnr != 32 {
		t.Errorf("rnr NAKs %v, want 32", rnr)
	}
}

func TestReplayReport(t *testing.T) {
	out, _, code := runCLI(t, "replay", "../../testdata/rxe/pcap/lossy1.pcap", "--report")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"31 PSN gaps (37 PSNs missing)", "31 NAKs (PSN sequence error 31)", "troubled; troubled first)", "psn_gap", "go_back_n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The troubled flow is listed first.
	i := strings.Index(out, "troubled; troubled first)")
	first := strings.Split(out[i:], "\n")[2]
	if !strings.Contains(first, "192.168.77.1 -> 192.168.77.2 0x000011") {
		t.Errorf("first flow line %q", first)
	}
	out, _, _ = runCLI(t, "replay", "../../testdata/pcaps/rdma-softroce-demo_no-roce.pcap")
	if !strings.Contains(out, "no RoCE packets") {
		t.Errorf("no-RoCE capture: %s", out)
	}
}

func TestExitCodes(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/rxe/pcap/clean.pcap")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	os.WriteFile(cut, raw[:len(raw)/2], 0o644)
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
		stdout string
	}{
		{[]string{"replay", "../../testdata/rxe/pcap/clean.pcap", "--json"}, 0, "", `"roce_packets": 1750`},
		{[]string{"replay", cut, "--json"}, 2, "at byte offset", `"error":`},
		{[]string{"replay", "/nonexistent.pcap"}, 2, "no such file", ""},
		{[]string{"replay"}, 2, "replay needs a file", ""},
		{[]string{"replay", "x.pcap", "--pmtu", "1500"}, 2, "--pmtu 1500", ""},
		{[]string{"replay", "x.pcap", "--json", "--report"}, 2, "exclusive", ""},
		{[]string{"capture"}, 2, "needs -i", ""},
		{[]string{"capture", "--wire", "/nonexistent.fifo"}, 2, "--wire: stat /nonexistent.fifo: no such file", ""},
		{[]string{"capture", "--wire", "-", "--snaplen", "128"}, 2, "--wire reads the wire from a stream", ""},
		{[]string{"capture", "-i", "nosuch0", "--duration", "1s"}, 2, `interface "nosuch0" not found`, ""},
		{[]string{"--bogus"}, 2, "unknown flag", ""},
	} {
		out, stderr, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.stderr) || !strings.Contains(out, c.stdout) {
			t.Errorf("rdmatop %v: exit %d, stderr %q, stdout %.200q", c.args, code, stderr, out)
		}
	}
}

// --probe-timeout bounds each source of a sample; out of its range it is
// a usage error that names the range, and in range a sample uses it.
func TestProbeTimeoutFlag(t *testing.T) {
	for _, v := range []string{"10ms", "2m"} {
		_, errOut, code := runCLI(t, "--once", "--json", "--probe-timeout", v, "--root", "../../testdata/sysfs/mlx5-roce-cx6dx-t1")
		if code != exitUsage || !strings.Contains(errOut, "--probe-timeout "+strings.TrimSuffix(v, "0s")) || !strings.Contains(errOut, "between 100ms and 1m") {
			t.Errorf("--probe-timeout %s: exit %d, %q", v, code, errOut)
		}
	}
	out, errOut, code := runCLI(t, "--once", "--json", "--interval", "50ms", "--probe-timeout", "5s", "--root", "../../testdata/sysfs/mlx5-roce-cx6dx-t1")
	if code != 0 || !strings.Contains(out, `"ports"`) {
		t.Errorf("--probe-timeout 5s: exit %d, %q", code, errOut)
	}
}

// replay --report gives the answer first: the verdict, then the findings,
// then what they rest on; the lossy capture's findings came after its 95
// anomaly lines (issue 33, item 12). A recording's report gives its
// findings before its ports, events, sources and capture.
func TestReplayReportAnswerFirst(t *testing.T) {
	order := func(t *testing.T, out string, heads ...string) {
		t.Helper()
		last := -1
		for _, h := range heads {
			i := strings.Index(out, h)
			if i <= last {
				t.Errorf("%q at %d, not after the previous heading (%d):\n%.1500s", h, i, last, out)
				return
			}
			last = i
		}
	}
	out, stderr, code := runCLI(t, "replay", "../../testdata/rxe/pcap/lossy1.pcap", "--report")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	order(t, out, "\nverdict  ", "\nfindings\n", "[packet-loss]", "\nopcodes\n", "\nflows (", "\nanomalies (95)", "\nqos (")
	out, stderr, code = runCLI(t, "replay", "../../testdata/lab/faults/faults.bundle.gz", "--report")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	order(t, out, "bundle   ", "\nfindings\n", "[rnr-nak]", "\nports (last tick)", "\nevents\n", "\nsources (last tick)")
}

// One field, one type: a flow's dest_qp in replay --json is the very
// string a finding's objects name it by, so the two join as they are.
func TestDestQPOneFormEverywhere(t *testing.T) {
	out, stderr, code := runCLI(t, "replay", "../../testdata/rxe/pcap/lossy1.pcap", "--json")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Flows []struct {
			ID     int `json:"id"`
			DestQP any `json:"dest_qp"`
		} `json:"flows"`
		Findings []struct {
			Rule    string            `json:"rule"`
			Objects map[string]string `json:"objects"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	qp := map[string]any{}
	for _, f := range doc.Flows {
		qp[strconv.Itoa(f.ID)] = f.DestQP
	}
	joined := 0
	for _, f := range doc.Findings {
		id, ok := f.Objects["flow"]
		if !ok {
			continue
		}
		if got := qp[id]; got != f.Objects["dest_qp"] {
			t.Errorf("%s: objects name dest_qp %q, flow %s has %#v", f.Rule, f.Objects["dest_qp"], id, got)
		}
		joined++
	}
	if joined == 0 {
		t.Fatal("no finding names a flow: the capture no longer shows what this test needs")
	}
}
