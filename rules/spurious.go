package rules

import (
	"slices"

	"github.com/rdmatop/rdmatop/capture"
)

// timerResendsOnly says that a flow's resends were its requester's timer
// firing on a responder that was still answering, with nothing lost: the
// requester re-issued READs before the capture saw any of the responses
// they ask for, the responder then sent responses twice (to the original
// and to the re-issue), neither direction misses a PSN, and sequence NAKs
// drove at most a minority of the go-back-N episodes (loss of requests past
// the capture point makes one NAK per episode). Soft-RoCE under READ load
// does this (testdata/incidents/healthy-read-spurious); on hardware it means
// an ACK timeout shorter than the responder's READ latency.
func timerResendsOnly(f, peer *capture.FlowSummary) bool {
	return f != nil && peer != nil &&
		f.ReadReissuesUnanswered > 0 && f.GoBackN > 0 &&
		f.PSNGaps == 0 && peer.PSNGaps == 0 && peer.RetransmittedPackets > 0 &&
		2*(peer.NAKs.PSNSequenceError-min(peer.NAKs.PSNSequenceError, peer.NAKs.RNR)) < f.GoBackN
}

// TimerResendsOnly is timerResendsOnly for the scope's flow and its peer:
// a flow-scope rule's `TimerResendsOnly()`.
func (e Env) TimerResendsOnly() bool { return timerResendsOnly(e.Flow, e.Peer) }

// timerResendFlows counts the flows of a capture whose resends are
// timerResendsOnly.
func timerResendFlows(w *capture.Summary) int {
	if !slices.ContainsFunc(w.Flows, func(f capture.FlowSummary) bool { return f.ReadReissuesUnanswered > 0 }) {
		return 0 // the common case, without building an index
	}
	byID := make(map[int]*capture.FlowSummary, len(w.Flows))
	for i := range w.Flows {
		byID[w.Flows[i].ID] = &w.Flows[i]
	}
	n := 0
	for i := range w.Flows {
		if f := &w.Flows[i]; f.PeerID != 0 && timerResendsOnly(f, byID[f.PeerID]) {
			n++
		}
	}
	return n
}
