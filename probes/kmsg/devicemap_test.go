package kmsg

import "testing"

func TestDeviceMapResolve(t *testing.T) {
	m := DeviceMap{
		ByPCI:    map[string]string{"0000:5c:00.0": "mlx5_0", "0000:3b:00.0": "rocep59s0f0", "0000:c3:00.0": "ibp195s0"},
		ByNetdev: map[string]string{"enp59s0f0np0": "rocep59s0f0", "ens1f1np1": "bnxt_re1"},
	}
	for _, c := range []struct {
		line, want string
		ok         bool
	}{
		// only the PCI address
		{"[Sun Dec  1 14:54:40 2024] ny2g1r12hh2 kernel: mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).", "mlx5_0", true},
		// the netdev (and its PCI function)
		{"[ 1.0] mlx5_core 0000:3b:00.0 enp59s0f0np0: Link down", "rocep59s0f0", true},
		// the netdev only, via a bnxt_en that is not in ByPCI
		{"[ 1.0] bnxt_en 0000:21:00.1 ens1f1np1: NIC Link is Down", "bnxt_re1", true},
		// an "ib…" name the classifier left as a netdev, known as an RDMA device
		{"[ 1.0] mlx4_core 0000:c3:00.0 ibp195s0: Port: 1 Link ACTIVE", "ibp195s0", true},
		// the RDMA device named: kept
		{"[ 1.0] infiniband mlx5_7: mlx5_handle_error_cqe:332:(pid 0): WC error: 10, message: remote access error", "mlx5_7", true},
		// nothing known
		{"[ 1.0] mlx5_core 0000:99:00.0: Port module event: module 0, Cable unplugged", "", false},
	} {
		e, ok := Classify(ParseLines(c.line)[0])
		if !ok {
			t.Fatalf("%q: not classified", c.line)
		}
		got, ok := m.Resolve(e)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.line, got, ok, c.want, c.ok)
		}
		if m.Fill(&e) != c.ok || e.IBDev != c.want {
			t.Errorf("%q: Fill: ibdev %q", c.line, e.IBDev)
		}
	}
	if d, ok := (DeviceMap{}).Resolve(Event{PCI: "0000:5c:00.0", Netdev: "eth0"}); ok || d != "" {
		t.Errorf("zero map: %q %v", d, ok)
	}
}
