//go:build linux

package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/scenario"
)

// fanoutCapture builds a capture of many connections between 24 pairs of hosts
// (IPv4 and IPv6), some with loss and go-back-N, some with ECN marks, and
// returns its frames in order.
func fanoutCapture(t *testing.T) [][]byte {
	t.Helper()
	frames, err := scenario.FabricData(24)
	if err != nil {
		t.Fatal(err)
	}
	return frames
}

// TestLiveFanout splits a capture across two rings of one fanout group on
// a veth pair: every frame reaches exactly the ring FanoutShard names, both
// rings get a share, and the shards' merged analysis equals the analysis
// of the capture in one piece, flow by flow.
func TestLiveFanout(t *testing.T) {
	ns := ltNetns(t)
	frames := fanoutCapture(t)
	const workers = 2

	var (
		srcs   []*Source
		sender int
		idxB   int
	)
	ltInNetns(t, ns, func() error {
		deadline := time.Now().Add(3 * time.Second)
		for {
			ifa, errA := net.InterfaceByName("vethA")
			ifb, errB := net.InterfaceByName("vethB")
			if errA != nil || errB != nil {
				return errors.Join(errA, errB)
			}
			if ifa.Flags&ifb.Flags&net.FlagRunning != 0 {
				idxB = ifb.Index
				break
			}
			if time.Now().After(deadline) {
				return errors.New("veth not running after 3s")
			}
			time.Sleep(10 * time.Millisecond)
		}
		var err error
		if srcs, err = OpenFanout("vethA", Options{PollTimeout: 20 * time.Millisecond}, workers); err != nil {
			return fmt.Errorf("OpenFanout: %w", err)
		}
		sender, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		return err
	})
	t.Cleanup(func() {
		for _, s := range srcs {
			s.Close()
		}
		unix.Close(sender)
	})
	if len(srcs) != workers {
		t.Fatalf("%d sources, want %d", len(srcs), workers)
	}

	// Each ring feeds its own analyzer, as monitor's workers do.
	shards := make([]*capture.Analyzer, workers)
	var wrong [workers]int
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i, s := range srcs {
		cfg := capture.Config{TrackerConfig: capture.TrackerConfig{Shard: i, Shards: workers}}
		shards[i] = capture.NewAnalyzer(cfg)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				data, ci, link, err := s.ReadPacket()
				if errors.Is(err, ErrTimeout) {
					continue
				}
				if err != nil {
					return
				}
				if FanoutShard(data, workers) != i {
					wrong[i]++
				}
				shards[i].Packet(data, ci, link)
			}
		}()
	}
	// One sending thread on one CPU: the frames arrive in order.
	ltInNetns(t, ns, func() error {
		var set unix.CPUSet
		set.Set(0)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return err
		}
		for _, f := range frames {
			sa := &unix.SockaddrLinklayer{Ifindex: idxB, Protocol: ltHtons(uint16(f[12])<<8 | uint16(f[13]))}
			if err := unix.Sendto(sender, f, 0, sa); err != nil {
				return err
			}
		}
		return nil
	})
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var st [workers]Stats
		n := uint64(0)
		for i, s := range srcs {
			st[i], _ = s.Stats()
			n += st[i].Packets
		}
		if n >= uint64(len(frames)) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // let the readers drain their rings
	close(stop)
	wg.Wait()

	for i := range workers {
		if wrong[i] > 0 {
			t.Errorf("ring %d got %d frames FanoutShard puts in another ring", i, wrong[i])
		}
		if shards[i].Summary().Packets == 0 {
			t.Errorf("ring %d got no frame: the capture was not split", i)
		}
		st, err := srcs[i].Stats()
		if err != nil || st.Drops != 0 {
			t.Errorf("ring %d: stats %+v, %v; want no drops", i, st, err)
		}
	}
	parts := make([]*capture.Summary, workers)
	for i, a := range shards {
		parts[i] = a.Summary()
	}
	got := capture.MergeSummaries(parts...)
	want := analyzeFrames(frames)
	t.Logf("%d frames: ring 0 %d, ring 1 %d; %d flows", len(frames), parts[0].Packets, parts[1].Packets, len(want.Flows))
	compareSplit(t, got, want)
}

// analyzeFrames analyses frames in one piece.
func analyzeFrames(frames [][]byte) *capture.Summary {
	a := capture.NewAnalyzer(capture.Config{})
	ts := time.Unix(1, 0)
	for _, f := range frames {
		ts = ts.Add(time.Microsecond)
		a.Packet(f, gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(f), Length: len(f)}, layers.LinkTypeEthernet)
	}
	return a.Summary()
}

// compareSplit checks that a merged analysis of a split capture equals the
// analysis in one piece in everything but numbering and timing.
func compareSplit(t *testing.T, got, want *capture.Summary) {
	t.Helper()
	if got.Packets != want.Packets || got.RoCEPackets != want.RoCEPackets || got.Bytes != want.Bytes {
		t.Errorf("packets %d/%d roce, %d bytes; want %d/%d, %d", got.Packets, got.RoCEPackets, got.Bytes,
			want.Packets, want.RoCEPackets, want.Bytes)
	}
	if got.Totals != want.Totals {
		t.Errorf("totals\n got %+v\nwant %+v", got.Totals, want.Totals)
	}
	if fmt.Sprint(got.Opcodes) != fmt.Sprint(want.Opcodes) {
		t.Errorf("opcodes %v, want %v", got.Opcodes, want.Opcodes)
	}
	type key struct {
		src, dst string
		qp       uint32
	}
	norm := func(s *capture.Summary) (map[key]capture.FlowSummary, map[key]key) {
		byID := map[int]capture.FlowSummary{}
		for _, f := range s.Flows {
			byID[f.ID] = f
		}
		flows, peers := map[key]capture.FlowSummary{}, map[key]key{}
		for _, f := range s.Flows {
			k := key{f.Src, f.Dst, uint32(f.DestQP)}
			if p, ok := byID[f.PeerID]; ok {
				peers[k] = key{p.Src, p.Dst, uint32(p.DestQP)}
			}
			f.ID, f.PeerID, f.FirstPacket, f.LastPacket = 0, 0, 0, 0
			f.FirstTS, f.LastTS, f.Gbps, f.RTTus = "", "", 0, capture.RTT{}
			flows[k] = f
		}
		return flows, peers
	}
	gf, gp := norm(got)
	wf, wp := norm(want)
	if len(gf) != len(wf) {
		t.Errorf("%d flows, want %d", len(gf), len(wf))
	}
	for k, w := range wf {
		g, ok := gf[k]
		if !ok {
			t.Errorf("flow %v missing", k)
			continue
		}
		if gs, ws := jsonString(g), jsonString(w); gs != ws {
			t.Errorf("flow %v\n got %s\nwant %s", k, gs, ws)
		}
		if gp[k] != wp[k] {
			t.Errorf("flow %v paired with %v, want %v", k, gp[k], wp[k])
		}
	}
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestMergeShardedAnalyzers splits a capture by FanoutShard in userspace
// across 1 to 5 analyzers: the merged analysis equals the whole one, and
// flow IDs never clash.
func TestMergeShardedAnalyzers(t *testing.T) {
	frames := fanoutCapture(t)
	want := analyzeFrames(frames)
	if want.Totals.PSNGaps == 0 || want.Totals.ECNCE == 0 || want.Totals.NAKs.Total() == 0 {
		t.Fatalf("the capture lacks trouble to compare: %+v", want.Totals)
	}
	for n := 1; n <= 5; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			shards := make([]*capture.Analyzer, n)
			for i := range shards {
				shards[i] = capture.NewAnalyzer(capture.Config{TrackerConfig: capture.TrackerConfig{Shard: i, Shards: n}})
			}
			ts := time.Unix(1, 0)
			for _, f := range frames {
				ts = ts.Add(time.Microsecond)
				shards[FanoutShard(f, n)].Packet(f, gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(f), Length: len(f)}, layers.LinkTypeEthernet)
			}
			parts := make([]*capture.Summary, n)
			for i, a := range shards {
				parts[i] = a.Summary()
			}
			got := capture.MergeSummaries(parts...)
			compareSplit(t, got, want)
			ids := map[int]bool{}
			for _, f := range got.Flows {
				if ids[f.ID] {
					t.Errorf("flow ID %d twice", f.ID)
				}
				ids[f.ID] = true
			}
			if got.FirstTS != want.FirstTS || got.LastTS != want.LastTS {
				t.Errorf("span %s..%s, want %s..%s", got.FirstTS, got.LastTS, want.FirstTS, want.LastTS)
			}
			if n > 1 {
				for i, p := range parts {
					if p.Packets == 0 {
						t.Errorf("shard %d of %d got nothing", i, n)
					}
				}
			}
		})
	}
}

func TestOpenLiveFanoutErrors(t *testing.T) {
	for _, n := range []int{0, -1, MaxFanout + 1} {
		if _, err := OpenFanout("lo", Options{}, n); err == nil {
			t.Errorf("%d workers: no error", n)
		}
	}
	if _, err := OpenFanout("no-such-if0", Options{}, 2); err == nil || !bytes.Contains([]byte(err.Error()), []byte("no-such-if0")) {
		t.Errorf("missing interface: %v", err)
	}
}
