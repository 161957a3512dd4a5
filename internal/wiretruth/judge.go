package wiretruth

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Run is one wire-truth run as tools/wiretruth writes it (truth.json.gz):
// its name, the spec line it was run from and the truth.
type Run struct {
	Run  string `json:"run"`
	Spec string `json:"spec"`
	Truth
}

// LoadRun reads a run's truth.json.gz, and the qdisc counters of
// impairments before a capture point from the meta.txt beside it.
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
	if meta, err := os.ReadFile(filepath.Join(filepath.Dir(path), "meta.txt")); err == nil {
		r.DroppedBefore = SourceDrops(meta)
	}
	return &r, nil
}

// NetworkDid names what the truth says the network did, as seen from the
// capture point at, in rdmatop's rule names (the first is the label; a
// finding naming any of them is right). Loss includes corruption: a
// receiver drops a frame whose ICRC fails, so to the transport it is
// lost; where the corrupted copy itself reaches the capture point, its
// failing ICRC is there to see, and icrc-errors names the cause of that
// loss. Where no loss leaves a hole the capture point can see and no NAK
// followed (a loss after the point; a lost READ request or response, or a
// lost last packet; a lost ACK, which no stream of PSNs shows, wherever it
// was lost), the capture sees only the requester's timer fire: ack-timeout
// names what it can see; so it does for answers that came late. What a
// sender's own egress did before the first capture point and that capture
// shows (CE marks, failing ICRCs, copies, packets built earlier arriving
// later) counts as done by the network, seen at both points. Nothing here
// reads the spec: the labels are the truth's alone (with the qdisc
// counters of impairments no capture precedes).
func NetworkDid(t *Truth, at string) (did []string, why string) {
	d := tallyDamage(t, at)
	return d.labels(), d.why()
}

// damage is what the network did over a run, added up for the labels of
// one capture point (NetworkDid).
type damage struct {
	lost, lostReq, reordered, dup, ce, timer, naks, rnr, resent, alike uint64
	cb, db, rb                                                         uint64 // corrupted, copied, reordered before the first point
	hiddenAnswers                                                      uint64 // READ responses lost where this point sees no hole
	before                                                             uint64 // dropped by a qdisc before a capture point
	ackLost                                                            uint64
	lossAfter, corruptHere                                             bool
}

// tallyDamage adds up what the network did to the flows of t, as the
// point at sees it.
func tallyDamage(t *Truth, at string) *damage {
	d := &damage{lossAfter: true}
	for _, f := range t.Flows {
		if f.Kind == "cnp" {
			continue
		}
		// A hole here: the loss is there to see - unless, without IPv4
		// IDs, every hole is one this point cannot tell from a packet
		// come late (Observed.UnclearLost: the first copy here of a packet
		// sent twice is the late original or the resend, alike to the bit).
		seesHole := f.Seen[at].Missing > f.Seen[at].UnclearLost
		if seesHole {
			d.lossAfter = false
		}
		if f.Corrupted > 0 && f.Downstream == at || f.CorruptedBefore > 0 {
			d.corruptHere = true // (corrupted before the first point: both see it)
		}
		d.naks += f.Episodes.NAK
		d.rnr += f.Episodes.RNR + f.RNRNAKs
		d.lost += f.Lost + f.Corrupted + f.CorruptedBefore
		if f.Kind != "acks" {
			d.lostReq += f.Lost + f.Corrupted + f.CorruptedBefore
		}
		if f.Kind == "responses" && !seesHole {
			d.hiddenAnswers += f.Lost + f.Corrupted + f.CorruptedBefore
		}
		d.cb, d.db, d.rb = d.cb+f.CorruptedBefore, d.db+f.DuplicatedBefore, d.rb+f.ReorderedBefore
		d.reordered += f.Reordered + f.ReorderedBefore
		d.dup += f.Duplicated + f.DuplicatedBefore
		d.ce += f.CEMarked + f.CEBefore
		d.timer += f.Episodes.Timer
		d.resent += f.Resent
		d.alike += f.Seen[f.Upstream].UnclearResends
	}
	d.ackLost = d.lost - d.lostReq
	d.sourceDrops(t)
	d.lost += d.before
	return d
}

// sourceDrops adds the drops the qdisc counters saw before a capture
// point.
func (dm *damage) sourceDrops(t *Truth) {
	// Drops at a sender's own egress (its qdisc, before its capture
	// point) are loss all the same, though neither capture holds the
	// packet. The counter does not say whether a request, a response or
	// an ACK was dropped: they count as loss where a resend followed,
	// as a lost ACK does. No NAK means the receiver saw no hole, so the
	// points (which see the stream it saw, or more) saw only the timer:
	// ack-timeout stays right, as for loss after the point.
	for _, s := range t.DroppedBefore {
		d, answersOnly, seen := s.Dropped, true, false
		for _, f := range t.Flows {
			if f.Upstream != s.Before {
				continue
			}
			seen = true
			if s.ECN { // netem counts its CE marks as drops: they reached the capture
				d -= min(d, f.CEBefore)
			}
			answersOnly = answersOnly && (f.Kind == "responses" || f.Kind == "acks" || f.Kind == "cnp")
		}
		dm.before += d
		if answersOnly && seen { // (an egress nothing of which reached a capture carried who knows what)
			// An egress that carries only a responder's answers dropped
			// answers: no NAK asks for those, the requester's timer does,
			// whatever NAKs other packets drew (training seed 28's
			// s28-06: READ responses dropped in the responder's qdisc, one
			// NAK from reordered requests).
			dm.hiddenAnswers += d
		}
	}
}

// labels names what the network did, in rdmatop's rule names.
func (d *damage) labels() (did []string) {
	// A lost ACK costs a resend only through the requester's timer: ACKs
	// are cumulative (the next covers it), and a NAK or RNR NAK asks for
	// its own resends. Lost ACKs with no timer episode cost nothing, and
	// neither end can see they were lost.
	if d.lostReq > 0 || (d.before > 0 && d.resent > 0) || (d.ackLost > 0 && d.timer > 0) {
		did = append(did, "packet-loss")
		// A lost ACK leaves no hole and draws no NAK (the responder had
		// the request): the timer is all any point sees of it, whatever
		// NAKs other packets drew (training seed 24, s24-40: 647 ACKs
		// lost, two timer episodes, and one NAK from inside the
		// responder). So for a READ response lost where this point sees
		// no hole: a responder does not NAK its own answers, and the
		// requester asks again (s24-48: 254 responses lost on the way
		// back, NAKs from reordered requests beside them).
		if (d.lossAfter && d.naks == 0 || d.ackLost > 0 || d.hiddenAnswers > 0) && d.timer > 0 {
			did = append(did, "ack-timeout")
		}
	}
	if d.corruptHere {
		did = append(did, "icrc-errors")
	}
	if d.reordered > 0 {
		did = append(did, "packet-reordering")
	}
	// Without IPv4 IDs a packet sent again right behind itself (sooner
	// than any ACK timer) is, to both points, a copy made at the sender's
	// own egress or the sender's immediate resend: alike to the bit and
	// in timing (Observed.UnclearResends). The matching counts it as a
	// resend; a finding that calls it a copy names what the captures show.
	if d.dup > 0 || d.alike > 0 {
		did = append(did, "packet-duplication")
	}
	if d.ce > 0 {
		did = append(did, "ecn-marked-no-cnp")
	}
	// RNR NAKs on the wire (the responder had no receive ready, or, on
	// Soft-RoCE, could not send a READ response yet): not the network's
	// doing, but what the capture holds; a finding that names it is right.
	if d.rnr > 0 {
		did = append(did, "rnr-nak", "rnr-nak-no-receive")
	}
	// Timer resends with nothing lost: the answers came late. At the
	// responder's side a late answer and one lost after it look alike;
	// at the requester's side too, unless the answer to the original
	// arrives sooner than any round trip after the resend (it then cannot
	// answer the resend). An answer a round trip or more after the resend
	// may answer either, and a cumulative ACK says the requests got there,
	// not whether an earlier ACK was lost or late. So ack-timeout, what
	// every point sees, is right wherever late-acks is.
	if d.timer > 0 && d.lost == 0 {
		did = append(did, "late-acks", "ack-timeout")
	}
	return did
}

// why says what the network did, in numbers.
func (d *damage) why() (why string) {
	why = fmt.Sprintf("lost %d, reordered %d, duplicated %d, CE %d, timer episodes %d", d.lost, d.reordered, d.dup, d.ce, d.timer)
	if d.cb+d.db+d.rb > 0 {
		why += fmt.Sprintf(" (before the first capture: %d corrupted, %d copied, %d reordered)", d.cb, d.db, d.rb)
	}
	if d.before > 0 {
		why += fmt.Sprintf(" (%d of the lost dropped before a capture point, by its qdisc)", d.before)
	}
	return why
}

// NothingVisible reports whether the capture point at sees none of what
// the network did, by the truth's own account of that point: no packet
// missing, copied, out of order or resent there, no ACK sent twice, no CE
// mark, ACK copy or corrupted copy reaching it. (A copy of a READ response made after
// the responder's capture, a lost UD datagram, a READ request lost before
// the responder and asked again after the timer: nothing there shows it.)
// No finding is then right too.
func NothingVisible(t *Truth, at string) bool {
	for _, f := range t.Flows {
		s := f.Seen[at]
		if s.Missing+s.Duplicates+s.OutOfOrder+s.Resent+f.ACKsRepeated > 0 {
			return false
		}
		if f.Downstream == at && f.CEMarked+f.Duplicated+f.Corrupted > 0 ||
			f.CEBefore+f.CorruptedBefore+f.DuplicatedBefore+f.ReorderedBefore > 0 {
			return false // (what was done before the first point reaches both)
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
