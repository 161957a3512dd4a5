package capture

// recency lists the flows from the most to the least recently seen,
// through links in the flows themselves (no allocation): moving a flow to
// the front and dropping the oldest are O(1).
type recency struct {
	newest, oldest *Flow
}

func (r *recency) pushNewest(f *Flow) {
	f.newer, f.older = nil, r.newest
	if r.newest != nil {
		r.newest.newer = f
	} else {
		r.oldest = f
	}
	r.newest = f
}

func (r *recency) remove(f *Flow) {
	if f.newer != nil {
		f.newer.older = f.older
	} else if r.newest == f {
		r.newest = f.older
	}
	if f.older != nil {
		f.older.newer = f.newer
	} else if r.oldest == f {
		r.oldest = f.newer
	}
	f.newer, f.older = nil, nil
}
