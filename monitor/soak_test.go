package monitor

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/capture/scenario"
	"github.com/rdmatop/rdmatop/probes"
)

// churnTape is a long run's worth of ticks: every tick a host snapshot
// whose QPs churn (two of 32 replaced, some going to ERR, with their
// events) and a few packets of a connection that is new every tick (so
// flows churn too).
type churnTape struct {
	ticks, i int
	qps      []probes.QP
	next     uint32
	pkts     [][]byte
	pi       int
	t0       time.Time
}

var soakPackets = make([][][]byte, 1024)

func newChurnTape(ticks int) *churnTape {
	c := &churnTape{ticks: ticks, t0: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), next: 0x100}
	for range 32 {
		c.qps = append(c.qps, c.qp())
	}
	return c
}

func (c *churnTape) qp() probes.QP {
	c.next++
	return probes.QP{Device: "mlx5_0", Port: 1, LQPN: c.next, Type: "RC", State: "RTS"}
}

func (c *churnTape) HostTicks() bool { return true }
func (c *churnTape) Close() error    { return nil }

// packets of tick i: a short WRITE exchange on a new QP, one packet lost.
func (c *churnTape) packets(i int) [][]byte {
	var buf bytes.Buffer
	cp := scenario.NewCapture(&buf, 0)
	cp.Wait(c.t0.Sub(scenario.Start) + time.Duration(i)*time.Second - 500*time.Millisecond)
	a := uint32(i)
	conn := cp.Open(scenario.Conn{
		A: scenario.Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, IP: netip.AddrFrom4([4]byte{10, 0, byte(a >> 8), byte(a)}), QPN: 0x500 + a&0xfff},
		B: scenario.Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, IP: netip.MustParseAddr("10.1.0.1"), QPN: 0x11}})
	conn.Next(scenario.Keep, scenario.Drop)
	conn.Ack(conn.Write(4096))
	cp.Close()
	src, _ := pcapfile.NewReader("churn", &buf)
	var out [][]byte
	for {
		d, _, _, err := src.ReadPacket()
		if err != nil {
			return out
		}
		out = append(out, append([]byte(nil), d...))
	}
}

func (c *churnTape) Next(ctx context.Context) (Record, error) {
	if c.i >= c.ticks {
		return Record{}, io.EOF
	}
	now := c.t0.Add(time.Duration(c.i) * time.Second)
	if c.pkts == nil {
		// 1,024 connections in turn: with a flow table of 64 each comes
		// back after it was evicted, as a new flow.
		k := c.i % len(soakPackets)
		if soakPackets[k] == nil {
			soakPackets[k] = c.packets(k)
		}
		c.pkts, c.pi = soakPackets[k], 0
	}
	if c.pi < len(c.pkts) {
		p := c.pkts[c.pi]
		c.pi++
		return Record{Data: p, CI: captureInfo(now.Add(-time.Duration(len(c.pkts)-c.pi+1)*time.Millisecond), len(p)), Link: 1}, nil
	}
	c.pkts = nil
	// Two QPs go, two come; one in four new ones fails at once.
	var evs []probes.Event
	for k := range 2 {
		j := (c.i*2 + k) % len(c.qps)
		old := c.qps[j]
		q := c.qp()
		if q.LQPN%4 == 0 {
			q.State = "ERR"
		}
		c.qps[j] = q
		oq, nq := old.LQPN, q.LQPN
		evs = append(evs, probes.Event{Time: now, Source: "qp", Kind: "qp_destroyed", Severity: probes.SevInfo, Device: "mlx5_0", QPN: &oq},
			probes.Event{Time: now, Source: "qp", Kind: "qp_created", Severity: probes.SevInfo, Device: "mlx5_0", QPN: &nq})
	}
	snap := &probes.Snapshot{Time: now, Interval: 1, Devices: []probes.Device{{Name: "mlx5_0", Ports: 1}},
		Ports: []probes.Port{{Device: "mlx5_0", Port: 1, State: "ACTIVE", LinkLayer: "Ethernet", Counters: []probes.Counter{}}},
		QPs:   append([]probes.QP(nil), c.qps...), Events: evs}
	c.i++
	return Record{Snapshot: snap, Time: now}, nil
}

// Soak: a run of 100,000 one-second ticks (28 hours) with churning QPs
// and flows through the whole pipeline (wire analysis, event log, rules
// with the live policy) keeps its live heap flat after warm-up.
func TestSoak(t *testing.T) {
	ticks, warm := 100_000, 10_000
	if testing.Short() || raceOn {
		ticks, warm = 12_000, 4_000
	}
	tape := newChurnTape(ticks)
	r, err := New(Config{Mode: ModeReplay, Tape: tape, Retention: 30 * time.Minute, MaxResolved: 200,
		Analysis: capture.Config{TrackerConfig: capture.TrackerConfig{MaxFlows: 64, MaxAnomalies: 256}}})
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var atWarm, peakFindings uint64
	n := 0
	start := time.Now()
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == warm {
			atWarm = heap()
		}
		peakFindings = max(peakFindings, uint64(len(f.Findings)))
		if n%10_000 == 0 && (len(f.Recent) > RecentEvents || len(f.Findings) > 300 || len(f.Wire.Flows) > 64) {
			t.Fatalf("tick %d: %d events, %d findings, %d flows: unbounded", n, len(f.Recent), len(f.Findings), len(f.Wire.Flows))
		}
	}
	end := heap()
	res := r.Result()
	growth := int64(end) - int64(atWarm)
	t.Logf("%d ticks in %v: live heap %d KiB after %d ticks, %d KiB at the end (%+d KiB); at most %d findings; %d forgotten; %d flows evicted",
		n, time.Since(start).Round(time.Millisecond), atWarm>>10, warm, end>>10, growth>>10, peakFindings, res.Forgotten, res.Wire.FlowsEvicted)
	if n != ticks {
		t.Fatalf("%d ticks, want %d", n, ticks)
	}
	if res.Wire.FlowsEvicted == 0 || res.Forgotten == 0 {
		t.Errorf("the bounds never acted: %d flows evicted, %d findings forgotten", res.Wire.FlowsEvicted, res.Forgotten)
	}
	// Tolerance: maps and slices at their bound may sit anywhere between
	// one and two times their content (growth by doubling, map buckets),
	// about 1 MiB here; a leak of 16 bytes per tick over 90,000 ticks
	// would exceed it.
	if growth > 1536<<10 {
		t.Errorf("live heap grew by %d KiB over %d ticks after warm-up", growth>>10, n-warm)
	}
}
