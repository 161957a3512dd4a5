//go:build linux

package dcb

import (
	"errors"
	"fmt"

	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// Netlink is the Linux Querier: one rtnetlink request per call, on a
// socket in the calling thread's network namespace. GET commands need no
// privilege.
type Netlink struct{}

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
func (Netlink) Query(ifname string, cmd Command) ([]byte, error) {
	msgs, err := newRequest(cmd, ifname).Execute(unix.NETLINK_ROUTE, rtmGetDCB)
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			return nil, errno
		}
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("no RTM_GETDCB reply to %v", cmd)
	}
	return msgs[0], nil
}
