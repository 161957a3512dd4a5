package wiretruth

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// Run is one wire-truth run as tools/wiretruth writes it (truth.json.gz):
// its name, the spec line it was run from and the truth.
type Run struct {
	Run  string `json:"run"`
	Spec string `json:"spec"`
	Truth
}

// LoadRun reads a run's truth.json.gz.
func LoadRun(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var r Run
	if err := json.NewDecoder(z).Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// NetworkDid names what the truth says the network did, as seen from the
// capture point at, in rdmatop's rule names (the first is the label; a
// finding naming any of them is right). Loss includes corruption: a
// receiver drops a frame whose ICRC fails, so to the transport it is
// lost. Where every loss lies after the capture point and no NAK followed
// (a lost READ request or response, or a lost last packet), the capture
// sees only the requester's timer fire: ack-timeout names what it can
// see; so it does for answers that came late, seen from the responder's
// side. Nothing here reads the spec: the labels are the truth's alone.
func NetworkDid(t *Truth, at string) (did []string, why string) {
	var lost, lostReq, reordered, dup, ce, timer, naks, resent uint64
	lossAfter, requesterHere := true, false
	for _, f := range t.Flows {
		if f.Kind == "cnp" {
			continue
		}
		if f.Episodes.Timer > 0 && f.Upstream == at {
			requesterHere = true
		}
		if f.Lost+f.Corrupted > 0 && f.Upstream != at {
			lossAfter = false
		}
		naks += f.Episodes.NAK
		lost += f.Lost + f.Corrupted
		if f.Kind != "acks" {
			lostReq += f.Lost + f.Corrupted
		}
		reordered += f.Reordered
		dup += f.Duplicated
		ce += f.CEMarked
		timer += f.Episodes.Timer
		resent += f.Resent
	}
	// Lost ACKs that cost nothing (no resend): the next ACK covered them,
	// and neither end can see they were lost.
	if lost > 0 && (lostReq > 0 || resent > 0) {
		did = append(did, "packet-loss")
		if lossAfter && naks == 0 && timer > 0 {
			did = append(did, "ack-timeout")
		}
	}
	if reordered > 0 {
		did = append(did, "packet-reordering")
	}
	if dup > 0 {
		did = append(did, "packet-duplication")
	}
	if ce > 0 {
		did = append(did, "ecn-marked-no-cnp")
	}
	// Timer resends with nothing lost: the answers came late. Only the
	// requester's side can see that (an answer to the original arriving
	// after the resend); at the responder's side a late answer and one
	// lost after it look alike, and ack-timeout names what it sees.
	if timer > 0 && lost == 0 {
		did = append(did, "late-acks")
		if !requesterHere {
			did = append(did, "ack-timeout")
		}
	}
	why = fmt.Sprintf("lost %d, reordered %d, duplicated %d, CE %d, timer episodes %d", lost, reordered, dup, ce, timer)
	return did, why
}

// NothingVisible reports whether the capture point at sees none of what
// the network did, by the truth's own account of that point: no packet
// missing, copied, out of order or resent there, no ACK sent twice, no CE
// mark or ACK copy reaching it. (A copy of a READ response made after
// the responder's capture, a lost UD datagram, a READ request lost before
// the responder and asked again after the timer: nothing there shows it.)
// No finding is then right too.
func NothingVisible(t *Truth, at string) bool {
	for _, f := range t.Flows {
		s := f.Seen[at]
		if s.Missing+s.Duplicates+s.OutOfOrder+s.Resent+f.ACKsRepeated > 0 {
			return false
		}
		if f.Downstream == at && f.CEMarked+f.Duplicated > 0 {
			return false
		}
	}
	return true
}

// FirstFindingRight is the campaign's verdict on one capture: right when
// the first finding at warning or above names something the network did,
// or when the network did nothing (or nothing of it is visible at that
// point) and no warning was raised at all.
func FirstFindingRight(did []string, hidden bool, first string, warnings int) bool {
	return ((len(did) == 0 || hidden) && warnings == 0) || slices.Contains(did, first)
}
