package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// savedHost writes what a customer sends of one host: two rounds, 10 s
// apart, of `date` and `rdma -j statistic show` (the real Soft-RoCE
// counters before and after the lossy runs), `rdma -j link show`, and a
// dmesg excerpt.
func savedHost(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rd := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const rxe = "../../testdata/saved/rxe/"
	files := map[string]string{
		"1-before.txt": "$ date -Is\n2026-12-01T10:00:00+00:00\n$ rdma -j statistic show\n" + rd(rxe+"before-lossy1-rdma-statistic.json") +
			"$ rdma -j link show\n" + rd(rxe+"final-rdma-link.json"),
		"2-after.txt": "$ date -Is\n2026-12-01T10:00:10+00:00\n$ rdma -j statistic show\n" + rd(rxe+"after-lossy1-rdma-statistic.json"),
		"3-dmesg.txt": rd("../../testdata/real/dmesg_mlx5_pcie_insufficient_power_gpud.txt"),
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// check on a directory of saved outputs: every input with what it was,
// the host model in the --once --json schema, and the rules' verdict.
func TestCheckSavedJSON(t *testing.T) {
	out, stderr, code := runCLI(t, "check", "--json", savedHost(t))
	if code != 1 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var doc struct {
		Source string `json:"source"`
		Inputs []struct {
			Path string   `json:"path"`
			Kind string   `json:"kind"`
			Read []string `json:"read"`
		} `json:"inputs"`
		Host struct {
			Interval float64 `json:"interval_s"`
			Ports    []struct {
				Device   string `json:"device"`
				Netdev   string `json:"netdev"`
				Counters []struct {
					Name string   `json:"name"`
					Rate *float64 `json:"rate"`
				} `json:"counters"`
			} `json:"ports"`
			Events []struct {
				Kind string `json:"kind"`
			} `json:"events"`
		} `json:"host"`
		Findings []struct {
			Rule    string            `json:"rule"`
			Objects map[string]string `json:"objects"`
		} `json:"findings"`
		Rules []struct {
			Rule, State string
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, in := range doc.Inputs {
		kinds[filepath.Base(in.Path)] = in.Kind
	}
	want := map[string]string{"1-before.txt": "rdma -j statistic show", "2-after.txt": "rdma -j statistic show",
		"3-dmesg.txt": "kernel log (dmesg, journalctl -k)"}
	for n, k := range want {
		if kinds[n] != k {
			t.Errorf("%s: %q, want %q", n, kinds[n], k)
		}
	}
	if doc.Host.Interval != 10 || len(doc.Host.Ports) != 2 || doc.Host.Ports[0].Netdev != "veth0" || len(doc.Host.Events) != 1 {
		t.Errorf("host model: interval %v, ports %+v, events %+v", doc.Host.Interval, doc.Host.Ports, doc.Host.Events)
	}
	first := ""
	if len(doc.Findings) > 0 {
		first = doc.Findings[0].Rule + " on " + doc.Findings[0].Objects["device"]
	}
	if first != "packet-loss on rxe0" {
		t.Errorf("first finding %q, want packet-loss on rxe0 (its sequence errors)", first)
	}
	hw := false
	for _, f := range doc.Findings {
		hw = hw || f.Rule == "nic-hardware-event"
	}
	if !hw {
		t.Errorf("findings %+v: the dmesg's insufficient PCIe power should raise nic-hardware-event", doc.Findings)
	}
	cannot := 0
	for _, r := range doc.Rules {
		if r.State == "cannot_evaluate" {
			cannot++
		}
	}
	if cannot == 0 || cannot == len(doc.Rules) {
		t.Errorf("%d of %d rules cannot evaluate: want some (no PFC, no capture) but not all", cannot, len(doc.Rules))
	}
}

// The text report lists the inputs before the findings.
func TestCheckSavedText(t *testing.T) {
	out, _, code := runCLI(t, "check", savedHost(t))
	if code != 1 || !strings.Contains(out, "\ninputs\n") || !strings.Contains(out, "read     rxe0 port 1: ACTIVE on veth0") ||
		!strings.Contains(out, "model    2 RDMA devices, 2 RDMA ports, 1 kernel log event; 2 readings") ||
		!strings.Contains(out, "[packet-loss]") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// A directory of unrelated files exits 2 naming what rdmatop looked for,
// and lists what it found instead.
func TestCheckSavedNothingRead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the customer says it is slow\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "photo.jpg"), []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), 0o644)
	out, stderr, code := runCLI(t, "check", dir)
	if code != 2 || out != "" || !strings.Contains(stderr, "nothing rdmatop reads") || !strings.Contains(stderr, "looked for ethtool -S") ||
		!strings.Contains(stderr, "photo.jpg\n    binary") || !strings.Contains(stderr, "notes.txt\n    unrecognised") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, stderr)
	}
}

// One host's ethtool -S dump, a `grep .` listing of its RDMA port's
// counters (made here from the mlx5 fixture tree, as a customer would
// make it) and a dmesg excerpt: each file is reported for what it is, the
// ethtool counters join the RDMA port of their netdev, and the rules run.
func TestCheckSavedOneHost(t *testing.T) {
	dir := t.TempDir()
	eth, err := os.ReadFile("../../testdata/ethtool/mlx5_cx6dx_eth0_roce_pfc3_t0.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ethtool.txt"), append([]byte("root@host:~# ethtool -S eth0\n"), eth...), 0o644)
	tree := "../../testdata/sysfs/mlx5-roce-cx6dx-t0"
	var listing strings.Builder
	listing.WriteString("root@host:~# grep . /sys/class/infiniband/mlx5_0/ports/1/hw_counters/* /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0\n")
	for _, glob := range []string{"/sys/class/infiniband/mlx5_0/ports/1/hw_counters/*", "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0"} {
		files, _ := filepath.Glob(tree + glob)
		for _, f := range files {
			b, _ := os.ReadFile(f)
			listing.WriteString(strings.TrimPrefix(f, tree) + ":" + strings.TrimSpace(string(b)) + "\n")
		}
	}
	os.WriteFile(filepath.Join(dir, "hw_counters.txt"), []byte(listing.String()), 0o644)
	dmesg, _ := os.ReadFile("../../testdata/real/dmesg_mlx5_cx5_boot_port_module_event_geerlingguy.txt")
	os.WriteFile(filepath.Join(dir, "dmesg.txt"), dmesg, 0o644)

	out, stderr, code := runCLI(t, "check", "--json", dir)
	if code != 0 {
		t.Fatalf("exit %d (a healthy boot log and one reading: nothing at warning), stderr %q\n%s", code, stderr, out)
	}
	var doc struct {
		Inputs []struct {
			Path, Kind string
			Read       []string
		} `json:"inputs"`
		Host struct {
			Ports []struct {
				Device, Netdev string
				Counters       []struct{ Source string } `json:"counters"`
			} `json:"ports"`
		} `json:"host"`
		Rules []struct{ Rule, State string } `json:"rules"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ethtool.txt": "ethtool -S", "hw_counters.txt": "sysfs counter listing (grep . FILES)",
		"dmesg.txt": "kernel log (dmesg, journalctl -k)"}
	for _, in := range doc.Inputs {
		if k := want[filepath.Base(in.Path)]; k != in.Kind || len(in.Read) == 0 {
			t.Errorf("%s: %q, read %v; want %q", in.Path, in.Kind, in.Read, k)
		}
	}
	if len(doc.Inputs) != 3 || len(doc.Host.Ports) != 1 {
		t.Fatalf("inputs %+v, ports %+v", doc.Inputs, doc.Host.Ports)
	}
	p := doc.Host.Ports[0]
	sources := map[string]int{}
	for _, c := range p.Counters {
		sources[c.Source]++
	}
	if p.Device != "mlx5_0" || p.Netdev != "eth0" || sources["hw_counters"] == 0 || sources["ethtool"] == 0 {
		t.Errorf("port %s on %q, counters by source %v: want mlx5_0 on eth0 with hw_counters and ethtool", p.Device, p.Netdev, sources)
	}
	states := map[string]int{}
	for _, r := range doc.Rules {
		states[r.State]++
	}
	if states["ok"] == 0 || states["cannot_evaluate"] == 0 {
		t.Errorf("rule states %v: want rules that ran and rules that could not (no rates from one reading)", states)
	}
}

// One ethtool reading has no rates: check says that is why the counter
// rules cannot evaluate (not that the host lacks the counters), its model
// line agrees in number ("1 netdev"), and with nothing judged (no RDMA
// port, one reading) the verdict is UNKNOWN, exit 2, never OK. A QoS
// transcript alone is the same.
func TestSingleReadingSaysWhy(t *testing.T) {
	out, _, code := runCLI(t, "check", "--json", "../../testdata/real/ethtool_S_ice_ethq.txt")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (nothing judged)", code)
	}
	var res struct {
		Model   string
		Unknown string
		Rules   []struct{ Rule, State, Detail string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Unknown, "nothing was checked: the inputs hold 1 netdev, but no RDMA port") {
		t.Errorf("unknown %q", res.Unknown)
	}
	for _, f := range []string{"mlnx_qos_trust_dscp_pfc3_att_netarbiter.txt", "ethtool_S_mlx5_cx4_k4.15_ethq.txt"} {
		if one, _, code := runCLI(t, "check", "--oneline", "../../testdata/real/"+f); code != 2 || !strings.HasPrefix(one, "UNKNOWN: nothing was checked") {
			t.Errorf("%s: exit %d, %q; want UNKNOWN, exit 2", f, code, one)
		}
	}
	if res.Model != "1 netdev" {
		t.Errorf("model %q, want 1 netdev", res.Model)
	}
	for _, r := range res.Rules {
		if r.Rule == "phy-errors" && (r.State != "cannot_evaluate" || !strings.Contains(r.Detail, "a single reading, and rates need a second one")) {
			t.Errorf("phy-errors on one reading: %s %q", r.State, r.Detail)
		}
	}
}

// Commands run as printed: the PCI address a kernel log line names fills
// nic-hardware-event's lspci and devlink lines (the rule's vars), from a
// real dmesg (gpud's issue, testdata/real/MANIFEST.md).
func TestCommandsNameThePCIAddress(t *testing.T) {
	out, _, code := runCLI(t, "check", "../../testdata/real/dmesg_mlx5_pcie_insufficient_power_gpud.txt")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"lspci -vvv -s 0000:5c:00.0 |", "devlink health diagnose pci/0000:5c:00.0 reporter fw"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// A host with two cards, one healthy ("sufficient power (75W)", booted
// first) and one not (testdata/sosreport): the commands and the objects
// name the card the problem line is about, and a saved output with no
// clock gives no first_seen rather than year 1.
func TestHardwareFindingNamesItsCard(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/sosreport/sosreport-*")
	if err != nil || len(dirs) != 1 {
		t.Fatalf("sosreport fixture: %v %v", dirs, err)
	}
	out, _, code := runCLI(t, "check", "--json", dirs[0])
	if code != 1 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var doc struct {
		Findings []struct {
			Rule    string            `json:"rule"`
			Confirm []string          `json:"confirm"`
			Objects map[string]string `json:"objects"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range doc.Findings {
		if f.Rule != "nic-hardware-event" {
			continue
		}
		found = true
		if f.Objects["pci"] != "0000:5c:00.0" {
			t.Errorf("objects %v, want pci 0000:5c:00.0 (the card with insufficient power)", f.Objects)
		}
		cmds := strings.Join(f.Confirm, "\n")
		if !strings.Contains(cmds, "lspci -vvv -s 0000:5c:00.0 ") || strings.Contains(cmds, "0004:01:00.0") {
			t.Errorf("confirm names another card than 0000:5c:00.0:\n%s", cmds)
		}
	}
	if !found {
		t.Fatalf("no nic-hardware-event in:\n%s", out)
	}
	if strings.Contains(out, "0001-01-01") {
		t.Errorf("a time of year 1 in the JSON:\n%s", out)
	}
}
