package capture

import (
	"io"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// cutFile replays path through one analyzer, cutting an interval every
// iv of capture time, and returns the intervals and the whole analysis.
func cutFile(t *testing.T, path string, iv time.Duration) ([]*Summary, *Summary) {
	t.Helper()
	var out []*Summary
	a := cutEach(t, path, iv, Config{}, func(a *Analyzer, end int64) { out = append(out, a.Cut(end)) })
	return out, a.Summary()
}

// cutEach analyses path with cfg and calls cut at every iv of capture
// time from its first packet, and once at the end; cut is to call Cut.
func cutEach(t *testing.T, path string, iv time.Duration, cfg Config, cut func(a *Analyzer, end int64)) *Analyzer {
	t.Helper()
	src, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	a := NewAnalyzer(cfg)
	var next int64
	for {
		data, ci, link, err := src.ReadPacket()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ts := ci.Timestamp.UnixNano()
		if next == 0 {
			a.Begin(ts)
			next = ts + int64(iv)
		}
		for ts >= next {
			cut(a, next)
			next += int64(iv)
		}
		a.Packet(data, ci, link)
	}
	cut(a, next)
	return a
}

// The intervals of a real lossy Soft-RoCE capture add up to the whole:
// packets, bytes, opcodes and every loss counter, and each interval's
// flows add up to its totals.
func TestIntervalsSumToWhole(t *testing.T) {
	for _, iv := range []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, time.Second} {
		intervalsSumToWhole(t, "../testdata/rxe/pcap/lossy1.pcap", iv, true)
		// Reordering across cuts (netem delay 1ms reorder 25 %, at the
		// receiver), and reordering with loss.
		intervalsSumToWhole(t, "../testdata/wiretruth/reorder-write/veth1.pcap.gz", iv, false)
		intervalsSumToWhole(t, "../testdata/wiretruth/loss1-reorder-write/veth1.pcap.gz", iv, true)
	}
}

func intervalsSumToWhole(t *testing.T, path string, iv time.Duration, lossy bool) {
	{
		ivs, whole := cutFile(t, path, iv)
		var sum Summary
		ops := map[uint8]uint64{}
		for _, s := range ivs {
			sum.Packets += s.Packets
			sum.RoCEPackets += s.RoCEPackets
			sum.Bytes += s.Bytes
			sum.Totals.PSNGaps += s.Totals.PSNGaps
			sum.Totals.MissingPSNs += s.Totals.MissingPSNs
			sum.Totals.RetransmittedPackets += s.Totals.RetransmittedPackets
			sum.Totals.NAKs.add(s.Totals.NAKs)
			sum.Totals.ICRCOK += s.Totals.ICRCOK
			for _, o := range s.Opcodes {
				ops[o.Opcode] += o.Packets
			}
			var pk uint64
			var gaps uint64
			for _, f := range s.Flows {
				pk += f.Packets
				gaps += f.PSNGaps
			}
			if pk != s.RoCEPackets || gaps != s.Totals.PSNGaps {
				t.Errorf("%v interval %s: flows hold %d packets, %d gaps; totals say %d, %d", iv, s.FirstTS, pk, gaps, s.RoCEPackets, s.Totals.PSNGaps)
			}
			if s.DurationSec > iv.Seconds()+1e-9 {
				t.Errorf("%v interval lasts %v s", iv, s.DurationSec)
			}
		}
		eq(t, iv.String()+" packets", sum.Packets, whole.Packets)
		eq(t, iv.String()+" RoCE packets", sum.RoCEPackets, whole.RoCEPackets)
		eq(t, iv.String()+" bytes", sum.Bytes, whole.Bytes)
		eq(t, iv.String()+" NAKs", sum.Totals.NAKs, whole.Totals.NAKs)
		eq(t, iv.String()+" retransmitted", sum.Totals.RetransmittedPackets, whole.Totals.RetransmittedPackets)
		eq(t, iv.String()+" ICRC ok", sum.Totals.ICRCOK, whole.Totals.ICRCOK)
		// An interval reports a gap once decided (a gap still open at a
		// cut waits for its fill): a gap taken back as reordering is in
		// none, so the intervals add up to the whole.
		eq(t, path+" "+iv.String()+" gaps", sum.Totals.PSNGaps, whole.Totals.PSNGaps)
		eq(t, path+" "+iv.String()+" missing", sum.Totals.MissingPSNs, whole.Totals.MissingPSNs)
		for _, o := range whole.Opcodes {
			eq(t, iv.String()+" opcode "+o.Name, ops[o.Opcode], o.Packets)
		}
		if (whole.Totals.PSNGaps > 0) != lossy {
			t.Fatalf("%s: %d gaps in the whole capture", path, whole.Totals.PSNGaps)
		}
	}
}

// The first interval that reports a gap is the one in which the packet
// after the first missing PSN arrived: the anomaly log's first psn_gap.
func TestIntervalOfFirstGap(t *testing.T) {
	ivs, whole := cutFile(t, "../testdata/rxe/pcap/lossy1.pcap", 100*time.Millisecond)
	var first *Anomaly
	for i := range whole.Anomalies {
		if whole.Anomalies[i].Kind == "psn_gap" {
			first = &whole.Anomalies[i]
			break
		}
	}
	if first == nil {
		t.Fatal("no psn_gap anomaly in lossy1.pcap")
	}
	at, _ := time.Parse(time.RFC3339Nano, first.TS)
	for _, s := range ivs {
		if s.Totals.PSNGaps == 0 {
			continue
		}
		from, _ := time.Parse(time.RFC3339Nano, s.FirstTS)
		to, _ := time.Parse(time.RFC3339Nano, s.LastTS)
		if at.Before(from) || !at.Before(to) {
			t.Errorf("first interval with a gap is [%s, %s), first gap at %s", s.FirstTS, s.LastTS, first.TS)
		}
		if len(s.Anomalies) == 0 || s.Anomalies[0].Packet > first.Packet {
			t.Errorf("that interval's anomalies do not start with packet %d: %+v", first.Packet, s.Anomalies)
		}
		return
	}
	t.Error("no interval reports a gap")
}

// An interval with no packets is empty, not a copy of the last one; a flow
// idle in an interval is absent from it.
func TestIntervalEmptyAndIdleFlows(t *testing.T) {
	ivs, _ := cutFile(t, "../testdata/rxe/pcap/clean.pcap", 5*time.Millisecond)
	empty := 0
	for _, s := range ivs {
		if s.Packets == 0 {
			empty++
			if len(s.Flows) != 0 || s.Totals.Flows != 0 {
				t.Errorf("empty interval lists flows: %+v", s.Flows)
			}
		}
		for _, f := range s.Flows {
			if f.Packets == 0 && f.CNPs == 0 {
				t.Errorf("interval %s lists idle flow %d", s.FirstTS, f.ID)
			}
		}
	}
	if empty == 0 {
		t.Log("no empty 5 ms interval in clean.pcap; the idle case is untested")
	}
}
