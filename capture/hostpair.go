package capture

// hostPair is one direction between two hosts (source, destination) for as
// long as the flow table holds a flow of it. A flow points at its pair, so
// the per-pair indexes need no lookup by address: before, each new flow
// hashed its 32-byte host pair five to ten times over its life (request
// list, unpaired lists, PSN block, ID clock, eviction), a twentieth of a
// replay of 120,000 QPs between two hosts.
type hostPair struct {
	key  pairKey
	id   uint64 // unique for the tracker's life: the block index's key
	refs int32  // flows of the pair in the table
	// reverse is the pair the other way round, once looked up while both
	// have a flow; a pair that empties unlinks itself (hostPairs.release).
	reverse *hostPair
	// clock follows the pair's IPv4 ID counter while an IPv4 flow of the
	// pair is in the table (sendorder.go).
	clock *idClock
	// requests is the pair's request-carrying flows (Tracker.index);
	// unpaired those of them whose peer is not known yet (Tracker.enlist).
	requests, unpaired flowList
}

// hostPairs interns the host pairs of the flows in a tracker's table.
type hostPairs struct {
	m      map[pairKey]*hostPair
	last   *hostPair // the pair acquire returned last
	nextID uint64
}

func newHostPairs() hostPairs { return hostPairs{m: map[pairKey]*hostPair{}} }

// acquire returns k's pair, one more flow of it in the table. Consecutive
// packets mostly belong to one conversation: the last pair and its
// reverse are tried before the map.
func (h *hostPairs) acquire(k *flowKey) *hostPair {
	p := h.last
	switch {
	case p != nil && p.key.src == k.src && p.key.dst == k.dst:
	case p != nil && p.reverse != nil && p.key.src == k.dst && p.key.dst == k.src:
		p = p.reverse
	default:
		pk := pairKey{k.src, k.dst}
		if p = h.m[pk]; p == nil {
			h.nextID++
			p = &hostPair{key: pk, id: h.nextID}
			h.m[pk] = p
		}
	}
	p.refs++
	h.last = p
	return p
}

// release drops one flow of p; a pair without flows is forgotten.
func (h *hostPairs) release(p *hostPair) {
	if p.refs--; p.refs > 0 {
		return
	}
	delete(h.m, p.key)
	if r := p.reverse; r != nil {
		r.reverse = nil
	}
	if h.last == p {
		h.last = nil
	}
}

// reverseOf returns the pair the other way round from p, nil when no flow
// of it is in the table.
func (h *hostPairs) reverseOf(p *hostPair) *hostPair {
	if p.reverse == nil {
		if r := h.m[pairKey{p.key.dst, p.key.src}]; r != nil {
			p.reverse, r.reverse = r, p
		}
	}
	return p.reverse
}

// followClock makes one more IPv4 flow follow p's ID clock.
func (p *hostPair) followClock() {
	if p.clock == nil {
		p.clock = &idClock{}
	}
	p.clock.refs++
}

// unfollowClock undoes followClock; a clock nobody follows is forgotten.
func (p *hostPair) unfollowClock() {
	if p.clock.refs--; p.clock.refs == 0 {
		p.clock = nil
	}
}

// clock returns f's host pair's IPv4 ID clock; nil for a flow not over
// IPv4 (idClock.see takes nil).
func (f *Flow) clock() *idClock {
	if !f.ipv4 {
		return nil
	}
	return f.pair.clock
}
