//go:build linux

package rdmanl

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes"
)

// ibCoreLoaded reports whether the kernel has RDMA netlink (ib_core).
func ibCoreLoaded() bool {
	_, err := os.Stat("/sys/module/ib_core")
	return err == nil
}

// The real socket on this host. Our machines have no RDMA in their kernel:
// socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA) fails with EPROTONOSUPPORT,
// which must read as "not supported". On a host with ib_core it must work.
func TestDialThisHost(t *testing.T) {
	c, err := Dial(0)
	if ibCoreLoaded() {
		if err != nil {
			t.Fatalf("ib_core is loaded but Dial failed: %v", err)
		}
		defer c.Close()
		devs, err := (&Client{Conn: c}).Devices()
		t.Logf("RDMA devices on this host: %+v (%v)", devs, err)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if !errors.Is(err, probes.ErrNotSupported) || !errors.Is(err, unix.EPROTONOSUPPORT) {
		t.Fatalf("no ib_core: Dial error %v, want ErrNotSupported wrapping EPROTONOSUPPORT", err)
	}
	if !strings.Contains(err.Error(), "the kernel has no RDMA netlink (ib_core not loaded)") {
		t.Errorf("message: %q", err)
	}
	st := probes.StatusOf("rdma netlink", err)
	if st.State != probes.StateNotSupported {
		t.Errorf("status %+v", st)
	}
	t.Logf("status on this host: %+v", st)
}

// Execute's send/receive loop on a real netlink socket. With no RDMA
// netlink here, it is driven over NETLINK_ROUTE, which frames dumps,
// acknowledgements and errors the same way.
func TestExecuteOverRouteNetlink(t *testing.T) {
	c, err := dial(unix.NETLINK_ROUTE, 0)
	if err != nil {
		t.Skipf("no NETLINK_ROUTE socket: %v", err)
	}
	defer c.Close()

	ifinfo := make([]byte, 16) // struct ifinfomsg, AF_UNSPEC
	req := func(flags uint16, index int32) []byte {
		ne.PutUint32(ifinfo[4:], uint32(index))
		b := make([]byte, nlmsg.HdrLen, nlmsg.HdrLen+16)
		ne.PutUint32(b, nlmsg.HdrLen+16)
		ne.PutUint16(b[4:], unix.RTM_GETLINK)
		ne.PutUint16(b[6:], flags)
		return append(b, ifinfo...)
	}
	var lastSeq uint32
	check := func(name string, replies [][]byte, wantEnd uint16) []nlmsg.Message {
		t.Helper()
		var all []nlmsg.Message
		for _, buf := range replies {
			ms, err := nlmsg.Split(buf)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			all = append(all, ms...)
		}
		if len(all) == 0 || all[len(all)-1].Type != wantEnd {
			t.Fatalf("%s: %d messages, last not type %d", name, len(all), wantEnd)
		}
		for _, m := range all {
			if m.Seq != all[0].Seq || m.Seq == lastSeq {
				t.Errorf("%s: message with seq %d, first %d, previous request %d", name, m.Seq, all[0].Seq, lastSeq)
			}
		}
		lastSeq = all[0].Seq
		return all
	}
	// A dump ends with NLMSG_DONE.
	r, err := c.Execute(req(dumpFlags, 0))
	if err != nil {
		t.Fatal(err)
	}
	msgs := check("dump", r, nlmsg.TypeDone)
	if len(msgs) < 2 || msgs[0].Type != unix.RTM_NEWLINK {
		t.Errorf("dump: %d messages", len(msgs))
	}
	// A get of lo (index 1) ends with the ACK.
	r, err = c.Execute(req(getFlags, 1))
	if err != nil {
		t.Fatal(err)
	}
	msgs = check("get", r, nlmsg.TypeError)
	if msgs[0].Type != unix.RTM_NEWLINK || ne.Uint32(msgs[len(msgs)-1].Payload) != 0 {
		t.Errorf("get: not NEWLINK + ACK")
	}
	// A get of a missing interface: the kernel's error arrives as bytes.
	r, err = c.Execute(req(getFlags, 1<<30))
	if err != nil {
		t.Fatal(err)
	}
	check("missing", r, nlmsg.TypeError)
	if _, e := replyMessages(nlmsg.Native, r, CmdGet); !errors.As(e, new(*Error)) || e.(*Error).Errno != ENODEV {
		t.Errorf("missing link: %v", e)
	}
	// Closed.
	c.Close()
	if _, err := c.Execute(req(getFlags, 1)); err == nil {
		t.Error("Execute after Close")
	}
}

// A request whose answer never comes (over NETLINK_ROUTE, a message that
// is not a request and asks for no ACK) returns as soon as its context is
// cancelled, not at the socket's timeout (an hour: were cancellation
// ignored, the test would hang); a Client sample stops there, and
// through a Recorder the abandoned exchange is recorded as such.
func TestExecuteContextCancel(t *testing.T) {
	c, err := dial(unix.NETLINK_ROUTE, time.Hour)
	if err != nil {
		t.Skipf("no NETLINK_ROUTE socket: %v", err)
	}
	defer c.Close()
	unanswered := make([]byte, nlmsg.HdrLen+16)
	ne.PutUint32(unanswered, uint32(len(unanswered)))
	ne.PutUint16(unanswered[4:], unix.RTM_GETLINK)

	ctx, cancel := context.WithCancel(context.Background())
	rec := &Recorder{Conn: c}
	done := make(chan error, 1)
	go func() {
		_, err := rec.ExecuteContext(ctx, unanswered)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	if ex := rec.Take(); len(ex) != 1 || ex[0].Status == nil || ex[0].Status.State != probes.StateFailed {
		t.Errorf("recorded %+v", ex)
	}
	// The socket still answers the next request.
	dump := make([]byte, nlmsg.HdrLen+16)
	ne.PutUint32(dump, uint32(len(dump)))
	ne.PutUint16(dump[4:], unix.RTM_GETLINK)
	ne.PutUint16(dump[6:], dumpFlags)
	if r, err := c.ExecuteContext(context.Background(), dump); err != nil || len(r) == 0 {
		t.Errorf("after a cancelled request: %d buffers, %v", len(r), err)
	}
}
