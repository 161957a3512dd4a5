//go:build linux

// Package netnstest gives tests a network namespace of their own, with veth
// pairs and a raw sender, so that kernel paths (ethtool, rtnetlink, DCB)
// are tested for real. It is for tests only.
package netnstest

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

// NS is a network namespace made by a test, with ip(8) to shape it.
type NS struct {
	Name   string
	ipPath string
}

var netnsSeq atomic.Int64

// New creates a network namespace removed at the end of the test; prefix
// names the package using it. It skips the test when that is impossible
// here: not root, no ip(8), or a kernel or container that refuses
// namespaces.
func New(t testing.TB, prefix string) *NS {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root to create a network namespace with a veth pair; euid is %d", os.Geteuid())
	}
	ipPath, err := exec.LookPath("ip")
	if err != nil {
		t.Skipf("needs ip(8) from iproute2 to create a network namespace: %v", err)
	}
	ns := &NS{Name: fmt.Sprintf("rdmatop-%s-%d-%d", prefix, os.Getpid(), netnsSeq.Add(1)), ipPath: ipPath}
	if out, err := exec.Command(ipPath, "netns", "add", ns.Name).CombinedOutput(); err != nil {
		t.Skipf("cannot create a network namespace here: %v: %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command(ipPath, "netns", "del", ns.Name).CombinedOutput(); err != nil {
			t.Errorf("cleanup: ip netns del %s: %v: %s", ns.Name, err, bytes.TrimSpace(out))
		}
	})
	return ns
}

// IP runs "ip -n NS args...".
func (ns *NS) IP(t testing.TB, args ...string) {
	t.Helper()
	out, err := exec.Command(ns.ipPath, append([]string{"-n", ns.Name}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip -n %s %s: %v: %s", ns.Name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
}

// Exec runs a command inside the namespace ("ip netns exec").
func (ns *NS) Exec(name string, args ...string) ([]byte, error) {
	out, err := exec.Command(ns.ipPath, append([]string{"netns", "exec", ns.Name, name}, args...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return out, fmt.Errorf("ip netns exec %s %s %s: %w", ns.Name, name, strings.Join(args, " "), err)
	}
	return out, nil
}

// Do runs fn on an OS thread that joined the namespace, so that sockets fn
// opens belong to it. The thread is discarded afterwards.
func (ns *NS) Do(t testing.TB, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		f, err := os.Open("/run/netns/" + ns.Name)
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("setns %s: %w", ns.Name, err)
			return
		}
		done <- fn()
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Veth creates the pair a <-> b in the namespace, both up.
func (ns *NS) Veth(t testing.TB, a, b string) {
	t.Helper()
	ns.IP(t, "link", "add", a, "type", "veth", "peer", "name", b)
	ns.IP(t, "link", "set", a, "up")
	ns.IP(t, "link", "set", b, "up")
}

// Sender is an AF_PACKET socket in the namespace that sends raw Ethernet
// frames out of one interface.
type Sender struct {
	fd int
	sa *unix.SockaddrLinklayer
}

// EtherType is what Sender sends.
const EtherType = 0x88b5 // IEEE 802 local experimental: no handler takes it

// Sender opens an AF_PACKET socket on iface inside the namespace.
func (ns *NS) Sender(t testing.TB, iface string) *Sender {
	t.Helper()
	s := &Sender{fd: -1}
	ns.Do(t, func() error {
		ifc, err := net.InterfaceByName(iface)
		if err != nil {
			return err
		}
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("AF_PACKET socket: %w", err)
		}
		s.fd = fd
		s.sa = &unix.SockaddrLinklayer{Ifindex: ifc.Index, Protocol: htons(EtherType)}
		return nil
	})
	t.Cleanup(func() { unix.Close(s.fd) })
	return s
}

// Send sends n broadcast frames of size bytes and returns the bytes sent.
func (s *Sender) Send(t testing.TB, n, size int) uint64 {
	t.Helper()
	frame := make([]byte, size)
	copy(frame[0:6], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	copy(frame[6:12], []byte{0x02, 0, 0, 0, 0, 1})
	frame[12], frame[13] = EtherType>>8, EtherType&0xff
	for i := range n {
		frame[14] = byte(i)
		if err := unix.Sendto(s.fd, frame, 0, s.sa); err != nil {
			t.Fatalf("send frame %d: %v", i, err)
		}
	}
	return uint64(n * size)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// SendFrame sends one whole Ethernet frame as is.
func (s *Sender) SendFrame(t testing.TB, frame []byte) {
	t.Helper()
	if err := unix.Sendto(s.fd, frame, 0, s.sa); err != nil {
		t.Fatalf("send a %d-byte frame: %v", len(frame), err)
	}
}
