package rules_test

// Test cases for the host rules (pack files port, pfc, congestion, config
// and host), in the style of `promtool test rules`: each case builds frames
// from real fixtures (the mlx5 sysfs trees and ethtool dumps 60 s apart, the
// mlx5 InfiniBand tree, the Soft-RoCE lab recordings, the DCB fixture,
// generated captures), runs the whole built-in pack over them, and lists the
// findings that must appear, the rules that must stay quiet and the rules
// that must say "cannot evaluate here". Fixtures are changed only on copies
// (trees in t.TempDir(), parsed dumps and bundle ticks in memory).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/scenario"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/fsrec"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
)

const hrFix = "../testdata/"

// hrFiles are the pack files these tests cover.
var hrFiles = []string{"port.yaml", "pfc.yaml", "congestion.yaml", "config.yaml", "host.yaml"}

var hrT0 = time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)

func hrPack(t *testing.T) *rules.Pack {
	t.Helper()
	p, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hrIDs returns the ids of the rules defined in hrFiles.
func hrIDs(p *rules.Pack) []string {
	var ids []string
	for _, r := range p.Rules {
		file, _, _ := strings.Cut(r.Source, ":")
		if slices.Contains(hrFiles, file) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// --- fixtures --------------------------------------------------------------

// hrEth parses an ethtool -S dump of testdata/ethtool.
func hrEth(t *testing.T, name string) map[string]uint64 {
	t.Helper()
	f, err := os.Open(hrFix + "ethtool/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := ethtool.ParseText(f)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// hrHost is one sample's sources.
type hrHost struct {
	sysfs  string            // host root holding sys/
	eth0   map[string]uint64 // ethtool -S eth0; nil with ethErr nil: no ethtool source
	ethErr error             // every ethtool query fails with it
	dcb    dcb.Fake          // nil: no DCB source
}

func (h hrHost) sources() sampler.Sources {
	src := sampler.Sources{FS: os.DirFS(h.sysfs), Label: "fixture " + h.sysfs}
	if h.eth0 != nil || h.ethErr != nil {
		// eth1 is down; the fixture set has no dump for it.
		src.Ethtool = &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{
			"eth0": {Driver: "mlx5_core", Stats: h.eth0, Err: h.ethErr},
			"eth1": {Driver: "mlx5_core", Stats: map[string]uint64{}, Err: h.ethErr}}}
	}
	if h.dcb != nil {
		src.DCB = h.dcb
	}
	return src
}

// hrKmsg classifies the lines of a real kernel log excerpt
// (testdata/real) into snapshot events.
func hrKmsg(t *testing.T, name string) []probes.Event {
	t.Helper()
	b, err := os.ReadFile(hrFix + "real/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []probes.Event
	for _, r := range kmsg.ParseLines(string(b)) {
		if e, ok := kmsg.Classify(r); ok {
			ev := e.Snapshot(time.Time{})
			if !e.Wall.IsZero() {
				ev.Time = e.Wall
			}
			out = append(out, ev)
		}
	}
	return out
}

// hrSample samples the hosts in order, 60 s apart, like one host over time.
func hrSample(hosts ...hrHost) []*probes.Snapshot {
	var s *sampler.Sampler
	var out []*probes.Snapshot
	for i, h := range hosts {
		if s == nil {
			s = sampler.New(h.sources(), sampler.Options{})
		} else {
			s.SetSources(h.sources())
		}
		out = append(out, s.Sample(context.Background(), hrT0.Add(time.Duration(i)*time.Minute)))
	}
	return out
}

func hrFrames(snaps ...*probes.Snapshot) []rules.Frame {
	var fs []rules.Frame
	for _, s := range snaps {
		fs = append(fs, rules.Frame{Time: s.Time, Snapshot: s})
	}
	return fs
}

func hrTree(name string) string { return hrFix + "sysfs/" + name }

// hrMLX5 is the mlx5 fixture host at t0 or t1 (with ethtool).
func hrMLX5(t *testing.T, which string) hrHost {
	return hrHost{sysfs: hrTree("mlx5-roce-cx6dx-" + which), eth0: hrEth(t, "mlx5_cx6dx_eth0_roce_pfc3_"+which+".txt")}
}

// hrCopyTree copies a fixture tree (with its relative symlinks) into a
// temporary directory and returns the copy's root.
func hrCopyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// hrSet writes value into the file rel (a path below the tree root; class
// symlinks are followed, into the copy).
func hrSet(t *testing.T, root, rel string, value any) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, rel), []byte(fmt.Sprintln(value)), 0o644); err != nil {
		t.Fatal(err)
	}
}

const hrHW = "sys/class/infiniband/mlx5_0/ports/1/hw_counters/"

func hrRead(t *testing.T, root, rel string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// hrDCB is the DCB fixture (PFC on priority 3, DSCP trust, DSCP 26 -> 3,
// 48 -> 6) answered for eth0, optionally with PFC moved to other priorities
// (pfcEn is the IEEE pfc_en bitmap).
func hrDCB(t *testing.T, pfcEn byte) dcb.Fake {
	t.Helper()
	b, err := os.ReadFile(hrFix + "dcb/mlx5-like.raw.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw dcb.Raw
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	done := false
	for i := range raw.Replies {
		if raw.Replies[i].Cmd != dcb.CmdIEEEGet {
			continue
		}
		p := slices.Clone(raw.Replies[i].Payload)
		// The fixture's port is called enp59s0f0np0; the mlx5 fixture host
		// calls it eth0. DCB_ATTR_IFNAME (type 1) right after the dcbmsg:
		// nla_len 17, "enp59s0f0np0\0", 3 bytes of padding.
		old := append([]byte{0x11, 0x00, 0x01, 0x00}, "enp59s0f0np0\x00\x00\x00\x00"...)
		if !bytes.Equal(p[4:4+len(old)], old) {
			t.Fatal("DCB fixture: no DCB_ATTR_IFNAME where expected")
		}
		p = slices.Concat(p[:4], []byte{0x09, 0x00, 0x01, 0x00}, []byte("eth0\x00\x00\x00\x00"), p[4+len(old):])
		// struct ieee_pfc: nla_len 140, type DCB_ATTR_IEEE_PFC (2), then
		// pfc_cap 8 and the pfc_en bitmap.
		at := bytes.Index(p, []byte{0x8c, 0x00, 0x02, 0x00, 0x08, 0x08})
		if at < 0 {
			t.Fatal("no ieee_pfc attribute in the DCB fixture")
		}
		p[at+5] = pfcEn
		raw.Replies[i].Payload, done = p, true
	}
	if !done {
		t.Fatal("no IEEE_GET reply in the DCB fixture")
	}
	cfg, err := dcb.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for p := range 8 {
		if pfcEn&(1<<p) != 0 {
			want = append(want, p)
		}
	}
	if got := cfg.Snapshot(); !slices.Equal(got.PFCEnabled, want) || got.Netdev != "eth0" || got.Trust != "dscp" {
		t.Fatalf("DCB fixture: %+v, want eth0 with PFC on %v, DSCP trust", got, want)
	}
	return dcb.Fake{"eth0": raw}
}

// hrReplay replays a recorded bundle into snapshots; edit may change each
// tick (a copy in memory) before it is replayed.
func hrReplay(t *testing.T, path string, edit func(*bundle.Tick)) []*probes.Snapshot {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := bundle.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var s *sampler.Sampler
	var out []*probes.Snapshot
	for {
		tick, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(tick)
		}
		src, err := sampler.ReplaySources(tick, r.Header.Host.Order(), "bundle "+path, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		src.Status = tick.Status
		if s == nil {
			s = sampler.New(src, sampler.Options{})
		} else {
			s.SetSources(src)
		}
		out = append(out, s.Sample(context.Background(), tick.Time))
	}
	return out
}

// hrEditProc replaces a recorded /proc file's content in a tick.
func hrEditProc(name string, change func(string) string) func(*bundle.Tick) {
	return func(tk *bundle.Tick) {
		if e, ok := tk.Files[name]; ok && e != nil && e.Data != nil {
			c := *e
			d := change(*e.Data)
			c.Data = &d
			tk.Files[name] = &c
		}
	}
}

// memlock8MiB sets a /proc/PID/limits file's "Max locked memory" to 8 MiB,
// soft and hard.
func memlock8MiB(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Max locked memory") {
			l = fmt.Sprintf("%-26s%-21s%-21s%-10s", "Max locked memory", "8388608", "8388608", "bytes")
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// hrIdle is the Soft-RoCE lab host at rest (rdmatop --once --json).
func hrIdle(t *testing.T) *probes.Snapshot {
	t.Helper()
	b, err := os.ReadFile(hrFix + "lab/probes/once-idle.json")
	if err != nil {
		t.Fatal(err)
	}
	var s probes.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// hrCapture writes a generated capture of one RC connection between a and b
// and returns its analysis.
func hrCapture(t *testing.T, c scenario.Conn, writes int) *capture.Summary {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gen.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := scenario.NewCapture(f, 0)
	conn := cp.Open(c)
	for range writes {
		conn.Ack(conn.Write(4 * c.PMTU))
	}
	if err := cp.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err := capture.AnalyzeFile(path, capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hrConn(a, b string, encap scenario.Encap, pmtu int, dscp uint8) scenario.Conn {
	mac := func(s string) net.HardwareAddr { m, _ := net.ParseMAC(s); return m }
	return scenario.Conn{
		A:     scenario.Endpoint{MAC: mac("b8:ce:f6:5a:3c:10"), IP: netip.MustParseAddr(a), QPN: 0x11, PSN: 100},
		B:     scenario.Endpoint{MAC: mac("b8:ce:f6:5a:4d:20"), IP: netip.MustParseAddr(b), QPN: 0x22, PSN: 900},
		Encap: encap, PMTU: pmtu, DSCP: dscp, ECN: scenario.ECT0,
	}
}

func hrAnalyze(t *testing.T, path string) *capture.Summary {
	t.Helper()
	s, err := capture.AnalyzeFile(path, capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// --- cases -----------------------------------------------------------------

// hrAlert is a finding that must be there (active or resolved): its rule,
// object keys it must carry, and text its evidence must contain.
type hrAlert struct {
	rule     string
	objects  map[string]string
	evidence []string
}

type hrCase struct {
	name      string
	frames    func(t *testing.T) []rules.Frame
	ignoreFor bool // a one-shot check: every rule fires as soon as it holds
	fire      []hrAlert
	quiet     []string // rules that must not fire on any object in any frame
	cannot    []string // rules that must be cannot_evaluate on the last frame
	// healthy: none of the covered rules may fire at warning or above.
	healthy bool
}

func hrCases() []hrCase {
	mlx5Pair := func(t *testing.T) []rules.Frame {
		return hrFrames(hrSample(hrMLX5(t, "t0"), hrMLX5(t, "t1"))...)
	}
	// pairWith samples t0 then t1 after change(t0 root, t1 root, eth t1):
	// t1's tree is a copy, t0's too when both is set (copies are slow).
	pairWith := func(both bool, change func(t *testing.T, r0, r1 string, eth1 map[string]uint64)) func(t *testing.T) []rules.Frame {
		return func(t *testing.T) []rules.Frame {
			h0, h1 := hrMLX5(t, "t0"), hrMLX5(t, "t1")
			if both {
				h0.sysfs = hrCopyTree(t, h0.sysfs)
			}
			h1.sysfs = hrCopyTree(t, h1.sysfs)
			change(t, h0.sysfs, h1.sysfs, h1.eth0)
			return hrFrames(hrSample(h0, h1)...)
		}
	}
	// ethWith samples t0 then t1 with t1's ethtool dump (parsed afresh) changed.
	ethWith := func(change func(eth1 map[string]uint64)) func(t *testing.T) []rules.Frame {
		return func(t *testing.T) []rules.Frame {
			h0, h1 := hrMLX5(t, "t0"), hrMLX5(t, "t1")
			change(h1.eth0)
			return hrFrames(hrSample(h0, h1)...)
		}
	}
	withDCB := func(pfcEn byte) func(t *testing.T) []rules.Frame {
		return func(t *testing.T) []rules.Frame {
			h0, h1 := hrMLX5(t, "t0"), hrMLX5(t, "t1")
			h0.dcb, h1.dcb = hrDCB(t, pfcEn), hrDCB(t, pfcEn)
			return hrFrames(hrSample(h0, h1)...)
		}
	}
	mlx5 := map[string]string{"device": "mlx5_0", "port": "1", "netdev": "eth0"}
	prio3 := map[string]string{"device": "mlx5_0", "netdev": "eth0", "priority": "3"}
	labBundle := hrFix + "lab/probes/record.bundle.gz"

	return append([]hrCase{
		{
			name: "mlx5 t0 alone: a first sample has no rates",
			frames: func(t *testing.T) []rules.Frame {
				return hrFrames(hrSample(hrMLX5(t, "t0"))...)
			},
			ignoreFor: true,
			fire:      []hrAlert{{rule: "port-down", objects: map[string]string{"device": "mlx5_1", "netdev": "eth1"}, evidence: []string{"state DOWN", "Disabled"}}},
			quiet:     []string{"roce-v1-gid-routed", "roce-mtu-too-small", "ib-port-not-active", "running-unprivileged"},
			// Rates, deltas and events need a previous sample; PFC enable
			// needs DCB, memory needs /proc and RDMA netlink.
			cannot: []string{"pfc-pause-backpressure", "pfc-pause-storm", "host-rx-backpressure", "ecn-marked-no-cnp", "cnp-ignored",
				"dcqcn-misconfigured", "tcp-on-roce-priority", "phy-errors", "phy-fec-corrections-high", "link-flap", "mtu-mismatch",
				"pfc-not-enabled-roce-prio", "memory-registration-risk", "gid-moved"},
		},
		{
			// The events probes/sampler makes when a GID entry changes
			// between two readings of the table (TestGIDTableChangeEvents
			// shows them made from a real sysfs tree).
			name: "mlx5 t0 -> t1 with a GID entry of mlx5_0/1 moved and one added",
			frames: func(t *testing.T) []rules.Frame {
				fr := mlx5Pair(t)
				last := fr[len(fr)-1].Snapshot
				last.Events = append(last.Events,
					probes.Event{Source: "gid", Kind: "gid_changed", Severity: probes.SevWarning, Device: "mlx5_0", Port: 1,
						Detail: "index 3: ::ffff:10.0.0.1 RoCE v2 eth0 → ::ffff:10.0.0.9 RoCE v2 eth0"},
					probes.Event{Source: "gid", Kind: "gid_added", Severity: probes.SevInfo, Device: "mlx5_1", Port: 1,
						Detail: "index 4: ::ffff:10.0.1.1 RoCE v2 eth1 (new)"})
				return fr
			},
			ignoreFor: true,
			fire: []hrAlert{{rule: "gid-moved", objects: mlx5,
				evidence: []string{"mlx5_0/1 (eth0): index 3: ::ffff:10.0.0.1 RoCE v2 eth0 → ::ffff:10.0.0.9 RoCE v2 eth0"}}},
		},
		{
			name:      "mlx5 t0 -> t1: PFC storm and congestion on priority 3, eth1 down",
			frames:    mlx5Pair,
			ignoreFor: true,
			fire: []hrAlert{
				// +941220 pauses received in 60 s, 5.23 s paused.
				{rule: "pfc-pause-backpressure", objects: prio3, evidence: []string{"priority 3", "8.717% of the time", "15687 pause frames/s received"}},
				{rule: "pfc-pause-storm", objects: mlx5, evidence: []string{"pause-storm warnings +2"}},
				// +1733 rx_prio3_discards / rx_discards_phy.
				{rule: "host-rx-backpressure", objects: prio3, evidence: []string{"28.88 packets/s dropped on the priority"}},
				{rule: "host-rx-backpressure", objects: mlx5, evidence: []string{"28.88 packets/s"}},
				{rule: "port-down", objects: map[string]string{"device": "mlx5_1"}},
			},
			// CNPs answer the ECN marks, the RP handles them, no foreign
			// traffic on priority 3, clean PHY, both GID types, MTU 9000.
			quiet: []string{"gid-moved", "ecn-marked-no-cnp", "cnp-ignored", "dcqcn-misconfigured", "tcp-on-roce-priority", "phy-errors",
				"phy-fec-corrections-high", "link-flap", "mtu-mismatch", "roce-v1-gid-routed", "roce-mtu-too-small",
				"ib-port-not-active", "running-unprivileged"},
			cannot: []string{"pfc-not-enabled-roce-prio", "memory-registration-risk"},
		},
		{
			name:      "mlx5 t0 -> t1 with DCB: PFC on 3 and DSCP 26 -> 3, as the traffic uses",
			frames:    withDCB(0x08),
			ignoreFor: true,
			quiet:     []string{"pfc-not-enabled-roce-prio", "tcp-on-roce-priority"},
		},
		{
			name: "mlx5 t1 -> t1 with DCB: a minute in which nothing moved",
			frames: func(t *testing.T) []rules.Frame {
				h := hrMLX5(t, "t1")
				h.dcb = hrDCB(t, 0x08)
				return hrFrames(hrSample(h, h)...)
			},
			ignoreFor: true,
			quiet: []string{"pfc-pause-backpressure", "pfc-pause-storm", "host-rx-backpressure", "pfc-not-enabled-roce-prio",
				"tcp-on-roce-priority", "ecn-marked-no-cnp", "cnp-ignored", "dcqcn-misconfigured", "phy-errors",
				"phy-fec-corrections-high", "link-flap", "mtu-mismatch"},
		},
		{
			name:      "mlx5 t0 -> t1 with DCB enabling PFC on priority 4 only",
			frames:    withDCB(0x10),
			ignoreFor: true,
			fire: []hrAlert{
				{rule: "pfc-not-enabled-roce-prio", objects: prio3, evidence: []string{"PFC is off on this host", "15687 pause frames/s"}},
				{rule: "pfc-not-enabled-roce-prio", objects: mlx5, evidence: []string{"PFC enabled on priorities [4]", "3=2300000"}},
			},
		},
		{
			name: "generated RoCEv2 capture with DSCP 26 on the mlx5 host whose PFC is on priority 4",
			frames: func(t *testing.T) []rules.Frame {
				fs := withDCB(0x10)(t)
				fs[1].Wire = hrCapture(t, hrConn("192.168.10.11", "192.168.10.12", scenario.RoCEv2, 4096, 26), 4)
				return fs
			},
			ignoreFor: true,
			fire: []hrAlert{{rule: "pfc-not-enabled-roce-prio", objects: map[string]string{"flow": "1", "src": "192.168.10.11"},
				evidence: []string{"DSCP 26", "eth0 trust dscp, PFC on [4], DSCP map map[26:3 48:6]"}}},
			quiet: []string{"mtu-mismatch"}, // path MTU 4096 = what eth0's 9000 allows
		},
		{
			name: "mlx5 t0 -> t1 with TCP on priority 3 (+30M packets in 60 s beyond the RDMA ones)",
			frames: ethWith(func(eth map[string]uint64) {
				for _, k := range []string{"rx_prio3_packets", "rx_packets_phy", "rx_packets", "rx_vport_unicast_packets"} {
					eth[k] += 30_000_000
				}
			}),
			ignoreFor: true,
			fire:      []hrAlert{{rule: "tcp-on-roce-priority", objects: mlx5, evidence: []string{"RDMA 2300000 packets/s in", "3=2800000/2800000", "PFC-paused in this interval"}}},
		},
		{
			name: "mlx5 t0 -> t1 with the notification point off: ECN marks, no CNPs",
			frames: pairWith(true, func(t *testing.T, r0, r1 string, _ map[string]uint64) {
				for _, r := range []string{r0, r1} {
					hrSet(t, r, "sys/class/net/eth0/ecn/roce_np/enable/3", 0)
				}
				hrSet(t, r1, hrHW+"np_cnp_sent", hrRead(t, r0, hrHW+"np_cnp_sent"))
			}),
			ignoreFor: true,
			fire:      []hrAlert{{rule: "ecn-marked-no-cnp", objects: mlx5, evidence: []string{"65019 ECN-marked", "0 CNPs/s sent", "3=false"}}},
		},
		{
			name: "mlx5 t0 -> t1 with the reaction point ignoring CNPs",
			frames: pairWith(false, func(t *testing.T, _, r1 string, _ map[string]uint64) {
				hrSet(t, r1, hrHW+"rp_cnp_ignored", 600000)
			}),
			ignoreFor: true,
			fire:      []hrAlert{{rule: "cnp-ignored", objects: mlx5, evidence: []string{"10000 CNPs/s ignored"}}},
		},
		{
			name: "mlx5 t0 -> t1 with a CNP for every fourth packet sent",
			frames: pairWith(false, func(t *testing.T, r0, r1 string, _ map[string]uint64) {
				hrSet(t, r1, hrHW+"rp_cnp_handled", hrRead(t, r0, hrHW+"rp_cnp_handled")+40_000_000)
			}),
			ignoreFor: true,
			fire:      []hrAlert{{rule: "dcqcn-misconfigured", objects: mlx5, evidence: []string{"666667 CNPs/s handled", "2800000 RDMA packets/s sent", "roce_rp/rpg_ai_rate=5"}}},
		},
		{
			name: "mlx5 t0 -> t1 with PFC pausing priority 3 and no CNP arriving",
			frames: pairWith(false, func(t *testing.T, r0, r1 string, _ map[string]uint64) {
				hrSet(t, r1, hrHW+"rp_cnp_handled", hrRead(t, r0, hrHW+"rp_cnp_handled"))
			}),
			ignoreFor: true,
			fire:      []hrAlert{{rule: "dcqcn-misconfigured", objects: prio3, evidence: []string{"15687 pause", "while 0 CNPs/s arrive"}}},
		},
		{
			name: "mlx5 t0 -> t1 with a bad link: CRC errors and a pre-FEC BER of 2e-5",
			frames: ethWith(func(eth map[string]uint64) {
				eth["rx_crc_errors_phy"] = 120
				eth["rx_corrected_bits_phy"] += 120_000_000
			}),
			ignoreFor: true,
			fire: []hrAlert{
				{rule: "phy-errors", objects: mlx5, evidence: []string{"CRC errors 2/s", "on a 100 Gb/s link"}},
				{rule: "phy-fec-corrections-high", objects: mlx5, evidence: []string{"2000001 bits/s"}},
			},
		},
		{
			name: "mlx5 t0 -> t1 with frames longer than the MTU arriving (peer MTU larger)",
			frames: ethWith(func(eth map[string]uint64) {
				eth["rx_oversize_pkts_phy"] = 1200
			}),
			ignoreFor: true,
			fire:      []hrAlert{{rule: "mtu-mismatch", objects: mlx5, evidence: []string{"netdev MTU 9000", "20 oversize frames/s"}}},
		},
		{
			name: "mlx5 t0 -> t1 with eth0 at MTU 1500 and a capture of 4096-byte RoCE packets addressed to it",
			frames: func(t *testing.T) []rules.Frame {
				fs := pairWith(true, func(t *testing.T, r0, r1 string, _ map[string]uint64) {
					hrSet(t, r0, "sys/class/net/eth0/mtu", 1500)
					hrSet(t, r1, "sys/class/net/eth0/mtu", 1500)
				})(t)
				fs[1].Wire = hrCapture(t, hrConn("192.168.10.12", "192.168.10.11", scenario.RoCEv2, 4096, 26), 4)
				return fs
			},
			ignoreFor: true,
			fire: []hrAlert{
				{rule: "mtu-mismatch", objects: mlx5, evidence: []string{"netdev MTU 1500", "4096-byte payloads addressed to this port"}},
				{rule: "roce-mtu-too-small", objects: mlx5, evidence: []string{"netdev MTU 1500"}},
			},
		},
		{
			name: "the sender's side: 4096-byte packets resent, nothing back (testdata/incidents/mtu-mismatch-drop)",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{{Time: hrT0, Wire: hrAnalyze(t, hrFix+"incidents/mtu-mismatch-drop.pcapng.gz")}}
			},
			ignoreFor: true,
			fire: []hrAlert{{rule: "mtu-mismatch", objects: map[string]string{"flow": "1", "dst": "192.168.77.2"},
				evidence: []string{"4096-byte", "nothing came back"}}},
		},
		{
			// The real fault in the lab: a hop below 2048 bytes drops the
			// large frames, the small messages before them were answered
			// (testdata/lab/mtu-small-large: its filters' own counts).
			name: "small acknowledged, large never, on one connection (testdata/lab/mtu-small-large)",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{{Time: hrT0, Wire: hrAnalyze(t, hrFix+"lab/mtu-small-large/veth0.pcap.gz")}}
			},
			ignoreFor: true,
			fire: []hrAlert{{rule: "mtu-mismatch", objects: map[string]string{"flow": "1", "dst": "192.168.77.2"},
				evidence: []string{"answered 200 requests", "2048-byte packets were resent", "small get through, large never"}}},
		},
		{
			// Jumbo frames that do get through, some lost on the way:
			// ACKs cover large packets, so no MTU problem.
			name: "RoCE MTU 4096 with 1 % loss (testdata/wiretruth/m4k-loss1-write, both points)",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{
					{Time: hrT0, Wire: hrAnalyze(t, hrFix+"wiretruth/m4k-loss1-write/veth0.pcap.gz")},
					{Time: hrT0.Add(time.Second), Wire: hrAnalyze(t, hrFix+"wiretruth/m4k-loss1-write/veth1.pcap.gz")},
				}
			},
			ignoreFor: true,
			quiet:     []string{"mtu-mismatch"},
		},
		{
			// A black hole for every size: 1024-byte packets, which a
			// standard MTU carries, are not an MTU problem.
			name: "a black-holed peer (testdata/incidents/blackhole)",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{{Time: hrT0, Wire: hrAnalyze(t, hrFix+"incidents/blackhole.pcapng.gz")}}
			},
			ignoreFor: true,
			quiet:     []string{"mtu-mismatch"},
		},
		{
			name: "mlx5 t0 -> t1 with a capture of RoCE at path MTU 1024 (eth0 allows 4096)",
			frames: func(t *testing.T) []rules.Frame {
				fs := mlx5Pair(t)
				fs[1].Wire = hrCapture(t, hrConn("192.168.10.11", "192.168.10.12", scenario.RoCEv2, 1024, 26), 4)
				return fs
			},
			ignoreFor: true,
			fire:      []hrAlert{{rule: "mtu-mismatch", objects: mlx5, evidence: []string{"RoCE MTU 4096", "path MTU of 1024"}}},
			quiet:     []string{"roce-v1-gid-routed"},
		},
		{
			name: "mlx5 t0 whose routable address has only a RoCE v1 GID",
			frames: func(t *testing.T) []rules.Frame {
				root := hrCopyTree(t, hrTree("mlx5-roce-cx6dx-t0"))
				hrSet(t, root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/3", "IB/RoCE v1")
				return hrFrames(hrSample(hrHost{sysfs: root})...)
			},
			ignoreFor: true,
			fire:      []hrAlert{{rule: "roce-v1-gid-routed", objects: map[string]string{}, evidence: []string{"mlx5_0/1 index 2 ::ffff:192.168.10.11 (eth0)", "mlx5_0/1 index 3 ::ffff:192.168.10.11 (eth0)"}}},
		},
		{
			name: "generated RoCEv1 capture between IP-derived GIDs",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{{Time: hrT0, Wire: hrCapture(t, hrConn("::ffff:192.168.10.11", "::ffff:192.168.20.12", scenario.RoCEv1, 1024, 26), 2)}}
			},
			ignoreFor: true,
			fire:      []hrAlert{{rule: "roce-v1-gid-routed", objects: map[string]string{"flow": "1", "src": "::ffff:192.168.10.11"}, evidence: []string{"is RoCE v1"}}},
		},
		{
			// Real Soft-RoCE: ECT(0) traffic that netem marked CE; rxe has no
			// notification point, so no CNP ever comes back.
			name: "rxe capture with CE marks and no CNP back (testdata/rxe/pcap/ecn.pcap)",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{{Time: hrT0, Wire: hrAnalyze(t, hrFix+"rxe/pcap/ecn.pcap")}}
			},
			ignoreFor: true,
			fire: []hrAlert{{rule: "ecn-marked-no-cnp", objects: map[string]string{"flow": "1"},
				evidence: []string{"32 of", "ECN-CE marked", "none is a CNP"}}},
		},
		{
			name: "CE marks answered by CNPs (testdata/scenarios/cnp-storm-ecn.pcap)",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{{Time: hrT0, Wire: hrAnalyze(t, hrFix+"scenarios/cnp-storm-ecn.pcap")}}
			},
			ignoreFor: true,
			quiet:     []string{"ecn-marked-no-cnp"},
		},
		{
			name: "RoCEv1 capture between link-local GIDs (testdata/scenarios/rocev1.pcap)",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{{Time: hrT0, Wire: hrAnalyze(t, hrFix+"scenarios/rocev1.pcap")}}
			},
			ignoreFor: true,
			// ecn-marked-no-cnp and mtu-mismatch have flow variants.
			quiet: []string{"roce-v1-gid-routed", "ecn-marked-no-cnp", "mtu-mismatch"},
			// Without host data nothing else can be judged.
			cannot: []string{"ib-port-not-active", "port-down", "link-flap", "phy-errors", "phy-fec-corrections-high",
				"roce-mtu-too-small", "pfc-pause-backpressure", "pfc-pause-storm", "host-rx-backpressure",
				"pfc-not-enabled-roce-prio", "tcp-on-roce-priority", "cnp-ignored", "dcqcn-misconfigured",
				"memory-registration-risk", "running-unprivileged"},
		},
		{
			name: "an empty frame (no host data, no capture)",
			frames: func(t *testing.T) []rules.Frame {
				return []rules.Frame{{Time: hrT0}}
			},
			ignoreFor: true,
			cannot:    []string{"roce-v1-gid-routed", "running-unprivileged", "memory-registration-risk", "port-down", "nic-hardware-event"},
		},
		{
			name: "mlx5 t0 -> t1 with real kernel log lines: insufficient PCIe power (dmesg -T of a GPU node)",
			frames: func(t *testing.T) []rules.Frame {
				s := hrSample(hrMLX5(t, "t0"), hrMLX5(t, "t1"))
				s[1].Events = append(s[1].Events, hrKmsg(t, "dmesg_mlx5_pcie_insufficient_power_gpud.txt")...)
				return hrFrames(s...)
			},
			ignoreFor: true,
			fire: []hrAlert{{rule: "nic-hardware-event", objects: map[string]string{"pci": "0000:5c:00.0"},
				evidence: []string{"[pcie_power 0000:5c:00.0 2024-12-01 14:54:40]", "insufficient power on the PCIe slot (27W)"}}},
		},
		{
			name: "mlx5 t0 -> t1 with real kernel log lines of a healthy boot (firmware version, cable plugged)",
			frames: func(t *testing.T) []rules.Frame {
				s := hrSample(hrMLX5(t, "t0"), hrMLX5(t, "t1"))
				s[1].Events = append(s[1].Events, hrKmsg(t, "dmesg_mlx5_cx5_boot_port_module_event_geerlingguy.txt")...)
				if len(s[1].Events) < 3 {
					t.Fatalf("events %+v: the boot log's lines were not classified", s[1].Events)
				}
				return hrFrames(s...)
			},
			ignoreFor: true,
			quiet:     []string{"nic-hardware-event"},
		},
		{
			name: "mlx5 t0 -> t1 run without permission for ethtool",
			frames: func(t *testing.T) []rules.Frame {
				denied := &probes.PermissionError{What: "CAP_NET_ADMIN (SIOCETHTOOL)", Err: syscall.EPERM}
				h0 := hrHost{sysfs: hrTree("mlx5-roce-cx6dx-t0"), ethErr: denied}
				h1 := hrHost{sysfs: hrTree("mlx5-roce-cx6dx-t1"), ethErr: denied}
				return hrFrames(hrSample(h0, h1)...)
			},
			ignoreFor: true,
			fire:      []hrAlert{{rule: "running-unprivileged", objects: map[string]string{}, evidence: []string{"ethtool", "CAP_NET_ADMIN"}}},
			// The RDMA port counters still show congestion control at work.
			quiet:  []string{"ecn-marked-no-cnp", "cnp-ignored", "dcqcn-misconfigured"},
			cannot: []string{"pfc-pause-backpressure", "pfc-pause-storm", "tcp-on-roce-priority", "phy-fec-corrections-high"},
		},
		{
			name: "mlx5 InfiniBand port (ACTIVE, SM present)",
			frames: func(t *testing.T) []rules.Frame {
				return hrFrames(hrSample(hrHost{sysfs: hrTree("mlx5-ib-cx6")})...)
			},
			ignoreFor: true,
			// IPoIB's 4092 MTU is not a RoCE MTU; the IB GID is not a RoCE v1 GID.
			quiet:   []string{"ib-port-not-active", "port-down", "roce-mtu-too-small", "roce-v1-gid-routed"},
			healthy: true,
		},
		{
			name: "mlx5 InfiniBand port stuck in INIT (no subnet manager)",
			frames: func(t *testing.T) []rules.Frame {
				root := hrCopyTree(t, hrTree("mlx5-ib-cx6"))
				hrSet(t, root, "sys/class/infiniband/mlx5_2/ports/1/state", "2: INIT")
				return hrFrames(hrSample(hrHost{sysfs: root})...)
			},
			ignoreFor: true,
			fire:      []hrAlert{{rule: "ib-port-not-active", objects: map[string]string{"device": "mlx5_2", "port": "1"}, evidence: []string{"physical state LinkUp but logical state INIT"}}},
			quiet:     []string{"port-down"},
		},
		{
			name: "Soft-RoCE lab recording: ib_write_bw, then veth1 down for 2 s (for honoured)",
			frames: func(t *testing.T) []rules.Frame {
				return hrFrames(hrReplay(t, labBundle, nil)...)
			},
			fire: []hrAlert{
				// Down in one sample, up in the next: the finding holds for both
				// and shows the last (the evidence of the down is checked in
				// TestHostRulesResolve).
				{rule: "link-flap", objects: map[string]string{"device": "rxe0", "netdev": "veth0"}, evidence: []string{"DOWN/Polling -> ACTIVE/LinkUp"}},
				{rule: "link-flap", objects: map[string]string{"device": "rxe1", "netdev": "veth1"}, evidence: []string{"DOWN/Disabled"}},
				{rule: "port-down", objects: map[string]string{"device": "rxe0"}, evidence: []string{"physical state Polling", "lowerlayerdown"}},
				{rule: "port-down", objects: map[string]string{"device": "rxe1"}, evidence: []string{"physical state Disabled"}},
				// veth's 1500 MTU: RoCE MTU 1024 (an advisory).
				{rule: "roce-mtu-too-small", objects: map[string]string{"device": "rxe0"}, evidence: []string{"netdev MTU 1500", "at most 1024"}},
			},
			// ib_write_bw ran with ulimit -l unlimited; the VM's memory is not fragmented.
			quiet: []string{"memory-registration-risk", "running-unprivileged", "roce-v1-gid-routed", "phy-errors", "ib-port-not-active"},
			// Soft-RoCE has no PFC, ECN, FEC or oversize counters and veth no DCB.
			cannot: []string{"mtu-mismatch", "pfc-pause-backpressure", "pfc-not-enabled-roce-prio", "ecn-marked-no-cnp", "cnp-ignored", "dcqcn-misconfigured",
				"tcp-on-roce-priority", "phy-fec-corrections-high"},
		},
		{
			name: "Soft-RoCE lab recording with ib_write_bw's memlock limit at 8 MiB",
			frames: func(t *testing.T) []rules.Frame {
				return hrFrames(hrReplay(t, labBundle, func(tk *bundle.Tick) {
					hrEditProc("proc/220/limits", memlock8MiB)(tk)
					hrEditProc("proc/222/limits", memlock8MiB)(tk)
				})...)
			},
			fire: []hrAlert{{rule: "memory-registration-risk", objects: map[string]string{"device": "rxe0", "qpn": "0x000011", "comm": "ib_write_bw"},
				evidence: []string{"soft limit 8388608 bytes"}}},
		},
		{
			name: "the same, with ib_write_bw in a Kubernetes pod (a real containerd cgroup, the node naming the pod)",
			frames: func(t *testing.T) []rules.Frame {
				cg, err := os.ReadFile(hrFix + "owner/k8s-containerd-systemd-v2-1.cgroup")
				if err != nil {
					t.Fatal(err)
				}
				inPod := func(tk *bundle.Tick) {
					if tk.Files == nil {
						return
					}
					for _, pid := range []string{"220", "222"} {
						c := string(cg)
						tk.Files["proc/"+pid+"/cgroup"] = &fsrec.Entry{Data: &c}
					}
					tk.Files["var/log/pods"] = &fsrec.Entry{IsDir: true, Dir: []string{"ml_trainer-0_dc430cd3-34b7-4ea6-be26-ddfd88d7ddff/"}}
				}
				return hrFrames(hrReplay(t, labBundle, func(tk *bundle.Tick) {
					hrEditProc("proc/220/limits", memlock8MiB)(tk)
					hrEditProc("proc/222/limits", memlock8MiB)(tk)
					inPod(tk)
				})...)
			},
			fire: []hrAlert{{rule: "memory-registration-risk", objects: map[string]string{"device": "rxe0", "qpn": "0x000011", "comm": "ib_write_bw",
				"pod": "ml/trainer-0", "container": "containerd://8564224395a4"},
				evidence: []string{"soft limit 8388608 bytes"}}},
		},
		{
			name: "Soft-RoCE lab recording with memory fragmented (no free 2 MiB blocks)",
			frames: func(t *testing.T) []rules.Frame {
				return hrFrames(hrReplay(t, labBundle, hrEditProc("proc/buddyinfo", func(s string) string {
					var out []string
					for _, l := range strings.Split(s, "\n") {
						if f := strings.Fields(l); len(f) == 15 { // Node N, zone Z, then orders 0..10
							for i := 4 + 9; i < len(f); i++ {
								f[i] = "0"
							}
							l = strings.Join(f, " ")
						}
						out = append(out, l)
					}
					return strings.Join(out, "\n")
				}))...)
			},
			fire: []hrAlert{{rule: "memory-registration-risk", objects: map[string]string{}, evidence: []string{"blocks of 2 MiB or more 0 kB", "hugepages 0 free of 0 (2048 kB each)"}}},
		},
		{
			name: "Soft-RoCE lab faults recording: veth1 down during retry-linkdown (for honoured)",
			frames: func(t *testing.T) []rules.Frame {
				snaps := hrReplay(t, hrFix+"lab/faults/faults.bundle.gz", nil)
				// The recorder stopped during its last sample: every source of
				// the last tick is recorded as timed out, and a faithful replay
				// has no host data there. The quiet rules below are judged on
				// the last tick that has some.
				for len(snaps) > 0 && !slices.ContainsFunc(snaps[len(snaps)-1].Status, func(st probes.Status) bool {
					return st.State != probes.StateTimeout
				}) {
					snaps = snaps[:len(snaps)-1]
				}
				return hrFrames(snaps...)
			},
			fire: []hrAlert{
				{rule: "link-flap", objects: map[string]string{"device": "rxe0"}},
				{rule: "port-down", objects: map[string]string{"device": "rxe1"}},
			},
			quiet: []string{"memory-registration-risk", "running-unprivileged", "roce-v1-gid-routed", "ib-port-not-active"},
		},
		{
			name: "Soft-RoCE lab host at rest (once-idle.json)",
			frames: func(t *testing.T) []rules.Frame {
				s := hrIdle(t)
				return []rules.Frame{{Time: s.Time, Snapshot: s}}
			},
			ignoreFor: true,
			fire:      []hrAlert{{rule: "roce-mtu-too-small", objects: map[string]string{"device": "rxe1"}}},
			quiet: []string{"port-down", "link-flap", "phy-errors", "memory-registration-risk", "running-unprivileged", "roce-v1-gid-routed",
				"ib-port-not-active"},
			cannot:  []string{"mtu-mismatch", "pfc-pause-storm", "host-rx-backpressure"},
			healthy: true,
		},
		{
			// Eight NICs alike, every RDMA byte on mlx5_0 for three
			// minutes (balance_test.go).
			name: "eight NICs, one busy",
			frames: func(t *testing.T) []rules.Frame {
				var hs []hrHost
				for n := range 4 {
					hs = append(hs, hrHost{sysfs: eightNICs(t, n, func(k int) float64 { return b2f(k == 0) })})
				}
				return hrFrames(hrSample(hs...)...)
			},
			fire: []hrAlert{{rule: "rdma-traffic-on-one-nic", objects: map[string]string{}, evidence: []string{"mlx5_0/1", "7 sat idle"}}},
		},
		{
			name: "eight NICs, all busy",
			frames: func(t *testing.T) []rules.Frame {
				var hs []hrHost
				for n := range 4 {
					hs = append(hs, hrHost{sysfs: eightNICs(t, n, func(int) float64 { return 1 })})
				}
				return hrFrames(hrSample(hs...)...)
			},
			quiet: []string{"rdma-traffic-on-one-nic"},
		},
		{
			// One sample: no byte rates yet, which is not idle.
			name: "eight NICs, first sample",
			frames: func(t *testing.T) []rules.Frame {
				return hrFrames(hrSample(hrHost{sysfs: eightNICs(t, 0, func(int) float64 { return 1 })})...)
			},
			ignoreFor: true,
			cannot:    []string{"rdma-traffic-on-one-nic", "gpu-job-on-tcp"},
		},
	}, platformCases()...)
}

// hrRun evaluates the whole pack over the frames; it returns the last
// result and every rule state seen per frame.
func hrRun(t *testing.T, p *rules.Pack, frames []rules.Frame, ignoreFor bool) (rules.Result, []map[string]string) {
	t.Helper()
	e := rules.NewEngine(p)
	e.IgnoreFor = ignoreFor
	defer rules.CheckNoFailures(t, e)
	var res rules.Result
	var states []map[string]string
	for _, f := range frames {
		res = e.Evaluate(f)
		st := map[string]string{}
		for _, r := range res.Rules {
			st[r.Rule] = r.State
		}
		states = append(states, st)
	}
	return res, states
}

func hrMatch(f rules.Finding, a hrAlert) bool {
	if f.Rule != a.rule {
		return false
	}
	for k, v := range a.objects {
		if f.Objects[k] != v {
			return false
		}
	}
	// A port finding is not a priority's or a flow's.
	for _, k := range []string{"priority", "flow"} {
		if _, has := f.Objects[k]; has {
			if _, want := a.objects[k]; !want {
				return false
			}
		}
	}
	return true
}

func TestHostRules(t *testing.T) {
	p := hrPack(t)
	mine := hrIDs(p)
	if len(mine) == 0 {
		t.Fatal("no rules from", hrFiles)
	}
	for _, c := range hrCases() {
		t.Run(c.name, func(t *testing.T) {
			frames := c.frames(t)
			res, _ := hrRun(t, p, frames, c.ignoreFor)
			for _, a := range c.fire {
				var got *rules.Finding
				for i := range res.Findings {
					if hrMatch(res.Findings[i], a) {
						got = &res.Findings[i]
						break
					}
				}
				if got == nil {
					t.Errorf("%s did not fire on %v; findings:\n%s", a.rule, a.objects, hrDump(res.Findings))
					continue
				}
				t.Logf("%s %v: %s", got.Rule, got.Objects, got.Evidence)
				for _, want := range a.evidence {
					if !strings.Contains(got.Evidence, want) {
						t.Errorf("%s %v: evidence %q lacks %q", a.rule, got.Objects, got.Evidence, want)
					}
				}
				if got.Cause == "" || len(got.Confirm) == 0 || len(got.Fix) == 0 || len(got.Docs) == 0 {
					t.Errorf("%s: finding without cause/confirm/fix/docs: %+v", a.rule, got)
				}
			}
			states := map[string]rules.RuleState{}
			for _, r := range res.Rules {
				states[r.Rule] = r
			}
			for _, id := range c.quiet {
				for _, f := range res.Findings {
					if f.Rule == id {
						t.Errorf("%s must not fire here: %v %s", id, f.Objects, f.Evidence)
					}
				}
				// Quiet means evaluated and healthy, not unable to look.
				if st := states[id]; st.State != "ok" {
					t.Errorf("%s: state %q (%s), want ok", id, st.State, st.Detail)
				}
			}
			for _, id := range c.cannot {
				if st := states[id]; st.State != "cannot_evaluate" || st.Detail == "" {
					t.Errorf("%s: state %q (%s), want cannot_evaluate with a reason", id, st.State, st.Detail)
				}
			}
			if c.healthy {
				for _, f := range res.Findings {
					if slices.Contains(mine, f.Rule) && f.Severity != rules.Info {
						t.Errorf("healthy host: %s (%s) fired on %v: %s", f.Rule, f.Severity, f.Objects, f.Evidence)
					}
				}
			}
		})
	}
}

func hrDump(fs []rules.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %v resolved=%v: %s\n", f.Rule, f.Objects, f.Resolved, f.Evidence)
	}
	return b.String()
}

// Every covered rule has a case where it fires, one where it must not, and
// one where it cannot evaluate.
func TestHostRulesCoverage(t *testing.T) {
	p := hrPack(t)
	fire, quiet, cannot := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range hrCases() {
		for _, a := range c.fire {
			fire[a.rule] = true
		}
		for _, id := range c.quiet {
			quiet[id] = true
		}
		for _, id := range c.cannot {
			cannot[id] = true
		}
	}
	for _, id := range hrIDs(p) {
		if !fire[id] || !quiet[id] || !cannot[id] {
			t.Errorf("%s: fire case %v, must-not-fire case %v, cannot-evaluate case %v", id, fire[id], quiet[id], cannot[id])
		}
	}
	for _, want := range []string{"ib-port-not-active", "port-down", "link-flap", "phy-errors", "roce-mtu-too-small", "mtu-mismatch",
		"pfc-pause-backpressure", "pfc-pause-storm", "host-rx-backpressure", "pfc-not-enabled-roce-prio", "ecn-marked-no-cnp",
		"cnp-ignored", "dcqcn-misconfigured", "tcp-on-roce-priority", "memory-registration-risk", "roce-v1-gid-routed",
		"running-unprivileged"} {
		if r := p.Rule(want); r == nil {
			t.Errorf("rule %s missing from the pack", want)
		} else if file, _, _ := strings.Cut(r.Source, ":"); !slices.Contains(hrFiles, file) {
			t.Errorf("rule %s is in %s", want, r.Source)
		}
	}
}

// `for` delays a finding over a replayed bundle: the mlx5 host recorded at
// t0, t1 and t2 (t2 continues t1's rates), pfc-pause-backpressure (for 30 s)
// is pending at t1 and fires at t2; a one-shot check fires at t1.
func TestHostRulesForDelaysFiring(t *testing.T) {
	h0, h1 := hrMLX5(t, "t0"), hrMLX5(t, "t1")
	// t2 = t1 + (t1 - t0) for every mlx5_0 counter and ethtool statistic.
	root2 := hrCopyTree(t, h1.sysfs)
	for _, dir := range []string{"sys/class/infiniband/mlx5_0/ports/1/counters/", hrHW} {
		ents, err := os.ReadDir(filepath.Join(root2, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			v0, v1 := hrRead(t, h0.sysfs, dir+e.Name()), hrRead(t, h1.sysfs, dir+e.Name())
			hrSet(t, root2, dir+e.Name(), 2*v1-v0)
		}
	}
	eth2 := map[string]uint64{}
	for k, v1 := range h1.eth0 {
		eth2[k] = 2*v1 - h0.eth0[k]
	}
	h2 := hrHost{sysfs: root2, eth0: eth2}

	// Record the three samples as rdmatop record does, then replay the bundle.
	path := filepath.Join(t.TempDir(), "mlx5.bundle.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := bundle.NewPcapngWriter(f, bundle.Header{Created: hrT0, Tool: "rdmatop test"}, bundle.PcapngOptions{Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range []hrHost{h0, h1, h2} {
		// A recorder records through the sources it was made with: one per
		// tree, each tick complete in itself; the replay computes the rates.
		rec := sampler.NewRecorder(h.sources(), sampler.Options{})
		_, tick, err := rec.Sample(context.Background(), hrT0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteTick(tick); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	frames := hrFrames(hrReplay(t, path, nil)...)
	if len(frames) != 3 {
		t.Fatalf("%d frames replayed", len(frames))
	}

	p := hrPack(t)
	const id = "pfc-pause-backpressure"
	if r := p.Rule(id); time.Duration(r.For) != 30*time.Second {
		t.Fatalf("%s: for %v", id, time.Duration(r.For))
	}
	res, states := hrRun(t, p, frames, false)
	if got := []string{states[0][id], states[1][id], states[2][id]}; !slices.Equal(got, []string{"cannot_evaluate", "pending", "firing"}) {
		t.Errorf("%s over t0, t1, t2: %v, want cannot_evaluate, pending, firing", id, got)
	}
	var fd *rules.Finding
	for i := range res.Findings {
		if res.Findings[i].Rule == id {
			fd = &res.Findings[i]
		}
	}
	// It fires at t2, and was first seen when its condition began to hold
	// (t1, as Prometheus's activeAt): a cause that needs 30 s of evidence
	// began before what it explains.
	if fd == nil || !fd.FirstSeen.Equal(frames[1].Time) || !fd.LastSeen.Equal(frames[2].Time) || fd.Objects["priority"] != "3" {
		t.Errorf("%s finding %+v, want first seen at t1 (%v), last at t2, on priority 3", id, fd, frames[1].Time)
	}
	// A rule without `for` (pfc-pause-storm: +2 storm warnings in t0..t1)
	// fires at t1 even with `for` honoured.
	if states[1]["pfc-pause-storm"] != "firing" {
		t.Errorf("pfc-pause-storm at t1: %s", states[1]["pfc-pause-storm"])
	}
	// A one-shot check ignores `for`.
	_, once := hrRun(t, p, frames[:2], true)
	if once[1][id] != "firing" {
		t.Errorf("%s with IgnoreFor at t1: %s", id, once[1][id])
	}
}

// In a replay a finding resolves when its condition clears: the lab ports
// were down for one sample.
func TestHostRulesResolve(t *testing.T) {
	frames := hrFrames(hrReplay(t, hrFix+"lab/probes/record.bundle.gz", nil)...)
	res, states := hrRun(t, hrPack(t), frames, false)
	down := -1
	for i, st := range states {
		if st["port-down"] == "firing" {
			if down >= 0 {
				t.Errorf("port-down fires in samples %d and %d; the port was down in one", down, i)
			}
			down = i
		}
	}
	if down < 0 {
		t.Fatal("port-down never fired")
	}
	n := 0
	for _, f := range res.Findings {
		if f.Rule == "port-down" {
			n++
			if !f.Resolved || !f.FirstSeen.Equal(frames[down].Time) || !f.LastSeen.Equal(frames[down].Time) {
				t.Errorf("port-down finding %+v: want resolved, seen only at %v", f, frames[down].Time)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d port-down findings, want rxe0 and rxe1", n)
	}
	// Up to the down sample, link-flap shows the counter and the transition.
	res, _ = hrRun(t, hrPack(t), frames[:down+1], false)
	for _, f := range res.Findings {
		if f.Rule == "link-flap" && f.Objects["device"] == "rxe0" {
			for _, want := range []string{"link_downed +1", "ACTIVE/LinkUp -> DOWN/Polling"} {
				if !strings.Contains(f.Evidence, want) {
					t.Errorf("link-flap at the down sample: %q lacks %q", f.Evidence, want)
				}
			}
			return
		}
	}
	t.Errorf("link-flap did not fire on rxe0 at the down sample:\n%s", hrDump(res.Findings))
}
