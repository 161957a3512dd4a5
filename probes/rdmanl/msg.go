package rdmanl

import (
	"errors"
	"fmt"
)

// Message is one netlink message of a receive buffer.
type Message struct {
	Type    uint16
	Flags   uint16
	Seq     uint32
	PID     uint32
	Payload []byte // the bytes after struct nlmsghdr
}

// SplitMessages cuts one receive buffer into its netlink messages.
func SplitMessages(buf []byte) ([]Message, error) {
	var out []Message
	for len(buf) > 0 {
		if len(buf) < nlmsgHdrLen {
			return out, fmt.Errorf("rdma netlink: %d stray bytes after the last message", len(buf))
		}
		n := int(le.Uint32(buf))
		if n < nlmsgHdrLen || n > len(buf) {
			return out, fmt.Errorf("rdma netlink: message length %d out of range (%d bytes left)", n, len(buf))
		}
		out = append(out, Message{
			Type:    le.Uint16(buf[4:]),
			Flags:   le.Uint16(buf[6:]),
			Seq:     le.Uint32(buf[8:]),
			PID:     le.Uint32(buf[12:]),
			Payload: buf[nlmsgHdrLen:n],
		})
		adv := align4(n)
		if adv > len(buf) {
			adv = len(buf)
		}
		buf = buf[adv:]
	}
	return out, nil
}

// errIncomplete: the replies stop before NLMSG_DONE or the ACK.
var errIncomplete = errors.New("rdma netlink: reply ends before NLMSG_DONE or the acknowledgement")

// replyPayloads walks the reply buffers of one request and returns the
// payloads of the messages whose type is nldev command cmd or one of also.
// It stops at NLMSG_DONE or at the
// NLMSG_ERROR acknowledgement and turns a non-zero errno in either into an
// error; other message types are skipped.
func replyPayloads(replies [][]byte, cmd uint16, also ...uint16) ([][]byte, error) {
	want := func(t uint16) bool {
		if t == MsgType(cmd) {
			return true
		}
		for _, c := range also {
			if t == MsgType(c) {
				return true
			}
		}
		return false
	}
	var out [][]byte
	for _, buf := range replies {
		msgs, err := SplitMessages(buf)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if want(m.Type) {
				out = append(out, m.Payload)
				continue
			}
			switch m.Type {
			case nlmsgNoop:
			case nlmsgOverrun:
				return nil, fmt.Errorf("rdma netlink %s: receive overrun", cmdName(cmd))
			case nlmsgDone:
				if err := doneError(cmd, m); err != nil {
					return nil, err
				}
				return out, nil
			case nlmsgError:
				if err := ackError(cmd, m); err != nil {
					return nil, err
				}
				return out, nil
			}
		}
	}
	return nil, errIncomplete
}

// ackError decodes struct nlmsgerr (int error; struct nlmsghdr msg; the
// request unless NLM_F_CAPPED; extack TLVs if NLM_F_ACK_TLVS).
func ackError(cmd uint16, m Message) error {
	if len(m.Payload) < 4 {
		return fmt.Errorf("rdma netlink %s: short NLMSG_ERROR", cmdName(cmd))
	}
	code := int32(le.Uint32(m.Payload))
	if code == 0 {
		return nil
	}
	e := &Error{Cmd: cmdName(cmd), Errno: Errno(-code)}
	if m.Flags&flagAckTLVs != 0 {
		off := 4 + nlmsgHdrLen
		if m.Flags&flagCapped == 0 && len(m.Payload) >= 4+nlmsgHdrLen {
			off = 4 + align4(int(le.Uint32(m.Payload[4:])))
		}
		if off <= len(m.Payload) {
			e.Msg = extackMsg(m.Payload[off:])
		}
	}
	return classify(e)
}

// doneError reads the errno a failed dump leaves in NLMSG_DONE.
func doneError(cmd uint16, m Message) error {
	if len(m.Payload) < 4 {
		return nil
	}
	code := int32(le.Uint32(m.Payload))
	if code == 0 {
		return nil
	}
	e := &Error{Cmd: cmdName(cmd), Errno: Errno(-code)}
	if m.Flags&flagAckTLVs != 0 {
		e.Msg = extackMsg(m.Payload[4:])
	}
	return classify(e)
}

func extackMsg(b []byte) string {
	as, _ := parseAttrs(b)
	for _, a := range as {
		if a.typ == nlmsgerrAttrMsg {
			return a.str()
		}
	}
	return ""
}

var cmdNames = map[uint16]string{
	CmdGet: "GET", CmdPortGet: "PORT_GET", CmdSysGet: "SYS_GET", CmdResGet: "RES_GET",
	CmdResQPGet: "RES_QP_GET", CmdStatGet: "STAT_GET", CmdStatGetState: "STAT_GET_STATUS",
	CmdMonitor: "MONITOR",
}

func cmdName(cmd uint16) string {
	if s, ok := cmdNames[cmd]; ok {
		return s
	}
	return fmt.Sprintf("cmd %d", cmd)
}
