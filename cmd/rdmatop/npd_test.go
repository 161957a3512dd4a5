package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The node-problem-detector plugin's contract (deploy/kubernetes/
// node-problem-detector.json): NPD runs the rule's command and reads its
// exit status (0 OK, 1 NonOK, anything else Unknown) and the first line
// of its output as the condition's message.
func TestNodeProblemDetectorPlugin(t *testing.T) {
	var cfg struct {
		Plugin     string
		Conditions []struct{ Type, Reason, Message string }
		Rules      []struct {
			Type, Condition, Reason, Path string
			Args                          []string
		}
	}
	b, err := os.ReadFile("../../deploy/kubernetes/node-problem-detector.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("plugin config: %v", err)
	}
	if cfg.Plugin != "custom" || len(cfg.Rules) != 1 || len(cfg.Conditions) != 1 || cfg.Rules[0].Condition != cfg.Conditions[0].Type {
		t.Fatalf("plugin config: %+v", cfg)
	}
	args := cfg.Rules[0].Args
	withRoot := func(root string) []string {
		out := append([]string(nil), args...)
		for i := range out {
			if out[i] == "/host" {
				out[i] = root
			}
		}
		return append(out, "--interval", "50ms")
	}
	rxe := extractRxeRoot(t)
	for _, c := range []struct {
		name   string
		root   string
		code   int
		prefix string
	}{
		{"healthy Soft-RoCE host", rxe, 0, "OK: "},
		{"a port down (warning)", "../../testdata/sysfs/mlx5-roce-cx6dx-t0", 1, "WARNING: RDMA port is down on device=mlx5_1"},
		{"bad input", "/nonexistent", 2, "UNKNOWN: --root /nonexistent: not a directory"},
	} {
		out, stderr, code := runCLI(t, withRoot(c.root)...)
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code != c.code || len(lines) != 1 || !strings.HasPrefix(lines[0], c.prefix) {
			t.Errorf("%s: exit %d (want %d), output %q (want one line starting %q), stderr %q", c.name, code, c.code, out, c.prefix, stderr)
		}
	}
}

// extractRxeRoot unpacks the real Soft-RoCE sysfs tree.
func extractRxeRoot(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../testdata/sysfs/rxe/sysfs-final.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, h.Name)
		if h.Typeflag == tar.TypeReg {
			os.MkdirAll(filepath.Dir(p), 0o755)
			data, _ := io.ReadAll(tr)
			os.WriteFile(p, data, 0o644)
		}
	}
}
