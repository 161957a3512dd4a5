package twopoint

import (
	"github.com/rdmatop/rdmatop/capture"
)

// Sender is what a flow's sender did about its packets, as the capture on
// its own side shows it (capture's analysis of that file alone): the
// packets it sent again, in how many go-back-N episodes, how many of
// those its ACK timer started (no NAK came), and the NAKs its peer sent.
// With the fates beside it: loss between the points the sender answered
// with NAK-driven resends is loss seen in time; timer-driven ones mean
// the loss, or its NAK, went unseen until the timeout.
type Sender struct {
	Resent        uint64 `json:"resent"`
	Episodes      uint64 `json:"go_back_n"`
	TimerEpisodes uint64 `json:"timer_episodes"`
	NAKs          uint64 `json:"naks_received"`     // PSN sequence errors
	RNRNAKs       uint64 `json:"rnr_naks_received"` // receiver not ready
	ReadReissues  uint64 `json:"read_reissues,omitempty"`
}

// summaryKey names a flow of a capture's analysis.
type summaryKey struct {
	src, dst string
	qp       uint32
}

// senders indexes an analysis's flows by their names, each with what its
// sender did; the NAKs are those its peer flow carried.
func senders(s *capture.Summary) map[summaryKey]*Sender {
	if s == nil {
		return nil
	}
	byID := make(map[int]*capture.FlowSummary, len(s.Flows))
	for i := range s.Flows {
		byID[s.Flows[i].ID] = &s.Flows[i]
	}
	out := make(map[summaryKey]*Sender, len(s.Flows))
	for i := range s.Flows {
		f := &s.Flows[i]
		snd := &Sender{Resent: f.RetransmittedPackets, Episodes: f.GoBackN, TimerEpisodes: f.TimerEpisodes, ReadReissues: f.ReadReissues}
		if p := byID[f.PeerID]; p != nil && f.PeerID != 0 {
			snd.NAKs, snd.RNRNAKs = p.NAKs.PSNSequenceError, p.NAKs.RNR
		}
		out[summaryKey{f.Src, f.Dst, uint32(f.DestQP)}] = snd
	}
	return out
}

// senderConfig analyses a capture for what its senders did. Its ICRCs
// are not checked again (reading the packets to match checked them, and
// corruption is the fates'): the check is most of decoding.
var senderConfig = capture.Config{NoICRC: true}
