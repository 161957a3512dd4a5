//go:build linux

package rdmanl

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/probes"
)

// DefaultTimeout bounds the wait for each reply buffer.
const DefaultTimeout = 5 * time.Second

// LinuxConn is a NETLINK_RDMA socket. It is safe for concurrent use;
// requests are serialised.
type LinuxConn struct {
	mu  sync.Mutex
	fd  int
	seq uint32
}

// Dial opens a NETLINK_RDMA socket, as rdma does (NETLINK_CAP_ACK and
// NETLINK_EXT_ACK on, bound to an automatic port id). Each receive waits
// at most timeout (DefaultTimeout if 0). A kernel without RDMA netlink
// gives an error matching probes.ErrNotSupported.
func Dial(timeout time.Duration) (*LinuxConn, error) {
	fd, err := openSocket(NetlinkRDMA, timeout, 0)
	if err != nil {
		return nil, err
	}
	return &LinuxConn{fd: fd}, nil
}

// openSocket opens and binds a netlink socket of protocol proto (a
// parameter so that tests can drive Execute over NETLINK_ROUTE). A
// negative timeout leaves SO_RCVTIMEO unset.
func openSocket(proto int, timeout time.Duration, groups uint32) (int, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return -1, socketError(err)
	}
	// Old kernels lack these options; rdma ignores their failure too.
	_ = unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_CAP_ACK, 1)
	_ = unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_EXT_ACK, 1)
	if timeout >= 0 {
		if timeout == 0 {
			timeout = DefaultTimeout
		}
		tv := unix.NsecToTimeval(timeout.Nanoseconds())
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("rdma netlink: SO_RCVTIMEO: %w", err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: groups}); err != nil {
		unix.Close(fd)
		return -1, socketError(err)
	}
	return fd, nil
}

// socketError classifies a failing socket() or bind(): with ib_core not
// loaded (or no CONFIG_INFINIBAND) the protocol is unknown.
func socketError(err error) error {
	switch {
	case errors.Is(err, unix.EPROTONOSUPPORT), errors.Is(err, unix.EAFNOSUPPORT), errors.Is(err, unix.ENOENT):
		return fmt.Errorf("%w: the kernel has no RDMA netlink (ib_core not loaded): %w", probes.ErrNotSupported, err)
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return &probes.PermissionError{What: "a NETLINK_RDMA socket", Err: err}
	}
	return fmt.Errorf("rdma netlink socket: %w", err)
}

// Close closes the socket.
func (c *LinuxConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd < 0 {
		return nil
	}
	err := unix.Close(c.fd)
	c.fd = -1
	return err
}

// Execute sends req with the next sequence number and collects the
// receive buffers that answer it, up to NLMSG_DONE or the ACK. Buffers
// holding only messages of other sequence numbers (late answers to an
// earlier request that timed out) are dropped.
func (c *LinuxConn) Execute(req []byte) ([][]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd < 0 {
		return nil, errors.New("rdma netlink: connection closed")
	}
	c.seq++
	seq := c.seq
	if err := unix.Sendto(c.fd, SetSeq(req, seq), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("rdma netlink send: %w", err)
	}
	var out [][]byte
	for {
		buf, err := recvDatagram(c.fd)
		if err != nil {
			if errors.Is(err, unix.EAGAIN) {
				return nil, fmt.Errorf("rdma netlink: no complete reply before the receive timeout: %w", os.ErrDeadlineExceeded)
			}
			return nil, fmt.Errorf("rdma netlink receive: %w", err)
		}
		msgs, err := SplitMessages(buf)
		if err != nil {
			return nil, err
		}
		mine, done := false, false
		for _, m := range msgs {
			if m.Seq != seq {
				continue
			}
			mine = true
			if m.Type == nlmsgDone || m.Type == nlmsgError {
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

// recvDatagram reads one whole datagram, sized with MSG_PEEK|MSG_TRUNC.
func recvDatagram(fd int) ([]byte, error) {
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

// Monitor is a socket joined to the RDMA_NL_GROUP_NOTIFY group. Check
// SysInfo.MonitorSupported first: older kernels accept the group but
// never send anything.
type Monitor struct {
	f      *os.File
	closed atomic.Bool
}

// DialMonitor joins the monitor group (as rdma monitor does).
func DialMonitor() (*Monitor, error) { return dialGroups(NetlinkRDMA, 1<<(GroupNotify-1)) }

func dialGroups(proto int, groups uint32) (*Monitor, error) {
	fd, err := openSocket(proto, -1, groups)
	if err != nil {
		return nil, err
	}
	// Non-blocking, so that the runtime poller waits and Close wakes a
	// pending Receive.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("rdma netlink monitor: %w", err)
	}
	return &Monitor{f: os.NewFile(uintptr(fd), "rdma-netlink-monitor")}, nil
}

// Receive waits for the next buffer of monitor messages (decode it with
// ParseMonitor). After Close it returns an error matching os.ErrClosed.
func (m *Monitor) Receive() ([]byte, error) {
	rc, err := m.f.SyscallConn()
	if err != nil {
		return nil, m.closedErr(err)
	}
	var buf []byte
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		buf, rerr = recvDatagram(int(fd))
		return rerr != unix.EAGAIN
	})
	if err != nil {
		return nil, m.closedErr(err)
	}
	return buf, rerr
}

func (m *Monitor) closedErr(err error) error {
	if m.closed.Load() {
		return fmt.Errorf("rdma netlink monitor: %w", os.ErrClosed)
	}
	return fmt.Errorf("rdma netlink monitor: %w", err)
}

// Close leaves the group and wakes a pending Receive.
func (m *Monitor) Close() error {
	m.closed.Store(true)
	return m.f.Close()
}
