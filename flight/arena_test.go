package flight

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
)

// The arena is written round and round: whatever the packet sizes, every
// packet the ring still holds reads back as it was written (nothing live
// is overwritten), the newest is always held, and what is held fits in
// the arena.
func TestArenaKeepsWhatItHolds(t *testing.T) {
	const size = 64 << 10
	rng := rand.New(rand.NewPCG(1, 2))
	r := newRing(time.Hour, size)
	defer r.mem.release()
	t0 := time.Unix(1_700_000_000, 0)
	fill := func(b []byte, seq uint64) {
		for i := range b {
			b[i] = byte(seq*131 + uint64(i)*7)
		}
	}
	buf := make([]byte, 9000)
	for i := range 20000 {
		n := 1 + rng.IntN(3000)
		if i%97 == 0 {
			n = 9000 // a jumbo frame now and then
		}
		fill(buf[:n], uint64(i+1))
		r.addPacket(gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Microsecond), Length: n}, buf[:n])
		if r.pkts.len() == 0 || r.pkts.at(r.pkts.len()-1).seq != r.seq {
			t.Fatalf("packet %d: the newest is not held", i)
		}
		if r.pktSize > size {
			t.Fatalf("packet %d: %d bytes held in a %d-byte arena", i, r.pktSize, size)
		}
		if i%50 != 0 {
			continue
		}
		want := make([]byte, 9000)
		for k := range r.pkts.len() {
			p := r.pkts.at(k)
			fill(want[:len(p.data)], p.seq)
			if string(p.data) != string(want[:len(p.data)]) {
				t.Fatalf("packet %d: packet %d (at %d, %d bytes) was overwritten", i, p.seq, p.off, len(p.data))
			}
		}
	}
	if r.evicted == 0 {
		t.Fatal("nothing was let go: the arena never filled")
	}
	// A packet larger than the whole arena is not kept, and counted.
	before := r.evicted
	r.addPacket(gopacket.CaptureInfo{Timestamp: t0.Add(time.Second)}, make([]byte, size+1))
	if r.evicted != before+1 {
		t.Errorf("an oversized packet: evicted %d -> %d", before, r.evicted)
	}
}
