//go:build linux

package live

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// ltNetns creates a network namespace holding a veth pair vethA <-> vethB,
// both up, and returns its name. It skips the test when that cannot be done
// here (not root, no ip(8), no namespaces).
func ltNetns(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("live capture test needs root (to create a network namespace and an AF_PACKET socket); euid is %d", os.Geteuid())
	}
	ipPath, err := exec.LookPath("ip")
	if err != nil {
		t.Skipf("live capture test needs ip(8) from iproute2: %v", err)
	}
	ip := func(args ...string) error {
		out, err := exec.Command(ipPath, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
		return nil
	}
	ns := fmt.Sprintf("rdmatop-test-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if err := ip("netns", "add", ns); err != nil {
		t.Skipf("cannot create a network namespace: %v", err)
	}
	t.Cleanup(func() {
		if err := ip("netns", "del", ns); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	for _, args := range [][]string{
		{"-n", ns, "link", "add", "vethA", "type", "veth", "peer", "name", "vethB"},
		{"-n", ns, "link", "set", "vethA", "up"},
		{"-n", ns, "link", "set", "vethB", "up"},
	} {
		if err := ip(args...); err != nil {
			t.Fatal(err)
		}
	}
	return ns
}

// ltInNetns runs fn on an OS thread that has joined network namespace ns,
// so that sockets fn opens live there. The thread is thrown away after.
func ltInNetns(t *testing.T, ns string, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("setns %s: %w", ns, err)
			return
		}
		done <- fn()
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func ltHtons(v uint16) uint16 { return v<<8 | v>>8 }

type ltSent struct {
	name  string
	frame []byte
	roce  bool
	pkt   *roce.Packet // for RoCE frames
	encap capture.Encap
	vlan  uint16 // outer VLAN ID expected after decoding; 0: untagged
}

func TestLiveCapture(t *testing.T) {
	ns := ltNetns(t)

	var (
		src    *Source
		sender int
		idxB   int
	)
	ltInNetns(t, ns, func() error {
		// Wait for both ends to be running (carrier up).
		deadline := time.Now().Add(3 * time.Second)
		for _, name := range []string{"vethA", "vethB"} {
			for {
				ifc, err := net.InterfaceByName(name)
				if err != nil {
					return err
				}
				if ifc.Flags&net.FlagRunning != 0 {
					if name == "vethB" {
						idxB = ifc.Index
					}
					break
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("%s not running after 3s", name)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		var err error
		src, err = Open("vethA", Options{PollTimeout: 50 * time.Millisecond})
		if err != nil {
			return fmt.Errorf("Open: %w", err)
		}
		// Protocol 0: a send-only socket.
		sender, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			src.Close()
			return fmt.Errorf("sender socket: %w", err)
		}
		return nil
	})
	t.Cleanup(func() { src.Close(); unix.Close(sender) })

	// Nothing sent yet: ReadPacket comes back with ErrTimeout, not a frame.
	start := time.Now()
	if data, _, _, err := src.ReadPacket(); !errors.Is(err, ErrTimeout) {
		t.Fatalf("idle ReadPacket: %d bytes, err %v; want ErrTimeout", len(data), err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("idle ReadPacket took %v with a 50ms poll timeout", d)
	}

	payload := bytes.Repeat([]byte("RoCE"), 256) // 1 KiB: whole frames must come back for the ICRC
	p1, p2, p3 := ltSend(0x000101, 1000), ltWrite(0x000102, 2000, 32), ltAck(0x000103, 3000)
	p4, p5, p6 := ltSend(0x000104, 4000), ltSend(0x000105, 5000), ltSend(0x000106, 0xffffff)
	sent := []ltSent{
		{name: "rocev2 ipv4 send", frame: ltRoCEv2(t, nil, false, p1, payload), roce: true, pkt: p1, encap: capture.EncapRoCEv2},
		{name: "udp to 53", frame: ltUDP(t, false, 40000, 53, []byte("dns?"))},
		{name: "rocev2 ipv6 write", frame: ltRoCEv2(t, nil, true, p2, payload[:32]), roce: true, pkt: p2, encap: capture.EncapRoCEv2},
		{name: "tcp to 4791", frame: ltTCP(t, 4791)},
		{name: "rocev2 ipv4 vlan ack", frame: ltRoCEv2(t, ltVLAN, false, p3, nil), roce: true, pkt: p3, encap: capture.EncapRoCEv2, vlan: 100},
		{name: "udp6 from 4791 to 5000", frame: ltUDP(t, true, roce.UDPPort, 5000, []byte("not roce"))},
		{name: "rocev1 send", frame: ltRoCEv1(t, nil, p4, payload[:100]), roce: true, pkt: p4, encap: capture.EncapRoCEv1},
		{name: "arp", frame: ltARP(t)},
		{name: "rocev2 ipv6 qinq send", frame: ltRoCEv2(t, ltQinQ, true, p5, payload[:64]), roce: true, pkt: p5, encap: capture.EncapRoCEv2, vlan: 100},
		{name: "ipv4 non-first fragment", frame: ltFragment(t, 185, false)},
		{name: "tcp to 80", frame: ltTCP(t, 80)},
		{name: "rocev2 ipv4 vlan send", frame: ltRoCEv2(t, ltVLAN, false, p6, payload[:7]), roce: true, pkt: p6, encap: capture.EncapRoCEv2, vlan: 100},
	}
	want := map[uint32]ltSent{} // by PSN: frames may be reordered across CPUs
	for _, s := range sent {
		if s.roce {
			want[s.pkt.BTH.PSN] = s
		}
		proto := uint16(s.frame[12])<<8 | uint16(s.frame[13])
		sa := &unix.SockaddrLinklayer{Ifindex: idxB, Protocol: ltHtons(proto)}
		if err := unix.Sendto(sender, s.frame, 0, sa); err != nil {
			t.Fatalf("send %s: %v", s.name, err)
		}
	}

	dec, err := capture.NewDecoder(layers.LinkTypeEthernet)
	if err != nil {
		t.Fatal(err)
	}
	var d capture.Decoded
	got := map[uint32]bool{}
	deadline := time.Now().Add(5 * time.Second)
	var quietSince time.Time // all expected frames in: read a little longer for strays
	var restored uint64      // frames whose VLAN tag the ring put back so far
	for time.Now().Before(deadline) {
		if len(got) == len(want) {
			if quietSince.IsZero() {
				quietSince = time.Now()
			} else if time.Since(quietSince) > 300*time.Millisecond {
				break
			}
		}
		data, ci, link, err := src.ReadPacket()
		if errors.Is(err, ErrTimeout) {
			continue
		}
		if err != nil {
			t.Fatalf("ReadPacket: %v", err)
		}
		if link != layers.LinkTypeEthernet {
			t.Errorf("link type %v", link)
		}
		isRoCE, err := dec.Decode(data, ci.Length, &d)
		if !isRoCE || err != nil {
			t.Errorf("captured a frame that is not RoCE (roce=%v, err=%v): % x", isRoCE, err, data[:min(len(data), 64)])
			continue
		}
		s, ok := want[d.RoCE.BTH.PSN]
		if !ok {
			t.Errorf("captured unexpected RoCE packet %v PSN %d QP %#x", d.RoCE.BTH.Opcode, d.RoCE.BTH.PSN, d.RoCE.BTH.DestQP)
			continue
		}
		if got[d.RoCE.BTH.PSN] {
			t.Errorf("%s: captured twice", s.name)
		}
		got[d.RoCE.BTH.PSN] = true
		b := s.pkt.BTH
		if d.Encap != s.encap || d.RoCE.BTH.Opcode != b.Opcode || d.RoCE.BTH.DestQP != b.DestQP || d.RoCE.BTH.PSN != b.PSN {
			t.Errorf("%s: decoded %v %v QP %#x PSN %d, sent %v %v QP %#x PSN %d", s.name,
				d.Encap, d.RoCE.BTH.Opcode, d.RoCE.BTH.DestQP, d.RoCE.BTH.PSN, s.encap, b.Opcode, b.DestQP, b.PSN)
		}
		if d.ICRC != capture.ICRCOK {
			t.Errorf("%s: ICRC %v, want ok (whole frame captured)", s.name, d.ICRC)
		}
		if d.VLAN != (s.vlan != 0) || d.VLAN && (d.VLANID != s.vlan || d.PCP != 3) {
			t.Errorf("%s: VLAN %v ID %d PCP %d, sent VLAN %v ID %d PCP 3", s.name, d.VLAN, d.VLANID, d.PCP, s.vlan != 0, s.vlan)
		}
		if s.vlan != 0 {
			// On receive the kernel always moves the outer tag into
			// metadata: it reached the filter untagged, and the ring put
			// it back (checked byte for byte below).
			if src.r.restored == restored {
				t.Errorf("%s: no VLAN metadata from the kernel: the stripped-tag path was not exercised", s.name)
			}
		}
		restored = src.r.restored
		// Byte for byte what was sent: a tag the kernel took out is back.
		if !bytes.Equal(data, s.frame) || ci.Length != len(s.frame) || ci.CaptureLength != len(s.frame) {
			t.Errorf("%s: captured %d bytes (length %d, caplen %d) differ from the %d sent:\n got % x\nsent % x",
				s.name, len(data), ci.Length, ci.CaptureLength, len(s.frame), data[:min(len(data), 48)], s.frame[:48])
		}
	}
	for psn, s := range want {
		if !got[psn] {
			t.Errorf("%s: not captured within 5s", s.name)
		}
	}

	st1, err := src.Stats()
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	st2, err := src.Stats()
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	t.Logf("stats %+v then %+v", st1, st2)
	if st1.Packets < uint64(len(want)) || st1.Drops != 0 {
		t.Errorf("Stats = %+v, want Packets >= %d and no drops", st1, len(want))
	}
	if st2.Packets < st1.Packets { // the kernel resets on read; the source must not
		t.Errorf("Stats went down: %+v then %+v", st1, st2)
	}

	// Close from another goroutine ends a blocked ReadPacket; then io.EOF.
	res := make(chan error, 1)
	go func() {
		for {
			_, _, _, err := src.ReadPacket()
			if !errors.Is(err, ErrTimeout) {
				res <- err
				return
			}
		}
	}()
	time.Sleep(20 * time.Millisecond)
	if err := src.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-res:
		if err != io.EOF {
			t.Errorf("ReadPacket after Close: %v, want io.EOF", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("ReadPacket still blocked 2s after Close")
	}
	if err := src.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if st3, err := src.Stats(); err != nil || st3.Packets < st2.Packets {
		t.Errorf("Stats after Close = %+v, %v; want the totals (>= %+v)", st3, err, st2)
	}
}

func TestLiveOpenErrors(t *testing.T) {
	_, err := Open("rdmatop-nope0", Options{})
	if err == nil || !strings.Contains(err.Error(), `interface "rdmatop-nope0" not found`) {
		t.Errorf("missing interface: %v", err)
	}
	if _, err := Open("", Options{}); err == nil {
		t.Error("empty interface name: no error")
	}
	for _, o := range []Options{{SnapLen: 64}, {SnapLen: DefaultSnapLen + 1}, {BufferSize: -1}} {
		if _, err := Open("lo", o); err == nil {
			t.Errorf("Open(lo, %+v): no error", o)
		}
	}
}

func TestLivePermissionErrorMapping(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EPERM, syscall.EACCES} {
		for _, in := range []error{errno, fmt.Errorf("attach filter: %w", errno)} {
			err := liveOpenError("eth9", in)
			if !errors.Is(err, os.ErrPermission) || !errors.Is(err, errno) {
				t.Errorf("%v: %v does not wrap os.ErrPermission and the errno", in, err)
			}
			for _, s := range []string{"eth9", "CAP_NET_RAW", "sudo", "setcap cap_net_raw+ep"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%v: %q does not mention %q", in, err, s)
				}
			}
		}
	}
	if err := liveOpenError("eth9", syscall.ENODEV); errors.Is(err, os.ErrPermission) || !errors.Is(err, syscall.ENODEV) {
		t.Errorf("ENODEV mapped to %v", err)
	}
}

// TestLivePermissionDenied opens a capture on a thread without CAP_NET_RAW
// in its effective set (capabilities are per thread on Linux; the thread is
// thrown away after).
func TestLivePermissionDenied(t *testing.T) {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			done <- fmt.Errorf("capget: %w", err)
			return
		}
		data[unix.CAP_NET_RAW/32].Effective &^= 1 << (unix.CAP_NET_RAW % 32)
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			done <- fmt.Errorf("capset: %w", err)
			return
		}
		src, err := Open("lo", Options{})
		if err == nil {
			src.Close()
			done <- errors.New("Open succeeded without CAP_NET_RAW")
			return
		}
		if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "CAP_NET_RAW") {
			done <- fmt.Errorf("Open without CAP_NET_RAW: %v; want an os.ErrPermission naming CAP_NET_RAW", err)
			return
		}
		t.Logf("without CAP_NET_RAW: %v", err)
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("timed out")
	}
}

// TestLiveNoFrameBeforeFilter floods the interface with non-RoCE frames
// while the capture opens: frames the ring took in before the filter was
// attached must not come out of ReadPacket.
func TestLiveNoFrameBeforeFilter(t *testing.T) {
	ns := ltNetns(t)
	noise := ltUDP(t, false, 40000, 53, []byte("noise"))
	var src *Source
	ltInNetns(t, ns, func() error {
		ifc, err := net.InterfaceByName("vethB")
		if err != nil {
			return err
		}
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		sa := &unix.SockaddrLinklayer{Ifindex: ifc.Index, Protocol: ltHtons(unix.ETH_P_IP)}
		stop, flooded := make(chan struct{}), make(chan int)
		go func() {
			n := 0
			defer func() { flooded <- n }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if unix.Sendto(fd, noise, 0, sa) == nil {
					n++
				}
			}
		}()
		time.Sleep(5 * time.Millisecond)
		src, err = Open("vethA", Options{PollTimeout: 50 * time.Millisecond})
		time.Sleep(5 * time.Millisecond)
		close(stop)
		t.Logf("sent %d noise frames around Open", <-flooded)
		if err != nil {
			return err
		}
		p := ltSend(0x77, 77)
		return unix.Sendto(fd, ltRoCEv2(t, nil, false, p, nil), 0, sa)
	})
	t.Cleanup(func() { src.Close() })
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		data, _, _, err := src.ReadPacket()
		if errors.Is(err, ErrTimeout) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(data, noise) {
			t.Fatal("a frame queued before the filter was attached came out")
		}
		return // the RoCE frame
	}
	t.Fatal("the RoCE frame sent after the flood was not captured")
}
