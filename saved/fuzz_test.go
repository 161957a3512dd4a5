package saved

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzRecognise: no bytes make the recognisers or parsers panic, and
// whatever a file holds it is reported with a kind.
func FuzzRecognise(f *testing.F) {
	for _, dir := range []string{realDir, rxeDir, sosDir + "/sos_commands/networking", sosDir + "/sos_commands/kernel"} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && !e.IsDir() {
				f.Add(e.Name(), b[:min(len(b), 4096)])
			}
		}
	}
	f.Add("sos_commands/networking/ethtool_-S_eth0", []byte("NIC statistics:\n     [0]: rx: 1\n"))
	f.Add("x", []byte("$ date\nTue Dec  1 23:36:41 UTC 2026\n$ rdma statistic show\nlink mlx5_0/1 rx_write_requests 5\n"))
	f.Add("x", []byte("=== ./a ===\n1\n==> /sys/class/net/eth0/statistics/rx_bytes <==\n7\n"))
	f.Add("x", []byte("2: eth0: <UP> mtu 9000\n    RX: bytes packets\n    1 2\n    TX: bytes\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		l := &loader{h: newHost()}
		in := l.recognise(file{path: name, name: name, data: data})
		if in.Kind == "" {
			t.Fatalf("no kind for %q", data)
		}
		l.finishTrees()
		l.finishEvents()
		l.h.snapshots("fuzz", nil)
	})
}
