package capture

// flowList is a set of flows with O(1) insertion and removal: each flow
// keeps its position in the list in a field of its own (one field per
// kind of list, chosen by slot), and a removal moves the list's last flow
// into the hole. The order within a list is therefore not kept; no reader
// depends on it (a lookup asks for the only flow, or for the one flow that
// matches).
type flowList []*Flow

// slot gives a flow's position + 1 in one kind of list; 0 when absent.
type slot func(*Flow) *int32

func requestSlot(f *Flow) *int32  { return &f.pairPos }
func unpairedSlot(f *Flow) *int32 { return &f.unpairedPos }
func blockSlot(f *Flow) *int32    { return &f.blockPos }

// add puts f in l unless it is there already.
func (l *flowList) add(f *Flow, s slot) {
	pos := s(f)
	if *pos != 0 {
		return
	}
	*pos = int32(len(*l)) + 1
	*l = append(*l, f)
}

// remove takes f out of l, if it is there, and reports whether it was.
func (l *flowList) remove(f *Flow, s slot) bool {
	pos := s(f)
	if *pos == 0 {
		return false
	}
	list := *l
	i, last := int(*pos-1), len(list)-1
	list[i] = list[last]
	*s(list[i]) = int32(i) + 1
	list[last] = nil
	*pos = 0
	*l = list[:last]
	return true
}

// blockIndex lists the unpaired request flows of each host pair by the
// PSN block their next PSN lies in (psnBlock).
type blockIndex struct{ lists map[uint64]flowList }

func newBlockIndex() blockIndex { return blockIndex{lists: map[uint64]flowList{}} }

// blockKey names pair p's flows in PSN block b.
func blockKey(p *hostPair, b uint8) uint64 { return p.id<<8 | uint64(b) }

// get returns the flows of p in block b; the caller must not keep or
// change it.
func (x *blockIndex) get(p *hostPair, b uint8) flowList { return x.lists[blockKey(p, b)] }

// add lists f, of pair p, under block b.
func (x *blockIndex) add(p *hostPair, b uint8, f *Flow) {
	k := blockKey(p, b)
	l := x.lists[k]
	l.add(f, blockSlot)
	x.lists[k] = l
}

// remove takes f, of pair p, out of block b's list, if it is there.
func (x *blockIndex) remove(p *hostPair, b uint8, f *Flow) {
	k := blockKey(p, b)
	l := x.lists[k]
	if !l.remove(f, blockSlot) {
		return
	}
	if len(l) == 0 {
		delete(x.lists, k)
		return
	}
	x.lists[k] = l
}

// psnBlock is the block of 2^16 PSNs psn lies in: 256 blocks cover the
// 24-bit PSN space, so a block number wraps as the PSN does. A response
// is matched to the requester expecting a PSN at most 2^16 past its own
// (Tracker.requester): that requester's next PSN lies in the response's
// block or the one after, whatever else the pair has outstanding.
func psnBlock(psn uint32) uint8 { return uint8((psn & psnMask) >> 16) }
