package flight

import (
	"sort"
	"time"

	"github.com/gopacket/gopacket"
)

// The incident writer reads the ring as it goes, by sequence number: the
// recording goroutine keeps adding to the ring (and letting its oldest
// go) while an incident's past is written, and nothing waits for the
// writer. What the ring let go before the writer reached it is missing
// from the incident, and the frame numbers (ring.handed) say how much.

// item is one record of the ring as the writer takes it: a packet, its
// bytes copied into the batch's buffer, or a tick (its deflated JSON,
// which the ring never changes, shared).
type item struct {
	seq uint64
	// A packet: its capture info, where its bytes lie in the batch's
	// buffer.
	ci       gopacket.CaptureInfo
	off, end int
	// A tick, when z is not nil: the frames handed before it.
	z      []byte
	handed uint64
}

// batch is what the writer takes from the ring at once. Its size bounds
// how long the recorder's lock is held for the copy: 1 MiB of packets
// is about 0.1 ms of memcpy (a few ms under the race detector), while
// Stats, Observe and the packet path wait for it; items bound the same
// for a ring of tiny frames.
type batch struct {
	buf   []byte
	items []item
}

const (
	batchBytes = 1 << 20
	batchItems = 8192
)

// start is where an incident whose window starts at start (Unix ns)
// begins in the ring: the items after seq from. From the last full tick at or before start (between full
// ticks the probes keep what does not change, and a replay needs it:
// bundle.Tick.Full), with the packets analysed before it since the tick
// before it; from the first tick when none is full; by time when the
// ring holds no tick.
func (r *ring) start(start int64) (from uint64) {
	j := 0
	for j < r.ticks.len() && r.ticks.at(j).ts < start {
		j++
	}
	for k := min(j, r.ticks.len()-1); k >= 0; k-- {
		if r.ticks.at(k).full {
			j = k
			break
		}
	}
	switch {
	case j > 0:
		return r.ticks.at(j - 1).seq
	case r.ticks.len() == 0:
		i := sort.Search(r.pkts.len(), func(i int) bool { return r.pkts.at(i).ts >= start })
		if i > 0 {
			return r.pkts.at(i - 1).seq
		}
	}
	if r.pkts.len() > 0 && (r.ticks.len() == 0 || r.pkts.front().seq < r.ticks.front().seq) {
		return r.pkts.front().seq - 1
	}
	if r.ticks.len() > 0 {
		return r.ticks.front().seq - 1
	}
	return r.seq
}

// take fills b with the items after seq after, up to seq until (0: no
// bound), in the order they came, at most batchBytes of packets and
// batchItems items. It returns the seq of the last item taken (after
// when none). Items the ring let go are skipped: the ticks' frame
// counts say how many were missed (incident.tick).
func (r *ring) take(after, until uint64, b *batch) uint64 {
	b.buf, b.items = b.buf[:0], b.items[:0]
	i := sort.Search(r.pkts.len(), func(i int) bool { return r.pkts.at(i).seq > after })
	j := sort.Search(r.ticks.len(), func(j int) bool { return r.ticks.at(j).seq > after })
	last := after
	for len(b.items) < batchItems && (i < r.pkts.len() || j < r.ticks.len()) {
		if j == r.ticks.len() || (i < r.pkts.len() && r.pkts.at(i).seq < r.ticks.at(j).seq) {
			p := r.pkts.at(i)
			if until > 0 && p.seq > until || len(b.buf)+len(p.data) > batchBytes && len(b.items) > 0 {
				break
			}
			off := len(b.buf)
			b.buf = append(b.buf, p.data...)
			b.items = append(b.items, item{seq: p.seq, off: off, end: len(b.buf),
				ci: gopacket.CaptureInfo{Timestamp: timeOf(p.ts), CaptureLength: len(p.data), Length: p.orig}})
			last = p.seq
			i++
			continue
		}
		t := r.ticks.at(j)
		if until > 0 && t.seq > until {
			break
		}
		b.items = append(b.items, item{seq: t.seq, z: t.json, handed: t.handed})
		last = t.seq
		j++
	}
	return last
}

func timeOf(ns int64) time.Time { return time.Unix(0, ns) }
