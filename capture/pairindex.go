package capture

// pairIndex lists flows by host pair (K: the pair, or the pair and more)
// with O(1) insertion and removal: each
// flow keeps its position in its pair's list (one field per index, chosen
// by slot), and a removal moves the list's last flow into the hole. The
// order within a list is therefore not kept; no reader depends on it (a
// lookup asks for the only flow, or for the one flow that matches).
type pairIndex[K comparable] struct {
	lists map[K][]*Flow
	slot  func(*Flow) *int32 // the flow's position + 1; 0 when absent
}

func newPairIndex[K comparable](slot func(*Flow) *int32) pairIndex[K] {
	return pairIndex[K]{lists: make(map[K][]*Flow), slot: slot}
}

// get returns the flows of pair pk; the caller must not keep or change it.
func (x *pairIndex[K]) get(pk K) []*Flow { return x.lists[pk] }

// add puts f in pair pk's list unless it is there already.
func (x *pairIndex[K]) add(pk K, f *Flow) {
	pos := x.slot(f)
	if *pos != 0 {
		return
	}
	list := x.lists[pk]
	*pos = int32(len(list)) + 1
	x.lists[pk] = append(list, f)
}

// remove takes f out of pair pk's list, if it is there.
func (x *pairIndex[K]) remove(pk K, f *Flow) {
	pos := x.slot(f)
	if *pos == 0 {
		return
	}
	list := x.lists[pk]
	i, last := int(*pos-1), len(list)-1
	list[i] = list[last]
	*x.slot(list[i]) = int32(i) + 1
	list[last] = nil
	*pos = 0
	if last == 0 {
		delete(x.lists, pk)
		return
	}
	x.lists[pk] = list[:last]
}

// blockKey names the unpaired request flows of a host pair whose next
// PSN lies in one block of 2^16 PSNs (psnBlock).
type blockKey struct {
	pair  pairKey
	block uint8
}

// psnBlock is the block of 2^16 PSNs psn lies in: 256 blocks cover the
// 24-bit PSN space, so a block number wraps as the PSN does. A response
// is matched to the requester expecting a PSN at most 2^16 past its own
// (Tracker.requester): that requester's next PSN lies in the response's
// block or the one after, whatever else the pair has outstanding.
func psnBlock(psn uint32) uint8 { return uint8((psn & psnMask) >> 16) }
