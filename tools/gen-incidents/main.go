// Command gen-incidents writes the synthetic incidents of the labelled
// incident corpus (testdata/incidents/syn-*.pcapng.gz): the faults Soft-RoCE
// cannot produce (PFC, DCQCN, PHY), as scripted counter evolutions of the
// repository's ConnectX-6 Dx fixture host, written as rdmatop recordings
// (bundle version 2, host ticks only) that `rdmatop replay` and `rdmatop
// check` read like any other.
//
// The host is testdata/sysfs/mlx5-roce-cx6dx-t0 (mlx5_0 on eth0, RoCE with
// PFC and DCQCN on priority 3), testdata/ethtool/mlx5_cx6dx_eth0_roce_pfc3_t0.txt
// as eth0's `ethtool -S` and testdata/dcb/mlx5-like.raw.json as its DCB
// netlink answers. Each tick moves its counters on by one interval of the
// scenario - traffic, congestion, pause, errors - and samples it through
// the real sampler (sampler.Recorder, as `rdmatop record -i eth0` would),
// whose tick is written with the real bundle writer. Times, jitter (a
// seeded generator per scenario) and the header are fixed: a rerun writes
// byte-identical files.
//
// Run from the repository root:
//
//	go run ./tools/gen-incidents [-o testdata/incidents] [NAME...]
//	go run ./tools/gen-incidents -json   # the scenarios as incidents.json entries
//
// The label of each incident is what its scenario does (see scenarios.go
// and testdata/incidents/MANIFEST.md), not what rdmatop says about it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/internal/incidents"
	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/fsrec"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// Fixed facts of every synthetic recording.
var (
	// Start is the time of the first tick.
	Start = time.Date(2026, 1, 1, 4, 0, 0, 0, time.UTC)
	// Interval between ticks: a 5 s recorder (rdmatop record --interval 5s).
	Interval = 5 * time.Second
	hostInfo = bundle.Host{Hostname: "synthetic-cx6dx", Kernel: "6.8.0-synthetic", Arch: "amd64", Uid: 0}
	tool     = "rdmatop tools/gen-incidents (synthetic)"
)

// Fixture paths, relative to the repository root.
const (
	sysfsDir   = "testdata/sysfs/mlx5-roce-cx6dx-t0"
	ethtoolTxt = "testdata/ethtool/mlx5_cx6dx_eth0_roce_pfc3_t0.txt"
	dcbRaw     = "testdata/dcb/mlx5-like.raw.json"
	netdev     = "eth0"
	device     = "mlx5_0"
)

func main() {
	out := flag.String("o", "testdata/incidents", "directory to write NAME.pcapng.gz into")
	list := flag.Bool("list", false, "list the scenarios and exit")
	asJSON := flag.Bool("json", false, "print the scenarios as incidents.json entries and exit")
	flag.Parse()
	if *asJSON {
		var es []incidents.Incident
		for _, s := range Synthetics {
			also := s.AlsoAcceptable
			if also == nil {
				also = []string{}
			}
			es = append(es, incidents.Incident{Name: s.Name, File: s.Name + ".pcapng.gz", TrueCause: s.TrueCause,
				AlsoAcceptable: also, Synthetic: true, How: s.How})
		}
		b, _ := json.MarshalIndent(es, "", "  ")
		fmt.Println(string(b))
		return
	}
	if *list {
		for _, s := range Synthetics {
			fmt.Printf("%-28s %-26s %s\n", s.Name, s.TrueCause, s.How)
		}
		return
	}
	want := map[string]bool{}
	for _, a := range flag.Args() {
		want[a] = true
	}
	fx, err := LoadFixture(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-incidents:", err)
		os.Exit(1)
	}
	n := 0
	for _, s := range Synthetics {
		if len(want) > 0 && !want[s.Name] {
			continue
		}
		b, err := Generate(fx, s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen-incidents: %s: %v\n", s.Name, err)
			os.Exit(1)
		}
		path := filepath.Join(*out, s.Name+".pcapng.gz")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen-incidents:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d ticks, %d bytes\n", path, s.Ticks, len(b))
		n++
	}
	if len(want) > 0 && n != len(want) {
		fmt.Fprintln(os.Stderr, "gen-incidents: unknown scenario in", flag.Args())
		os.Exit(2)
	}
}

// Fixture is the simulated host as read from the repository's fixtures.
type Fixture struct {
	Tree    fsrec.Tree          // what the sampler reads of the sysfs fixture
	Paths   map[string][]string // "mlx5_0/hw_counters/np_cnp_sent" → tree keys
	Values  map[string]uint64   // same ids → value at t0
	Ethtool map[string]uint64   // eth0's ethtool -S at t0
	DCB     dcb.Fake            // eth0's DCB netlink answers
}

// LoadFixture reads the fixture host below root (the repository root).
func LoadFixture(root string) (*Fixture, error) {
	b, err := os.ReadFile(filepath.Join(root, ethtoolTxt))
	if err != nil {
		return nil, err
	}
	eth, err := ethtool.ParseText(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ethtoolTxt, err)
	}
	b, err = os.ReadFile(filepath.Join(root, dcbRaw))
	if err != nil {
		return nil, err
	}
	var raw dcb.Raw
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", dcbRaw, err)
	}
	// The fixture was read from enp59s0f0np0; the host's RoCE netdev is
	// eth0, and the DCB replies name their netdev in DCB_ATTR_IFNAME.
	raw.Ifname = netdev
	for i := range raw.Replies {
		raw.Replies[i].Payload = renameIfname(raw.Replies[i].Payload, netdev)
	}
	fx := &Fixture{Ethtool: eth, DCB: dcb.Fake{netdev: raw}}

	// What the sampler reads of the fixture tree, recorded through fsrec
	// over a few samples (as the demo's embedded tree is made).
	rec := fsrec.NewRecorder(os.DirFS(filepath.Join(root, sysfsDir)))
	s := sampler.New(sampler.Sources{FS: rec, Ethtool: &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{
		netdev: {Driver: "mlx5_core", Stats: eth}}}, DCB: fx.DCB}, sampler.Options{Netdev: netdev, Now: func() time.Time { return Start }})
	fx.Tree = fsrec.Tree{}
	for i := range 3 {
		s.Sample(context.Background(), Start.Add(time.Duration(i)*time.Second))
		for k, v := range rec.Take() {
			if old, ok := fx.Tree[k]; ok && old.Errno == 0 && v.Errno != 0 {
				continue
			}
			fx.Tree[k] = v
		}
	}
	fx.Paths, fx.Values = fsrec.PortCounters(fx.Tree)
	if len(fx.Values) == 0 {
		return nil, fmt.Errorf("%s: no RDMA counters read", sysfsDir)
	}
	return fx, nil
}

// renameIfname returns a DCB netlink reply (struct dcbmsg, then
// attributes) whose DCB_ATTR_IFNAME (type 1) says name.
func renameIfname(p []byte, name string) []byte {
	if len(p) < 4 {
		return p
	}
	as, err := nlmsg.Attrs(p[4:])
	if err != nil {
		return p // not what we expect: leave it
	}
	out := append([]byte(nil), p[:4]...)
	for _, a := range as {
		val := a.Data
		if a.Type == 1 {
			val = append([]byte(name), 0)
		}
		out = nlmsg.AppendAttr(out, a.Type|a.Flags, val)
	}
	return out
}

// Host is the simulated host during one scenario: the fixture's counters
// moving on tick by tick.
type Host struct {
	fx    *Fixture
	rng   *rand.Rand
	hw    map[string]uint64 // sysfs counters by id ("hw_counters/np_cnp_sent", "counters/port_xmit_packets") of mlx5_0
	eth   map[string]uint64 // ethtool -S eth0
	files map[string]string // sysfs files overridden for good (suffix of the tree key → content)
	dt    float64           // seconds per tick
}

func newHost(fx *Fixture, seed uint64) *Host {
	h := &Host{fx: fx, rng: rand.New(rand.NewPCG(seed, 0x1ac1de47)), hw: map[string]uint64{}, eth: maps.Clone(fx.Ethtool),
		files: map[string]string{}, dt: Interval.Seconds()}
	for id, v := range fx.Values {
		if strings.HasPrefix(id, device+"/") {
			h.hw[strings.TrimPrefix(id, device+"/")] = v
		}
	}
	return h
}

// Jitter returns v ± up to 2 %, from the scenario's seeded generator.
func (h *Host) Jitter(v float64) float64 {
	if v <= 0 {
		return 0
	}
	return v * (0.98 + 0.04*h.rng.Float64())
}

// per returns n per second as a count for one tick, jittered.
func (h *Host) per(n float64) uint64 { return uint64(h.Jitter(n) * h.dt) }

// Add increases a counter of mlx5_0 ("hw_counters/np_cnp_sent") or, for a
// name with the "eth:" prefix, of eth0's ethtool -S; each per second,
// for one tick, jittered. A counter the fixture does not have is an error
// of the scenario.
func (h *Host) Add(name string, perSec float64) {
	n := h.per(perSec)
	if e, ok := strings.CutPrefix(name, "eth:"); ok {
		if _, ok := h.eth[e]; !ok {
			panic("no ethtool counter " + e)
		}
		h.eth[e] += n
		return
	}
	if _, ok := h.hw[name]; !ok {
		panic("no sysfs counter " + name)
	}
	h.hw[name] += n
}

// Set overrides a sysfs file for the rest of the scenario: every tree key
// ending in suffix ("net/eth0/ecn/roce_np/enable/3").
func (h *Host) Set(suffix, content string) { h.files[suffix] = content }

// Traffic moves the traffic counters on by one tick: rx and tx RDMA
// packets per second on mlx5_0/eth0, RoCE on priority 3 (unless prio is
// given), with rxBytes/txBytes per packet, and the CNPs' priority 6.
func (h *Host) Traffic(rx, tx float64, rxBytes, txBytes float64, prio int) {
	rxN, txN := h.per(rx), h.per(tx)
	rxB, txB := rxN*uint64(rxBytes), txN*uint64(txBytes)
	h.hw["counters/port_rcv_packets"] += rxN
	h.hw["counters/unicast_rcv_packets"] += rxN
	h.hw["counters/port_rcv_data"] += rxB / 4
	h.hw["counters/port_xmit_packets"] += txN
	h.hw["counters/unicast_xmit_packets"] += txN
	h.hw["counters/port_xmit_data"] += txB / 4
	if rxBytes > 1000 {
		h.hw["hw_counters/rx_write_requests"] += rxN
	}
	e := h.eth
	e["rx_vport_rdma_unicast_packets"] += rxN
	e["rx_vport_rdma_unicast_bytes"] += rxB
	e["tx_vport_rdma_unicast_packets"] += txN
	e["tx_vport_rdma_unicast_bytes"] += txB
	e["rx_packets_phy"] += rxN
	e["tx_packets_phy"] += txN
	e["rx_bytes_phy"] += rxB
	e["tx_bytes_phy"] += txB
	p := strconv.Itoa(prio)
	e["rx_prio"+p+"_packets"] += rxN
	e["rx_prio"+p+"_bytes"] += rxB
	e["tx_prio"+p+"_packets"] += txN
	e["tx_prio"+p+"_bytes"] += txB
	// a little TCP/management on priority 0
	m := h.per(200)
	e["rx_prio0_packets"] += m
	e["tx_prio0_packets"] += m
	e["rx_packets"] += m
	e["tx_packets"] += m
	e["rx_packets_phy"] += m
	e["tx_packets_phy"] += m
}

// HealthyCongestion is a fabric that marks a little, answered in kind:
// this host's NP turns each mark into a CNP, its RP handles the CNPs it
// gets; a few pause frames either way.
func (h *Host) HealthyCongestion() {
	marks := h.Jitter(120)
	h.Add("hw_counters/np_ecn_marked_roce_packets", marks)
	h.hw["hw_counters/np_cnp_sent"] += uint64(marks * h.dt)
	h.Add("hw_counters/rp_cnp_handled", 100)
	h.eth["rx_prio6_packets"] += h.per(100)
	h.eth["tx_prio6_packets"] += uint64(marks * h.dt)
	h.Pause(4, 3, 1, 1)
}

// Pause adds PFC pause on priority 3: frames and µs of pause per second,
// received (rx: the peer pauses this host) and sent (tx).
func (h *Host) Pause(rxFrames, rxUs, txFrames, txUs float64) {
	n := h.per(rxFrames)
	h.eth["rx_prio3_pause"] += n
	h.eth["rx_prio3_pause_transition"] += n
	h.eth["rx_pause_ctrl_phy"] += n
	h.eth["rx_mac_control_phy"] += n
	h.eth["rx_prio3_pause_duration"] += h.per(rxUs)
	t := h.per(txFrames)
	h.eth["tx_prio3_pause"] += t
	h.eth["tx_pause_ctrl_phy"] += t
	h.eth["tx_mac_control_phy"] += t
	h.eth["tx_prio3_pause_duration"] += h.per(txUs)
}

// tree is this tick's sysfs: the fixture tree with the current counters
// and the overridden files.
func (h *Host) tree() fsrec.Tree {
	t := maps.Clone(h.fx.Tree)
	set := func(k, v string) {
		old := t[k]
		if old == nil {
			return
		}
		e := *old
		e.Data = &v
		t[k] = &e
	}
	for id, ks := range h.fx.Paths {
		name, ok := strings.CutPrefix(id, device+"/")
		if !ok {
			continue
		}
		v := strconv.FormatUint(h.hw[name], 10) + "\n"
		for _, k := range ks {
			set(k, v)
		}
	}
	suffixes := slices.Sorted(maps.Keys(h.files))
	for k := range t {
		for _, s := range suffixes {
			if strings.HasSuffix(k, "/"+s) {
				set(k, h.files[s])
			}
		}
	}
	return t
}

func (h *Host) ethtool() *ethtool.Fake {
	return &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{netdev: {Driver: "mlx5_core", Stats: maps.Clone(h.eth)}}}
}

// Generate writes scenario s as a gzip'd version 2 bundle and returns it.
func Generate(fx *Fixture, s Synthetic) ([]byte, error) {
	var buf bytes.Buffer
	w, err := bundle.NewPcapngWriter(&buf, bundle.Header{Created: Start, Tool: tool, Host: hostInfo,
		Interval: Interval.String(), Selection: "-i " + netdev},
		bundle.PcapngOptions{Gzip: true, Iface: netdev, SnapLen: 128})
	if err != nil {
		return nil, err
	}
	h := newHost(fx, s.Seed)
	// The sources take no time: every status says 0 s.
	rec := sampler.NewRecorder(sampler.Sources{Label: "synthetic"},
		sampler.Options{Netdev: netdev, Now: func() time.Time { return Start }, Timeout: time.Minute})
	ctx := context.Background()
	for i := range s.Ticks {
		if i > 0 {
			s.Step(h, i)
		}
		rec.SetSources(sampler.Sources{FS: h.tree(), Ethtool: h.ethtool(), DCB: fx.DCB, Label: "synthetic",
			Host: probes.HostInfo{Hostname: hostInfo.Hostname, Kernel: hostInfo.Kernel, Source: "synthetic"}})
		_, tick, err := rec.Sample(ctx, Start.Add(time.Duration(i)*Interval))
		if err != nil {
			return nil, fmt.Errorf("tick %d: %w", i, err)
		}
		if err := w.WriteTick(tick); err != nil {
			return nil, fmt.Errorf("tick %d: %w", i, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
