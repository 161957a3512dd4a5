package wiretruth

import "fmt"

// Counts is what an analyser reported for one flow from one capture
// point, to hold against what the truth says that point can see.
type Counts struct {
	Missing, Duplicates, OutOfOrder, Resent, Episodes uint64
}

// CountCheck is one count compared: the analyser's, the truth's and the
// disagreement allowed.
type CountCheck struct {
	Name                 string
	Got, Want, Tolerance uint64
	// Below and Above widen the agreement to what the point cannot tell
	// apart (Observed.Unclear): Got may lie anywhere in
	// [Want-Below, Want+Above], each end widened by Tolerance.
	Below, Above uint64
	// Flow names the flow observed and the point's side of the path:
	// "requests QP 0x00005d, downstream".
	Flow string
}

// Agrees: the count lies within the range the point could see, widened
// by the tolerance.
func (c CountCheck) Agrees() bool {
	lo := c.Want - min(c.Want, c.Below+c.Tolerance)
	return c.Got >= lo && c.Got <= c.Want+c.Above+c.Tolerance
}

// Compare holds an analyser's counts for flow f seen at point against
// the truth, each with its tolerance (argued beside each); episodes are
// compared only for requests at the sender's side.
func (f *FlowTruth) Compare(point string, got Counts) []CountCheck {
	seen := f.Seen[point]
	out := []CountCheck{
		// What a capture point can see of loss and duplication is defined
		// exactly (Observed): no tolerance.
		// Without IPv4 IDs a point cannot tell which of the unclear
		// packets were lost: it may count any of the lost ones as late,
		// any of the late ones as lost.
		{Name: "missing", Got: got.Missing, Want: seen.Missing, Below: seen.UnclearLost, Above: seen.Unclear - seen.UnclearLost},
		// Without IPv4 IDs a copy right behind its original may be taken
		// for the sender's immediate resend, and such a resend for a copy.
		{Name: "duplicates", Got: got.Duplicates, Want: seen.Duplicates, Below: seen.UnclearCopies, Above: seen.UnclearResends},
		// A packet corrupted on the way may have its IPv4 ID bits flipped
		// and so look sent earlier or later than it was: one per
		// corrupted packet.
		// A point that works out that an unclear packet came late (the
		// NAK's resend of it came after it, capture/holes.go) counts it
		// out of order: the late ones may be.
		{Name: "out_of_order", Got: got.OutOfOrder, Want: seen.OutOfOrder, Tolerance: f.Corrupted, Above: seen.Unclear - seen.UnclearLost},
		// Resends: a resend and a late original of the same PSN can pass
		// each other on a reordering path, and which of the two comes
		// first decides which one the observer takes for the resend; each
		// such pair can shift the count by one. The truth counts them
		// (reordered resends), and a READ response that the responder
		// sends again for a re-issued READ adds the same ambiguity; 1 % of
		// the resends, at least 2.
		// Each unclear packet shifts the count by one either way: a late
		// original taken for a resend, or a resend for the original.
		// And each copy or resend right behind itself shifts it by one
		// the other way from duplicates.
		{Name: "resent", Got: got.Resent, Want: seen.Resent, Tolerance: max(2, seen.Resent/100),
			Below: seen.Unclear + seen.UnclearResends, Above: seen.Unclear + seen.UnclearCopies},
	}
	// Go-back-N episodes are whole only at the sender's side: downstream a
	// lost resend can hide where the sender went back. A READ re-issued
	// while the responder's answers to the first asking are still coming
	// may or may not be the sender going back: one either way.
	if point == f.Upstream && f.Kind == "requests" {
		e := f.Episodes
		out = append(out, CountCheck{Name: "episodes", Got: got.Episodes, Want: e.NAK + e.RNR + e.Timer, Tolerance: 1})
	}
	side := "downstream"
	if point == f.Upstream {
		side = "upstream"
	}
	for i := range out {
		out[i].Flow = fmt.Sprintf("%s QP %#06x, %s", f.Kind, f.DstQP, side)
	}
	return out
}

// CountNames names the counts Compare holds, in its order.
var CountNames = []string{"missing", "duplicates", "out_of_order", "resent", "episodes"}
