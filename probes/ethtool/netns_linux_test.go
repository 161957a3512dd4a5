//go:build linux

package ethtool

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// testNetns is a network namespace made by a test, with ip(8) to shape it.
type testNetns struct {
	name, ipPath string
}

var netnsSeq atomic.Int64

// newNetns creates a network namespace removed at the end of the test. It
// skips the test when that is impossible here: not root, no ip(8), or a
// kernel or container that refuses namespaces.
func newNetns(t testing.TB) *testNetns {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root to create a network namespace with a veth pair; euid is %d", os.Geteuid())
	}
	ipPath, err := exec.LookPath("ip")
	if err != nil {
		t.Skipf("needs ip(8) from iproute2 to create a network namespace: %v", err)
	}
	ns := &testNetns{name: fmt.Sprintf("rdmatop-ethtool-%d-%d", os.Getpid(), netnsSeq.Add(1)), ipPath: ipPath}
	if out, err := exec.Command(ipPath, "netns", "add", ns.name).CombinedOutput(); err != nil {
		t.Skipf("cannot create a network namespace here: %v: %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command(ipPath, "netns", "del", ns.name).CombinedOutput(); err != nil {
			t.Errorf("cleanup: ip netns del %s: %v: %s", ns.name, err, bytes.TrimSpace(out))
		}
	})
	return ns
}

// ip runs "ip -n NS args...".
func (ns *testNetns) ip(t testing.TB, args ...string) {
	t.Helper()
	out, err := exec.Command(ns.ipPath, append([]string{"-n", ns.name}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip -n %s %s: %v: %s", ns.name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
}

// exec runs a command inside the namespace ("ip netns exec").
func (ns *testNetns) exec(name string, args ...string) ([]byte, error) {
	out, err := exec.Command(ns.ipPath, append([]string{"netns", "exec", ns.name, name}, args...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return out, fmt.Errorf("ip netns exec %s %s %s: %w", ns.name, name, strings.Join(args, " "), err)
	}
	return out, nil
}

// do runs fn on an OS thread that joined the namespace, so that sockets fn
// opens belong to it. The thread is discarded afterwards.
func (ns *testNetns) do(t testing.TB, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		f, err := os.Open("/run/netns/" + ns.name)
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("setns %s: %w", ns.name, err)
			return
		}
		done <- fn()
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// veth creates the pair a <-> b in the namespace, both up.
func (ns *testNetns) veth(t testing.TB, a, b string) {
	t.Helper()
	ns.ip(t, "link", "add", a, "type", "veth", "peer", "name", b)
	ns.ip(t, "link", "set", a, "up")
	ns.ip(t, "link", "set", b, "up")
}

// sender is an AF_PACKET socket in the namespace that sends raw Ethernet
// frames out of one interface.
type sender struct {
	fd int
	sa *unix.SockaddrLinklayer
}

const testEtherType = 0x88b5 // IEEE 802 local experimental: no handler takes it

func (ns *testNetns) sender(t testing.TB, iface string) *sender {
	t.Helper()
	s := &sender{fd: -1}
	ns.do(t, func() error {
		ifc, err := net.InterfaceByName(iface)
		if err != nil {
			return err
		}
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("AF_PACKET socket: %w", err)
		}
		s.fd = fd
		s.sa = &unix.SockaddrLinklayer{Ifindex: ifc.Index, Protocol: htons(testEtherType)}
		return nil
	})
	t.Cleanup(func() { unix.Close(s.fd) })
	return s
}

// send sends n broadcast frames of size bytes and returns the bytes sent.
func (s *sender) send(t testing.TB, n, size int) uint64 {
	t.Helper()
	frame := make([]byte, size)
	copy(frame[0:6], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	copy(frame[6:12], []byte{0x02, 0, 0, 0, 0, 1})
	frame[12], frame[13] = testEtherType>>8, testEtherType&0xff
	for i := range n {
		frame[14] = byte(i)
		if err := unix.Sendto(s.fd, frame, 0, s.sa); err != nil {
			t.Fatalf("send frame %d: %v", i, err)
		}
	}
	return uint64(n * size)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }
