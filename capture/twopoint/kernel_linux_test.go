//go:build linux

package twopoint

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/internal/netnstest"
)

// The kernel as the path: three namespaces, A and B each joined by a veth
// pair to a bridge in M. A real Soft-RoCE capture's frames are sent, each
// from its own sender's side (192.168.77.1 from A, .2 from B), and
// tcpdump captures A's and B's ends; in M a token bucket on the bridge
// port towards B drops what overflows it (this kernel has no netem). The
// truth is the token bucket's own count of what it dropped (tc -s qdisc),
// known independently of rdmatop: check A B says exactly those were lost
// from A to B, and nothing from B to A.
func TestKernelLossBetweenTwoNamespaces(t *testing.T) {
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Skip("needs tcpdump (Debian package tcpdump; .ci/run installs it)")
	}
	nsA, nsM, nsB := netnstest.New(t, "twopointA"), netnstest.New(t, "twopointM"), netnstest.New(t, "twopointB")
	// Only the test's frames cross the token bucket, so that its drop
	// count is theirs: no IPv6 (router and neighbour solicitations of
	// links coming up), no address (no ARP), and a bridge that does not
	// snoop multicast. A snooping bridge joins 224.0.0.106 (RFC 4286's
	// all-snoopers) and reports it in IGMP from an unnumbered br0 a
	// moment after it comes up, flooded out of both ports: under load it
	// fell among A's frames in 5 runs of 191, and the bucket counted a
	// drop that was not A's.
	for _, ns := range []*netnstest.NS{nsA, nsM, nsB} {
		for _, f := range []string{"all", "default"} {
			if out, err := ns.Exec("sh", "-c", "echo 1 > /proc/sys/net/ipv6/conf/"+f+"/disable_ipv6"); err != nil {
				t.Fatalf("disable IPv6: %v %s", err, out)
			}
		}
	}
	nsM.IP(t, "link", "add", "name", "br0", "type", "bridge", "mcast_snooping", "0")
	nsM.IP(t, "link", "set", "br0", "up")
	for _, c := range []struct {
		ns        *netnstest.NS
		end, port string
	}{{nsA, "twa", "tpa"}, {nsB, "twb", "tpb"}} {
		nsM.IP(t, "link", "add", "name", c.port, "type", "veth", "peer", "name", c.end, "netns", c.ns.Name)
		nsM.IP(t, "link", "set", c.port, "master", "br0")
		nsM.IP(t, "link", "set", c.port, "up")
		c.ns.IP(t, "link", "set", c.end, "up")
	}
	// 500 kbit/s with a 20 ms queue: far below what is sent however slow
	// the sender (3.3 MB of A's frames, sent in well under a minute even
	// under the race detector), so it drops, and what it drops depends on
	// the machine: its own counter says how many.
	if out, err := nsM.Exec("tc", "qdisc", "add", "dev", "tpb", "root", "tbf", "rate", "500kbit", "burst", "4kb", "latency", "20ms"); err != nil {
		t.Skipf("tbf: %v %s", err, out)
	}
	dir := t.TempDir()
	capA, capB := filepath.Join(dir, "a.pcap"), filepath.Join(dir, "b.pcap")
	stopA := sniff(t, nsA, tcpdump, "twa", capA)
	stopB := sniff(t, nsB, tcpdump, "twb", capB)

	src, err := pcapfile.Open("../../testdata/rxe/pcap/lossy1.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	fromA, fromB := nsA.Sender(t, "twa"), nsB.Sender(t, "twb")
	sent := 0
	for {
		data, _, _, err := src.ReadPacket()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		// IPv4 source 192.168.77.x at bytes 26-29 of an untagged frame.
		if data[29] == 1 {
			fromA.SendFrame(t, data)
		} else {
			fromB.SendFrame(t, data)
		}
		if sent++; sent%100 == 0 {
			time.Sleep(2 * time.Millisecond) // tcpdump's rings drain
		}
	}
	// tcpdump writes each frame as it reads it (-U): both files stop
	// growing once its ring is drained (stopped earlier, it counts frames
	// "received by filter" it never wrote).
	settled(t, capA, capB)
	stopA()
	stopB()
	for _, c := range []string{capA, capB} {
		p, err := readPoint("x", c)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d RoCE packets", c, p.packets)
	}

	out, err := nsM.Exec("tc", "-s", "qdisc", "show", "dev", "tpb")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`dropped (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no drop count in %s", out)
	}
	dropped, _ := strconv.ParseUint(string(m[1]), 10, 64)
	if dropped == 0 {
		t.Fatalf("the token bucket dropped nothing of %d frames: the test tests nothing", sent)
	}
	r, err := CompareFiles(capA, capB, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var aToB, bToA Fate
	for _, f := range r.Flows {
		if f.Upstream == "A" {
			aToB.add(f.Fate)
		} else {
			bToA.add(f.Fate)
		}
	}
	if aToB.Lost != dropped || aToB.Unknown+aToB.Corrupted+aToB.Duplicated+aToB.Appeared != 0 || bToA.Lost+bToA.Unknown != 0 || bToA.Sent == 0 {
		// The qdisc's own Sent and dropped say whether a frame other than
		// A's RoCE frames crossed it (Sent + dropped > A's frames).
		t.Errorf("the token bucket dropped %d of A's frames; A to B %+v, B to A %+v; tc -s qdisc show dev tpb:\n%s",
			dropped, aToB, bToA, out)
	}
	if !r.Offset.Known || abs(r.Offset.NS) > r.Offset.UncertaintyNS {
		t.Errorf("one kernel's clock at both points: offset %+v, want 0 within its uncertainty", r.Offset)
	}
	t.Logf("%d frames sent, the token bucket dropped %d; A to B %d sent %d lost; offset %+v", sent, dropped, aToB.Sent, aToB.Lost, r.Offset)
}

// settled waits until none of the files has grown for a second, for at
// most a minute.
func settled(t *testing.T, paths ...string) {
	t.Helper()
	size := func() (n int64) {
		for _, p := range paths {
			if st, err := os.Stat(p); err == nil {
				n += st.Size()
			}
		}
		return n
	}
	last, since := size(), time.Now()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if n := size(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) >= time.Second {
			return
		}
	}
	t.Fatalf("the captures still grew after a minute")
}

// sniff starts tcpdump on dev in ns, writing path, and returns a stop
// that waits for it to have written what it captured.
func sniff(t *testing.T, ns *netnstest.NS, tcpdump, dev, path string) (stop func()) {
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", ns.Name, tcpdump, "-i", dev, "-U", "-B", "16384",
		"--time-stamp-precision=nano", "-w", path, "udp port 4791")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	ready := make(chan bool, 1)
	go func() {
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				ready <- true
			}
			t.Logf("tcpdump %s: %s", dev, sc.Text())
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("tcpdump on %s did not start within 30 s", dev)
	}
	return func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("tcpdump on %s did not stop within 30 s", dev)
		}
	}
}
