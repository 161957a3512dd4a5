package saved

import (
	"os"
	"path/filepath"
	"slices"
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
