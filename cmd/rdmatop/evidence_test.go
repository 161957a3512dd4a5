package main

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/rules"
)

// Nothing to look at is never a clean bill of health: a host without RDMA
// devices, or -d/-i naming none, gives UNKNOWN with the reason and exit 2
// (node-problem-detector's Unknown), in every form of the live check.
// Before, each of these printed "OK" or "no findings" and exited 0.
func TestNothingCheckedIsUnknown(t *testing.T) {
	empty := t.TempDir() // a host without /sys/class/infiniband
	if err := os.MkdirAll(filepath.Join(empty, "sys", "class", "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	const mlx5 = "../../testdata/sysfs/mlx5-roce-cx6dx-t0"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no device, oneline", []string{"check", "--oneline", "--interval", "50ms", "--root", empty}, "UNKNOWN: nothing was checked: no RDMA device on this host"},
		{"no device, text", []string{"check", "--interval", "50ms", "--root", empty}, "UNKNOWN: nothing was checked: no RDMA device on this host"},
		{"-d naming none", []string{"check", "--oneline", "--interval", "50ms", "--root", mlx5, "-d", "mlx5_9"}, "UNKNOWN: nothing was checked: -d mlx5_9 names no RDMA device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, stderr, exitUsage, tc.want)
			}
			if strings.Contains(out, "OK") || strings.Contains(out, "no findings") {
				t.Errorf("says all is well about nothing: %q", out)
			}
		})
	}

	// --once --json: the document says why, and the exit status too.
	out, _, code := runCLI(t, "--once", "--json", "--interval", "50ms", "--root", mlx5, "-d", "mlx5_9")
	var doc struct {
		Unknown string `json:"unknown"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if code != exitUsage || !strings.Contains(doc.Unknown, "names no RDMA device") {
		t.Errorf("--once --json -d mlx5_9: exit %d, unknown %q", code, doc.Unknown)
	}

	// With ports to look at, the verdict is the findings' (mlx5_1's port
	// is down in this fixture), never UNKNOWN.
	out, _, code = runCLI(t, "check", "--oneline", "--interval", "50ms", "--root", mlx5)
	if code != exitFindings || strings.Contains(out, "UNKNOWN") {
		t.Errorf("check of the mlx5 fixture: exit %d, %q", code, out)
	}
}

// A recording cut short (the recorder killed, or the file truncated on its
// way) is no clean bill of health past the cut: check says UNKNOWN with
// where it ends and exits 2. Cut after 20 kB, the lab's link-flap
// recording used to give OK and exit 0 (the flap is after the cut).
func TestTruncatedRecordingIsUnknown(t *testing.T) {
	src, err := os.Open("../../testdata/evalset2/v2-link-flap-2s-send-5m.pcapng.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	zr, err := gzip.NewReader(src)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 20_000)
	if _, err := io.ReadFull(zr, head); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcapng")
	if err := os.WriteFile(cut, head, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "check", "--oneline", cut)
	if code != exitUsage || !strings.HasPrefix(out, "UNKNOWN: the recording ends inside block") || !strings.Contains(out, "byte offset") {
		t.Errorf("exit %d, %q %q; want exit 2 and UNKNOWN naming the byte offset", code, out, stderr)
	}
	// The whole recording is judged as before.
	out, _, code = runCLI(t, "check", "--oneline", "../../testdata/evalset2/v2-link-flap-2s-send-5m.pcapng.gz")
	if code != exitFindings || !strings.Contains(out, "[link-flap]") {
		t.Errorf("whole recording: exit %d, %q", code, out)
	}
}

// The one line names the cause, at the worst severity of what it
// explains, and in a file the worst that happened: it used to name the
// blackhole's retransmissions (a symptom its ACK timeouts explain) and,
// on the pause-storm recording, a standing warning above the critical
// storm that resolved before the end.
func TestOneLineNamesTheWorstCause(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"../../testdata/incidents/blackhole.pcapng.gz", "CRITICAL: Requesters retransmit after ACK timeouts"},
		{"../../testdata/incidents/syn-pfc-pause-storm.pcapng.gz", "CRITICAL: PFC pause storm"},
	} {
		out, _, code := runCLI(t, "check", "--oneline", tc.file)
		if code != exitFindings || !strings.HasPrefix(out, tc.want) || !strings.Contains(out, "resolved") {
			t.Errorf("%s: exit %d, %q; want %q ... (resolved ...)", tc.file, code, out, tc.want)
		}
	}
}

// The exit codes docs/cli.md promises for check, one case each
// (TestExitCodes has replay's and capture's).
func TestExitCodesOfCheck(t *testing.T) {
	const mlx5 = "../../testdata/sysfs/mlx5-roce-cx6dx-t0"
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"check", "--oneline", "../../testdata/evalset2/v2-healthy-write-4k-full.pcapng.gz"}, exitOK},
		{[]string{"check", "--oneline", "--interval", "50ms", "--root", mlx5}, exitFindings},
		{[]string{"check", "--rules", "/nonexistent", "--oneline", "--root", mlx5}, exitUsage},
		{[]string{"check", "--oneline", "--interval", "50ms", "--root", mlx5, "-d", "mlx5_9"}, exitUsage},
	} {
		_, stderr, code := runCLI(t, tc.args...)
		if code != tc.want {
			t.Errorf("rdmatop %s: exit %d, want %d (%s)", strings.Join(tc.args, " "), code, tc.want, stderr)
		}
	}
}

// Completion offers names for names, not file names: -i the host's
// interfaces, --icrc and --theme their values (they used to complete file
// names).
func TestFlagCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "check", "-i", ""}, "lo\n"},
		{[]string{"__complete", "capture", "-i", ""}, "lo\n"},
		{[]string{"__complete", "replay", "x.pcap", "--icrc", ""}, "auto\n"},
		{[]string{"__complete", "--theme", ""}, "light\n"},
	} {
		out, _, _ := runCLI(t, tc.args...)
		if !strings.Contains(out, tc.want) || !strings.HasSuffix(out, ":4\n") { // 4: ShellCompDirectiveNoFileComp
			t.Errorf("rdmatop %s: %q", strings.Join(tc.args, " "), out)
		}
	}
}

// A recording cut where findings are already in it (issue 33: the first
// 150,000 bytes of the pipeline incident's .pcapng.gz) still shows them,
// says where it ends, and exits 2 as any truncated input: check (text,
// --json, --oneline) and replay --report alike.
func TestTruncatedRecordingWithFindingsExits2(t *testing.T) {
	whole, err := os.ReadFile("../../testdata/lab/pipeline/incident.pcapng.gz")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcapng.gz")
	if err := os.WriteFile(cut, whole[:150_000], 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runCLI(t, "check", cut)
	if code != exitUsage || !strings.Contains(out, "[packet-loss]") || !strings.Contains(out, "INCOMPLETE: the recording ends inside block") ||
		!strings.Contains(out, "byte offset") {
		t.Errorf("check: exit %d, want 2 with the findings and INCOMPLETE naming the byte offset:\n%s", code, out)
	}
	out, _, code = runCLI(t, "check", "--json", cut)
	var doc struct {
		Incomplete string          `json:"incomplete"`
		Findings   []rules.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != exitUsage || doc.Incomplete == "" || len(doc.Findings) == 0 {
		t.Errorf("check --json: exit %d, incomplete %q, %d findings (%v)", code, doc.Incomplete, len(doc.Findings), err)
	}
	out, _, code = runCLI(t, "check", "--oneline", cut)
	if code != exitUsage || !strings.Contains(out, "recording cut short") {
		t.Errorf("check --oneline: exit %d, %q", code, out)
	}
	out, _, code = runCLI(t, "replay", "--report", cut)
	if code != exitUsage || !strings.Contains(out, "the recording ends inside block") {
		t.Errorf("replay --report: exit %d, want 2 and where it ends", code)
	}
}
