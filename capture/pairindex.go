package capture

// pairIndex lists flows by host pair with O(1) insertion and removal: each
// flow keeps its position in its pair's list (one field per index, chosen
// by slot), and a removal moves the list's last flow into the hole. The
// order within a list is therefore not kept; no reader depends on it (a
// lookup asks for the only flow, or for the one flow that matches).
type pairIndex struct {
	lists map[pairKey][]*Flow
	slot  func(*Flow) *int32 // the flow's position + 1; 0 when absent
}

func newPairIndex(slot func(*Flow) *int32) pairIndex {
	return pairIndex{lists: make(map[pairKey][]*Flow), slot: slot}
}

// get returns the flows of pair pk; the caller must not keep or change it.
func (x *pairIndex) get(pk pairKey) []*Flow { return x.lists[pk] }

// add puts f in pair pk's list unless it is there already.
func (x *pairIndex) add(pk pairKey, f *Flow) {
	pos := x.slot(f)
	if *pos != 0 {
		return
	}
	list := x.lists[pk]
	*pos = int32(len(list)) + 1
	x.lists[pk] = append(list, f)
}

// remove takes f out of pair pk's list, if it is there.
func (x *pairIndex) remove(pk pairKey, f *Flow) {
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
