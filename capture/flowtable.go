package capture

import "hash/maphash"

// flowTable is the tracker's index of flows by key: open addressing with
// linear probing, at most half full, and backward-shift deletion (no
// tombstones, so a table that turns over 100,000 flows through 65,536
// places stays as fast as a fresh one).
//
// It replaces a Go map because a capture of many QPs meets a new or nearly
// new flow at almost every packet: the map's 48-byte slots (36-byte key,
// pointer) spread 65,536 flows over 4.5 MB, and every lookup, insertion
// and eviction missed the cache in it. Here a slot is a hash and a
// pointer (16 bytes, 2 MB for the full default table) and the key is
// compared in the flow, which the caller reads next anyway.
type flowTable struct {
	slots []flowSlot // len a power of two; f nil: empty
	n     int
	seed  maphash.Seed
}

type flowSlot struct {
	hash uint64
	f    *Flow
}

const minFlowSlots = 64

func newFlowTable() flowTable {
	return flowTable{slots: make([]flowSlot, minFlowSlots), seed: maphash.MakeSeed()}
}

func (t *flowTable) hash(k *flowKey) uint64 { return maphash.Comparable(t.seed, *k) }

// get returns the flow of k (hash h), nil if none.
func (t *flowTable) get(k *flowKey, h uint64) *Flow {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.f == nil {
			return nil
		}
		if s.hash == h && s.f.key == *k {
			return s.f
		}
	}
}

// put adds f, whose key (hash h) is not in the table.
func (t *flowTable) put(f *Flow, h uint64) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	t.place(flowSlot{h, f})
	t.n++
}

func (t *flowTable) place(s flowSlot) {
	mask := uint64(len(t.slots) - 1)
	i := s.hash & mask
	for t.slots[i].f != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

func (t *flowTable) grow() {
	old := t.slots
	t.slots = make([]flowSlot, 2*len(old))
	for _, s := range old {
		if s.f != nil {
			t.place(s)
		}
	}
}

// del removes f, which is in the table.
func (t *flowTable) del(f *Flow) {
	h := t.hash(&f.key)
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].f != f {
		if t.slots[i].f == nil {
			return // not in the table
		}
		i = (i + 1) & mask
	}
	// Shift back the entries after i that probing would no longer reach
	// across the hole.
	for j := (i + 1) & mask; t.slots[j].f != nil; j = (j + 1) & mask {
		home := t.slots[j].hash & mask
		// j's entry may move to i unless its home lies cyclically in (i, j].
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = flowSlot{}
	t.n--
}

func (t *flowTable) len() int { return t.n }

// each calls fn with every flow, in no particular order.
func (t *flowTable) each(fn func(*Flow)) {
	for _, s := range t.slots {
		if s.f != nil {
			fn(s.f)
		}
	}
}
