package kmsg

import "testing"

// FuzzParse: no input may panic the record and text parsers or the
// classifier.
func FuzzParse(f *testing.F) {
	f.Add("6,194,289791,-;acpi PNP0A08:00: _OSC\n SUBSYSTEM=acpi\n DEVICE=+pci:0000:3b:00.0\n")
	f.Add("[15601.662156] infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:")
	f.Add("Nov 29 13:06:13 pve2-xxx kernel: bnxt_en 0000:12:00.0 bnxt_re0: Failed to modify HW QP\n   more")
	f.Add("<3>[ 9556.710241][ T1] clinfo: page allocation failure: order:9, mode:0x1")
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := ParseRecord(s); err == nil {
			Classify(r)
		}
		for _, r := range ParseLines(s) {
			Classify(r)
		}
		seqOf(s)
	})
}
