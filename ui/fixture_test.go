package ui

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/qos"
	"github.com/rdmatop/rdmatop/rules"
)

const fixtures = "../testdata/"

var t0 = time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)

// switchFS lets one Sampler read t0 then t1.
type switchFS struct{ cur fs.FS }

func (s *switchFS) Open(name string) (fs.File, error) { return s.cur.Open(name) }

func ethtoolStats(t testing.TB, name string) map[string]uint64 {
	t.Helper()
	f, err := os.Open(fixtures + "ethtool/" + name)
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

var (
	fixOnce  sync.Once
	fixFrame monitor.Frame
	fixErr   error
)

func u32p(v uint32) *uint32 { return &v }
func intp(v int) *int       { return &v }

// fixtureFrame is the mlx5 CX6-DX pair (t0, t1 60 s later: congestion and
// a PFC storm on priority 3) sampled for real, the lossy rxe capture, a
// few QPs and events, and the default rules' findings. Built once.
func fixtureFrame(t testing.TB) monitor.Frame {
	t.Helper()
	fixOnce.Do(func() {
		sw := &switchFS{cur: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0")}
		et := &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{
			"eth0": {Driver: "mlx5_core", Stats: ethtoolStats(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt")},
			"eth1": {Driver: "mlx5_core", Stats: map[string]uint64{}}}}
		s := sampler.New(sampler.Sources{FS: sw, Ethtool: et, Label: "fixture",
			Host: probes.HostInfo{Hostname: "node7", Kernel: "6.8.0-test", Source: "fixture"}}, sampler.Options{})
		s.Sample(context.Background(), t0)
		sw.cur = os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t1")
		et.Ifaces["eth0"] = ethtool.FakeIface{Driver: "mlx5_core", Stats: ethtoolStats(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt")}
		snap := s.Sample(context.Background(), t0.Add(60*time.Second))
		snap.QPs = append(snap.QPs,
			probes.QP{Device: "mlx5_0", Port: 1, LQPN: 0x1a2, RQPN: u32p(0x3b4), Type: "RC", State: "RTS", PID: intp(4242), Comm: "ib_write_bw", SQPSN: u32p(1000), RQPSN: u32p(2000),
				Runtime: "docker", ContainerID: "9c0e7a5b3d1f2e4c6a8b0d9f7e5c3a1b2d4f6e8a0c9b7d5f3e1a2c4b6d8f0e9a"},
			probes.QP{Device: "mlx5_0", Port: 1, LQPN: 0x1a3, RQPN: u32p(0x3b5), Type: "RC", State: "ERR", PID: intp(4243), Comm: "evil\x1b]0;pwned\x07\x1b[2J", SQPSN: u32p(77), RQPSN: u32p(88)},
			probes.QP{Device: "mlx5_0", Port: 1, LQPN: 0x10, Type: "UD", State: "RTS", KernOwner: "ib_core"},
			probes.QP{Device: "mlx5_1", Port: 1, LQPN: 0x55, RQPN: u32p(0x66), Type: "RC", State: "INIT", PID: intp(17), Comm: "nccl-test",
				Runtime: "containerd", ContainerID: "4f1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
				PodUID: "0d4c6a1e-6b1f-4c2a-9e3d-2f1a0b9c8d7e", Pod: "ml/trainer-0"},
		)
		// NCCL's published RAS answer (2.29.1): rank 1 unresponsive.
		if b, err := os.ReadFile(fixtures + "ncclras/status-2.29.1-docs.json"); err != nil {
			fixErr = err
			return
		} else if err := json.Unmarshal(b, &snap.NCCLRAS); err != nil {
			fixErr = err
			return
		}
		snap.Events = append(snap.Events,
			probes.Event{Time: t0.Add(59 * time.Second), Source: "qp", Kind: "qp_state", Severity: probes.SevCritical, Device: "mlx5_0", Port: 1, QPN: u32p(0x1a3), Detail: "RTS → ERR"},
			probes.Event{Time: t0.Add(58 * time.Second), Source: "kmsg", Kind: "driver_error", Severity: probes.SevWarning, Device: "mlx5_0", Detail: "mlx5_core 0000:3b:00.0: CQE error\x1b[31m syndrome 0x5"},
			probes.Event{Time: t0.Add(30 * time.Second), Source: "port", Kind: "port_state", Severity: probes.SevInfo, Device: "mlx5_1", Port: 1, Detail: "ACTIVE → DOWN"},
		)
		src, err := pcapfile.Open(fixtures + "rxe/pcap/lossy1.pcap")
		if err != nil {
			fixErr = err
			return
		}
		defer src.Close()
		an := capture.NewAnalyzer(capture.Config{})
		if err := an.Run(src); err != nil {
			fixErr = err
			return
		}
		wire := an.Summary()
		wire.File = "lossy1.pcap"
		pack, err := rules.Default()
		if err != nil {
			fixErr = err
			return
		}
		eng := rules.NewEngine(pack)
		eng.IgnoreFor = true
		res := eng.Evaluate(rules.Frame{Time: snap.Time, Snapshot: snap, Wire: wire})
		fixFrame = monitor.Frame{Time: snap.Time, Mode: monitor.ModeLive, Seq: 1, Snapshot: snap, Wire: wire,
			QoS: qos.TableOf(&snap.Config, wire), Packets: an.Tracker().Recent(0, 4096), Findings: res.Findings, Rules: res.Rules}
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fixFrame
}
