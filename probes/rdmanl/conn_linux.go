//go:build linux

package rdmanl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/internal/nlsock"
)

// DefaultTimeout bounds each request when Dial is given 0.
const DefaultTimeout = nlsock.DefaultTimeout

// LinuxConn is a NETLINK_RDMA socket. It is safe for concurrent use;
// requests are serialised. Its waits honour the context given to
// ExecuteContext: a cancelled sample leaves no goroutine in recvfrom.
type LinuxConn struct {
	c *nlsock.Conn
}

var _ ContextConn = (*LinuxConn)(nil)

// Dial opens a NETLINK_RDMA socket, as rdma does (NETLINK_CAP_ACK and
// NETLINK_EXT_ACK on, bound to an automatic port id). Each request waits
// at most timeout for its answer (DefaultTimeout if 0). A kernel without
// RDMA netlink gives an error matching probes.ErrNotSupported.
func Dial(timeout time.Duration) (*LinuxConn, error) { return dial(NetlinkRDMA, timeout) }

// dial takes the protocol as a parameter so that tests can drive the
// connection over NETLINK_ROUTE.
func dial(proto int, timeout time.Duration) (*LinuxConn, error) {
	c, err := nlsock.Open(proto, timeout)
	if err != nil {
		return nil, socketError(err)
	}
	return &LinuxConn{c: c}, nil
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

// Close closes the socket and wakes a request waiting for its answer.
func (c *LinuxConn) Close() error { return c.c.Close() }

// Execute is ExecuteContext without a context: the request is bounded by
// the Dial timeout only.
func (c *LinuxConn) Execute(req []byte) ([][]byte, error) {
	return c.ExecuteContext(context.Background(), req)
}

// ExecuteContext sends req with the next sequence number and collects the
// receive buffers that answer it, up to NLMSG_DONE or the ACK. Buffers
// holding only messages of other sequence numbers (late answers to an
// earlier request that was abandoned) are dropped. It gives up when ctx
// ends, with an error wrapping ctx.Err().
func (c *LinuxConn) ExecuteContext(ctx context.Context, req []byte) ([][]byte, error) {
	out, err := c.c.Execute(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("rdma %w", err)
	}
	return out, nil
}
