package capture

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// truthDelta reads one hw_counters delta from an incident's truth file
// (testdata/incidents/*.truth.txt: "dev counter before after +delta").
func truthDelta(t *testing.T, incident, dev, counter string) uint64 {
	t.Helper()
	f, err := os.Open("../testdata/incidents/" + incident + ".truth.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 5 && fs[0] == dev && fs[1] == counter {
			n, err := strconv.ParseUint(strings.TrimPrefix(fs[4], "+"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("%s: no %s %s in the truth file", incident, dev, counter)
	return 0
}

// netem duplicated 5% of the requests on the wire: every copy the capture
// calls a duplicate is one the responder counted as a duplicate request,
// and none is taken for a resend.
func TestIncidentDuplicatesMatchResponder(t *testing.T) {
	s := analyze(t, "../testdata/incidents/duplicate.pcapng.gz", Config{})
	want := truthDelta(t, "duplicate", "rxe1", "duplicate_request")
	if s.Totals.Duplicates != want {
		t.Errorf("duplicates %d, responder's duplicate_request +%d", s.Totals.Duplicates, want)
	}
	if s.Totals.RetransmittedPackets != 0 || s.Totals.PSNGaps != 0 {
		t.Errorf("copies taken for loss: %d retransmitted, %d gaps", s.Totals.RetransmittedPackets, s.Totals.PSNGaps)
	}
}

// ib_read_bw with 16 READs outstanding on Soft-RoCE: nothing is lost, but
// the requester's timer fires and it re-issues READs whose responses are
// still coming. Every re-issue the capture sees is one the requester's
// completer counted, every NAK one the responder sent, and no PSN is
// missing.
func TestIncidentSpuriousReadResends(t *testing.T) {
	s := analyze(t, "../testdata/incidents/healthy-read-spurious.pcapng.gz", Config{})
	if s.Totals.PSNGaps != 0 || s.Totals.MissingPSNs != 0 {
		t.Errorf("nothing was lost, yet %d gaps (%d PSNs missing)", s.Totals.PSNGaps, s.Totals.MissingPSNs)
	}
	if want := truthDelta(t, "healthy-read-spurious", "rxe0", "completer_retry_err"); s.Totals.GoBackN != want {
		t.Errorf("go-back-N episodes %d, requester's completer_retry_err +%d", s.Totals.GoBackN, want)
	}
	if want := truthDelta(t, "healthy-read-spurious", "rxe1", "out_of_seq_request"); s.Totals.NAKs.PSNSequenceError != want {
		t.Errorf("PSN sequence error NAKs %d, responder's out_of_seq_request +%d", s.Totals.NAKs.PSNSequenceError, want)
	}
}
