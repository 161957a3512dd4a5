package rtnl

import (
	"encoding/binary"
	"fmt"
	"net"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// Attribute numbers from linux/if_link.h and linux/if.h. They are fixed
// kernel ABI; a Linux test checks them against golang.org/x/sys/unix.
const (
	iflaAddress          = 1
	iflaIfname           = 3
	iflaMTU              = 4
	iflaLink             = 5
	iflaMaster           = 10
	iflaOperstate        = 16
	iflaLinkinfo         = 18
	iflaStats64          = 23
	iflaCarrier          = 33
	iflaCarrierChanges   = 35
	iflaLinkNetnsid      = 37
	iflaCarrierUpCount   = 47
	iflaCarrierDownCount = 48
	iflaParentDevName    = 56
	iflaParentDevBusName = 57

	iflaInfoKind      = 1
	iflaInfoData      = 2
	iflaInfoSlaveKind = 4
	iflaVLANID        = 1

	iffUp      = 0x1
	iffLowerUp = 0x10000

	sizeofIfInfomsg = 16
	sizeofStats64   = 23 * 8 // the fields every kernel since 2.6.35 sends
)

// operState names an IFLA_OPERSTATE value (enum if_oper_*, RFC 2863) as
// /sys/class/net/IF/operstate spells it.
func operState(v uint8) string {
	switch v {
	case 0:
		return "unknown"
	case 1:
		return "notpresent"
	case 2:
		return "down"
	case 3:
		return "lowerlayerdown"
	case 4:
		return "testing"
	case 5:
		return "dormant"
	case 6:
		return "up"
	}
	return fmt.Sprintf("state_%d", v)
}

// DecodeLink decodes an RTM_NEWLINK message body (struct ifinfomsg and
// its attributes, without the netlink header). It is pure and total: bad
// input is an error, never a panic. Speed is not in the message and is
// left absent.
func DecodeLink(msg []byte) (Link, error) {
	if len(msg) < sizeofIfInfomsg {
		return Link{}, fmt.Errorf("rtnetlink link message: %d bytes, shorter than ifinfomsg (%d)", len(msg), sizeofIfInfomsg)
	}
	ne := binary.NativeEndian
	l := Link{
		Index: int(int32(ne.Uint32(msg[4:8]))),
		Flags: ne.Uint32(msg[8:12]),
	}
	l.AdminUp = l.Flags&iffUp != 0
	l.LowerUp = l.Flags&iffLowerUp != 0
	l.OperState = operState(0)
	as, err := nlmsg.Attrs(msg[sizeofIfInfomsg:])
	if err != nil {
		return Link{}, fmt.Errorf("rtnetlink link message (ifindex %d): %w", l.Index, err)
	}
	for _, a := range as {
		v := a.Data
		var err error
		switch a.Type {
		case iflaIfname:
			l.Name = a.String()
		case iflaAddress:
			if len(v) > 0 {
				l.Address = net.HardwareAddr(v).String()
			}
		case iflaMTU:
			var mtu uint32
			mtu, err = a.U32()
			l.MTU = int(mtu)
		case iflaLink:
			var idx uint32
			idx, err = a.U32()
			if idx != 0 && int(idx) != l.Index {
				l.ParentIndex = int(int32(idx))
			}
		case iflaMaster:
			var idx uint32
			idx, err = a.U32()
			l.MasterIndex = int(int32(idx))
		case iflaOperstate:
			var st uint8
			st, err = a.U8()
			l.OperState = operState(st)
		case iflaCarrier:
			var c uint8
			c, err = a.U8()
			up := c != 0
			l.Carrier = &up
		case iflaCarrierChanges:
			l.CarrierChanges, err = u32p(a)
		case iflaCarrierUpCount:
			l.CarrierUpCount, err = u32p(a)
		case iflaCarrierDownCount:
			l.CarrierDownCount, err = u32p(a)
		case iflaLinkNetnsid:
			var id uint32
			id, err = a.U32()
			nsid := int32(id)
			l.ParentNetnsID = &nsid
		case iflaParentDevName:
			l.ParentDev = a.String()
		case iflaParentDevBusName:
			l.ParentDevBus = a.String()
		case iflaStats64:
			l.Stats, err = decodeStats64(v)
		case iflaLinkinfo:
			if err = decodeLinkinfo(v, &l); err != nil {
				err = fmt.Errorf("linkinfo: %w", err)
			}
		}
		if err != nil {
			return Link{}, fmt.Errorf("rtnetlink link message (ifindex %d): %w", l.Index, err)
		}
	}
	if l.ParentNetnsID != nil && l.ParentIndex == 0 {
		l.ParentNetnsID = nil // a netns id without a parent says nothing
	}
	return l, nil
}

func decodeLinkinfo(b []byte, l *Link) error {
	as, err := nlmsg.Attrs(b)
	if err != nil {
		return err
	}
	var data []byte
	for _, a := range as {
		switch a.Type {
		case iflaInfoKind:
			l.Kind = a.String()
		case iflaInfoSlaveKind:
			l.SlaveKind = a.String()
		case iflaInfoData:
			data = a.Data
		}
	}
	if data == nil || l.Kind != "vlan" {
		return nil
	}
	as, err = nlmsg.Attrs(data)
	if err != nil {
		return err
	}
	for _, a := range as {
		if a.Type == iflaVLANID {
			id, err := a.U16()
			if err != nil {
				return err
			}
			l.VLANID = &id
		}
	}
	return nil
}

func decodeStats64(v []byte) (*Stats64, error) {
	if len(v) < sizeofStats64 {
		return nil, fmt.Errorf("IFLA_STATS64 of %d bytes, want at least %d", len(v), sizeofStats64)
	}
	var f [25]uint64
	n := min(len(v)/8, len(f))
	for i := range n {
		f[i] = binary.NativeEndian.Uint64(v[i*8:])
	}
	s := &Stats64{
		RxPackets: f[0], TxPackets: f[1], RxBytes: f[2], TxBytes: f[3],
		RxErrors: f[4], TxErrors: f[5], RxDropped: f[6], TxDropped: f[7],
		Multicast: f[8], Collisions: f[9],
		RxLengthErrors: f[10], RxOverErrors: f[11], RxCRCErrors: f[12],
		RxFrameErrors: f[13], RxFIFOErrors: f[14], RxMissedErrors: f[15],
		TxAbortedErrors: f[16], TxCarrierErrors: f[17], TxFIFOErrors: f[18],
		TxHeartbeatErrors: f[19], TxWindowErrors: f[20],
		RxCompressed: f[21], TxCompressed: f[22],
	}
	if n > 23 {
		s.RxNoHandler = &f[23]
	}
	if n > 24 {
		s.RxOtherhostDropped = &f[24]
	}
	return s, nil
}

func u32p(a nlmsg.Attr) (*uint32, error) {
	x, err := a.U32()
	if err != nil {
		return nil, err
	}
	return &x, nil
}
