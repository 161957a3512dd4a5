//go:build linux

package rules_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/internal/netnstest"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/gputcp"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
)

func TestMain(m *testing.M) {
	netnstest.TalkerMain()
	os.Exit(m.Run())
}

// gpuStep is the time between gpuFrames' samples.
const gpuStep = 20 * time.Second

// gpuFrames samples, gpuStep apart, the eight-NIC host (each port's
// RDMA bytes at load(K) of the fixture's) and this host's real GPU
// processes, among them a talker (netnstest) in namespaces of its own
// holding a stand-in /dev/nvidia0. Before each sample but the first the
// talker's two sockets each send push bytes to the other: the process
// sends and receives 2×push per step, 2×push/20 s each way.
func gpuFrames(t *testing.T, load func(int) float64, push int64, steps int) []rules.Frame {
	g := netnstest.StartGPUTalker(t)
	live := gputcp.New("/", 0)
	var s *sampler.Sampler
	var snaps []*probes.Snapshot
	idle := true
	for k := range 8 {
		idle = idle && load(k) == 0
	}
	var root string
	for i := range steps {
		if root == "" || !idle { // an idle host's counters stay: one tree
			root = eightNICs(t, i, load)
		}
		src := sampler.Sources{FS: os.DirFS(root), GPU: live, Label: "fixture"}
		if s == nil {
			s = sampler.New(src, sampler.Options{})
		} else {
			s.SetSources(src)
		}
		if i > 0 && push > 0 {
			g.Push(t, push)
		}
		snap := s.Sample(context.Background(), hrT0.Add(time.Duration(i)*gpuStep))
		if !hasGPUProcess(snap, g.Pid) {
			t.Fatalf("sample %d: the talker (pid %d) is not among %+v", i, g.Pid, snap.GPUProcesses)
		}
		snaps = append(snaps, snap)
	}
	return hrFrames(snaps...)
}

func hasGPUProcess(s *probes.Snapshot, pid int) bool {
	for _, p := range s.GPUProcesses {
		if p.PID == pid {
			return true
		}
	}
	return false
}

// platformCases are the host-rule cases that need this kernel: a
// process in namespaces of its own, read through /proc and socket
// diagnostics.
func platformCases() []hrCase {
	idle := func(int) float64 { return 0 }
	// 120 MiB each way per socket per step: 2 × 120 MiB / 20 s, 12.6 MB/s
	// each way, over min_bytes_per_s (10 MB/s).
	const push = 120 << 20
	return []hrCase{
		{
			// Five samples: rates at the last four, held a minute.
			name: "GPU process on TCP, RDMA ports idle",
			frames: func(t *testing.T) []rules.Frame {
				return gpuFrames(t, idle, push, 5)
			},
			fire: []hrAlert{{rule: "gpu-job-on-tcp", objects: map[string]string{},
				evidence: []string{"holding /dev/nvidia0) sent 12.58 MB/s and received 12.58 MB/s over 2 TCP socket(s) with 127.0.0.1:",
					"this host's 8 ACTIVE RDMA port(s) alike moved 0 B/s (idle: mlx5_0/1 Ethernet 100 Gb/s"}}},
		},
		{
			name: "GPU process on TCP, RDMA ports busy",
			frames: func(t *testing.T) []rules.Frame {
				return gpuFrames(t, func(int) float64 { return 1 }, push, 5)
			},
			quiet: []string{"gpu-job-on-tcp"},
		},
		{
			// Sockets open, no data: a store or a bootstrap connection.
			name: "GPU process with quiet TCP sockets, RDMA ports idle",
			frames: func(t *testing.T) []rules.Frame {
				return gpuFrames(t, idle, 0, 5)
			},
			quiet: []string{"gpu-job-on-tcp"},
		},
	}
}
