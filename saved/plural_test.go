package saved

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Counts in what check says it read agree in number: "1 kernel log line".
func TestReadCountsAgreeInNumber(t *testing.T) {
	line, err := os.ReadFile("../testdata/real/dmesg_mlx5_pcie_insufficient_power_gpud.txt")
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(line, '\n'); i >= 0 {
		line = line[:i+1]
	}
	p := filepath.Join(t.TempDir(), "dmesg.txt")
	if err := os.WriteFile(p, line, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Load([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 1 || len(res.Inputs[0].Read) != 1 || res.Inputs[0].Read[0][:18] != "1 kernel log line," {
		t.Errorf("read: %+v", res.Inputs)
	}
	for n, want := range map[int]string{0: "0 counters", 1: "1 counter", 2: "2 counters"} {
		if got := plural(n, "counter"); got != want {
			t.Errorf("plural(%d) = %q", n, got)
		}
	}
}

// A transcript of two mlnx_qos commands on one netdev: both readings are
// listed, the second said to be the one kept, and the model names the QoS
// settings it holds (it was an empty line).
func TestMlnxQosTwiceOnOneNetdev(t *testing.T) {
	res, err := Load([]string{"../testdata/real/mlnx_qos_trust_dscp_pfc3_att_netarbiter.txt"})
	if err != nil {
		t.Fatal(err)
	}
	read := res.Inputs[0].Read
	if len(read) != 2 || strings.Contains(read[0], "again") || !strings.HasSuffix(read[1], "(again: this later reading is the one kept)") {
		t.Errorf("read: %q", read)
	}
	if res.Summary != "QoS settings of 1 netdev" {
		t.Errorf("model %q", res.Summary)
	}
}
