package nccl

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

// realLine returns the first line of the testdata log named by prefix
// that contains s: the lines below are NCCL's own, from public reports.
func realLine(t *testing.T, prefix, s string) string {
	t.Helper()
	m, _ := filepath.Glob("../../testdata/nccl/" + prefix + "*.log")
	if len(m) != 1 {
		t.Fatalf("testdata/nccl/%s*.log: %d files", prefix, len(m))
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("%s: no line with %q", m[0], s)
	return ""
}

// What NCCL chose, line by line, as each real line says it.
func TestChoices(t *testing.T) {
	no := false
	cases := []struct {
		prefix, has string
		want        probes.Event // the fields compared: Kind, Severity, Device, NCCL's choice fields
	}{
		{"24-", "Using network Socket", probes.Event{Kind: KindNetwork, NCCL: &probes.NCCLError{Net: "Socket"}}},
		{"20-", "Using network IBext_v8", probes.Event{Kind: KindNetwork, NCCL: &probes.NCCLError{Net: "IBext_v8"}}},
		{"23-", "NET/IB : No device found", probes.Event{Kind: KindNoRDMA, NCCL: &probes.NCCLError{Reason: "no RDMA device found"}}},
		{"24-", "Failed to open libibverbs", probes.Event{Kind: KindNoRDMA, NCCL: &probes.NCCLError{Reason: "libibverbs could not be loaded"}}},
		// NCCL 2.4 said it as a warning.
		{"27-", "NCCL WARN Failed to open libibverbs", probes.Event{Kind: KindNoRDMA, Severity: probes.SevWarning,
			NCCL: &probes.NCCLError{Reason: "libibverbs could not be loaded"}}},
		{"25-", "NCCL_IB_DISABLE set by environment to 1", probes.Event{Kind: KindNoRDMA, NCCL: &probes.NCCLError{Reason: "NCCL_IB_DISABLE=1"}}},
		{"21-", "NCCL_IB_HCA set to", probes.Event{Kind: KindSetting, NCCL: &probes.NCCLError{Setting: "NCCL_IB_HCA", Value: "mlx5_0"}}},
		{"23-", "NET/Socket : Using", probes.Event{Kind: KindNetDevices, NCCL: &probes.NCCLError{Net: "Socket",
			Devices: []string{"ens5f0np0:10.220.178.201<0>", "ens3f0np0:192.17.3.33<0>", "ens8f1np1:10.220.178.201<0>", "bond0:10.220.178.201<0>", "virbr0:192.168.122.1<0>"}}}},
		{"08-", "NET/IB : Using", probes.Event{Kind: KindNetDevices, NCCL: &probes.NCCLError{Net: "IB",
			Devices: []string{"mlx5_0:1/RoCE", "mlx5_1:1/RoCE", "i40iw0:1/RoCE"}}}},
		// NICs merged into one NCCL device (NCCL_IB_MERGE_NICS).
		{"37-", "NET/IB : Using", probes.Event{Kind: KindNetDevices, NCCL: &probes.NCCLError{Net: "IB",
			Devices: []string{"mlx5_2:1/RoCE", "mlx5_3:1/RoCE", "mlx5_0:1/RoCE", "mlx5_1:1/RoCE"}}}},
		{"33-", "GPU Direct RDMA Disabled for HCA 1", probes.Event{Kind: KindGDR, Device: "mlx5_1", NCCL: &probes.NCCLError{Net: "IB", GDR: &no, Reason: "no module"}}},
		{"31-", "GPU Direct RDMA Disabled for HCA 0", probes.Event{Kind: KindGDR, Device: "mlx5_0", NCCL: &probes.NCCLError{Net: "IB", GDR: &no}}},
		{"36-", "via NET/IB/9/GDRDMA", probes.Event{Kind: KindChannel, NCCL: &probes.NCCLError{Via: "NET/IB/9/GDRDMA"}}},
		{"33-", "via NET/IB/0", probes.Event{Kind: KindChannel, NCCL: &probes.NCCLError{Via: "NET/IB/0"}}},
		// The topology search's path types: "speed" before NCCL renamed
		// it "bw".
		{"38-", "type SYS/SYS", probes.Event{Kind: KindGraph, NCCL: &probes.NCCLError{Paths: "SYS/SYS"}}},
		{"39-", "type NVL/PIX", probes.Event{Kind: KindGraph, NCCL: &probes.NCCLError{Paths: "NVL/PIX"}}},
		{"40-", "type SYS/PIX", probes.Event{Kind: KindGraph, NCCL: &probes.NCCLError{Paths: "SYS/PIX"}}},
		{"29-", "NCCL version", probes.Event{Kind: KindVersion, NCCL: &probes.NCCLError{Value: "2.25.1+cuda12.4"}}},
	}
	for _, c := range cases {
		line := realLine(t, c.prefix, c.has)
		ev, ok := NewParser().Line(line)
		want := c.want
		if want.Severity == "" {
			want.Severity = probes.SevInfo
		}
		if !ok || ev.Kind != want.Kind || ev.Severity != want.Severity || ev.Device != want.Device || !sameChoice(ev.NCCL, want.NCCL) {
			t.Errorf("%s %q:\n got  %v %+v\n want %+v", c.prefix, line, ok, choiceOf(ev), choiceOf(want))
		}
	}
}

func sameChoice(a, b *probes.NCCLError) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Net == b.Net && a.Reason == b.Reason && a.Via == b.Via && a.Paths == b.Paths && a.Setting == b.Setting && a.Value == b.Value &&
		slices.Equal(a.Devices, b.Devices) && (a.GDR == nil) == (b.GDR == nil) && (a.GDR == nil || *a.GDR == *b.GDR)
}

func choiceOf(e probes.Event) string {
	if e.NCCL == nil {
		return e.Kind + " (no NCCL)"
	}
	n := e.NCCL
	gdr := "nil"
	if n.GDR != nil {
		gdr = map[bool]string{true: "on", false: "off"}[*n.GDR]
	}
	return strings.Join([]string{e.Kind, string(e.Severity), e.Device, n.Net, n.Reason, n.Via, n.Setting, n.Value, strings.Join(n.Devices, ","), gdr}, "|")
}

// Lines that look like a choice and are not one: a plugin whose newest
// interface is missing (NCCL then loads an older one), one that does not
// load (a host without a plugin: NCCL uses its own IB transport), the
// socket transport's GPUDirect line (sockets never carry GPU memory), and
// the "no plugin" notice every job without a plugin logs.
func TestNotChoices(t *testing.T) {
	for _, c := range []struct{ prefix, has string }{
		{"23-", "NET/Plugin: Failed to find ncclNetPlugin_v6 symbol"},
		{"25-", "Plugin load (libnccl-net.so) returned 2"},
		{"26-", "NET/Socket : GPU Direct RDMA Disabled"},
		{"21-", "No plugin found (libnccl-net.so)"},
	} {
		if ev, ok := NewParser().Line(realLine(t, c.prefix, c.has)); ok {
			t.Errorf("%s %q: %s", c.prefix, c.has, choiceOf(ev))
		}
	}
}

// A process's channels over one transport are said once: a job logs one
// line per channel and peer.
func TestChannelsOncePerProcess(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("../../testdata/nccl", "35-aksrdma30-v2.25.1-ib-channels-without-gdrdma-azure.log"))
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	lines, seen := 0, map[string]int{}
	for _, s := range strings.Split(string(b), "\n") {
		if strings.Contains(s, " via ") {
			lines++
		}
		if ev, ok := p.Line(s); ok && ev.Kind == KindChannel {
			seen[ev.NCCL.Host+":"+strconv.Itoa(ev.NCCL.PID)+" "+ev.NCCL.Via]++
		}
	}
	if len(seen) == 0 || lines <= len(seen) {
		t.Fatalf("%d channel lines, %d events: the log tests nothing", lines, len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s said %d times", k, n)
		}
	}
}
