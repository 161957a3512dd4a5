package sampler

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
	"github.com/rdmatop/rdmatop/rules"
)

// Issue 31: sources that hang must not take the ports away.

// forever blocks the calls of a fake until the test ends.
type forever struct {
	once  sync.Once
	c     chan struct{}
	calls int32
	mu    sync.Mutex
}

func newForever(t *testing.T) *forever {
	f := &forever{c: make(chan struct{})}
	t.Cleanup(func() { f.once.Do(func() { close(f.c) }) })
	return f
}

func (f *forever) block() {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	<-f.c
}

func (f *forever) n() int32 { f.mu.Lock(); defer f.mu.Unlock(); return f.calls }

// ethtool and rtnetlink that never answer, as when RTNL is held.
type hungEthtool struct {
	*ethtool.Fake
	f *forever
}

func (h *hungEthtool) Stats(iface string) (map[string]uint64, error) {
	h.f.block()
	return h.Fake.Stats(iface)
}

type hungLinks struct {
	rtnl.Fake
	f *forever
}

func (h *hungLinks) Link(name string) (rtnl.Link, error) { h.f.block(); return h.Fake.Link(name) }

// scriptKmsg returns, at each Poll, the next batch of lines.
type scriptKmsg struct {
	mu    sync.Mutex
	lines [][]string
}

func (s *scriptKmsg) Poll() (kmsg.Batch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lines) == 0 {
		return kmsg.Batch{}, nil
	}
	b := kmsg.Batch{Raw: s.lines[0]}
	s.lines = s.lines[1:]
	return b, nil
}

func (s *scriptKmsg) Close() error { return nil }

// (a) ethtool and rtnetlink never answer and sysfs's netdev attributes
// hang (RTNL held), while RDMA netlink and the kernel log answer: every
// sample still has the ports — the RDMA netlink one among them — the
// kernel log's "set down" makes link-flap fire on it, the hung sources
// are not waited for again (no read is waited for twice), and their
// statuses say since when.
func TestSourceThatNeverAnswers(t *testing.T) {
	var ex []rdmanl.Exchange
	for _, d := range []string{"dev", "link", "res_show_qp"} {
		ex = append(ex, loadExchanges(t, fixtures+"rxe-netlink/netlink/"+d)...)
	}
	fe, fl := newForever(t), newForever(t)
	netAttrs := newGate(t)
	netAttrs.arm()
	km := &scriptKmsg{lines: [][]string{nil, nil, nil,
		{"3,1000,5000000,-;infiniband rxe0: set down"}, {"6,1001,6000000,-;infiniband rxe0: set active"}, nil}}
	src := Sources{
		FS: &gatedFS{fsys: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0"), gate: netAttrs,
			match: func(n string) bool { return strings.Contains(n, "class/net/") }},
		Ethtool: &hungEthtool{Fake: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"), f: fe},
		Links:   &hungLinks{Fake: rtnl.Fake{All: []rtnl.Link{{Name: "eth0", Index: 2}}}, f: fl},
		RDMA:    &lateRDMA{ex: ex, gate: newGate(t)},
		Kmsg:    km,
	}
	s := New(src, Options{Timeout: testTimeout})
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	eng := rules.NewEngine(pack)
	t0 := time.Unix(1_800_000_000, 0)
	flapped := false
	for i := range 6 {
		now := t0.Add(time.Duration(i) * time.Second)
		start := time.Now()
		snap := s.Sample(context.Background(), now)
		took := time.Since(start)
		st := status(snap)
		for _, name := range []string{"ethtool", "rtnetlink"} {
			if st[name].State != probes.StateTimeout || st[name].Since == nil || !st[name].Since.Equal(t0) {
				t.Errorf("sample %d: %s %+v, want timeout since the first sample", i, name, st[name])
			}
		}
		if st["rdma netlink"].State != probes.StateOK || st["kmsg"].State != probes.StateOK {
			t.Errorf("sample %d: rdma netlink %+v, kmsg %+v", i, st["rdma netlink"], st["kmsg"])
		}
		// The ports: two from sysfs, the rxe ones from RDMA netlink.
		if findPort(snap, "mlx5_0", 1) == nil || findPort(snap, "rxe0", 1) == nil {
			t.Fatalf("sample %d: ports %d, status %+v", i, len(snap.Ports), snap.Status)
		}
		if p := findPort(snap, "rxe0", 1); p.State != "ACTIVE" || p.PhysState != "LinkUp" || p.From != "rdma netlink" {
			t.Errorf("sample %d: rxe0/1 %+v", i, p)
		}
		// The hung sources are not waited for again: ethtool and
		// rtnetlink are called once (checked after the loop); a sysfs
		// read waited for to its deadline stays stuck (nothing here
		// answers) and is refused at once after, so every read ever
		// waited for is one outstanding now: none was waited for twice.
		// (Netdev attributes not read before are tried, with the short
		// wait that follows a hang, until too many are stuck.)
		if w, o := s.guard.waitedOut(), s.guard.outstanding(); w != o {
			t.Errorf("sample %d (%v): %d sysfs reads waited for to their deadline, %d outstanding: one was waited for again", i, took, w, o)
		}
		res := eng.Evaluate(rules.Frame{Time: now, Snapshot: snap})
		for _, f := range res.Findings {
			if f.Rule == "link-flap" && f.Objects["device"] == "rxe0" && !f.Resolved {
				flapped = true
				if i != 3 {
					t.Errorf("sample %d: link-flap %s", i, f.Evidence)
				}
			}
		}
		for _, r := range res.Rules {
			// Both judge every sample: on the counters where they have
			// a delta, on RDMA netlink's state and the kernel log where
			// not.
			if (r.Rule == "link-flap" || r.Rule == "port-down") && r.State == "cannot_evaluate" {
				t.Errorf("sample %d: %s cannot evaluate: %s", i, r.Rule, r.Detail)
			}
		}
	}
	if !flapped {
		t.Error("link-flap never fired on the kernel log's set down")
	}
	if fe.n() != 1 || fl.n() != 1 {
		t.Errorf("hung sources started again: ethtool %d calls, rtnetlink %d", fe.n(), fl.n())
	}
	if got := probes.LikelyCause(s.prev.Status); !strings.Contains(got, "RTNL") {
		t.Errorf("likely cause %q, want RTNL", got)
	}
}

// (b) A counter file that never answers (a FIFO: open(2) blocks until a
// writer comes): the port, its other counters and the name of the file
// come out; the counter's last reading is carried forward, stale, with
// its age, never a rate or a zero; the next samples do not wait for it
// and do not start another reader; when it answers again its rate spans
// the whole gap.
func TestCounterFileThatNeverAnswers(t *testing.T) {
	root := t.TempDir()
	copyTree(t, fixtures+"sysfs/mlx5-roce-cx6dx-t0", root)
	hw := filepath.Join(root, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent")
	const stuckName = "sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent"
	s := New(Sources{FS: os.DirFS(root)}, Options{Timeout: testTimeout})
	t0 := time.Unix(1_800_000_000, 0)
	first := s.Sample(context.Background(), t0)
	was := counter(t, findPort(first, "mlx5_0", 1), "cnp_sent").Value
	base := settledGoroutines()

	if err := os.Remove(hw); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(hw, 0o644); err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		// A writer comes and goes: the stuck open returns, the read
		// sees end of file.
		if !released {
			released = true
			if f, err := os.OpenFile(hw, os.O_RDWR, 0); err == nil {
				f.Close()
			}
		}
	}
	t.Cleanup(release)

	const n = 20
	for i := 1; i <= n; i++ {
		now := t0.Add(time.Duration(i) * time.Second)
		start := time.Now()
		snap := s.Sample(context.Background(), now)
		took := time.Since(start)
		st := status(snap)["sysfs"]
		if st.State != probes.StatePartial || len(st.Stuck) != 1 || st.Stuck[0] != stuckName ||
			st.Since == nil || !st.Since.Equal(t0.Add(time.Second)) {
			t.Fatalf("sample %d: sysfs %+v", i, st)
		}
		if len(snap.Ports) != 2 {
			t.Fatalf("sample %d: %d ports", i, len(snap.Ports))
		}
		p := findPort(snap, "mlx5_0", 1)
		c := counter(t, p, "cnp_sent")
		if c.Note != probes.NoteStale || c.Value != was || c.Rate != nil || c.Delta != nil || c.StaleS == nil || *c.StaleS != float64(i) {
			t.Errorf("sample %d: the stuck counter %+v (stale_s %v), want %d carried forward %d s old", i, c, c.StaleS, was, i)
		}
		if st.StaleS == nil || *st.StaleS != float64(i) {
			t.Errorf("sample %d: sysfs stale_s %v, want %d", i, st.StaleS, i)
		}
		fresh := 0
		for _, c := range p.Counters {
			if c.Source == "hw_counters" && c.Note != probes.NoteStale {
				if c.Rate == nil {
					t.Errorf("sample %d: %s fresh without a rate", i, c.Native)
				}
				fresh++
			}
		}
		if fresh < 20 {
			t.Errorf("sample %d: %d fresh hw_counters on mlx5_0/1", i, fresh)
		}
		// Waited for once, at the first sample; refused at once after.
		if n := s.guard.waitedOut(); n != 1 {
			t.Errorf("sample %d (%v): %d reads waited for to their deadline, want the stuck file's first only", i, took, n)
		}
	}
	// One reader stuck on the FIFO, however many samples: counted with a
	// deadline, not read once.
	if got := s.guard.outstanding(); got != 1 {
		t.Errorf("%d reads outstanding, want 1", got)
	}
	if got, ok := waitGoroutines(base+1, 5*time.Second); !ok {
		t.Errorf("%d goroutines after %d samples, want at most %d (one stuck reader): readers pile up", got, n, base+1)
	}

	// It answers again: the reader returns, the file is a file again.
	release()
	deadline := time.Now().Add(5 * time.Second)
	for s.guard.outstanding() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := s.guard.outstanding(); got != 0 {
		t.Fatalf("%d reads still outstanding after the FIFO answered", got)
	}
	os.Remove(hw)
	if err := os.WriteFile(hw, []byte("731052\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := t0.Add((n + 1) * time.Second)
	snap := s.Sample(context.Background(), now)
	if st := status(snap)["sysfs"]; st.State != probes.StateOK || st.Since != nil || st.StaleS != nil {
		t.Errorf("after: sysfs %+v", st)
	}
	c := counter(t, findPort(snap, "mlx5_0", 1), "cnp_sent")
	if c.Note != probes.NoteNone || c.Delta == nil || *c.Delta != 731052-was || c.Rate == nil ||
		*c.Rate != float64(731052-was)/float64(n+1) || c.StaleS != nil {
		t.Errorf("after: %+v, want delta %d over %d s", c, 731052-was, n+1)
	}
}

// settledGoroutines is the goroutine count once the sample's own have
// ended: the lowest of a few readings.
func settledGoroutines() int {
	low := runtime.NumGoroutine()
	for range 20 {
		time.Sleep(5 * time.Millisecond)
		low = min(low, runtime.NumGoroutine())
	}
	return low
}

// waitGoroutines waits until there are at most want goroutines, or the
// deadline: goroutines that are ending may still be counted for a while.
func waitGoroutines(want int, within time.Duration) (int, bool) {
	deadline := time.Now().Add(within)
	for {
		n := runtime.NumGoroutine()
		if n <= want {
			return n, true
		}
		if time.Now().After(deadline) {
			return n, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
