package sampler

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
)

// The sources here are fakes that block on a gate until the test
// releases it: a source "hangs" for as long as the test wants, with no
// timing in the assertions. The timeout is short so that the tests are
// quick, yet long enough for a sample of the fixtures under -race;
// nothing asserts on how long anything took.
const testTimeout = 500 * time.Millisecond

// gate blocks the calls of a fake while armed, until released.
type gate struct {
	mu          sync.Mutex
	armed       bool
	release     chan struct{}
	releaseOnce sync.Once
	left        chan struct{} // closed when the first blocked call has returned
	leftOnce    sync.Once
	blocked     atomic.Int32
}

// newGate returns an open gate, released at the end of the test whatever
// happens.
func newGate(t testing.TB) *gate {
	g := &gate{release: make(chan struct{}), left: make(chan struct{})}
	t.Cleanup(func() { g.releaseOnce.Do(func() { close(g.release) }) })
	return g
}

func (g *gate) arm() { g.mu.Lock(); g.armed = true; g.mu.Unlock() }

// pass is called at the start of a fake's call; it blocks while the gate
// is armed and returns what to call when the fake's call returns.
func (g *gate) pass() (returned func()) {
	g.mu.Lock()
	armed := g.armed
	g.mu.Unlock()
	if !armed {
		return func() {}
	}
	g.blocked.Add(1)
	<-g.release
	return func() { g.leftOnce.Do(func() { close(g.left) }) }
}

// open releases the blocked calls and waits until the first has returned.
func (g *gate) open() {
	g.mu.Lock()
	g.armed = false
	g.mu.Unlock()
	g.releaseOnce.Do(func() { close(g.release) })
	if g.blocked.Load() > 0 {
		<-g.left
	}
}

// gatedFS blocks the file reads that match while its gate is armed.
type gatedFS struct {
	fsys  fs.FS
	gate  *gate
	match func(name string) bool
}

func (g *gatedFS) Open(name string) (fs.File, error) { return g.fsys.Open(name) }
func (g *gatedFS) ReadFile(name string) ([]byte, error) {
	if g.match(name) {
		defer g.gate.pass()()
	}
	return fs.ReadFile(g.fsys, name)
}
func (g *gatedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if g.match(name) {
		defer g.gate.pass()()
	}
	return fs.ReadDir(g.fsys, name)
}
func (g *gatedFS) ReadLink(name string) (string, error)   { return fs.ReadLink(g.fsys, name) }
func (g *gatedFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(g.fsys, name) }
func (g *gatedFS) Stat(name string) (fs.FileInfo, error)  { return fs.Stat(g.fsys, name) }

func isCounterFile(name string) bool {
	return strings.Contains(name, "/counters/") || strings.Contains(name, "/hw_counters/")
}

// lateEthtool answers like its Fake but, once its gate is armed, blocks
// and then answers late with every statistic at lateValue.
type lateEthtool struct {
	*ethtool.Fake
	gate  *gate
	calls atomic.Int32
}

const lateValue = 777_777_777

func (l *lateEthtool) Stats(iface string) (map[string]uint64, error) {
	l.calls.Add(1)
	g := l.gate
	g.mu.Lock()
	armed := g.armed
	g.mu.Unlock()
	if armed {
		defer g.pass()()
		st, err := l.Fake.Stats(iface)
		for k := range st {
			st[k] = lateValue
		}
		return st, err
	}
	return l.Fake.Stats(iface)
}

// countingLinks and countingDCB count their calls.
type countingLinks struct {
	rtnl.Fake
	calls atomic.Int32
}

func (c *countingLinks) Link(name string) (rtnl.Link, error) {
	c.calls.Add(1)
	return c.Fake.Link(name)
}

type countingDCB struct {
	dcb.Fake
	calls atomic.Int32
}

func (c *countingDCB) Query(ifname string, cmd dcb.Command) ([]byte, error) {
	c.calls.Add(1)
	return c.Fake.Query(ifname, cmd)
}

// lateRDMA answers every request from the recorded exchanges (each
// request anew) and blocks while its gate is armed.
type lateRDMA struct {
	ex   []rdmanl.Exchange
	gate *gate
}

func (l *lateRDMA) Execute(req []byte) ([][]byte, error) {
	defer l.gate.pass()()
	return rdmanl.NewReplay(l.ex).Execute(req)
}

// lateKmsg returns one batch per Poll: a port_down line of mlx5_0 when
// armed (and late), none otherwise.
type lateKmsg struct{ gate *gate }

func (l *lateKmsg) Poll() (kmsg.Batch, error) {
	l.gate.mu.Lock()
	armed := l.gate.armed
	l.gate.mu.Unlock()
	if !armed {
		return kmsg.Batch{}, nil
	}
	defer l.gate.pass()()
	return kmsg.Batch{Raw: []string{"3,1000,5000000,-;mlx5_core 0000:3b:00.0 eth0: Link down"}}, nil
}

func (l *lateKmsg) Close() error { return nil }

// untilRunnable samples until no source is "still running since an
// earlier sample" (the late ones have returned), checking each snapshot.
func untilRunnable(t *testing.T, s interface {
	Sample(context.Context, time.Time) *probes.Snapshot
}, now *time.Time, check func(*probes.Snapshot)) *probes.Snapshot {
	t.Helper()
	for {
		*now = now.Add(time.Second)
		snap := s.Sample(context.Background(), *now)
		check(snap)
		busy := false
		for _, st := range snap.Status {
			busy = busy || strings.Contains(st.Detail, "still running") || st.Hung()
		}
		if !busy {
			return snap
		}
		time.Sleep(time.Millisecond)
	}
}

func status(snap *probes.Snapshot) map[string]probes.Status {
	m := map[string]probes.Status{}
	for _, st := range snap.Status {
		m[st.Source] = st
	}
	return m
}

// Task 1: sources that answer after their timeout never write into a
// sample. First ethtool, RDMA netlink and kmsg hang together, then sysfs
// alone; once the sample has been returned each answers with data of its
// own (every ethtool statistic at lateValue, a kernel log line, the QP
// dump, the counters and, for sysfs, what it learned for later samples).
// No snapshot and no recorded tick holds that late data, the returned
// snapshot does not change afterwards, and under -race no late task
// touches what the sample reads.
func TestLateSourcesNeverWriteIntoASample(t *testing.T) {
	var ex []rdmanl.Exchange
	for _, d := range []string{"link", "res_show_qp"} {
		ex = append(ex, loadExchanges(t, fixtures+"rxe-netlink/netlink/"+d)...)
	}
	gates := map[string]*gate{"ethtool": newGate(t), "rdma netlink": newGate(t), "kmsg": newGate(t), "sysfs": newGate(t)}
	eth := &lateEthtool{Fake: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"), gate: gates["ethtool"]}
	src := Sources{FS: &gatedFS{fsys: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0"), gate: gates["sysfs"], match: isCounterFile},
		Ethtool: eth, RDMA: &lateRDMA{ex: ex, gate: gates["rdma netlink"]}, Kmsg: &lateKmsg{gate: gates["kmsg"]}, Label: "fixture"}
	rec := NewRecorder(src, Options{Timeout: testTimeout})
	now := time.Unix(1_800_000_000, 0)
	first, _, err := rec.Sample(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	// Two mlx5 ports from sysfs, and the rxe ports RDMA netlink names.
	if len(first.QPs) == 0 || len(first.Ports) != 4 || counterIn(first, "ethtool") == 0 {
		t.Fatalf("first sample: %d QPs, %d ports, status %+v", len(first.QPs), len(first.Ports), first.Status)
	}

	for _, hung := range [][]string{{"ethtool", "rdma netlink", "kmsg"}, {"sysfs"}} {
		for _, name := range hung {
			gates[name].arm()
		}
		now = now.Add(time.Second)
		snap, tick, err := rec.Sample(context.Background(), now)
		if err != nil {
			t.Fatal(err)
		}
		st := status(snap)
		for _, name := range hung {
			if gates[name].blocked.Load() == 0 {
				t.Fatalf("%s never reached its gate: the test proves nothing (status %+v)", name, snap.Status)
			}
			if !st[name].Hung() || st[name].Since == nil {
				t.Errorf("%s: %+v, want timeout (or partial) since this sample", name, st[name])
			}
		}
		for _, name := range hung {
			switch name {
			case "sysfs":
				// Its counter files hang: the ports stay, their
				// counters carried forward, stale, never fresh.
				if len(snap.Ports) != len(first.Ports) || freshIn(snap, "counters")+freshIn(snap, "hw_counters") != 0 ||
					counterIn(snap, "hw_counters") != counterIn(first, "hw_counters") {
					t.Errorf("sysfs counters hung: %d ports, %d fresh and %d in all of %d hw_counters", len(snap.Ports),
						freshIn(snap, "counters")+freshIn(snap, "hw_counters"), counterIn(snap, "hw_counters"), counterIn(first, "hw_counters"))
				}
			case "ethtool":
				if freshIn(snap, "ethtool") != 0 || counterIn(snap, "ethtool") != counterIn(first, "ethtool") || tick.Raw[rawEthtool] != nil {
					t.Errorf("ethtool timed out, yet %d fresh counters (%d carried of %d)", freshIn(snap, "ethtool"),
						counterIn(snap, "ethtool"), counterIn(first, "ethtool"))
				}
			case "rdma netlink":
				if len(snap.QPs) != 0 || string(tick.Raw[rawRDMA]) != "null" {
					t.Errorf("rdma netlink timed out, yet %d QPs and exchanges %.80s", len(snap.QPs), tick.Raw[rawRDMA])
				}
			case "kmsg":
				if tick.Raw[rawKmsg] != nil {
					t.Errorf("kmsg timed out, yet recorded")
				}
			}
		}
		// Absent is not gone: nothing was destroyed or removed.
		for _, e := range snap.Events {
			t.Errorf("%v hung: event %+v", hung, e)
		}
		before, _ := json.Marshal(snap)

		// The late ones answer now.
		for _, name := range hung {
			gates[name].open()
		}
		var ticks []*bundle.Tick
		last := untilRunnable(t, samplerFunc(func(ctx context.Context, at time.Time) *probes.Snapshot {
			s, tk, err := rec.Sample(ctx, at)
			if err != nil {
				t.Fatal(err)
			}
			ticks = append(ticks, tk)
			return s
		}), &now, func(s *probes.Snapshot) { checkNoLate(t, s) })
		if after, _ := json.Marshal(snap); string(after) != string(before) {
			t.Errorf("the returned snapshot changed after the late sources answered")
		}
		checkNoLate(t, snap)
		for _, tk := range ticks {
			if b := tk.Raw[rawEthtool]; strings.Contains(string(b), "777777777") {
				t.Errorf("a tick recorded the late ethtool answer")
			}
			if b := tk.Raw[rawKmsg]; strings.Contains(string(b), "Link down") {
				t.Errorf("a tick recorded the late kernel log line")
			}
		}
		st = status(last)
		for _, name := range []string{"sysfs", "ethtool", "rdma netlink", "kmsg"} {
			if st[name].State != probes.StateOK {
				t.Errorf("%s after the hang: %+v", name, st[name])
			}
		}
		if len(last.QPs) != len(first.QPs) || len(last.Ports) != len(first.Ports) || freshIn(last, "ethtool") == 0 {
			t.Errorf("after the hang: %d QPs (first %d), %d ports, status %+v", len(last.QPs), len(first.QPs), len(last.Ports), last.Status)
		}
		// Nothing vanished and came back: the sources that timed out said
		// nothing about it.
		for _, e := range last.Events {
			t.Errorf("event after %v hung: %+v", hung, e)
		}
	}
}

type samplerFunc func(context.Context, time.Time) *probes.Snapshot

func (f samplerFunc) Sample(ctx context.Context, at time.Time) *probes.Snapshot { return f(ctx, at) }

func keys[V any](m map[string]V) []string { return sortedKeys(m) }

func counterIn(s *probes.Snapshot, source string) int {
	n := 0
	for _, p := range s.Ports {
		for _, c := range p.Counters {
			if c.Source == source {
				n++
			}
		}
	}
	return n
}

// freshIn counts the counters of source read in this sample (not
// carried forward).
func freshIn(s *probes.Snapshot, source string) int {
	n := 0
	for _, p := range s.Ports {
		for _, c := range p.Counters {
			if c.Source == source && c.Note != probes.NoteStale {
				n++
			}
		}
	}
	return n
}

func checkNoLate(t *testing.T, s *probes.Snapshot) {
	t.Helper()
	for _, p := range s.Ports {
		for _, c := range p.Counters {
			if c.Value == lateValue {
				t.Errorf("late ethtool value in %s/%d %s", p.Device, p.Port, c.Native)
			}
		}
	}
	for _, e := range s.Events {
		if e.Kind == "link_down" {
			t.Errorf("late kernel log line: %+v", e)
		}
	}
}

// Task 2: a hung sysfs does not hold up the other sources. Once a sample
// has discovered the netdevs, ethtool, rtnetlink and DCB read them at
// once: when the counter files hang, sysfs alone times out and the other
// three answer, in that same sample.
func TestHungSysfsDoesNotStallOthers(t *testing.T) {
	g := newGate(t)
	eth := &lateEthtool{Fake: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"), gate: newGate(t)}
	links := &countingLinks{Fake: rtnl.Fake{All: []rtnl.Link{{Name: "eth0", Index: 2, MTU: 9000}, {Name: "eth1", Index: 3, MTU: 1500}}}}
	d := &countingDCB{Fake: dcbFixture(t, "eth0", "eth1")}
	src := Sources{FS: &gatedFS{fsys: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0"), gate: g, match: isCounterFile},
		Ethtool: eth, Links: links, DCB: d, Label: "fixture"}
	s := New(src, Options{Timeout: testTimeout})
	now := time.Unix(1_800_000_000, 0)
	first := s.Sample(context.Background(), now)
	for name, st := range status(first) {
		if st.State != probes.StateOK && name != "rdma netlink" {
			t.Fatalf("first sample: %s %+v", name, st)
		}
	}

	g.arm()
	calls := [3]int32{eth.calls.Load(), links.calls.Load(), d.calls.Load()}
	now = now.Add(time.Second)
	snap := s.Sample(context.Background(), now)
	st := status(snap)
	if st["sysfs"].State != probes.StatePartial || len(st["sysfs"].Stuck) == 0 {
		t.Errorf("sysfs: %+v, want partial, naming the files that hang", st["sysfs"])
	}
	if len(snap.Ports) != 2 || freshIn(snap, "hw_counters") != 0 || counterIn(snap, "hw_counters") == 0 {
		t.Errorf("counters hang: %d ports, %d fresh hw_counters, %d carried", len(snap.Ports), freshIn(snap, "hw_counters"), counterIn(snap, "hw_counters"))
	}
	for _, name := range []string{"ethtool", "rtnetlink", "dcb"} {
		if st[name].State != probes.StateOK {
			t.Errorf("%s waited for the hung sysfs: %+v", name, st[name])
		}
	}
	if eth.calls.Load() != calls[0]+2 || links.calls.Load() != calls[1]+2 || d.calls.Load() <= calls[2] {
		t.Errorf("calls during the hang: ethtool %d→%d, rtnetlink %d→%d, dcb %d→%d (want both netdevs read)",
			calls[0], eth.calls.Load(), calls[1], links.calls.Load(), calls[2], d.calls.Load())
	}
	if g.blocked.Load() == 0 {
		t.Fatal("the counter reads never hung: the test proves nothing")
	}
	for _, e := range snap.Events {
		t.Errorf("event while sysfs did not answer: %+v", e)
	}

	g.open()
	last := untilRunnable(t, s, &now, func(*probes.Snapshot) {})
	if st := status(last); st["sysfs"].State != probes.StateOK || len(last.Ports) != 2 {
		t.Fatalf("after the hang: %+v, %d ports", st["sysfs"], len(last.Ports))
	}
	// Rates span the gap: measured against the last reading, not
	// restarted as a first sample.
	c := counter(t, findPort(last, "mlx5_0", 1), "cnp_sent")
	if c.Note != probes.NoteNone || c.Delta == nil || *c.Delta != 0 || c.Rate == nil {
		t.Errorf("cnp_sent after the gap: %+v", c)
	}
}

// Before any discovery has worked, the netdev sources wait for this
// sample's sysfs, but only until it has named the netdevs: counters that
// hang after that do not hold them up. A discovery that hangs does,
// within their own timeout.
func TestFirstSampleWaitsOnlyForDiscovery(t *testing.T) {
	g := newGate(t)
	g.arm()
	eth := &lateEthtool{Fake: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"), gate: newGate(t)}
	s := New(Sources{FS: &gatedFS{fsys: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0"), gate: g, match: isCounterFile}, Ethtool: eth},
		Options{Timeout: testTimeout})
	st := status(s.Sample(context.Background(), time.Unix(1_800_000_000, 0)))
	if st["sysfs"].State != probes.StatePartial || st["ethtool"].State != probes.StateOK || eth.calls.Load() != 2 {
		t.Errorf("counters hang: sysfs %+v, ethtool %+v after %d calls", st["sysfs"], st["ethtool"], eth.calls.Load())
	}
	g.open()

	g = newGate(t)
	g.arm()
	eth = &lateEthtool{Fake: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"), gate: newGate(t)}
	s = New(Sources{FS: &gatedFS{fsys: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0"), gate: g, match: func(string) bool { return true }},
		Ethtool: eth}, Options{Timeout: testTimeout})
	st = status(s.Sample(context.Background(), time.Unix(1_800_000_000, 0)))
	if st["sysfs"].State != probes.StateTimeout || st["ethtool"].State != probes.StateTimeout || eth.calls.Load() != 0 {
		t.Errorf("discovery hangs: sysfs %+v, ethtool %+v after %d calls", st["sysfs"], st["ethtool"], eth.calls.Load())
	}
	g.open()
}

// dcbFixture answers the mlx5-like DCB configuration for each netdev.
func dcbFixture(t testing.TB, netdevs ...string) dcb.Fake {
	t.Helper()
	b, err := os.ReadFile(fixtures + "dcb/mlx5-like.raw.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw dcb.Raw
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	f := dcb.Fake{}
	for _, n := range netdevs {
		r := raw
		r.Ifname = n
		f[n] = r
	}
	return f
}

// Task 6: many samples with every source slow at random around the
// timeout, under -race: each snapshot holds only data of sources that
// answered in time (their status says ok), and nothing races.
func TestConcurrentSlowSources(t *testing.T) {
	var ex []rdmanl.Exchange
	for _, d := range []string{"link", "res_show_qp"} {
		ex = append(ex, loadExchanges(t, fixtures+"rxe-netlink/netlink/"+d)...)
	}
	var n atomic.Int64
	slow := func() {
		// Every third call sleeps past the timeout, the others answer at
		// once: which sample it hits varies with scheduling.
		if n.Add(1)%3 == 0 {
			time.Sleep(testTimeout + 50*time.Millisecond)
		}
	}
	eth := &slowEthtool{Fake: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"), slow: slow}
	src := Sources{FS: &slowFS{fsys: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0"), slow: slow},
		Ethtool: eth, Links: &slowLinks{Fake: rtnl.Fake{All: []rtnl.Link{{Name: "eth0", Index: 2}}}, slow: slow},
		DCB: &slowDCB{Fake: dcbFixture(t, "eth0", "eth1"), slow: slow}, RDMA: &slowRDMA{ex: ex, slow: slow}}
	s := NewRecorder(src, Options{Timeout: testTimeout})
	now := time.Unix(1_800_000_000, 0)
	for range 8 {
		now = now.Add(time.Second)
		snap, tick, err := s.Sample(context.Background(), now)
		if err != nil {
			t.Fatal(err)
		}
		st := status(snap)
		// What did not answer is carried forward, stale; never fresh.
		if st["sysfs"].State == probes.StateTimeout && (freshIn(snap, "hw_counters") != 0 || len(tick.Files) != 0) {
			t.Errorf("sysfs %s, yet %d fresh counters and %d files", st["sysfs"].State, freshIn(snap, "hw_counters"), len(tick.Files))
		}
		for _, path := range st["sysfs"].Stuck {
			var dev string
			var port int
			if _, err := fmt.Sscanf(strings.ReplaceAll(path, "/", " "), "sys class infiniband %s ports %d", &dev, &port); err != nil {
				t.Fatalf("stuck %q: %v", path, err)
			}
			// Carried forward, stale; absent if it hung at its first read.
			p := findPort(snap, dev, port)
			if c := counterByName(p.Counters, "cnp_sent"); c != nil && (c.Note != probes.NoteStale || c.Rate != nil || c.StaleS == nil) {
				t.Errorf("%s hung, yet %+v", path, c)
			}
		}
		if st["ethtool"].State != probes.StateOK && (freshIn(snap, "ethtool") != 0 || tick.Raw[rawEthtool] != nil) {
			t.Errorf("ethtool %s, yet fresh counters are in", st["ethtool"].State)
		}
		if st["rdma netlink"].State != probes.StateOK && len(snap.QPs) != 0 {
			t.Errorf("rdma netlink %s, yet %d QPs", st["rdma netlink"].State, len(snap.QPs))
		}
		if st["dcb"].State != probes.StateOK && tick.Raw[rawDCB] != nil {
			t.Errorf("dcb %s, yet recorded", st["dcb"].State)
		}
		for _, e := range snap.Events {
			if e.Kind == "qp_destroyed" || e.Kind == "device_removed" || e.Kind == "gid_removed" {
				t.Errorf("a slow source read as a removal: %+v", e)
			}
		}
	}
}

type slowFS struct {
	fsys fs.FS
	slow func()
}

func (s *slowFS) Open(name string) (fs.File, error) { return s.fsys.Open(name) }
func (s *slowFS) ReadFile(name string) ([]byte, error) {
	if strings.HasSuffix(name, "/np_cnp_sent") {
		s.slow()
	}
	return fs.ReadFile(s.fsys, name)
}
func (s *slowFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(s.fsys, name) }
func (s *slowFS) ReadLink(name string) (string, error)       { return fs.ReadLink(s.fsys, name) }
func (s *slowFS) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(s.fsys, name) }
func (s *slowFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(s.fsys, name) }

type slowEthtool struct {
	*ethtool.Fake
	slow func()
}

func (s *slowEthtool) Stats(iface string) (map[string]uint64, error) {
	s.slow()
	st, err := s.Fake.Stats(iface)
	return maps.Clone(st), err
}

type slowLinks struct {
	rtnl.Fake
	slow func()
}

func (s *slowLinks) Link(name string) (rtnl.Link, error) { s.slow(); return s.Fake.Link(name) }

type slowDCB struct {
	dcb.Fake
	slow func()
}

func (s *slowDCB) Query(ifname string, cmd dcb.Command) ([]byte, error) {
	if cmd == dcb.CmdIEEEGet {
		s.slow()
	}
	return s.Fake.Query(ifname, cmd)
}

type slowRDMA struct {
	ex   []rdmanl.Exchange
	slow func()
}

func (s *slowRDMA) Execute(req []byte) ([][]byte, error) {
	if len(req) > 5 && req[4] == 0x01 && req[5] == 0x14 { // the device dump (RDMA_NLDEV_CMD_GET)
		s.slow()
	}
	return rdmanl.NewReplay(s.ex).Execute(req)
}
