package capture

import "github.com/rdmatop/rdmatop/capture/roce"

// Datagrams. A UD destination QP takes datagrams from any source QP, each
// with its own PSN space (the DETH names the source QP), and no sender
// ever sends a datagram again: there is no acknowledgement to miss. So a
// PSN seen again from the same source QP is a copy the path made (the
// receiver delivers it twice), whatever its IPv4 ID or timing. Holes are
// not judged: UD loss is not recovered and not visible to either end, and
// a flow whose datagrams come from several source QPs in turn restarts
// the window at each change.

// udStream is what a UD flow keeps to find copies: the source QP whose
// PSNs the window holds.
type udStream struct {
	srcQP uint32
	seen  psnWindow
}

// datagram notes a UD request of flow f and counts it as a duplicate when
// its source QP sent its PSN already.
func (t *Tracker) datagram(f *Flow, p *roce.Packet) {
	if !p.Has(roce.HasDETH) {
		return
	}
	u := f.req.ud
	if u == nil {
		u = &udStream{srcQP: p.DETH.SrcQP}
		f.req.ud = u
	}
	if u.srcQP != p.DETH.SrcQP {
		*u = udStream{srcQP: p.DETH.SrcQP}
	}
	if f.peer == nil {
		t.pairDatagrams(f, u.srcQP)
	}
	if u.seen.has(p.BTH.PSN) {
		f.troubled().duplicates++
		return
	}
	u.seen.mark(p.BTH.PSN)
}

// pairDatagrams makes f and the UD flow coming back to its source QP
// peers when that flow's datagrams come from f's destination QP: the two
// QPs talk to each other, as a connection's two directions do. A CNP to
// the sender's QP then counts against f (cnp), and a rule can see what
// the capture holds of the way back. A UD QP may talk to many; only a
// pair that answers each other is linked, the first one found.
func (t *Tracker) pairDatagrams(f *Flow, srcQP uint32) {
	k := flowKey{src: f.key.dst, dst: f.key.src, qp: srcQP}
	r := t.flows.get(&k, t.flows.hash(&k))
	if r == nil || r.peer != nil || r.req.ud == nil || r.req.ud.srcQP != f.key.qp {
		return
	}
	f.peer, r.peer = r, f
}
