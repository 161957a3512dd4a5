package capture

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// tickFixture is an analyzer holding 65,536 flows (32,768 QPs, a
// request and its ACK each) and a function that moves n of its QPs (a
// request and an ACK each), as one tick of a busy capture does.
func tickFixture(b *testing.B) (*Analyzer, func(n int)) {
	a := NewAnalyzer(Config{NoICRC: true})
	a.Begin(0)
	idleFlows(b, a, 32_768)
	frames := cleanPair(b)
	const bth = 14 + 20 + 8
	ci := gopacket.CaptureInfo{Timestamp: time.Unix(1_800_000_100, 0)}
	q := 0
	sent := make([]uint32, 32_768) // requests each QP sent since idleFlows: the next PSN follows
	move := func(n int) {
		for range n {
			q = (q + 97) % 32_768
			sent[q]++
			for _, f := range frames {
				f[bth+5], f[bth+6], f[bth+7] = byte(q>>16), byte(q>>8), byte(q)
				binary.BigEndian.PutUint32(f[bth+8:], (uint32(q*7)+sent[q])&0xffffff|uint32(f[bth+8]&0x80)<<24)
				ci.Timestamp = ci.Timestamp.Add(time.Microsecond)
				ci.CaptureLength, ci.Length = len(f), len(f)
				a.Packet(f, ci, layers.LinkTypeEthernet)
			}
		}
	}
	a.Cut(ci.Timestamp.UnixNano())
	return a, move
}

// What a tick of the screen's live capture holds the reader's lock for,
// at 65,536 flows of which 1 % moved in the tick (go test -run '^$'
// -bench 'Tick' -benchmem ./capture/). BenchmarkTickLockedRunning is how
// it was (Cut, then Running: every flow's summary, ranked);
// BenchmarkTickLockedUpdate how it is (RunningUpdate, then Cut: the moved
// flows' summaries), and BenchmarkTickApply the part now done without the
// lock (RunningView.Apply: ranking every flow).
func BenchmarkTickLockedRunning(b *testing.B) {
	a, move := tickFixture(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		move(327)
		b.StartTimer()
		a.Cut(int64(i))
		if s := a.Running(); len(s.Flows) != 65_536 {
			b.Fatalf("%d flows", len(s.Flows))
		}
	}
}

// tickView is tickFixture with a RunningView that has taken its first,
// whole update.
func tickView(b *testing.B) (*Analyzer, func(n int), *RunningView) {
	a, move := tickFixture(b)
	v := &RunningView{}
	v.Apply(a.RunningUpdate())
	a.Cut(0)
	return a, move, v
}

func BenchmarkTickLockedUpdate(b *testing.B) {
	a, move, v := tickView(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		move(327)
		b.StartTimer()
		u := a.RunningUpdate()
		a.Cut(int64(i))
		b.StopTimer()
		if s := v.Apply(u); len(s.Flows) != 65_536 {
			b.Fatalf("%d flows", len(s.Flows))
		}
		b.StartTimer()
	}
}

func BenchmarkTickApply(b *testing.B) {
	a, move, v := tickView(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		move(327)
		u := a.RunningUpdate()
		a.Cut(int64(i))
		b.StartTimer()
		if s := v.Apply(u); len(s.Flows) != 65_536 {
			b.Fatalf("%d flows", len(s.Flows))
		}
	}
}
