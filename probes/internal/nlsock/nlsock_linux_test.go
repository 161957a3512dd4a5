//go:build linux

package nlsock

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// getLink builds RTM_GETLINK for ifindex (0 with NLM_F_DUMP: every link).
func getLink(flags uint16, index int32) []byte {
	b := make([]byte, nlmsg.HdrLen+16) // nlmsghdr + struct ifinfomsg
	binary.NativeEndian.PutUint32(b, uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], unix.RTM_GETLINK)
	binary.NativeEndian.PutUint16(b[6:], flags)
	binary.NativeEndian.PutUint32(b[nlmsg.HdrLen+4:], uint32(index))
	return b
}

// unanswered is a message the kernel takes without answering: it is not
// a request (no NLM_F_REQUEST) and asks for no ACK, so rtnetlink drops it
// (netlink_rcv_skb).
func unanswered() []byte { return getLink(0, 1) }

func openRoute(t *testing.T, timeout time.Duration) *Conn {
	t.Helper()
	c, err := Open(unix.NETLINK_ROUTE, timeout)
	if err != nil {
		t.Skipf("no NETLINK_ROUTE socket: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func messages(t *testing.T, bufs [][]byte) []nlmsg.Message {
	t.Helper()
	var all []nlmsg.Message
	for _, b := range bufs {
		ms, err := nlmsg.Split(b)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ms...)
	}
	return all
}

// A dump ends with NLMSG_DONE, a get with an ACK ends with it, a get
// without ACK with its one answer; the kernel's errors come as messages.
func TestExecuteOverRouteNetlink(t *testing.T) {
	c := openRoute(t, 0)
	ctx := context.Background()
	const req, ack, dump = unix.NLM_F_REQUEST, unix.NLM_F_ACK, unix.NLM_F_DUMP

	r, err := c.Execute(ctx, getLink(req|ack|dump, 0))
	if err != nil {
		t.Fatal(err)
	}
	ms := messages(t, r)
	if len(ms) < 2 || ms[0].Type != unix.RTM_NEWLINK || !ms[len(ms)-1].IsDone() {
		t.Fatalf("dump: %d messages, last %+v", len(ms), ms[len(ms)-1])
	}
	for _, m := range ms {
		if m.Seq != ms[0].Seq {
			t.Errorf("dump: seq %d among %d", m.Seq, ms[0].Seq)
		}
	}

	r, err = c.Execute(ctx, getLink(req|ack, 1))
	if err != nil {
		t.Fatal(err)
	}
	ms = messages(t, r)
	if len(ms) != 2 || ms[0].Type != unix.RTM_NEWLINK || !ms[1].IsError() || ms[1].Errno() != 0 {
		t.Errorf("get with ACK: %+v", ms)
	}

	r, err = c.Execute(ctx, getLink(req, 1))
	if err != nil {
		t.Fatal(err)
	}
	if ms = messages(t, r); len(ms) != 1 || ms[0].Type != unix.RTM_NEWLINK {
		t.Errorf("get without ACK: %+v", ms)
	}

	r, err = c.Execute(ctx, getLink(req, 1<<30))
	if err != nil {
		t.Fatal(err)
	}
	if ms = messages(t, r); len(ms) != 1 || ms[0].Errno() != unix.ENODEV {
		t.Errorf("missing link: %+v", ms)
	}
}

// A request whose answer never comes returns when its context is
// cancelled, not at the Conn's timeout (an hour here: if cancellation
// were ignored the test would hang), and the socket stays usable.
func TestExecuteHonoursCancel(t *testing.T) {
	c := openRoute(t, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Execute(ctx, unanswered())
		done <- err
	}()
	for len(c.sem) == 0 { // the request holds the socket
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	// The next request is answered, and the abandoned one left no stale
	// deadline behind.
	r, err := c.Execute(context.Background(), getLink(unix.NLM_F_REQUEST|unix.NLM_F_ACK, 1))
	if err != nil {
		t.Fatalf("after a cancelled request: %v", err)
	}
	if ms := messages(t, r); len(ms) != 2 || ms[0].Type != unix.RTM_NEWLINK {
		t.Errorf("after a cancelled request: %+v", ms)
	}
}

// A context deadline ends the wait and reads as the context's; the Conn's
// own timeout reads as os.ErrDeadlineExceeded.
func TestExecuteDeadlines(t *testing.T) {
	c := openRoute(t, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Execute(ctx, unanswered()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("context deadline: %v", err)
	}
	short := openRoute(t, 20*time.Millisecond)
	_, err := short.Execute(context.Background(), unanswered())
	if !errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Conn timeout: %v", err)
	}
}

// A request waiting for the socket (another one is in flight) gives up
// when its context ends.
func TestExecuteQueuedHonoursCancel(t *testing.T) {
	c := openRoute(t, time.Hour)
	first, stopFirst := context.WithCancel(context.Background())
	firstDone := make(chan error, 1)
	go func() {
		_, err := c.Execute(first, unanswered())
		firstDone <- err
	}()
	// Wait until the first request holds the socket.
	for len(c.sem) == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Execute(ctx, getLink(unix.NLM_F_REQUEST, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("queued request: %v", err)
	}
	stopFirst()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Errorf("first request: %v", err)
	}
}

// Close wakes a request waiting for its answer.
func TestCloseWakesExecute(t *testing.T) {
	c := openRoute(t, time.Hour)
	done := make(chan error, 1)
	go func() {
		_, err := c.Execute(context.Background(), unanswered())
		done <- err
	}()
	for len(c.sem) == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := c.Execute(context.Background(), getLink(unix.NLM_F_REQUEST, 1)); !errors.Is(err, ErrClosed) {
		t.Errorf("Execute after Close: %v", err)
	}
}
