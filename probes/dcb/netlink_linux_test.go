//go:build linux

package dcb

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/internal/netnstest"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/probes"
)

// TestRequestBytes compares the requests sent to the kernel with the
// layout in rdma-netlink.md §g, byte for byte, for seq 7 and pid 0.
func TestRequestBytes(t *testing.T) {
	littleEndian(t)
	for _, c := range []struct {
		cmd    Command
		ifname string
		want   string
	}{
		{CmdIEEEGet, "eth0", strings.Join([]string{
			"20000000",         // nlmsg_len 32 = 16 + 4 + 12
			"4e00",             // nlmsg_type RTM_GETDCB (78)
			"0100",             // nlmsg_flags NLM_F_REQUEST
			"07000000",         // nlmsg_seq 7
			"00000000",         // nlmsg_pid 0
			"00150000",         // dcbmsg: AF_UNSPEC, DCB_CMD_IEEE_GET (21), pad
			"0900" + "0100",    // DCB_ATTR_IFNAME (1), len 4 + 5
			"6574683000000000", // "eth0\0", padded to 8
		}, "")},
		{CmdGetDCBX, "enp59s0f0np0", strings.Join([]string{
			"28000000", "4e00", "0100", "07000000", "00000000",
			"00160000", // DCB_CMD_GDCBX (22)
			"1100" + "0100", hex.EncodeToString([]byte("enp59s0f0np0\x00")) + "000000",
		}, "")},
		{CmdGetState, "lo", strings.Join([]string{
			"1c000000", "4e00", "0100", "07000000", "00000000",
			"00010000", // DCB_CMD_GSTATE (1)
			"0700" + "0100", "6c6f0000",
		}, "")},
	} {
		// The socket stamps the sequence number (7 in the trace); the
		// request leaves it 0.
		got := newRequest(c.cmd, c.ifname).Bytes()
		copy(got[8:], []byte{7, 0, 0, 0})
		want, _ := hex.DecodeString(c.want)
		if !bytes.Equal(got, want) {
			t.Errorf("%v %s:\ngot  % x\nwant % x", c.cmd, c.ifname, got, want)
		}
	}
}

// openNetlink opens the DCB socket in the calling thread's namespace and
// closes it when the test ends.
func openNetlink(t *testing.T) *Netlink {
	t.Helper()
	n, err := Open()
	if err != nil {
		t.Skipf("no rtnetlink socket: %v", err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// TestKernelLoopback asks the running kernel about "lo", which has no DCB
// ops: the kernel answers EOPNOTSUPP and that must read as not supported.
func TestKernelLoopback(t *testing.T) {
	_, raw, err := ProbeContext(context.Background(), openNetlink(t), "lo")
	if !errors.Is(err, probes.ErrNotSupported) {
		t.Fatalf("lo: %v (raw %+v)", err, raw)
	}
	if !strings.Contains(err.Error(), "lo: driver has no DCB support") {
		t.Errorf("message: %v", err)
	}
	if len(raw.Replies) != 1 || raw.Replies[0].Errno != int(unix.EOPNOTSUPP) {
		t.Errorf("raw: %+v", raw)
	}
	if st := probes.StatusOf("dcb lo", err); st.State != probes.StateNotSupported {
		t.Errorf("status %+v", st)
	}
}

func TestKernelMissingInterface(t *testing.T) {
	_, _, err := ProbeContext(context.Background(), openNetlink(t), "rdmatop-nope0")
	if !errors.Is(err, ErrNoSuchInterface) || !strings.Contains(err.Error(), "rdmatop-nope0: no such network interface") {
		t.Fatalf("got %v", err)
	}
	if st := probes.StatusOf("dcb", err); st.State != probes.StateFailed {
		t.Errorf("status %+v", st)
	}
}

// TestKernelVeth runs the probe on a veth pair in a network namespace the
// test creates (root only): veth has no DCB ops either.
func TestKernelVeth(t *testing.T) {
	ns := netnstest.New(t, "dcb")
	ns.Veth(t, "dcbA", "dcbB")
	ns.IP(t, "link", "set", "lo", "up")
	for _, ifname := range []string{"dcbA", "dcbB", "lo", "eth0"} {
		var err error
		ns.Do(t, func() error {
			n := openNetlink(t) // in the namespace: its socket queries there
			_, _, err = ProbeContext(context.Background(), n, ifname)
			return nil
		})
		switch ifname {
		case "eth0": // not in the new namespace
			if !errors.Is(err, ErrNoSuchInterface) {
				t.Errorf("%s: %v", ifname, err)
			}
		default:
			if !errors.Is(err, probes.ErrNotSupported) || !strings.Contains(err.Error(), ifname+": driver has no DCB support") {
				t.Errorf("%s: %v", ifname, err)
			}
		}
	}
}

// A query whose context has ended is abandoned, not sent: the error says
// so (it is not a kernel errno recorded as the netdev's answer).
func TestKernelQueryContext(t *testing.T) {
	n := openNetlink(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, raw, err := ProbeContext(ctx, n, "lo")
	if !errors.Is(err, context.Canceled) || len(raw.Replies) != 0 {
		t.Fatalf("cancelled: %v, raw %+v", err, raw)
	}
	// The same call with a live context reaches the kernel.
	if _, _, err := ProbeContext(context.Background(), n, "lo"); !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("live: %v", err)
	}
}
