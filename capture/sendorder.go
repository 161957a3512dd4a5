package capture

// The sender's order of a flow's packets, from the IPv4 identification.
// Linux stamps every IPv4 packet it sends with an identification counted
// up per destination, and Soft-RoCE's packets take theirs from it: among
// one host pair's packets a smaller ID (in serial arithmetic) was sent
// earlier, whatever order the path delivered them in. A copy made on the
// path keeps its ID; a resend the sender builds afresh gets a new one. So
// with IDs a capture tells a late packet from a lost one, and a copy from
// a resend, without guessing from timing. NICs that send ID 0 (hardware
// RoCE does) leave the order unknown, and the analysis falls back to PSNs
// and time.
//
// The counter is 16 bits and goes round every 65,536 packets. Rather than
// trust two IDs to compare only within some time of each other (Soft-RoCE
// sends up to ~100,000 packets/s to one destination: the counter goes
// round in 0.65 s, and under emulation the wire-truth campaign measured
// one-way delays of 0.79 s), the tracker follows each host pair's counter
// as its packets pass (idClock) and numbers every packet by the
// counter's unwrapped position: an idSeq. Two idSeqs compare soundly
// however far apart in time, as long as the clock kept track.

// idSeq is a packet's IPv4 ID unwrapped along its host pair's counter:
// larger was sent later; its low 16 bits are the ID. 0: unknown (no ID,
// or the counter not yet followed).
type idSeq uint64

const (
	// maxIDLag: a path that lets more than 4,096 packets of one host pair
	// overtake one is not reordering but holding it: an ID further
	// behind the newest than this means the clock lost the counter.
	maxIDLag = 4096
	// idSilence (ns): the clock follows the counter by its steps, which
	// it takes as forward when under half the counter's range (32,768).
	// Between two packets it sees, the counter may also have counted
	// packets it did not see (dropped before the capture point): at
	// Soft-RoCE's ~100,000 packets/s to one destination, 32,768 of them
	// take 0.33 s. A host pair silent for longer has its clock started
	// again, and earlier packets no longer compare with later ones.
	idSilence = 300_000_000
	// idRestart is how far a restarted clock moves on: more than the
	// counter's range, so that no packet before the restart is taken for
	// one after it.
	idRestart = 2 << 16
)

// lateHorizon (ns) is how long a packet may be held on the path: a
// skipped PSN is still waited for that long, as reordering may yet bring
// its original. A packet held a second is in no queue: at 100 Gb/s a
// second is 12.5 GB of buffer, where switches have megabytes; under
// emulation the wire-truth campaign measured 0.79 s at most. The
// requester's NAK answer bounds the same way (nakHorizon).
const lateHorizon = 1_000_000_000

// copyWindow is how many of a host pair's last positions the clock
// remembers for copies: as many as a packet may lag behind the newest
// (maxIDLag). A path copies a frame into the queue right behind the
// original, but one QP's packets may trail the host pair's newest by
// hundreds of IDs (Soft-RoCE serves each QP from its own task: 860 in
// training seed 26's s26-09), and reordering moves a copy further. One
// byte a position: 4 KB a host pair, for as long as a flow of the pair
// is in the table.
const copyWindow = maxIDLag

// idClock follows one host pair's IPv4 ID counter (the sender's, toward
// the receiver) in the packets captured, unwrapping it. It remembers the
// PSN of each of the last copyWindow positions it saw: a packet at one
// seen before, with the same PSN, is a copy the path made (a resend the
// sender builds afresh takes a new ID; a damaged ID is no copy of the
// packet it now names, whose PSN differs).
type idClock struct {
	last  uint16 // the newest ID seen
	pos   idSeq  // its unwrapped position
	ts    int64  // when the counter was last seen to move
	known bool
	refs  int32 // flows following it (hostPair.followClock)
	// psns holds, per position, 0x80 | the low 7 bits of the PSN of the
	// packet seen there; 0: none. With the ID, a copy of a packet matches
	// it by chance once in 128 damaged IDs that land on a position seen.
	psns [copyWindow]uint8
}

// see numbers a packet with IPv4 ID id sent on the clock's host pair at
// ts, and reports whether a packet with that ID was seen before: a copy.
// trusted: the ID can be trusted to move the clock (not from a packet
// whose ICRC failed: a damaged ID would throw the clock off). A stamping
// sender gives ID 0 once per 65,536; a sender that never stamps leaves the
// clock unknown, and every packet 0.
func (c *idClock) see(id uint16, psn uint32, ts int64, trusted bool) (seq idSeq, copied bool) {
	if c == nil || !c.known && id == 0 {
		return 0, false
	}
	// Capture timestamps may step back (packets taken on several queues
	// or interfaces): only a gap forward is a silence.
	if !c.known || ts-c.ts > idSilence {
		if !trusted {
			return 0, false
		}
		c.restart(id, psn, ts)
		return c.pos, false
	}
	switch step := id - c.last; {
	case step == 0:
		return c.pos, trusted && c.mark(c.pos, psn)
	case step < 1<<15:
		if !trusted {
			return c.pos + idSeq(step), false
		}
		c.advance(idSeq(step), psn)
		c.last, c.ts = id, ts
		return c.pos, false
	case c.last-id < maxIDLag:
		// Sent before the newest: late, or a copy of a late one.
		seq = c.pos - idSeq(c.last-id)
		return seq, trusted && c.mark(seq, psn) // within copyWindow: it is maxIDLag
	case trusted:
		c.restart(id, psn, ts)
		return c.pos, false
	}
	return 0, false
}

// advance moves the newest position on by step, forgetting what falls out
// of the window, and notes the packet seen there.
func (c *idClock) advance(step idSeq, psn uint32) {
	if step >= copyWindow {
		c.psns = [copyWindow]uint8{}
	} else {
		for p := c.pos + 1; p < c.pos+step; p++ {
			c.psns[p%copyWindow] = 0
		}
	}
	c.pos += step
	c.psns[c.pos%copyWindow] = 0
	c.mark(c.pos, psn)
}

// mark notes the packet with psn seen at position p and reports whether
// it had been seen there before.
func (c *idClock) mark(p idSeq, psn uint32) (before bool) {
	tag := 0x80 | uint8(psn&0x7f)
	s := &c.psns[p%copyWindow]
	before = *s == tag
	*s = tag
	return before
}

// restart starts following the counter afresh at id, beyond every
// position given before. A position's low 16 bits are the ID itself.
func (c *idClock) restart(id uint16, psn uint32, ts int64) {
	base := idSeq(1) << 16
	if c.known {
		base = c.pos&^0xffff + idRestart
	}
	c.pos, c.last, c.ts, c.known = base|idSeq(id), id, ts, true
	c.psns = [copyWindow]uint8{}
	c.mark(c.pos, psn)
}

// sendOrder follows one sender's order on a flow: the newest packet seen.
type sendOrder struct {
	max idSeq // 0 none
}

// late reports whether a packet was sent before the newest one already
// seen: the path let a later packet overtake it.
func (o *sendOrder) late(seq idSeq) bool { return idBefore(seq, o.max) }

// note remembers a packet's place.
func (o *sendOrder) note(seq idSeq) { o.max = max(o.max, seq) }

// idBefore reports whether a was sent before b, both known.
func idBefore(a, b idSeq) bool { return a != 0 && b != 0 && a < b }
