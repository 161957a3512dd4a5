package flight

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/rdmatop/rdmatop/probes/bundle"
)

// ring is the memory of the recorder: packets and host ticks in the order
// they came (seq), each let go when older than keep; packets also when
// their bytes pass maxBytes. A tick is kept as its JSON, deflated: a tick
// of a host with thousands of QPs is megabytes of text that compresses
// tenfold, and only an incident reads it again.
type ring struct {
	keep     time.Duration
	maxBytes int64

	seq     uint64
	pkts    deque[packet]
	ticks   deque[tick]
	pktSize int64  // captured bytes of pkts
	tickSz  int64  // deflated bytes of ticks
	mem     *arena // the packets' bytes; nil when none are kept

	evicted uint64 // packets let go for maxBytes before keep
	// handed counts the frames handed to the ring, kept or not: each
	// packet and tick carries the count at its arrival, so a reader of
	// the ring knows how many frames it missed between two ticks.
	handed uint64
	// pinned: the packets after seq pin belong to the incident being
	// written and the writer has not taken them yet; a new packet that
	// would need them to go is not kept instead. When the disk is slower
	// than the link, an incident then keeps its past (the minutes before
	// the trigger, the reason to have a flight recorder) whole and loses
	// the newest frames (counted), as it did when the past was written
	// before anything else; the oldest would otherwise go first, and the
	// eviction would eat the window from its start.
	pinned bool
	pin    uint64
}

type packet struct {
	seq  uint64
	ts   int64 // Unix ns
	orig int   // original length
	off  int   // of data in the arena
	data []byte
}

type tick struct {
	seq    uint64
	ts     int64
	full   bool   // bundle.Tick.Full: a replay can start here
	handed uint64 // frames handed before it
	json   []byte // deflated; never changed once kept (the incident writer reads it without the lock)
}

func newRing(keep time.Duration, maxBytes int64) *ring {
	r := &ring{keep: keep, maxBytes: maxBytes}
	if maxBytes > 0 {
		r.mem = newArena(int(maxBytes))
	}
	return r
}

// addPacket copies a frame into the arena, letting the oldest packets go
// for its room, and lets old ones go.
func (r *ring) addPacket(ci gopacket.CaptureInfo, data []byte) {
	if r.mem == nil {
		return
	}
	r.handed++
	ts := ci.Timestamp.UnixNano()
	off, k, ok := r.room(len(data))
	if !ok || r.pinned && k > 0 && r.pkts.at(k-1).seq > r.pin {
		// Larger than all the memory, or its room would let go of
		// packets the incident writer has not taken yet: not kept.
		r.evicted++
		r.age(ts)
		return
	}
	for range k {
		r.dropPacket()
		r.evicted++
	}
	d := r.mem.buf[off : off+len(data) : off+len(data)]
	r.mem.w = off + len(data)
	copy(d, data)
	r.seq++
	r.pkts.push(packet{seq: r.seq, ts: ts, orig: max(ci.Length, len(data)), off: off, data: d})
	r.pktSize += int64(len(d))
	r.age(ts)
}

// room finds n contiguous bytes for a packet at off, and how many of
// the oldest packets (k) must go for them to be free. The arena is a
// circular log: packets lie in arrival order from the oldest to the
// write position, so what lies ahead of the write position is always
// the oldest. A packet that does not fit before the arena's end goes to
// its start; the packets in the remnant go first (they are the oldest),
// the remnant stays unused this round.
func (r *ring) room(n int) (off, k int, ok bool) {
	a := r.mem
	if n > len(a.buf) {
		return 0, 0, false
	}
	w := a.w
	if w+n > len(a.buf) {
		for k < r.pkts.len() && r.pkts.at(k).off >= w {
			k++
		}
		w = 0
	}
	for k < r.pkts.len() {
		p := r.pkts.at(k)
		if p.off >= w+n || p.off+len(p.data) <= w {
			break // the oldest left lies clear of [w, w+n): so does every other
		}
		k++
	}
	return w, k, true
}

func (r *ring) dropPacket() {
	p := r.pkts.pop()
	r.pktSize -= int64(len(p.data))
}

// addTick keeps a tick, deflated (deflate), and lets old ones go.
func (r *ring) addTick(ts int64, full bool, z []byte) {
	r.seq++
	r.ticks.push(tick{seq: r.seq, ts: ts, full: full, handed: r.handed, json: z})
	r.tickSz += int64(len(z))
	r.age(ts)
}

// age lets go of what is older than keep before now (Unix ns).
func (r *ring) age(now int64) {
	horizon := now - int64(r.keep)
	for r.pkts.len() > 0 && r.pkts.front().ts < horizon {
		r.dropPacket()
	}
	for r.ticks.len() > 0 && r.ticks.front().ts < horizon {
		r.tickSz -= int64(len(r.ticks.pop().json))
	}
}

// bytes is what the ring holds: packets and deflated ticks.
func (r *ring) bytes() int64 { return r.pktSize + r.tickSz }

// deflater turns ticks into what the ring keeps: their JSON, deflated.
// It works outside the recorder's lock (a tick of a host with 10,000 QPs
// takes tens of milliseconds), one tick at a time.
type deflater struct {
	mu  sync.Mutex
	zw  *flate.Writer
	buf bytes.Buffer
}

func (d *deflater) deflate(t *bundle.Tick) ([]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("flight recorder: tick: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf.Reset()
	if d.zw == nil {
		d.zw, _ = flate.NewWriter(&d.buf, flate.BestSpeed) // level is valid
	} else {
		d.zw.Reset(&d.buf)
	}
	d.zw.Write(b) // to a bytes.Buffer: cannot fail
	d.zw.Close()
	return bytes.Clone(d.buf.Bytes()), nil
}

func inflateTick(z []byte) (*bundle.Tick, error) {
	b, err := io.ReadAll(flate.NewReader(bytes.NewReader(z)))
	if err != nil {
		return nil, fmt.Errorf("flight recorder: kept tick: %w", err)
	}
	t := new(bundle.Tick)
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("flight recorder: kept tick: %w", err)
	}
	return t, nil
}

// deque is a queue in a slice used as a ring: O(1) push and pop, no
// allocation once grown.
type deque[T any] struct {
	buf        []T
	head, size int
}

func (d *deque[T]) len() int    { return d.size }
func (d *deque[T]) at(i int) *T { return &d.buf[(d.head+i)%len(d.buf)] }
func (d *deque[T]) front() *T   { return d.at(0) }

func (d *deque[T]) push(v T) {
	if d.size == len(d.buf) {
		n := make([]T, max(64, 2*len(d.buf)))
		for i := range d.size {
			n[i] = *d.at(i)
		}
		d.buf, d.head = n, 0
	}
	d.buf[(d.head+d.size)%len(d.buf)] = v
	d.size++
}

func (d *deque[T]) pop() T {
	var zero T
	v := d.buf[d.head]
	d.buf[d.head] = zero // let go of its memory
	d.head = (d.head + 1) % len(d.buf)
	d.size--
	return v
}
