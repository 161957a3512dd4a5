// Package nlmsgtest rewrites netlink messages in the other byte order, for
// tests that need what a host of that order (s390x, to an amd64 build)
// would have written: real captured answers, converted.
package nlmsgtest

import (
	"slices"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// Swap returns buf's messages, written in byte order from, with every
// header and integer reversed: what a host of the other order wrote. nested says which attribute types hold
// attributes (RDMA netlink nests without NLA_F_NESTED, so the caller
// knows), text which hold strings ("ib_core" is 8 bytes, like a u64);
// the other attributes of 2, 4 or 8 bytes are integers, and the rest
// (structs) stay as they are. An NLMSG_ERROR swaps its errno
// and the header it echoes; a message whose length is out of range ends
// the conversion, as it would end a reader.
func Swap(buf []byte, from nlmsg.Order, nested, text func(typ uint16) bool) []byte {
	out := slices.Clone(buf)
	for b := out; len(b) >= nlmsg.HdrLen; {
		n := int(from.Uint32(b))
		if n < nlmsg.HdrLen || n > len(b) {
			break
		}
		typ := from.Uint16(b[4:])
		header(b)
		p := b[nlmsg.HdrLen:n]
		switch typ {
		case nlmsg.TypeError, nlmsg.TypeDone:
			if len(p) >= 4 {
				rev(p[:4])
			}
			if typ == nlmsg.TypeError && len(p) >= 4+nlmsg.HdrLen {
				header(p[4:])
			}
		default:
			attrs(p, from, nested, text)
		}
		b = b[min(nlmsg.Align(n), len(b)):]
	}
	return out
}

// header reverses struct nlmsghdr's fields in place.
func header(b []byte) {
	rev(b[0:4])
	rev(b[4:6])
	rev(b[6:8])
	rev(b[8:12])
	rev(b[12:16])
}

// attrs reverses the attributes in b, and their integers, in place.
func attrs(b []byte, from nlmsg.Order, nested, text func(uint16) bool) {
	for len(b) >= nlmsg.AttrHdrLen {
		n := int(from.Uint16(b))
		typ := from.Uint16(b[2:]) & 0x3fff
		if n < nlmsg.AttrHdrLen || n > len(b) {
			return
		}
		data := b[nlmsg.AttrHdrLen:n]
		switch {
		case nested(typ):
			attrs(data, from, nested, text)
		case text(typ):
		case len(data) == 2 || len(data) == 4 || len(data) == 8:
			rev(data)
		}
		rev(b[0:2])
		rev(b[2:4])
		b = b[min(nlmsg.Align(n), len(b)):]
	}
}

func rev(b []byte) { slices.Reverse(b) }

// NLDevNested: the RDMA netlink (nldev) attributes that hold attributes,
// which the kernel nests without NLA_F_NESTED: RES_SUMMARY (15) and its
// entries (16), the QP table (19) and entries (20), the hardware counters
// (80) and their entries (81). For Swap.
func NLDevNested(typ uint16) bool {
	switch typ {
	case 15, 16, 19, 20, 80, 81:
		return true
	}
	return false
}

// NLDevText: the nldev attributes that hold strings: DEV_NAME (2),
// FW_VERSION (5), SUMMARY_ENTRY_NAME (17), RES_KERN_NAME (29), NDEV_NAME
// (51), DEV_PROTOCOL (67), STAT_HWCOUNTER_ENTRY_NAME (82), PARENT_NAME
// (100). For Swap.
func NLDevText(typ uint16) bool {
	switch typ {
	case 2, 5, 17, 29, 51, 67, 82, 100:
		return true
	}
	return false
}
