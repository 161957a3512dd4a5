package nlmsg

import (
	"encoding/binary"
	"fmt"
	"syscall"
)

// ne is netlink's byte order: the host's.
var ne = binary.NativeEndian

// Header layout and the message types and flags rdmatop reads
// (include/uapi/linux/netlink.h).
const (
	HdrLen = 16 // sizeof(struct nlmsghdr)

	TypeNoop    = 0x1 // NLMSG_NOOP
	TypeError   = 0x2 // NLMSG_ERROR: an ACK (error 0) or the kernel's error
	TypeDone    = 0x3 // NLMSG_DONE: the end of a dump
	TypeOverrun = 0x4 // NLMSG_OVERRUN

	FlagRequest  = 0x1   // NLM_F_REQUEST
	FlagMulti    = 0x2   // NLM_F_MULTI
	FlagAck      = 0x4   // NLM_F_ACK
	FlagDumpIntr = 0x10  // NLM_F_DUMP_INTR: a change interrupted the dump
	FlagDump     = 0x300 // NLM_F_DUMP (NLM_F_ROOT|NLM_F_MATCH)
	FlagCapped   = 0x100 // NLMSG_ERROR: the request is not echoed
	FlagAckTLVs  = 0x200 // NLMSG_ERROR: extended ack attributes follow

	ErrAttrMsg = 1 // NLMSGERR_ATTR_MSG: the extended ack's text
)

// Message is one netlink message of a receive buffer.
type Message struct {
	Type    uint16
	Flags   uint16
	Seq     uint32
	PID     uint32
	Payload []byte // the bytes after struct nlmsghdr
	order   Order
}

// Split cuts one receive buffer into its messages. A length shorter than
// the header or running past the buffer, or stray bytes after the last
// message, is an error (the messages before it are returned).
func (o Order) Split(buf []byte) ([]Message, error) {
	var out []Message
	for len(buf) > 0 {
		if len(buf) < HdrLen {
			return out, fmt.Errorf("netlink: %d stray bytes after the last message", len(buf))
		}
		n := int(o.Uint32(buf))
		if n < HdrLen || n > len(buf) {
			return out, fmt.Errorf("netlink: message length %d out of range (%d bytes left)", n, len(buf))
		}
		out = append(out, Message{Type: o.Uint16(buf[4:]), Flags: o.Uint16(buf[6:]), Seq: o.Uint32(buf[8:]),
			PID: o.Uint32(buf[12:]), Payload: buf[HdrLen:n], order: o})
		buf = buf[min(Align(n), len(buf)):]
	}
	return out, nil
}

// Split splits messages in this host's byte order (Native.Split).
func Split(buf []byte) ([]Message, error) { return Native.Split(buf) }

// Align rounds n up to netlink's 4-byte alignment (NLMSG_ALIGN, NLA_ALIGN).
func Align(n int) int { return (n + 3) &^ 3 }

// IsError reports an NLMSG_ERROR message (an ACK or an error).
func (m Message) IsError() bool { return m.Type == TypeError }

// IsDone reports NLMSG_DONE.
func (m Message) IsDone() bool { return m.Type == TypeDone }

// Errno is the error an NLMSG_ERROR message carries (0 for an ACK), or
// the one a dump's NLMSG_DONE ends with (0 when it completed).
func (m Message) Errno() syscall.Errno {
	if m.Type != TypeError && m.Type != TypeDone || len(m.Payload) < 4 {
		return 0
	}
	return syscall.Errno(-int32(m.order.Uint32(m.Payload)))
}

// ExtAck returns the text of the extended ACK of an NLMSG_ERROR or
// NLMSG_DONE carrying one ("" when there is none): struct nlmsgerr (int
// error; the request's header, and the request unless NLM_F_CAPPED) then
// attributes; NLMSG_DONE has the int and the attributes.
func (m Message) ExtAck() string {
	if m.Flags&FlagAckTLVs == 0 || len(m.Payload) < 4 {
		return ""
	}
	off := 4
	if m.Type == TypeError {
		off += HdrLen
		if m.Flags&FlagCapped == 0 && len(m.Payload) >= 4+HdrLen {
			off = 4 + Align(int(m.order.Uint32(m.Payload[4:])))
		}
	}
	if off > len(m.Payload) {
		return ""
	}
	as, _ := m.order.Attrs(m.Payload[off:])
	for _, a := range as {
		if a.Type == ErrAttrMsg {
			return a.String()
		}
	}
	return ""
}

// Attrs returns the attributes of the payload after a family's fixed
// header of fixed bytes (struct dcbmsg: 4; none: 0), in the message's
// byte order.
func (m Message) Attrs(fixed int) ([]Attr, error) {
	if fixed > len(m.Payload) {
		return nil, fmt.Errorf("netlink: payload of %d bytes, shorter than its %d-byte header", len(m.Payload), fixed)
	}
	return m.order.Attrs(m.Payload[fixed:])
}

// Order is the byte order the message was split with.
func (m Message) Order() Order { return m.order }
