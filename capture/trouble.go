package capture

// A flow counts its troubles (PSN gaps, resends, NAKs, CNPs, bad ICRCs)
// apart, in a flowTrouble it gets the first time one happens: on a
// healthy fabric nearly every flow has none, and a flow table of 65,536
// flows is 16 MB smaller without them. The table's memory is what a
// capture of many short-lived QPs spends its time on (a new flow reuses
// the least recently seen one, never in cache), so a smaller flow is a
// faster one (docs/bench.md).

// troubleCounts are the counters of what went wrong on a flow. Intervals
// report them as differences (flowCounters).
type troubleCounts struct {
	// PSN analysis of what this flow carries: its requests, and the READ
	// responses it returns.
	gaps, missing, retrans, goBackN, outOfOrder uint64
	// duplicates: a request captured again right after itself (a mirror or
	// a link that copies frames), not resent by the sender.
	duplicates uint64
	// READ requests asking again for responses of an earlier READ, those
	// of them sent before the capture saw any of the responses they ask
	// for, and those of these answered twice (see FlowSummary).
	readReissues, readReissuesUnanswered, readReissuesLate uint64
	// timerEpisodes: see FlowSummary.
	timerEpisodes uint64
	// ACKs that acknowledge nothing new, and ACKs with no credit: see
	// FlowSummary.
	repeatedACKs, zeroCreditACKs uint64
	// On a request flow, what the responder's answers said of its resend
	// episodes (FlowSummary): undone by a repeated ACK, or resent after
	// the capture had seen the PSN acknowledged.
	undoneNAKEpisodes, undoneTimerEpisodes, resendsAfterACK uint64
	naks                                                    NAKCounts
	cnps                                                    uint64 // CNPs credited to this flow (it is the one throttled)
	cnpsCarried                                             uint64 // CNP packets with this flow's key
	becn, fecn                                              uint64
	icrcBad                                                 uint64
}

// flowTrouble is a flow's troubles and the state that goes with them.
type flowTrouble struct {
	troubleCounts
	// pendGaps and pendMissing: the part of gaps and missing still
	// undecided at the last interval cut (pendingGaps), which intervals
	// report only once decided.
	pendGaps, pendMissing uint64
	// timerWait (ns): see FlowSummary.TimerWaitUs.
	timerWait  int64
	lastNAKPSN uint32
	hasNAK     bool
	// The class of the latest CNP with this flow's key: the DSCP, its ECN
	// codepoint, and the PCP when tagged. A notification point picks it (mlx5: ecn/roce_np
	// cnp_dscp, cnp_802p_prio), apart from the class of the data it
	// throttles; here because CNPs are trouble, and a flow without any
	// has no CNP class.
	cnpDSCP, cnpPCP, cnpECN uint8
	cnpTagged               bool
	resend                  resendState // of the flow's requests
}

// resendState is what a requester's resends, and the NAKs sent to it,
// leave to judge its next requests by (request.go).
type resendState struct {
	inRetrans bool
	// lastRetx: the last PSN the latest resend stands for (a re-issued
	// READ's last response PSN).
	lastRetx uint32
	// maxRetx is the highest PSN resent so far (resent: there is one):
	// a PSN at or below it may have more than one copy on the way.
	maxRetx uint32
	resent  bool
	// nakPSN, nakTS: the last NAK or RNR NAK to this requester, which
	// names the PSN it is to go back to: a resend from there is the
	// NAK's, not the timer's.
	nakTS  int64
	nakPSN uint32
	// nakRepeat: how many NAKs in a row named nakPSN (saturating): one
	// sequence error NAKed more than once is gone back to more than once.
	nakRepeat uint8
	// nakSeen: a NAK or RNR NAK arrived since the last gap, and the
	// sender has not yet gone back for it and on past where it was.
	nakSeen bool
	nakUsed bool // the last NAK has had its resend episode
	// nakAnswered: the sender went back for the last NAK (a resend
	// from its PSN came after it).
	nakAnswered bool
	undo        fillUndo
	// episode: the resend episode whose outcome the responder's answers
	// have not told yet (see Tracker.ackSequence).
	episode openEpisode
}

// noTrouble is what a flow without troubles reads. Never written:
// writers go through troubled.
var noTrouble flowTrouble

// troubles returns f's troubles for reading: noTrouble when it has none.
func (f *Flow) troubles() *flowTrouble {
	if f.trouble != nil {
		return f.trouble
	}
	return &noTrouble
}

// troubled returns f's troubles for counting one, made on the first.
func (f *Flow) troubled() *flowTrouble {
	if f.trouble == nil {
		f.trouble = new(flowTrouble)
	}
	return f.trouble
}
