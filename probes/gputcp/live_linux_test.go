//go:build linux

package gputcp

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/netnstest"
	"github.com/rdmatop/rdmatop/probes"
)

func TestMain(m *testing.M) {
	netnstest.TalkerMain()
	os.Exit(m.Run())
}

// The tcp_info offsets read are the kernel's, as x/sys mirrors them.
func TestTCPInfoOffsets(t *testing.T) {
	var ti unix.TCPInfo
	if offBytesAcked != unsafe.Offsetof(ti.Bytes_acked) || offBytesReceived != unsafe.Offsetof(ti.Bytes_received) {
		t.Errorf("bytes_acked at %d, bytes_received at %d; x/sys has %d and %d",
			offBytesAcked, offBytesReceived, unsafe.Offsetof(ti.Bytes_acked), unsafe.Offsetof(ti.Bytes_received))
	}
}

// find returns pid's entry.
func find(procs []probes.GPUProcess, pid int) *probes.GPUProcess {
	for i := range procs {
		if procs[i].PID == pid {
			return &procs[i]
		}
	}
	return nil
}

// A process in namespaces of its own, holding a stand-in /dev/nvidia0,
// is found from the host's /proc with its two TCP sockets (dumped in its
// namespace, not the host's); the bytes it then pushes are measured to
// the byte: what each socket wrote, acknowledged and received. The test
// process, holding no GPU file, is not listed.
func TestGPUProcessOverTCP(t *testing.T) {
	g := netnstest.StartGPUTalker(t)
	l := New("/", 2*time.Second)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	procs, err := l.Poll(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	p := find(procs, g.Pid)
	if p == nil {
		t.Fatalf("talker pid %d not among %+v", g.Pid, procs)
	}
	if !slices.Equal(p.GPUFiles, []string{"/dev/nvidia0"}) || p.TCPSockets != 2 || p.TCPSentPerSec != nil {
		t.Errorf("first poll: %+v; want /dev/nvidia0, 2 sockets, no rate yet", *p)
	}
	if self, _ := os.Readlink("/proc/self/ns/net"); p.NetNS == "" || p.NetNS == self {
		t.Errorf("netns %q: the talker has its own, not ours (%s)", p.NetNS, self)
	}
	if find(procs, os.Getpid()) != nil {
		t.Error("the test process holds no GPU file, yet is listed")
	}

	const n = 48 << 20
	g.Push(t, n)
	// The pushes returned once every byte was read; the last ACKs may
	// still be on their way: add up what each poll measures until both
	// directions reach 2n, with a deadline.
	var sent, recv float64
	deadline := time.Now().Add(10 * time.Second)
	for sent < 2*n || recv < 2*n {
		if time.Now().After(deadline) {
			t.Fatalf("measured %.0f bytes sent, %.0f received; the talker moved %d each way", sent, recv, 2*n)
		}
		now = now.Add(2 * time.Second)
		procs, err = l.Poll(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		p = find(procs, g.Pid)
		if p == nil || p.TCPSentPerSec == nil || p.TCPRecvPerSec == nil {
			t.Fatalf("talker unrated on a later poll: %+v", p)
		}
		sent += *p.TCPSentPerSec * 2
		recv += *p.TCPRecvPerSec * 2
		if sent < 2*n || recv < 2*n {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if sent != 2*n || recv != 2*n {
		t.Errorf("measured %.0f bytes sent, %.0f received; the talker moved %d each way", sent, recv, 2*n)
	}
	for _, peer := range p.Peers {
		if !strings.HasPrefix(peer, "127.0.0.1:") {
			t.Errorf("peer %q: the talker talks over its loopback", peer)
		}
	}
}
