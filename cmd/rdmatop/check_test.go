package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/rdmatop/rdmatop/rules"
)

// rdmatop check's exit codes, end to end: 0 nothing at warning or above,
// 1 something is, 2 usage or input errors.
func TestCheckExitCodes(t *testing.T) {
	badRules := t.TempDir()
	os.WriteFile(filepath.Join(badRules, "x.yaml"), []byte("- id: Bad\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"check", "../../testdata/rxe/pcap/clean.pcap"}, 0, "no findings"},
		{[]string{"check", "../../testdata/rxe/pcap/lossy1.pcap"}, 1, "[packet-loss]"},
		{[]string{"check", "../../testdata/lab/faults/faults.bundle.gz"}, 1, "[qp-error-state]"},
		{[]string{"check", "/nonexistent.pcap"}, 2, ""},
		{[]string{"check", "../../testdata/rxe/pcap/clean.pcap", "--rules", badRules}, 2, ""},
		{[]string{"check", "a", "b"}, 2, ""},
	} {
		out, stderr, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("rdmatop %v: exit %d (want %d), stdout %.300q, stderr %q", c.args, code, c.code, out, stderr)
		}
	}
}

// replay --json carries the findings of the wire rules.
func TestReplayJSONHasFindings(t *testing.T) {
	out, _, code := runCLI(t, "replay", "../../testdata/rxe/faults/access/capture.pcap", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		RoCEPackets uint64 `json:"roce_packets"`
		Findings    []struct {
			Rule     string            `json:"rule"`
			Severity string            `json:"severity"`
			Objects  map[string]string `json:"objects"`
			Evidence string            `json:"evidence"`
			Fix      []string          `json:"fix"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.RoCEPackets != 16 || len(doc.Findings) == 0 {
		t.Fatalf("%d packets, findings %+v", doc.RoCEPackets, doc.Findings)
	}
	for _, f := range doc.Findings {
		if f.Rule == "" || f.Severity == "" || f.Evidence == "" || len(f.Fix) == 0 || len(f.Objects) == 0 {
			t.Errorf("incomplete finding %+v", f)
		}
	}
}

// The findings of one rule stand together, the flow that lost the most
// first, and only that one carries the cause, confirm and fix: lossy1's
// three lossy flows lost 22, 8 and 7 PSNs (tshark's oracle counts the same
// gaps, TestOracle), and --oneline names the worst.
func TestCheckGroupsOneRuleWorstFirst(t *testing.T) {
	out, _, code := runCLI(t, "check", "../../testdata/rxe/pcap/lossy1.pcap")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var missing []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  evidence flow") && strings.Contains(l, "PSN gaps") {
			missing = append(missing, regexp.MustCompile(`\(([0-9]+) PSNs missing\)`).FindStringSubmatch(l)[1])
		}
	}
	if strings.Join(missing, ",") != "22,8,7" {
		t.Errorf("packet-loss findings by PSNs missing: %v, want 22,8,7", missing)
	}
	if n := strings.Count(out, "  cause    Packets of reliable connections"); n != 1 {
		t.Errorf("packet-loss's cause printed %d times, want once", n)
	}
	if n := strings.Count(out, "cause, confirm and fix: as for the first packet-loss above"); n != 2 {
		t.Errorf("%d back-references to the first packet-loss, want 2", n)
	}
	one, _, _ := runCLI(t, "check", "--oneline", "../../testdata/rxe/pcap/lossy1.pcap")
	if !strings.Contains(one, "flow=1 ") {
		t.Errorf("--oneline: %q, want flow 1 (22 PSNs missing)", one)
	}
}

// `rdmatop rules` lists the pack for a terminal: no Go map syntax, each
// rule's parameters as name=value under it, no line past 160 columns.
func TestRulesListing(t *testing.T) {
	out, _, code := runCLI(t, "rules")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out, "map[") {
		t.Error("Go map syntax in the listing")
	}
	if !strings.Contains(out, "\n  params min_roce_mtu=4096\n") {
		t.Errorf("roce-mtu-too-small's parameter is not listed as name=value under it:\n%s", out[:min(len(out), 600)])
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 160 {
			t.Errorf("%d columns: %q", len(l), l)
		}
	}
}

// A file named as a capture that does not hold one is a damaged capture:
// check says so as replay does (exit 2, its first bytes), rather than
// reporting that it found no saved command output in it.
func TestCheckNamedCaptureThatIsNot(t *testing.T) {
	p := filepath.Join(t.TempDir(), "roce.pcap")
	if err := os.WriteFile(p, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"check", "replay"} {
		_, stderr, code := runCLI(t, cmd, p)
		if code != 2 || !strings.Contains(stderr, "not a pcap or pcapng capture: first bytes 68 65 6c 6c") {
			t.Errorf("%s: exit %d, %q", cmd, code, stderr)
		}
	}
}

// Exit codes tell "fix the command" (2) from "fix the host" (3): a listen
// address that does not parse is the user's input; one that is taken is
// the machine's.
func TestExitCodeFailureIsNotUsage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	root := "../../testdata/sysfs/mlx5-roce-cx6dx-t0"
	if _, stderr, code := runCLI(t, "serve", "--root", root, "--listen", ln.Addr().String()); code != 3 || !strings.Contains(stderr, "address already in use") {
		t.Errorf("serve on a taken address: exit %d, %q; want 3", code, stderr)
	}
	if _, stderr, code := runCLI(t, "serve", "--root", root, "--listen", "not-an-address"); code != 2 {
		t.Errorf("serve on a malformed address: exit %d, %q; want 2", code, stderr)
	}
}

// Without CAP_NET_RAW a live capture cannot open its packet socket: that
// is the host's (exit 3), and the message names the capability. Run as
// nobody (65534) from root.
func TestCaptureWithoutPermissionIsAFailure(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the binary as nobody")
	}
	bin := buildRdmatop(t)
	for d := filepath.Dir(bin); d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil { // nobody must reach the binary
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "capture", "-i", "lo", "--duration", "1s")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(string(out), "CAP_NET_RAW") {
		t.Errorf("capture as nobody: %v, %q; want exit 3 naming CAP_NET_RAW", err, out)
	}
}

// check FILE takes --interval as replay does, the step of the file's
// timeline, and refuses the same values the same way: --interval 0 was
// accepted by check and refused by replay (issue 33, item 12).
func TestCheckFileRefusesTheIntervalReplayRefuses(t *testing.T) {
	const capture = "../../testdata/rxe/pcap/lossy1.pcap"
	for _, iv := range []string{"0", "25h"} {
		_, want, wantCode := runCLI(t, "replay", capture, "--report", "--interval", iv)
		if wantCode != 2 || !strings.Contains(want, "--interval") {
			t.Fatalf("replay --interval %s: exit %d, %q", iv, wantCode, want)
		}
		if out, stderr, code := runCLI(t, "check", capture, "--interval", iv); code != 2 || stderr != want || out != "" {
			t.Errorf("check --interval %s: exit %d, stdout %.200q, stderr %q; want 2 and %q", iv, code, out, stderr, want)
		}
		if out, _, code := runCLI(t, "check", capture, "--interval", iv, "--oneline"); code != 2 || out != "UNKNOWN: "+strings.TrimPrefix(want, "rdmatop: ") {
			t.Errorf("check --oneline --interval %s: exit %d, %q", iv, code, out)
		}
	}
	if _, stderr, code := runCLI(t, "check", capture, "--interval", "100us"); code != 1 {
		t.Errorf("check --interval 100us: exit %d (a fine step is allowed, as in replay): %s", code, stderr)
	}
}

// --oneline with --json is two formats at once: a usage error (exit 2,
// docs/cli.md), said as the one line a node-problem-detector plugin
// reads, in either order; it used to print the one line and exit 1.
func TestCheckOnelineAndJSONAreExclusive(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--oneline", "--json", "../../testdata/rxe/pcap/lossy1.pcap"},
		{"check", "--json", "--oneline", "../../testdata/rxe/pcap/clean.pcap"},
	} {
		out, _, code := runCLI(t, args...)
		if code != exitUsage || !strings.HasPrefix(out, "UNKNOWN: --oneline and --json are exclusive") || strings.Count(out, "\n") != 1 {
			t.Errorf("rdmatop %v: exit %d, %q", args, code, out)
		}
	}
}

// A finding's confirm and fix lines carry names from the host or the
// capture (a device, an interface): the text report sanitizes them like
// every other string from outside, so that a crafted name cannot drive
// the terminal.
func TestReportSanitizesConfirmAndFix(t *testing.T) {
	evil := "mlx5_0\x1b]0;pwned\x07\x1b[2J"
	res := checkResult{Findings: []rules.Finding{{
		Rule: "port-down", Severity: rules.Critical, Title: "port down", Evidence: "port " + evil + " is down",
		Cause: "cable", Confirm: []string{"rdma link show " + evil}, Fix: []string{"reseat " + evil}, Docs: []string{"docs/" + evil},
	}}}
	var b strings.Builder
	writeFindings(&b, res)
	if out := b.String(); strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("control characters reach the terminal:\n%q", out)
	}
}
