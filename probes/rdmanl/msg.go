package rdmanl

import (
	"errors"
	"fmt"

	"github.com/rdmatop/rdmatop/probes/internal/nlmsg"
)

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
		msgs, err := nlmsg.Split(buf)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if want(m.Type) {
				out = append(out, m.Payload)
				continue
			}
			switch m.Type {
			case nlmsg.TypeNoop:
			case nlmsg.TypeOverrun:
				return nil, fmt.Errorf("rdma netlink %s: receive overrun", cmdName(cmd))
			case nlmsg.TypeDone:
				if err := doneError(cmd, m); err != nil {
					return nil, err
				}
				return out, nil
			case nlmsg.TypeError:
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
func ackError(cmd uint16, m nlmsg.Message) error {
	if len(m.Payload) < 4 {
		return fmt.Errorf("rdma netlink %s: short NLMSG_ERROR", cmdName(cmd))
	}
	return kernelError(cmd, m)
}

// doneError reads the errno a failed dump leaves in NLMSG_DONE.
func doneError(cmd uint16, m nlmsg.Message) error {
	if len(m.Payload) < 4 {
		return nil
	}
	return kernelError(cmd, m)
}

// kernelError is the kernel's errno and extended ACK text of an
// NLMSG_ERROR or NLMSG_DONE, classified; nil for 0.
func kernelError(cmd uint16, m nlmsg.Message) error {
	errno := m.Errno()
	if errno == 0 {
		return nil
	}
	return classify(&Error{Cmd: cmdName(cmd), Errno: Errno(errno), Msg: m.ExtAck()})
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
