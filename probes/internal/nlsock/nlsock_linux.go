//go:build linux

package nlsock

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// DefaultTimeout bounds a request when Open is given 0.
const DefaultTimeout = 5 * time.Second

// Conn is one netlink socket. Requests are serialised; Execute and Close
// are safe for concurrent use.
type Conn struct {
	f       *os.File
	sem     chan struct{} // held by the request in flight; waiting for it honours ctx
	seq     uint32        // guarded by sem
	timeout time.Duration
	closed  atomic.Bool
}

// Open opens a netlink socket of protocol proto in the calling thread's
// network namespace, with NETLINK_CAP_ACK and NETLINK_EXT_ACK on where the
// kernel has them, bound to an automatic port id. Each request waits at
// most timeout for its answer (DefaultTimeout if 0). The error of a
// failing socket() or bind() wraps its errno, for the caller to classify.
func Open(proto int, timeout time.Duration) (*Conn, error) {
	fd, err := Socket(proto, 0)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Conn{f: os.NewFile(uintptr(fd), "netlink"), sem: make(chan struct{}, 1), timeout: timeout}, nil
}

// Socket opens a non-blocking netlink socket bound to groups (0 for none)
// and returns its descriptor; Open and multicast listeners share it.
func Socket(proto int, groups uint32) (int, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, proto)
	if err != nil {
		return -1, fmt.Errorf("netlink socket: %w", err)
	}
	// Old kernels lack these options; iproute2 ignores their failure too.
	_ = unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_CAP_ACK, 1)
	_ = unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_EXT_ACK, 1)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: groups}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("netlink bind: %w", err)
	}
	return fd, nil
}

// ErrClosed is returned by Execute after Close.
var ErrClosed = errors.New("netlink: connection closed")

// Close closes the socket and wakes a request waiting for its answer.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	return c.f.Close()
}

// longAgo is a read deadline that has passed: setting it wakes a pending
// read at once.
var longAgo = time.Unix(1, 0)

// Execute sends req (a whole netlink message; its sequence number is
// replaced) and returns the receive buffers that answer it: up to
// NLMSG_DONE or NLMSG_ERROR (the ACK or the kernel's error), or the first
// message without NLM_F_MULTI when req did not ask for an ACK. Buffers
// holding only messages of other sequence numbers (late answers to an
// earlier request that was abandoned) are dropped. It returns early, with
// an error wrapping ctx.Err(), when ctx ends, and with an error wrapping
// os.ErrDeadlineExceeded when the answer is not complete within the
// Conn's timeout.
func (c *Conn) Execute(ctx context.Context, req []byte) ([][]byte, error) {
	if len(req) < nlmsg.HdrLen {
		return nil, fmt.Errorf("netlink: request of %d bytes, shorter than its header", len(req))
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("netlink: %w", ctx.Err())
	}
	defer func() { <-c.sem }()
	if c.closed.Load() {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("netlink: %w", err)
	}
	c.seq++
	seq := c.seq
	msg := append([]byte(nil), req...)
	binary.NativeEndian.PutUint32(msg[8:], seq)
	wantAck := binary.NativeEndian.Uint16(msg[6:])&nlmsg.FlagAck != 0

	ctxDeadline, disarm, err := c.arm(ctx)
	if err != nil {
		return nil, err
	}
	defer disarm()
	rc, err := c.f.SyscallConn()
	if err != nil {
		return nil, c.err(err)
	}
	var serr error
	if err := rc.Write(func(fd uintptr) bool {
		serr = unix.Sendto(int(fd), msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
		return serr != unix.EAGAIN
	}); err != nil {
		return nil, c.waitErr(ctx, ctxDeadline, err)
	}
	if serr != nil {
		return nil, fmt.Errorf("netlink send: %w", serr)
	}
	return c.receive(ctx, ctxDeadline, rc, seq, wantAck)
}

// arm sets the read deadline to the connection's timeout or the
// context's deadline, whichever comes first (ctxDeadline: the context's),
// and makes cancellation move it into the past, which wakes the read.
// disarm waits for that callback if it ran, so that it cannot spoil the
// deadline of the next request.
func (c *Conn) arm(ctx context.Context) (ctxDeadline bool, disarm func(), err error) {
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline, ctxDeadline = d, true
	}
	if err := c.f.SetReadDeadline(deadline); err != nil {
		return false, nil, c.err(err)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.f.SetReadDeadline(longAgo) //nolint:errcheck // closed: the read fails anyway
		close(fired)
	})
	return ctxDeadline, func() {
		if !stop() {
			<-fired
		}
	}, nil
}

// receive reads the datagrams of the reply to request seq, each once,
// until its last: DONE, an error or ACK, or its only message when it is
// neither a dump nor asked to be acknowledged.
func (c *Conn) receive(ctx context.Context, ctxDeadline bool, rc syscall.RawConn, seq uint32, wantAck bool) ([][]byte, error) {
	var out [][]byte
	for {
		var buf []byte
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			buf, rerr = ReadDatagram(int(fd))
			return rerr != unix.EAGAIN
		}); err != nil {
			return nil, c.waitErr(ctx, ctxDeadline, err)
		}
		if rerr != nil {
			return nil, fmt.Errorf("netlink receive: %w", rerr)
		}
		msgs, err := nlmsg.Split(buf)
		if err != nil {
			return nil, err
		}
		mine, done := false, false
		for _, m := range msgs {
			if m.Seq != seq {
				continue
			}
			mine = true
			if m.IsDone() || m.IsError() || !wantAck && m.Flags&nlmsg.FlagMulti == 0 {
				done = true
			}
		}
		if mine {
			out = append(out, buf)
		}
		if done {
			return out, nil
		}
	}
}

// waitErr explains why the poller gave up. The poller may pass the
// context's deadline a moment before the context notices it.
func (c *Conn) waitErr(ctx context.Context, ctxDeadline bool, err error) error {
	switch {
	case c.closed.Load():
		return ErrClosed
	case ctx.Err() != nil:
		return fmt.Errorf("netlink: abandoned, no complete answer: %w", ctx.Err())
	case ctxDeadline && errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("netlink: abandoned, no complete answer: %w", context.DeadlineExceeded)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("netlink: no complete answer within %v: %w", c.timeout, os.ErrDeadlineExceeded)
	}
	return fmt.Errorf("netlink: %w", err)
}

func (c *Conn) err(err error) error {
	if c.closed.Load() {
		return ErrClosed
	}
	return fmt.Errorf("netlink: %w", err)
}

// ReadDatagram reads one whole datagram from a netlink socket, sized with
// MSG_PEEK|MSG_TRUNC. On a non-blocking socket with nothing to read it
// returns unix.EAGAIN.
func ReadDatagram(fd int) ([]byte, error) {
	var peek [16]byte
	for {
		n, _, err := unix.Recvfrom(fd, peek[:], unix.MSG_PEEK|unix.MSG_TRUNC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		for {
			m, _, err := unix.Recvfrom(fd, buf, 0)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return nil, err
			}
			return buf[:m], nil
		}
	}
}
