package rules

import "testing"

// Loss seen only in host counters (issue 9, gap 3). The ack-loss
// incidents dropped 10% and 30% of the responder's ACKs on the wire during
// ib_write_bw on Soft-RoCE; only the host data of the recording is read
// here (the packets are left out), as when a customer sends a recording
// without a capture. The recordings hold the requester's port (rdmatop
// record -i veth0: rxe0): its completer_retry_err rises with no sequence
// or RNR NAK, its timer, and ack-timeout must fire there (retransmissions
// with it, which ack-timeout explains). The healthy runs of the same
// workload stay quiet.
func TestHostCountersShowACKLoss(t *testing.T) {
	p := wirePack(t)
	for _, c := range []struct {
		incident string
		want     map[string][]string
	}{
		{"ack-loss-10pct", map[string][]string{"ack-timeout": {"rxe0/1"}, "retransmissions": {"rxe0/1"}}},
		{"ack-loss-30pct", map[string][]string{"ack-timeout": {"rxe0/1"}}},
		{"healthy-write", nil},
		{"healthy-send", nil},
	} {
		fs, _ := wRun(t, p, wReplay(t, wtd+"incidents/"+c.incident+".pcapng.gz"))
		wExpect(t, c.incident+" (host data only)", fs, c.want)
	}
}
