//go:build linux

package dcb

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes/internal/nlsock"
)

// Netlink is the Linux Querier: rtnetlink requests on one socket (Open),
// in the network namespace of the thread that opened it. GET commands
// need no privilege. Queries are safe for concurrent use (the socket
// serialises them).
type Netlink struct{ c *nlsock.Conn }

var _ ContextQuerier = (*Netlink)(nil)

// Open opens the socket the queries use.
func Open() (*Netlink, error) {
	c, err := nlsock.Open(unix.NETLINK_ROUTE, queryTimeout)
	if err != nil {
		return nil, err
	}
	return &Netlink{c: c}, nil
}

// Close closes the socket; a query waiting on it returns.
func (n *Netlink) Close() error { return n.c.Close() }

// queryTimeout bounds one query when the caller's context does not: a
// driver that never answers must not hold a goroutine for long.
const queryTimeout = 5 * time.Second

// newRequest builds the RTM_GETDCB request for cmd on ifname: nlmsghdr
// (NLM_F_REQUEST), struct dcbmsg { u8 dcb_family; u8 cmd; u16 dcb_pad; },
// DCB_ATTR_IFNAME (NUL-terminated).
func newRequest(cmd Command, ifname string) *nlmsg.Request {
	return nlmsg.NewRequest(rtmGetDCB, 0, []byte{unix.AF_UNSPEC, byte(cmd), 0, 0}).String(attrIfname, ifname)
}

// Query implements Querier.
func (n *Netlink) Query(ifname string, cmd Command) ([]byte, error) {
	return n.QueryContext(context.Background(), ifname, cmd)
}

// QueryContext implements ContextQuerier: the wait for the kernel's answer
// ends when ctx does.
func (n *Netlink) QueryContext(ctx context.Context, ifname string, cmd Command) ([]byte, error) {
	req := newRequest(cmd, ifname)
	bufs, err := n.c.Execute(ctx, req.Bytes())
	if err != nil {
		return nil, err
	}
	payloads, err := nlmsg.ReadReply(bufs, req.Flags(), func(t uint16) bool { return t == rtmGetDCB })
	if err != nil {
		return nil, err
	}
	if len(payloads) == 0 {
		return nil, fmt.Errorf("no RTM_GETDCB reply to %v", cmd)
	}
	return payloads[0], nil
}
