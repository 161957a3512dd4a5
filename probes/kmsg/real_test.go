package kmsg

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// realEvent is what a test expects of one classified line.
type realEvent struct {
	Kind   Kind
	Sev    probes.Severity
	PCI    string
	Fields map[string]string
}

func readReal(t *testing.T, name string) []Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return ParseLines(string(b))
}

// TestRealGeerlingguy: a ConnectX-5 boot, `dmesg | grep mlx5` pasted with
// its prompt. The prompt is no record; the two probes and the module
// event are classified; "sufficient power" and the bandwidth line without
// a limit are not (they say all is well).
func TestRealGeerlingguy(t *testing.T) {
	recs := readReal(t, "dmesg_mlx5_cx5_boot_port_module_event_geerlingguy.txt")
	if len(recs) != 14 {
		t.Fatalf("%d records, want 14 (the prompt line skipped)", len(recs))
	}
	var got []realEvent
	for _, r := range recs {
		if r.Usec == nil || r.Stamp != "" || r.Host != "" {
			t.Errorf("%q: usec %v stamp %q host %q", r.Message, r.Usec, r.Stamp, r.Host)
		}
		if e, ok := Classify(r); ok {
			got = append(got, realEvent{e.Kind, e.Severity, e.PCI, e.Fields})
			if e.Driver != "mlx5_core" {
				t.Errorf("%q: driver %q", r.Message, e.Driver)
			}
		}
	}
	want := []realEvent{
		{KindDeviceProbe, probes.SevInfo, "0004:01:00.0", map[string]string{"fw_version": "16.27.2048"}},
		{KindModuleEvent, probes.SevInfo, "0004:01:00.0", map[string]string{"module": "0", "status": "Cable plugged"}},
		{KindDeviceProbe, probes.SevInfo, "0004:01:00.1", map[string]string{"fw_version": "16.27.2048"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("classified:\n%+v\nwant\n%+v", got, want)
	}
	if *recs[6].Usec != 11097374 || recs[6].Message != "mlx5_core 0004:01:00.0: Port module event: module 0, Cable plugged" {
		t.Errorf("record 6: %d %q", *recs[6].Usec, recs[6].Message)
	}
}

// TestRealGpud: one `dmesg -T` line with a host and "kernel:", as pasted
// in a gpud issue: an insufficient-power warning on 0000:5c:00.0 at a
// wall time with a year.
func TestRealGpud(t *testing.T) {
	recs := readReal(t, "dmesg_mlx5_pcie_insufficient_power_gpud.txt")
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.Stamp != "Sun Dec  1 14:54:40 2024" || r.Host != "ny2g1r12hh2" || r.Usec != nil {
		t.Errorf("stamp %q host %q usec %v", r.Stamp, r.Host, r.Usec)
	}
	if want := time.Date(2024, 12, 1, 14, 54, 40, 0, time.UTC); !r.Wall.Equal(want) {
		t.Errorf("wall %v, want %v", r.Wall, want)
	}
	e, ok := Classify(r)
	if !ok {
		t.Fatalf("not classified: %q", r.Message)
	}
	got := realEvent{e.Kind, e.Severity, e.PCI, e.Fields}
	want := realEvent{KindPCIePower, probes.SevWarning, "0000:5c:00.0", map[string]string{"watts": "27"}}
	if !reflect.DeepEqual(got, want) || e.Driver != "mlx5_core" || e.IBDev != "" || e.Netdev != "" {
		t.Errorf("%+v (driver %q ibdev %q netdev %q), want %+v", got, e.Driver, e.IBDev, e.Netdev, want)
	}
	if e.Message != "mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W)." {
		t.Errorf("message %q", e.Message)
	}
	// The host's zone is unknown; a caller who knows it reads the stamp so.
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip(err)
	}
	if w, ok := r.WallTime(0, ny); !ok || !w.Equal(time.Date(2024, 12, 1, 19, 54, 40, 0, time.UTC)) {
		t.Errorf("WallTime in New York: %v %v", w, ok)
	}
}
