package rtnl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
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
	err := walkAttrs(msg[sizeofIfInfomsg:], func(typ uint16, v []byte) error {
		var err error
		switch typ {
		case iflaIfname:
			l.Name = cString(v)
		case iflaAddress:
			if len(v) > 0 {
				l.Address = net.HardwareAddr(v).String()
			}
		case iflaMTU:
			var mtu uint32
			mtu, err = u32(v)
			l.MTU = int(mtu)
		case iflaLink:
			var idx uint32
			idx, err = u32(v)
			if idx != 0 && int(idx) != l.Index {
				l.ParentIndex = int(int32(idx))
			}
		case iflaMaster:
			var idx uint32
			idx, err = u32(v)
			l.MasterIndex = int(int32(idx))
		case iflaOperstate:
			if len(v) < 1 {
				return errShort
			}
			l.OperState = operState(v[0])
		case iflaCarrier:
			if len(v) < 1 {
				return errShort
			}
			c := v[0] != 0
			l.Carrier = &c
		case iflaCarrierChanges:
			l.CarrierChanges, err = u32p(v)
		case iflaCarrierUpCount:
			l.CarrierUpCount, err = u32p(v)
		case iflaCarrierDownCount:
			l.CarrierDownCount, err = u32p(v)
		case iflaLinkNetnsid:
			var id uint32
			id, err = u32(v)
			nsid := int32(id)
			l.ParentNetnsID = &nsid
		case iflaParentDevName:
			l.ParentDev = cString(v)
		case iflaParentDevBusName:
			l.ParentDevBus = cString(v)
		case iflaStats64:
			l.Stats, err = decodeStats64(v)
		case iflaLinkinfo:
			err = decodeLinkinfo(v, &l)
		}
		if err != nil {
			return fmt.Errorf("attribute %d: %w", typ, err)
		}
		return nil
	})
	if err != nil {
		return Link{}, fmt.Errorf("rtnetlink link message (ifindex %d): %w", l.Index, err)
	}
	if l.ParentNetnsID != nil && l.ParentIndex == 0 {
		l.ParentNetnsID = nil // a netns id without a parent says nothing
	}
	return l, nil
}

func decodeLinkinfo(b []byte, l *Link) error {
	var data []byte
	err := walkAttrs(b, func(typ uint16, v []byte) error {
		switch typ {
		case iflaInfoKind:
			l.Kind = cString(v)
		case iflaInfoSlaveKind:
			l.SlaveKind = cString(v)
		case iflaInfoData:
			data = v
		}
		return nil
	})
	if err != nil || data == nil || l.Kind != "vlan" {
		return err
	}
	return walkAttrs(data, func(typ uint16, v []byte) error {
		if typ != iflaVLANID {
			return nil
		}
		if len(v) < 2 {
			return errShort
		}
		id := binary.NativeEndian.Uint16(v)
		l.VLANID = &id
		return nil
	})
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

var errShort = errors.New("attribute too short")

// walkAttrs calls fn for each netlink attribute in b (struct rtattr: u16
// length including the 4-byte header, u16 type, value padded to 4 bytes).
// The nested and byte-order flags are masked off the type.
func walkAttrs(b []byte, fn func(typ uint16, v []byte) error) error {
	for len(b) > 0 {
		if len(b) < 4 {
			return fmt.Errorf("%d trailing bytes, shorter than an attribute header", len(b))
		}
		n := int(binary.NativeEndian.Uint16(b[0:2]))
		typ := binary.NativeEndian.Uint16(b[2:4]) & 0x3fff
		if n < 4 || n > len(b) {
			return fmt.Errorf("attribute %d: length %d with %d bytes left", typ, n, len(b))
		}
		if err := fn(typ, b[4:n]); err != nil {
			return err
		}
		n = (n + 3) &^ 3
		if n > len(b) {
			n = len(b)
		}
		b = b[n:]
	}
	return nil
}

func u32(v []byte) (uint32, error) {
	if len(v) < 4 {
		return 0, errShort
	}
	return binary.NativeEndian.Uint32(v), nil
}

func u32p(v []byte) (*uint32, error) {
	x, err := u32(v)
	if err != nil {
		return nil, err
	}
	return &x, nil
}

// cString reads a NUL-terminated string attribute (tolerating a missing NUL).
func cString(v []byte) string {
	for i, c := range v {
		if c == 0 {
			return string(v[:i])
		}
	}
	return string(v)
}
