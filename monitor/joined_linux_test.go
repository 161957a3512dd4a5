//go:build linux

package monitor_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/capture/scenario"
	"github.com/rdmatop/rdmatop/internal/netnstest"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
	"github.com/rdmatop/rdmatop/ui"
)

// The joined live view, for real: a network namespace with a veth pair
// whose veth0 carries rxe0 of a real Soft-RoCE sysfs tree (the fixture
// root), RoCEv2 frames sent on the wire, and the live pipeline: Frames
// carry the host and the wire analysis, the QPs view shows the wire
// columns of rxe0's QP, and capture-blind fires when the port counters
// move while no RoCE arrives, and not otherwise.

// extractRoot unpacks the real rxe sysfs tree into a directory.
func extractRoot(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../testdata/sysfs/rxe/sysfs-final.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			os.MkdirAll(filepath.Dir(p), 0o755)
			b, _ := io.ReadAll(tr)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// movingFS is the fixture with rxe0's packet counters advanced by step on
// every read: a port that counts RDMA traffic.
type movingFS struct {
	fs.FS
	mu    sync.Mutex
	step  uint64
	reads map[string]uint64
}

func (m *movingFS) setStep(s uint64) { m.mu.Lock(); m.step = s; m.mu.Unlock() }

func (m *movingFS) Open(name string) (fs.File, error) {
	if !strings.HasPrefix(name, "sys/class/infiniband/rxe0/ports/1/hw_counters/") ||
		!(strings.HasSuffix(name, "/rcvd_pkts") || strings.HasSuffix(name, "/sent_pkts")) {
		return m.FS.Open(name)
	}
	m.mu.Lock()
	m.reads[name] += m.step
	v := m.reads[name]
	m.mu.Unlock()
	return &memFile{name: filepath.Base(name), r: strings.NewReader(strconv.FormatUint(1000+v, 10) + "\n")}, nil
}

type memFile struct {
	name string
	r    *strings.Reader
}

func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.r.Size()}, nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// withQP adds rxe0's RC QP to every sample (this kernel has no RDMA
// netlink to list it).
type withQP struct{ monitor.Host }

const localQPN = 0x11

func (h withQP) Sample(ctx context.Context, now time.Time) (*probes.Snapshot, *bundle.Tick, error) {
	s, tick, err := h.Host.Sample(ctx, now)
	if s != nil {
		rq := uint32(0x22)
		s.QPs = append(s.QPs, probes.QP{Device: "rxe0", Port: 1, LQPN: localQPN, RQPN: &rq, Type: "RC", State: "RTS", Comm: "ib_write_bw"})
	}
	return s, tick, err
}

// frames returns a WRITE stream from 192.168.77.2 to rxe0's QP at
// 192.168.77.1 with one packet lost, and its ACKs.
func frames(t *testing.T) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	cp := scenario.NewCapture(&buf, 0)
	c := cp.Open(scenario.Conn{
		A:    scenario.Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, 0x77, 2}, IP: netip.MustParseAddr("192.168.77.2"), QPN: 0x22, PSN: 100},
		B:    scenario.Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, 0x77, 1}, IP: netip.MustParseAddr("192.168.77.1"), QPN: localQPN},
		PMTU: 1024, Encap: scenario.RoCEv2})
	for i := range 40 {
		if i == 20 {
			c.Next(scenario.Keep, scenario.Drop) // lost before the capture point
		}
		c.Ack(c.Write(4096))
	}
	if err := cp.Close(); err != nil {
		t.Fatal(err)
	}
	src, err := pcapfile.NewReader("frames", &buf)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		data, _, _, err := src.ReadPacket()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]byte(nil), data...))
	}
}

func active(f monitor.Frame, rule string) bool {
	for _, fd := range f.Findings {
		if fd.Rule == rule && !fd.Resolved {
			return true
		}
	}
	return false
}

func TestJoinedLiveView(t *testing.T) {
	ns := netnstest.New(t, "monitor")
	ns.Veth(t, "veth0", "wire0")
	root := extractRoot(t)
	mfs := &movingFS{FS: os.DirFS(root), reads: map[string]uint64{}}
	var wire *live.Source
	ns.Do(t, func() error {
		var err error
		wire, err = live.Open("veth0", live.Options{PollTimeout: 20 * time.Millisecond})
		return err
	})
	sender := ns.Sender(t, "wire0")
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	smp := sampler.New(sampler.Sources{FS: mfs, Label: "fixture"}, sampler.Options{Netdev: "veth0"})
	r, err := monitor.New(monitor.Config{Host: withQP{monitor.SamplerHost{S: smp}}, Wire: wire, WireName: "veth0",
		Interval: 250 * time.Millisecond, Pack: pack})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Phase 1 (ticks 0-7): the port counts 100 packets per tick each way
	// (800/s) and nothing arrives on the wire: capture-blind.
	// Phase 2 (ticks 8-): the port goes on counting, and RoCE frames
	// arrive in every tick: capture-blind resolves and stays so, and the
	// wire shows the loss on rxe0's QP.
	mfs.setStep(200)
	pkts := frames(t)
	const perTick = 25
	sent := 0
	var blind, blindAfter, lossLive bool
	var joined monitor.Frame
	for f, err := range r.Frames(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if f.Snapshot == nil || f.Wire == nil || f.Interval == nil {
			t.Fatalf("tick %d: host %v, wire %v", f.Seq, f.Snapshot != nil, f.Wire != nil)
		}
		if len(f.Snapshot.Ports) != 1 || f.Snapshot.Ports[0].Device != "rxe0" {
			t.Fatalf("tick %d: -i veth0 selects %+v", f.Seq, f.Snapshot.Ports)
		}
		if f.Seq < 8 {
			blind = blind || active(f, "capture-blind")
		} else if f.Interval.RoCEPackets > 0 {
			blindAfter = blindAfter || active(f, "capture-blind")
			lossLive = lossLive || active(f, "packet-loss")
		}
		if f.Seq >= 7 && sent < len(pkts) {
			for _, p := range pkts[sent:min(sent+perTick, len(pkts))] {
				sender.SendFrame(t, p)
			}
			sent = min(sent+perTick, len(pkts))
		}
		if f.Wire.RoCEPackets == uint64(len(pkts)) {
			joined = f
			cancel()
		}
		if f.Seq > 60 {
			t.Fatalf("the wire saw %d of %d frames after 60 ticks", f.Wire.RoCEPackets, len(pkts))
		}
	}
	if !blind {
		t.Error("capture-blind did not fire while the port counted 800 packets/s and the wire saw none")
	}
	if blindAfter {
		t.Error("capture-blind fired while RoCE arrived on the wire")
	}
	if !lossLive {
		t.Error("packet-loss did not fire on the live wire")
	}
	if joined.Wire == nil || joined.Wire.Totals.PSNGaps != 1 {
		t.Fatalf("live wire: %+v", joined.Wire)
	}

	// The screen: the QPs view joins rxe0's QP with its flow.
	m := ui.New(ui.Options{NoColor: true})
	var tm tea.Model = m
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	tm, _ = tm.Update(ui.FrameMsg{Frame: joined})
	tm, _ = tm.Update(tea.KeyPressMsg{Code: '2', Text: "2"})
	screen := tm.(ui.Model).Render()
	var row string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "rxe0") && strings.Contains(l, probes.FormatQPN(uint32(localQPN))) && strings.Contains(l, "RTS") {
			row = l
		}
	}
	t.Logf("QPs view: %s", row)
	fields := strings.Fields(row)
	// DEVICE PORT LQPN RQPN TYPE STATE PID SQ RQ COMM Gb/s GAPS RETX NAKS CNPS p99
	if len(fields) < 12 || fields[len(fields)-5] != "1" {
		t.Errorf("QPs view row of rxe0 QP %d lacks its wire columns (1 gap):\n%s", localQPN, screen)
	}
}

// Without the capture (no CAP_NET_RAW), the same run keeps the host and
// says why the wire is missing; capture-blind cannot judge.
func TestJoinedLiveNoWire(t *testing.T) {
	root := extractRoot(t)
	smp := sampler.New(sampler.Sources{FS: os.DirFS(root)}, sampler.Options{Netdev: "veth0"})
	r, err := monitor.New(monitor.Config{Host: monitor.SamplerHost{S: smp}, WireName: "veth0",
		WireErr:  &probes.PermissionError{What: "CAP_NET_RAW", Err: errors.New("operation not permitted")},
		Interval: 10 * time.Millisecond, Ticks: 3})
	if err != nil {
		t.Fatal(err)
	}
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		st := f.WireStatus
		if st == nil || st.State != probes.StatePermissionDenied || !strings.Contains(st.Detail, "CAP_NET_RAW") || f.Wire != nil {
			t.Fatalf("wire status %+v", st)
		}
		if active(f, "capture-blind") {
			t.Error("capture-blind fired without a capture")
		}
	}
}
