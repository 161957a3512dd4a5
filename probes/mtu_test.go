package probes

import "testing"

// rxe on a 1500-byte veth reports active_mtu 1024 (shared/testdata/rxe);
// 4200 is the usual floor for a 4096 RoCE MTU.
func TestRoCEMTU(t *testing.T) {
	for mtu, want := range map[int]int{1500: 1024, 4200: 4096, 4191: 2048, 4192: 4096, 9000: 4096, 2144: 2048, 2143: 1024, 1000: 512, 300: 0, 352: 256} {
		if got := RoCEMTU(mtu); got != want {
			t.Errorf("RoCEMTU(%d) = %d, want %d", mtu, got, want)
		}
	}
}
