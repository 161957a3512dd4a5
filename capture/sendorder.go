package capture

// The sender's order of a flow's packets, from the IPv4 identification.
// Linux stamps every IPv4 packet it sends with an identification counted
// up per destination, and Soft-RoCE's packets take theirs from it: among
// one flow's packets a smaller ID (in serial arithmetic) was sent earlier,
// whatever order the path delivered them in. A copy made on the path keeps
// its ID; a resend the sender builds afresh gets a new one. So with IDs a
// capture tells a late packet from a lost one, and a copy from a resend,
// without guessing from timing. NICs that send ID 0 (hardware RoCE does)
// leave the order unknown, and the analysis falls back to PSNs and time.

// Two IDs compare soundly only while the counter has not gone round
// between them. A packet counts as sent before another when its ID is
// behind by less than maxIDLag, within idHorizon of it:
//   - idHorizon (ns): reordering delays a packet by the difference of the
//     queues it and its successors crossed, milliseconds in a fabric and
//     more on an emulated host (Soft-RoCE under QEMU: 14 ms measured in
//     the wire-truth campaign); 100 ms bounds it.
//   - maxIDLag: a path that lets more than 4,096 packets of one host pair
//     overtake one is not reordering but holding it; and for a resend to
//     pass for an older packet the counter would have to advance 61,440
//     (65,536 − 4,096) in idHorizon, 614,000 packets/s toward one
//     destination, beyond what a kernel-stamped sender (Soft-RoCE:
//     ~100,000/s) reaches. Hardware RoCE stamps 0 and never gets here.
const (
	idHorizon = 100_000_000
	maxIDLag  = 4096
)

// recentIDs is how many of a flow's last packets are remembered by PSN
// and ID to recognise a copy: a path copies a frame into the queue right
// behind the original, so the copy arrives within a few packets of it.
const recentIDs = 8

// sendOrder follows one sender's IDs on a flow.
type sendOrder struct {
	maxTS  int64  // when the newest ID was seen
	maxID  uint16 // the newest ID seen
	known  bool
	ri     uint8
	recent [recentIDs]idMark
}

type idMark struct {
	psn uint32
	id  uint16 // 0: empty
}

// idBefore reports whether ID a was stamped before b: behind it by less
// than maxIDLag.
func idBefore(a, b uint16) bool { return a != b && b-a < maxIDLag }

// copyOf reports whether a packet with this PSN and ID was seen among the
// flow's last packets, within the ID horizon of the newest (past it the
// counter may have wrapped): a copy made on the path.
func (o *sendOrder) copyOf(psn uint32, id uint16, ts int64) bool {
	if id == 0 { // recent's empty marks hold ID 0: a copy of the one ID-0 packet is not told
		return false
	}
	if !o.known || ts-o.maxTS < 0 || ts-o.maxTS > idHorizon {
		return false
	}
	for _, m := range o.recent {
		if m.psn == psn && m.id == id {
			return true
		}
	}
	return false
}

// late reports whether a packet with this ID was sent before the newest
// one already seen: the path let a later packet overtake it.
func (o *sendOrder) late(id uint16, ts int64) bool {
	return o.stamped(id, ts) && o.known && ts-o.maxTS <= idHorizon && idBefore(id, o.maxID)
}

// stamped reports whether id is the sender's: any ID but 0, and 0 too
// where the flow's counter is passing it (within maxIDLag either side of
// the newest ID, inside the horizon). A sender that numbers its packets
// stamps 0 once per 65,536 of them; one that does not (hardware RoCE)
// never makes the order known.
func (o *sendOrder) stamped(id uint16, ts int64) bool {
	if id != 0 {
		return true
	}
	return o.known && ts-o.maxTS >= 0 && ts-o.maxTS <= idHorizon && (idBefore(o.maxID, 0) || idBefore(0, o.maxID))
}

// note remembers a packet's PSN and ID.
func (o *sendOrder) note(psn uint32, id uint16, ts int64) {
	if !o.stamped(id, ts) {
		return
	}
	o.recent[o.ri] = idMark{psn: psn, id: id}
	o.ri = (o.ri + 1) % recentIDs
	if !o.known || ts-o.maxTS > idHorizon || !idBefore(id, o.maxID) {
		o.maxID, o.maxTS, o.known = id, ts, true
	}
}
