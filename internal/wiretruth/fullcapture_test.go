package wiretruth

import (
	"os"
	"path/filepath"
	"testing"
)

// An archived run keeps its full capture as point.pcap.full.gz; a run as
// recorded keeps point.pcap, which wins when both are there.
func TestFullCapture(t *testing.T) {
	dir := t.TempDir()
	touch := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := FullCapture(dir, "veth0"), filepath.Join(dir, "veth0.pcap"); got != want {
		t.Errorf("nothing there: got %s, want %s", got, want)
	}
	touch("veth0.pcap.full.gz")
	if got, want := FullCapture(dir, "veth0"), filepath.Join(dir, "veth0.pcap.full.gz"); got != want {
		t.Errorf("archived: got %s, want %s", got, want)
	}
	touch("veth0.pcap")
	if got, want := FullCapture(dir, "veth0"), filepath.Join(dir, "veth0.pcap"); got != want {
		t.Errorf("both: got %s, want %s", got, want)
	}
}
