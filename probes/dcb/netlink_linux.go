//go:build linux

package dcb

import (
	"context"
	"fmt"
	"time"

	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/probes/internal/nlsock"
)

// nl.NativeEndian sets a package global on first use without a lock: the
// sampler's sources call it from several goroutines at once, so set it
// before any of them runs.
func init() { nl.NativeEndian() }

// Netlink is the Linux Querier: one rtnetlink request per call, on a
// socket in the calling thread's network namespace. GET commands need no
// privilege.
type Netlink struct{}

var _ ContextQuerier = Netlink{}

// queryTimeout bounds one query when the caller's context does not: a
// driver that never answers must not hold a goroutine for long.
const queryTimeout = 5 * time.Second

// dcbMsg is struct dcbmsg { u8 dcb_family; u8 cmd; u16 dcb_pad; }.
type dcbMsg struct{ cmd Command }

func (m dcbMsg) Len() int          { return sizeDCBMsg }
func (m dcbMsg) Serialize() []byte { return []byte{unix.AF_UNSPEC, byte(m.cmd), 0, 0} }

// newRequest builds the RTM_GETDCB request for cmd on ifname:
// nlmsghdr (NLM_F_REQUEST), dcbmsg, DCB_ATTR_IFNAME (NUL-terminated).
func newRequest(cmd Command, ifname string) *nl.NetlinkRequest {
	req := nl.NewNetlinkRequest(rtmGetDCB, 0)
	req.AddData(dcbMsg{cmd: cmd})
	req.AddData(nl.NewRtAttr(attrIfname, nl.ZeroTerminated(ifname)))
	return req
}

// Query implements Querier.
func (n Netlink) Query(ifname string, cmd Command) ([]byte, error) {
	return n.QueryContext(context.Background(), ifname, cmd)
}

// QueryContext implements ContextQuerier: the wait for the kernel's answer
// ends when ctx does.
func (Netlink) QueryContext(ctx context.Context, ifname string, cmd Command) ([]byte, error) {
	c, err := nlsock.Open(unix.NETLINK_ROUTE, queryTimeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	bufs, err := c.Execute(ctx, newRequest(cmd, ifname).Serialize())
	if err != nil {
		return nil, err
	}
	for _, b := range bufs {
		msgs, err := nlsock.Split(b)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			switch {
			case m.IsError():
				if e := m.Errno(); e != 0 {
					return nil, e
				}
			case m.Type == rtmGetDCB:
				return m.Payload, nil
			}
		}
	}
	return nil, fmt.Errorf("no RTM_GETDCB reply to %v", cmd)
}
