// Package demo is rdmatop's built-in, deterministic scenario: a small
// simulated host (two ConnectX-6 Dx ports, mlx5_0/eth0 carrying RoCE with
// PFC on priority 3, and mlx5_1/eth1) whose counters and packets tell a
// story - healthy traffic, PFC back-pressure on priority 3, ECN marks
// without CNPs, a QP dropping to ERR, loss with retransmissions - so that
// every view and finding can be shown without RDMA hardware.
//
// The frames come out of the real pipeline: the scenario is a
// monitor.Tape. At each tick it builds the raw inputs a host would give -
// a sysfs tree (fsrec.Tree, from an embedded recording of the repository's
// mlx5 fixture, with the counter files rewritten) and `ethtool -S` answers
// (ethtool.Fake) - and feeds them to one sampler.Sampler; it writes the
// packets of the second before the tick with capture/scenario and plays
// them; the monitor analyses them with its one capture.Analyzer and
// evaluates the rules tick after tick, so each rule's `for` is honoured.
//
// Simulated above the parsers: the queue pairs. RDMA netlink replies are
// not synthesized; the QP list is built as rdmanl.QP values, diffed by the
// real qpevent.Detector (which yields the qp_state events), and added to
// the Snapshot the way the sampler's assembly does. The snapshot's status
// line for RDMA netlink says so.
package demo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/fsrec"
	"github.com/rdmatop/rdmatop/probes/gputcp"
	"github.com/rdmatop/rdmatop/probes/qpevent"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// DefaultSeed is the seed of `rdmatop demo`: the same frames every run.
const DefaultSeed int64 = 1

// Source names the demo in Frames.
const Source = "demo"

// Start is the simulated time of the first tick; ticks are one second apart.
var Start = time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)

// Interval is the simulated time between two ticks.
const Interval = time.Second

// Phase is one episode of the story: ticks First..Last (inclusive).
type Phase struct {
	Name  string   `json:"name"`
	First int      `json:"first"`
	Last  int      `json:"last"`
	Rules []string `json:"rules,omitempty"` // the rules the episode makes fire
	kind  phaseKind
}

type phaseKind int

const (
	healthy phaseKind = iota
	pfc
	ecn
	qpErr
	loss
	recovered
)

// The story. Rules with `for: 30s` (pfc-pause-backpressure,
// ecn-marked-no-cnp) need their condition to hold 31 ticks in a row, so
// those episodes last 36 ticks.
var phases = []Phase{
	{Name: "healthy", First: 0, Last: 9, kind: healthy},
	{Name: "PFC back-pressure on priority 3", First: 10, Last: 45, kind: pfc, Rules: []string{"pfc-pause-backpressure"}},
	{Name: "ECN marks without CNPs", First: 46, Last: 81, kind: ecn, Rules: []string{"ecn-marked-no-cnp"}},
	{Name: "QP drops to ERR", First: 82, Last: 91, kind: qpErr, Rules: []string{"qp-error-state"}},
	{Name: "loss with retransmissions", First: 92, Last: 106, kind: loss, Rules: []string{"packet-loss", "retransmissions"}},
	{Name: "recovered", First: 107, Last: 116, kind: recovered},
}

// Phases returns the story's episodes in order.
func Phases() []Phase { return append([]Phase(nil), phases...) }

// Scenario is one run of the demo, played as a monitor.Tape: for each
// tick, the packets of the second before it, then the host sample. Not
// safe for concurrent use; New it again to replay.
type Scenario struct {
	seed   int64
	rng    *rand.Rand
	base   fsrec.Tree
	paths  map[string][]string // "mlx5_0/hw_counters/np_cnp_sent" → tree keys
	values map[string]uint64   // same keys → current value
	eth    map[string]map[string]uint64
	dcb    dcb.Fake
	npOff  bool // eth0's notification point is off on priority 3 (ECN episode)
	smp    *sampler.Sampler
	qps    []rdmanl.QP
	det    qpevent.Detector
	err    error

	tick int              // the tick whose packets or sample come next
	pkts *pcapfile.Source // tick's packets still to play
}

// New returns the demo scenario; seed drives the small jitter of the
// traffic counters (DefaultSeed for `rdmatop demo`). The same seed gives
// the same frames.
func New(seed int64) *Scenario {
	s := &Scenario{seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), 0x5eed))}
	s.err = s.init()
	return s
}

// Ticks is the number of frames of the scenario.
func (s *Scenario) Ticks() int { return phases[len(phases)-1].Last + 1 }

// Len is Ticks: the monitor knows the story's length ahead.
func (s *Scenario) Len() int { return s.Ticks() }

// HostTicks: the monitor makes a Frame at each of the scenario's samples.
func (s *Scenario) HostTicks() bool { return true }

// PhaseAt returns the episode of tick i.
func PhaseAt(i int) Phase {
	for _, p := range phases {
		if i >= p.First && i <= p.Last {
			return p
		}
	}
	return phases[len(phases)-1]
}

// Next returns the next packet of the current tick, or, once they are
// played, the tick's host sample.
func (s *Scenario) Next(ctx context.Context) (monitor.Record, error) {
	if s.err != nil {
		return monitor.Record{}, s.err
	}
	if err := ctx.Err(); err != nil {
		return monitor.Record{}, err
	}
	if s.tick >= s.Ticks() {
		return monitor.Record{}, io.EOF
	}
	ph := PhaseAt(s.tick)
	if s.pkts == nil {
		pcap, err := s.wire(ph.kind, s.tick)
		if err == nil {
			s.pkts, err = pcapfile.NewReader(Source, bytes.NewReader(pcap))
		}
		if err != nil {
			s.err = fmt.Errorf("demo: tick %d capture: %w", s.tick, err)
			return monitor.Record{}, s.err
		}
	}
	data, ci, link, err := s.pkts.ReadPacket()
	if err == nil {
		return monitor.Record{Data: data, CI: ci, Link: link}, nil
	}
	if err != io.EOF {
		s.err = fmt.Errorf("demo: tick %d capture: %w", s.tick, err)
		return monitor.Record{}, s.err
	}
	i := s.tick
	s.tick, s.pkts = s.tick+1, nil
	now := Start.Add(time.Duration(i) * Interval)
	return monitor.Record{Snapshot: s.sample(ctx, ph.kind, i, now), Time: now, Phase: ph.Name}, nil
}

// Close ends the scenario.
func (s *Scenario) Close() error { return nil }

// CaptureName says what the demo's capture is: the mirrored traffic of
// one QP (0x0001a4's connection), not all of eth0's, which the port
// counters count (tens of Gb/s of other QPs and storage).
const CaptureName = "demo: a mirror of QP 0x0001a4's connection"

// Describe names the demo's capture.
func (s *Scenario) Describe(sum *capture.Summary) {
	sum.File, sum.Format, sum.LinkType = CaptureName, "pcap", "ethernet"
}

// Config is the pipeline over a new scenario: what `rdmatop demo` runs.
func Config(seed int64) monitor.Config {
	return monitor.Config{Mode: monitor.ModeDemo, Source: Source, Tape: New(seed), Interval: Interval}
}

// NewRun returns a run of Config(seed).
func NewRun(seed int64) (*monitor.Run, error) { return monitor.New(Config(seed)) }

func (s *Scenario) init() error {
	tree, err := baseTree()
	if err != nil {
		return fmt.Errorf("demo: embedded sysfs tree: %w", err)
	}
	s.base = tree
	s.paths, s.values = fsrec.PortCounters(tree)
	eth0, err := parseEthtool()
	if err != nil {
		return fmt.Errorf("demo: embedded ethtool dump: %w", err)
	}
	// eth1 is the second port of the same card, lightly loaded: its
	// counters start from zero.
	eth1 := map[string]uint64{}
	for k := range eth0 {
		eth1[k] = 0
	}
	s.eth = map[string]map[string]uint64{"eth0": eth0, "eth1": eth1}
	if s.dcb, err = dcbFake(); err != nil {
		return fmt.Errorf("demo: embedded DCB replies: %w", err)
	}
	// The demo is deterministic: its sources take no time.
	s.smp = sampler.New(sampler.Sources{Label: "demo"}, sampler.Options{Now: func() time.Time { return Start }})
	s.qps = initialQPs()
	return nil
}

// sample moves the host on to tick i (ticks come in order) and samples it.
func (s *Scenario) sample(ctx context.Context, k phaseKind, i int, now time.Time) *probes.Snapshot {
	if i > 0 {
		s.advance(k, i)
	}
	s.npOff = k == ecn
	// The job is ib_write_bw, on no GPU: the gpu-tcp source finds none.
	s.smp.SetSources(sampler.Sources{FS: s.tree(), Ethtool: s.ethtool(), DCB: s.dcb, GPU: &gputcp.Fake{}, Label: "demo",
		Host: probes.HostInfo{Hostname: "demo-host01", Kernel: "6.8.0-demo", Source: "demo"}})
	snap := s.smp.Sample(ctx, now)
	s.addQPs(snap, k, i, now)
	return snap
}

// jitter returns v ± up to 2 %, from the seeded generator.
func (s *Scenario) jitter(v uint64) uint64 {
	if v < 50 {
		return v
	}
	d := v / 50
	return v - d + s.rng.Uint64N(2*d+1)
}

// add increases a sysfs counter ("mlx5_0/hw_counters/np_cnp_sent").
func (s *Scenario) add(id string, n uint64) {
	if _, ok := s.values[id]; ok {
		s.values[id] += n
	}
}

// advance moves every counter on by one second of the episode. (The
// order of the jitter draws is the episode's: each part draws in turn.)
func (s *Scenario) advance(k phaseKind, i int) {
	rxPkts, txPkts, rx1, tx1 := s.traffic(k)
	s.congestion(k)
	s.fault(k, i)
	s.ethtoolCounters(k, rxPkts, txPkts, rx1, tx1)
}

// traffic moves the ports' traffic counters on and returns the packets
// of the second: received and sent on mlx5_0, and on mlx5_1.
func (s *Scenario) traffic(k phaseKind) (rxPkts, txPkts, rx1, tx1 uint64) {
	// Traffic: RDMA WRITEs of 4 KiB at ~8 GB/s received on mlx5_0 (this
	// host is the responder), ~2 M packets/s, with ACKs going back. During
	// PFC back-pressure the peer pauses this port and the traffic sags.
	rxPkts, txPkts = s.jitter(2_000_000), s.jitter(250_000)
	if k == pfc {
		rxPkts, txPkts = s.jitter(1_400_000), s.jitter(180_000)
	}
	rxBytes, txBytes := rxPkts*4150, txPkts*80
	for _, c := range []struct {
		name string
		n    uint64
	}{
		{"port_rcv_packets", rxPkts}, {"unicast_rcv_packets", rxPkts}, {"port_rcv_data", rxBytes / 4},
		{"port_xmit_packets", txPkts}, {"unicast_xmit_packets", txPkts}, {"port_xmit_data", txBytes / 4},
	} {
		s.add("mlx5_0/counters/"+c.name, c.n)
	}
	s.add("mlx5_0/hw_counters/rx_write_requests", rxPkts)
	s.add("mlx5_0/hw_counters/rx_read_requests", s.jitter(2_000))
	// A lightly loaded second port.
	rx1, tx1 = s.jitter(20_000), s.jitter(20_000)
	for _, c := range []struct {
		name string
		n    uint64
	}{
		{"port_rcv_packets", rx1}, {"unicast_rcv_packets", rx1}, {"port_rcv_data", rx1 * 1100 / 4},
		{"port_xmit_packets", tx1}, {"unicast_xmit_packets", tx1}, {"port_xmit_data", tx1 * 1100 / 4},
	} {
		s.add("mlx5_1/counters/"+c.name, c.n)
	}
	s.add("mlx5_1/hw_counters/rx_write_requests", rx1)
	return rxPkts, txPkts, rx1, tx1
}

// congestion moves the ECN marks and CNPs on.
func (s *Scenario) congestion(k phaseKind) {
	// Congestion control: a healthy fabric marks a little and this host
	// (the notification point) answers each mark with a CNP.
	marks, cnps := s.jitter(120), uint64(0)
	cnps = marks
	if k == ecn {
		// The switch marks heavily, but no CNP leaves this host: its
		// notification point is off on priority 3 (see tree).
		marks, cnps = s.jitter(45_000), 0
	}
	s.add("mlx5_0/hw_counters/np_ecn_marked_roce_packets", marks)
	s.add("mlx5_0/hw_counters/np_cnp_sent", cnps)
	s.add("mlx5_0/hw_counters/rp_cnp_handled", s.jitter(100))
}

// fault moves on what the episode's fault phases break.
func (s *Scenario) fault(k phaseKind, i int) {
	switch k {
	case qpErr:
		if i == phases[qpErr].First {
			// The QP's last WRITE fails; its outstanding requests flush.
			s.add("mlx5_0/hw_counters/req_cqe_error", 1+8)
			s.add("mlx5_0/hw_counters/req_cqe_flush_error", 8)
			s.add("mlx5_0/hw_counters/req_transport_retries_exceeded", 1)
			s.add("mlx5_0/hw_counters/local_ack_timeout_err", 7)
		}
	case loss:
		// A lossy link upstream: the responder sees sequence gaps and
		// NAKs them, the requester goes back N, duplicates arrive.
		s.add("mlx5_0/hw_counters/out_of_sequence", s.jitter(400))
		s.add("mlx5_0/hw_counters/duplicate_request", s.jitter(1_200))
	}
}

// ethtoolCounters moves eth0's and eth1's ethtool -S counters on.
func (s *Scenario) ethtoolCounters(k phaseKind, rxPkts, txPkts, rx1, tx1 uint64) {
	rxBytes, txBytes := rxPkts*4150, txPkts*80
	// ethtool -S eth0: per-priority counters of priority 3 (RoCE).
	e := s.eth["eth0"]
	e["rx_vport_rdma_unicast_packets"] += rxPkts
	e["rx_vport_rdma_unicast_bytes"] += rxBytes
	e["tx_vport_rdma_unicast_packets"] += txPkts
	e["tx_vport_rdma_unicast_bytes"] += txBytes
	e["rx_packets_phy"] += rxPkts
	e["tx_packets_phy"] += txPkts
	e["rx_bytes_phy"] += rxBytes
	e["tx_bytes_phy"] += txBytes
	e["rx_prio3_packets"] += rxPkts
	e["rx_prio3_bytes"] += rxBytes
	e["tx_prio3_packets"] += txPkts
	e["tx_prio3_bytes"] += txBytes
	pause, pausedUs := s.jitter(4), uint64(3)
	if k == pfc {
		// The switch pauses priority 3 ~21,000 times a second, ~18 % of
		// the time (mlx5 counts the duration in microseconds).
		pause, pausedUs = s.jitter(21_000), s.jitter(180_000)
	}
	e["rx_prio3_pause"] += pause
	e["rx_prio3_pause_duration"] += pausedUs
	e["rx_prio3_pause_transition"] += pause
	e["rx_pause_ctrl_phy"] += pause
	e1 := s.eth["eth1"]
	e1["rx_vport_rdma_unicast_packets"] += rx1
	e1["tx_vport_rdma_unicast_packets"] += tx1
	e1["rx_packets_phy"] += rx1
	e1["tx_packets_phy"] += tx1
	e1["rx_prio3_packets"] += rx1
	e1["tx_prio3_packets"] += tx1
}

// overrides are files of the recorded tree the demo changes for good: the
// fixture's second port is down; the demo's is up.
var overrides = map[string]string{
	"sys/class/infiniband/mlx5_1/ports/1/state":      "4: ACTIVE\n",
	"sys/class/infiniband/mlx5_1/ports/1/phys_state": "5: LinkUp\n",
	"sys/class/net/eth1/operstate":                   "up\n",
	"sys/class/net/eth1/carrier":                     "1\n",
	"sys/class/net/eth1/speed":                       "100000\n",
}

// tree returns this tick's sysfs: the recorded tree with the counters'
// current values.
func (s *Scenario) tree() fsrec.Tree {
	t := maps.Clone(s.base)
	set := func(k, v string) {
		old := t[k]
		if old == nil {
			return
		}
		e := *old
		e.Data = &v
		t[k] = &e
	}
	for k, v := range overrides {
		set(k, v)
	}
	if s.npOff {
		// Someone turned the DCQCN notification point off on priority 3.
		set("sys/class/net/eth0/ecn/roce_np/enable/3", "0\n")
	}
	for id, ks := range s.paths {
		v := strconv.FormatUint(s.values[id], 10) + "\n"
		for _, k := range ks {
			set(k, v)
		}
	}
	return t
}

func (s *Scenario) ethtool() *ethtool.Fake {
	f := &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{}}
	for name, st := range s.eth {
		f.Ifaces[name] = ethtool.FakeIface{Driver: "mlx5_core", Stats: maps.Clone(st)}
	}
	return f
}
