//go:build linux

package ethtool

import (
	"bytes"
	"errors"
	"maps"
	"net"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	safchain "github.com/safchain/ethtool"

	"github.com/rdmatop/rdmatop/internal/netnstest"
	"github.com/rdmatop/rdmatop/probes"
)

// openIn opens a Kernel whose socket lives in ns.
func openIn(t testing.TB, ns *netnstest.NS) *Kernel {
	t.Helper()
	var k *Kernel
	ns.Do(t, func() error {
		var err error
		k, err = Open()
		return err
	})
	t.Cleanup(func() { k.Close() })
	return k
}

// vethKeys are the statistics veth has listed since Linux 5.x.
var vethKeys = []string{
	"peer_ifindex", "rx_queue_0_xdp_packets", "rx_queue_0_xdp_bytes", "rx_queue_0_drops",
	"rx_queue_0_xdp_redirect", "rx_queue_0_xdp_drops", "rx_queue_0_xdp_tx",
	"rx_queue_0_xdp_tx_errors", "tx_queue_0_xdp_xmit", "tx_queue_0_xdp_xmit_errors",
}

// waitStats reads iface's statistics until done holds or 10 s pass, and
// returns the last read.
func waitStats(t *testing.T, k *Kernel, iface string, done func(map[string]uint64) bool) map[string]uint64 {
	t.Helper()
	// Only a failing test waits this long; a passing one returns as soon
	// as the kernel has counted.
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := k.Stats(iface)
		if err != nil {
			t.Fatal(err)
		}
		if done(s) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKernelVeth reads a veth pair's statistics through the real ioctl.
func TestKernelVeth(t *testing.T) {
	ns := netnstest.New(t, "ethtool")
	ns.Veth(t, "vethA", "vethB")
	k := openIn(t, ns)

	// veth counts its per-queue statistics only in NAPI mode: GRO on the
	// receiver, and UDP GRO forwarding so that frames from a TSO-capable
	// peer qualify. This changes the test's own namespace only.
	var idxA int
	ns.Do(t, func() error {
		h, err := safchain.NewEthtool()
		if err != nil {
			return err
		}
		defer h.Close()
		if err := h.Change("vethB", map[string]bool{"rx-gro": true, "rx-udp-gro-forwarding": true}); err != nil {
			return err
		}
		ifc, err := net.InterfaceByName("vethA")
		if err != nil {
			return err
		}
		idxA = ifc.Index
		return nil
	})

	drv, err := k.DriverName("vethA")
	if err != nil || drv != "veth" {
		t.Errorf("DriverName(vethA) = %q, %v; want veth", drv, err)
	}

	before, err := k.Stats("vethB")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range vethKeys {
		if _, ok := before[key]; !ok {
			t.Errorf("Stats(vethB) lacks %s: %v", key, slices.Sorted(maps.Keys(before)))
		}
	}
	if got := before["peer_ifindex"]; got != uint64(idxA) {
		t.Errorf("vethB peer_ifindex = %d, want vethA's ifindex %d", got, idxA)
	}

	const n, size, batch = 300, 200, 30
	// veth counts a frame on its peer's NAPI poll, which runs when the
	// softirq gets the CPU: on a busy machine after Send returns. Until
	// then the frames wait in the peer's ring of 256 (VETH_RING_SIZE),
	// and a frame sent to a full ring is dropped: send in batches well
	// under it, and wait for each batch's counters, with a deadline,
	// rather than read them once.
	sender := ns.Sender(t, "vethA")
	var after map[string]uint64
	for sent := batch; sent <= n; sent += batch {
		sender.Send(t, batch, size)
		after = waitStats(t, k, "vethB", func(s map[string]uint64) bool {
			return s["rx_queue_0_xdp_packets"]-before["rx_queue_0_xdp_packets"] >= uint64(sent) &&
				s["rx_queue_0_xdp_bytes"]-before["rx_queue_0_xdp_bytes"] >= uint64(sent*(size-14))
		})
	}
	if d := after["rx_queue_0_xdp_packets"] - before["rx_queue_0_xdp_packets"]; d < n {
		t.Errorf("vethB rx_queue_0_xdp_packets +%d after %d frames sent, want ≥ %d", d, n, n)
	}
	// veth counts bytes after the Ethernet header is pulled.
	if d := after["rx_queue_0_xdp_bytes"] - before["rx_queue_0_xdp_bytes"]; d < n*(size-14) {
		t.Errorf("vethB rx_queue_0_xdp_bytes +%d after %d frames of %d bytes, want ≥ %d", d, n, size, n*(size-14))
	}
	for key, v := range after {
		if v < before[key] {
			t.Errorf("%s went backwards: %d → %d", key, before[key], v)
		}
	}

	// Through Read and Parse: the view keeps the whole map, and a veth has
	// none of the mlx5 counters.
	raw, err := Read(k, "vethB")
	if err != nil || raw.Driver != "veth" {
		t.Fatalf("Read(vethB) = %+v, %v", raw, err)
	}
	c := Parse(raw.Stats)
	if len(c.Raw) != len(raw.Stats) {
		t.Errorf("Parse kept %d of %d", len(c.Raw), len(raw.Stats))
	}
	if n := countPresent(reflect.ValueOf(c)); n != 0 {
		t.Errorf("%d mlx5 counters found on a veth", n)
	}

	compareWithEthtoolCommand(t, ns, k, "vethA", "vethB")

	// The loopback has no ethtool statistics; a missing interface is not found.
	_, err = k.Stats("lo")
	if !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("Stats(lo) = %v, want ErrNotSupported", err)
	}
	if st := probes.StatusOf("ethtool lo", err); st.State != probes.StateNotSupported {
		t.Errorf("StatusOf(lo) = %+v", st)
	}
	_, err = k.Stats("nosuch0")
	if !errors.Is(err, ErrNoDevice) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nosuch0") {
		t.Errorf("Stats(nosuch0) = %v, want ErrNoDevice naming it", err)
	}
	if _, err := k.DriverName("nosuch0"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("DriverName(nosuch0) = %v, want ErrNoDevice", err)
	}
	if _, err := k.Stats("vethB-but-much-longer"); err == nil || errors.Is(err, ErrNoDevice) {
		t.Errorf("Stats(too long name) = %v, want a name error", err)
	}

	// The pair removed mid-run: the next read says so.
	ns.IP(t, "link", "del", "vethA")
	for _, iface := range []string{"vethA", "vethB"} {
		if _, err := k.Stats(iface); !errors.Is(err, ErrNoDevice) {
			t.Errorf("Stats(%s) after deletion = %v, want ErrNoDevice", iface, err)
		}
	}
}

// compareWithEthtoolCommand checks Stats against `ethtool -S` run in the
// namespace, bracketed by two ioctl reads so that traffic in between cannot
// make it flaky: each value the command prints must lie between them.
func compareWithEthtoolCommand(t *testing.T, ns *netnstest.NS, k *Kernel, ifaces ...string) {
	t.Helper()
	if _, err := exec.LookPath("ethtool"); err != nil {
		t.Logf("ethtool(8) not installed (Debian package ethtool; .ci/run installs it): not comparing with `ethtool -S`")
		return
	}
	for _, iface := range ifaces {
		lo, err := k.Stats(iface)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ns.Exec("ethtool", "-S", iface)
		if err != nil {
			t.Fatal(err)
		}
		hi, err := k.Stats(iface)
		if err != nil {
			t.Fatal(err)
		}
		text, err := ParseText(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("parsing `ethtool -S %s`: %v\n%s", iface, err, out)
		}
		if !slices.Equal(slices.Sorted(maps.Keys(text)), slices.Sorted(maps.Keys(lo))) {
			t.Errorf("%s: `ethtool -S` lists %v, the ioctl %v", iface, slices.Sorted(maps.Keys(text)), slices.Sorted(maps.Keys(lo)))
		}
		for key, v := range text {
			if v < lo[key] || v > hi[key] {
				t.Errorf("%s %s: `ethtool -S` says %d, the ioctl %d then %d", iface, key, v, lo[key], hi[key])
			}
		}
		out, err = ns.Exec("ethtool", "-i", iface)
		if err != nil {
			t.Fatal(err)
		}
		drv, err := k.DriverName(iface)
		if err != nil || !strings.Contains(string(out), "driver: "+drv+"\n") {
			t.Errorf("%s: DriverName = %q, %v; `ethtool -i` says\n%s", iface, drv, err, out)
		}
	}
	// And the command agrees that lo has nothing.
	if out, err := ns.Exec("ethtool", "-S", "lo"); err == nil {
		t.Errorf("`ethtool -S lo` succeeded: %s", out)
	}
}
