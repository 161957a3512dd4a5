package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check on real NCCL logs (testdata/nccl, NCCL 2.8 to 2.30): the first
// finding says what the status means and names the peer, and the device
// where the log names one; the exit status is 1. What each log shows is
// read from its lines (and its issue, testdata/nccl/MANIFEST.md).
func TestCheckNCCLLogs(t *testing.T) {
	cases := []struct {
		file, rule string
		names      []string // in the first finding's evidence
	}{
		{"03-", "nccl-retry-exceeded", []string{"status 12 IBV_WC_RETRY_EXC_ERR", "vendor err 129"}},
		{"04-", "nccl-local-protection", []string{"status 4", "192.168.0.12"}},
		{"10-", "nccl-retry-exceeded", []string{"toward 172.36.143.59", "Recv"}},
		{"11-", "nccl-retry-exceeded", []string{"toward 10.216.210.236", "fd00:1148:9000:5000:4:200:3:ff1f"}},
		{"14-", "nccl-async-error", []string{"mlx5_0:1 local access violation work queue error"}},
		{"16-", "nccl-async-error", []string{"mlx5_1:1 invalid request local work queue error"}},
		{"17-", "nccl-local-protection", []string{"toward 172.16.12.34 on mlx5_ib0"}},
		{"19-", "nccl-retry-exceeded", []string{"toward 10.153.235.13 on mlx5_1 QP 26257"}},
		{"15-", "nccl-flushed", []string{"status 5 IBV_WC_WR_FLUSH_ERR toward 10.1.32.3"}},
		{"18-", "nccl-connect-failed", []string{"on dev mlx_x:1, curr state INIT, next state RTR"}},
		// An INFO line: QPs connected from the link-local GID 0.
		{"13-", "nccl-link-local-gid", []string{"GID index 0, fe80::5ea7:21ff:fe41:8a1a (link-local)"}},
	}
	for _, c := range cases {
		if _, stderr, code := runCLI(t, "check", "--json", ncclLog(t, c.file)); code != 1 {
			t.Errorf("%s: exit %d, stderr %q", c.file, code, stderr)
			continue
		}
		firstNames(t, c.file, findingsOf(t, ncclLog(t, c.file)), c.rule, c.names)
	}
}

// firstNames checks that the first finding is rule's and its evidence
// names each of names.
func firstNames(t *testing.T, file string, doc ruleEvidence, rule string, names []string) bool {
	t.Helper()
	if len(doc.Findings) == 0 || doc.Findings[0].Rule != rule {
		t.Errorf("%s: findings %+v, want %s first", file, doc.Findings, rule)
		return false
	}
	for _, n := range names {
		if !strings.Contains(doc.Findings[0].Evidence, n) {
			t.Errorf("%s: evidence %q does not name %q", file, doc.Findings[0].Evidence, n)
		}
	}
	return true
}

// check --json carries what each NCCL warning said, parsed; a log with
// no warning yields no finding and says nothing was judged.
func TestCheckNCCLJSONAndHealthyLog(t *testing.T) {
	out, _, code := runCLI(t, "check", "--json", ncclLog(t, "19-"))
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Host struct {
			Events []struct {
				Source string `json:"source"`
				Device string `json:"device"`
				QPN    *int   `json:"qpn"`
				NCCL   struct {
					Host       string `json:"host"`
					Status     *int   `json:"status"`
					StatusName string `json:"status_name"`
					Peer       string `json:"peer"`
					VendorErr  *int   `json:"vendor_err"`
					LocalGID   string `json:"local_gid"`
					RemoteGID  string `json:"remote_gid"`
				} `json:"nccl"`
			} `json:"events"`
		} `json:"host"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Host.Events) != 3 {
		t.Fatalf("%d events, want the log's 3 completion errors", len(doc.Host.Events))
	}
	e := doc.Host.Events[0]
	if e.Source != "nccl" || e.Device != "mlx5_1" || e.QPN == nil || *e.QPN != 26257 || e.NCCL.Host != "ubuntu2" ||
		e.NCCL.Status == nil || *e.NCCL.Status != 12 || e.NCCL.StatusName != "IBV_WC_RETRY_EXC_ERR" ||
		e.NCCL.Peer != "10.153.235.13" || e.NCCL.VendorErr == nil || *e.NCCL.VendorErr != 129 ||
		e.NCCL.LocalGID != "::ffff:1.1.2.2" || e.NCCL.RemoteGID != "::ffff:1.1.1.4" {
		t.Errorf("first event %+v", e)
	}

	for _, healthy := range []string{"20-", "21-"} {
		out, _, _ := runCLI(t, "check", "--json", ncclLog(t, healthy))
		var res struct {
			Findings []json.RawMessage `json:"findings"`
			Unknown  string            `json:"unknown"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 || !strings.Contains(res.Unknown, "NCCL log without a warning") {
			t.Errorf("%s: findings %s, unknown %q", healthy, res.Findings, res.Unknown)
		}
	}
}

func ncclLog(t *testing.T, prefix string) string {
	t.Helper()
	m, _ := filepath.Glob("../../testdata/nccl/" + prefix + "*.log")
	if len(m) != 1 {
		t.Fatalf("testdata/nccl/%s*.log: %d files", prefix, len(m))
	}
	return m[0]
}

// Why is the job slow (issue 36): real NCCL INFO logs from public reports
// (testdata/nccl/MANIFEST.md says what each shows). A job on sockets has
// the socket finding first, with NCCL's reason where it logged one; a job
// whose HCAs run without GPUDirect RDMA has the GDR finding; healthy IB
// and RoCE logs have neither.
func TestCheckNCCLWhySlow(t *testing.T) {
	cases := []struct {
		file, rule string
		names      []string // in the first finding's evidence
	}{
		{"23-", "nccl-on-sockets", []string{"'Using network Socket'", "ens5f0np0:10.220.178.201<0>", "no RDMA device found"}},
		{"24-", "nccl-on-sockets", []string{"libibverbs could not be loaded", "eth0:10.177.137.15<0>"}},
		{"25-", "nccl-on-sockets", []string{"NCCL_IB_DISABLE=1", "ib0:192.168.1.15<0>"}},
		{"26-", "nccl-on-sockets", []string{"NCCL_IB_DISABLE=1", "lo:127.0.0.1<0>"}},
		{"27-", "nccl-on-sockets", []string{"libibverbs could not be loaded", "'NET/Socket : Using'"}}, // NCCL 2.4: a WARN
		{"28-", "nccl-on-sockets", []string{"no RDMA device found"}},
		{"29-", "nccl-on-sockets", []string{"NCCL 2.25.1+cuda12.4: NCCL logged", "libibverbs could not be loaded"}},
		{"30-", "nccl-on-sockets", []string{"no RDMA device found", "ens7:10.128.0.33<0>"}},
		{"31-", "nccl-gdr-off", []string{"disabled for HCA mlx5_0, mlx5_1"}},
		{"32-", "nccl-gdr-off", []string{"mlx5_0, mlx5_1, mlx5_2"}},
		{"33-", "nccl-gdr-off", []string{"mlx5_1 (no module)", "without /GDRDMA in 2 process(es)"}},
		{"35-", "nccl-gdr-off", []string{"without /GDRDMA in 8 process(es)"}},
		// NCCL's topology search: rings between nodes through NICs
		// across the CPUs' interconnect.
		{"38-", "nccl-gpu-nic-far", []string{"in 2 process(es) (gpu23 pid 1513, gpu24 pid 1188)",
			"'Pattern 4, crossNic 0, nChannels 4, speed 1.200000/1.200000, type SYS/SYS, sameChannels 0'"}},
	}
	for _, c := range cases {
		doc := findingsOf(t, ncclLog(t, c.file))
		if !firstNames(t, c.file, doc, c.rule, c.names) {
			continue
		}
		if c.rule == "nccl-on-sockets" && !strings.Contains(doc.Findings[0].Evidence, "this host's RDMA ports were not read") {
			t.Errorf("%s: a log alone does not say the host's ports: %q", c.file, doc.Findings[0].Evidence)
		}
	}
	// Healthy: IB and RoCE, channels via NET/IB/N/GDRDMA or no channel
	// lines at all; GPU-to-NIC paths through a PCIe switch (39), or a
	// node's GPUs across sockets with no channel to the network (40).
	for _, healthy := range []string{"07-", "20-", "21-", "22-", "36-", "39-", "40-"} {
		for _, f := range findingsOf(t, ncclLog(t, healthy)).Findings {
			if f.Rule == "nccl-on-sockets" || f.Rule == "nccl-gdr-off" || f.Rule == "nccl-gpu-nic-far" {
				t.Errorf("%s: %s (%s)", healthy, f.Rule, f.Evidence)
			}
		}
	}
}

// With the host beside the log (its rdma link output, real Soft-RoCE
// ports): the socket finding names the ACTIVE ports NCCL left idle; with
// every port down there is no socket finding (the ports' own findings
// say why).
func TestCheckNCCLSocketsBesideTheHost(t *testing.T) {
	link := "../../testdata/saved/rxe/final-rdma-link.json"
	doc := findingsOf(t, ncclLog(t, "24-"), link)
	if len(doc.Findings) == 0 || doc.Findings[0].Rule != "nccl-on-sockets" ||
		!strings.Contains(doc.Findings[0].Evidence, "this host has 2 ACTIVE RDMA port(s): rxe0/1, rxe1/1") {
		t.Errorf("findings %+v", doc.Findings)
	}
	raw, err := os.ReadFile(link)
	if err != nil {
		t.Fatal(err)
	}
	down := filepath.Join(t.TempDir(), "rdma-link.json")
	if err := os.WriteFile(down, []byte(strings.ReplaceAll(string(raw), `"state":"ACTIVE"`, `"state":"DOWN"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range findingsOf(t, ncclLog(t, "24-"), down).Findings {
		if f.Rule == "nccl-on-sockets" {
			t.Errorf("every port down: %s", f.Evidence)
		}
	}
}

type ruleEvidence struct {
	Findings []struct {
		Rule     string `json:"rule"`
		Evidence string `json:"evidence"`
	} `json:"findings"`
}

// findingsOf runs check --json on paths and returns its findings.
func findingsOf(t *testing.T, paths ...string) ruleEvidence {
	t.Helper()
	out, stderr, _ := runCLI(t, append([]string{"check", "--json"}, paths...)...)
	var doc ruleEvidence
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s: %v (stderr %q)", paths, err, stderr)
	}
	return doc
}
