package kmsg

import "testing"

// FuzzParse: no input may panic the record and text parsers or the
// classifier.
func FuzzParse(f *testing.F) {
	f.Add("6,194,289791,-;acpi PNP0A08:00: _OSC\n SUBSYSTEM=acpi\n DEVICE=+pci:0000:3b:00.0\n")
	f.Add("[15601.662156] infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:")
	f.Add("Nov 29 13:06:13 pve2-xxx kernel: bnxt_en 0000:12:00.0 bnxt_re0: Failed to modify HW QP\n   more")
	f.Add("<3>[ 9556.710241][ T1] clinfo: page allocation failure: order:9, mode:0x1")
	f.Add("jgeerling@nas01:~$ dmesg | grep mlx5\n[   11.097374] mlx5_core 0004:01:00.0: Port module event: module 0, Cable plugged")
	f.Add("[Sun Dec  1 14:54:40 2024] ny2g1r12hh2 kernel: mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).")
	f.Add("Dec 01 14:54:40.123456 ny2 kernel: ice 0000:3b:00.0 rocep59s0f0: HMC Error\r\n-- Boot 0123 --")
	f.Add("2024-12-01T14:54:40.123+0000 ny2 kernel: bnxt_en 0000:21:00.0 rocep33s0f0: Failed to create HW QP")
	f.Add("Sun 2024-12-01 14:54:40 CET ny2 kernel: mlx5_core 0000:3b:00.1 enp59s0f1np1 (unregistering): Link down")
	f.Add("\uFEFF2024-12-01T14:54:40,123456+00:00 i40e 0000:18:00.1 iwp24s0f1: abnormal ae_id = 0x503 bool qp=1 qp_id = 5, ae_src=0")
	f.Add("[  123.456789] ny2 kernel: mlx5_core 10000:01:00.0 (unnamed net_device) (uninitialized): x")
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := ParseRecord(s); err == nil {
			Classify(r)
		}
		m := DeviceMap{ByPCI: map[string]string{s: s}, ByNetdev: map[string]string{s: s}}
		for _, r := range ParseLines(s) {
			r.WallTime(2024, nil)
			if e, ok := Classify(r); ok {
				m.Fill(&e)
			}
		}
		seqOf(s)
	})
}
