package rdmanl

import (
	"errors"
	"fmt"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// replyMessages reads the replies to one request (rdmatop asks for an
// ACK with every one), written in byte order o, and returns the messages
// whose type is nldev command cmd or one of also. The kernel's errno, and
// its extended ACK's text, comes back as an *Error, classified.
func replyMessages(o nlmsg.Order, replies [][]byte, cmd uint16, also ...uint16) ([]nlmsg.Message, error) {
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
	msgs, err := o.Reply(replies, nlmsg.FlagAck, want)
	var ke *nlmsg.KernelError
	switch {
	case errors.As(err, &ke):
		return nil, classify(&Error{Cmd: cmdName(cmd), Errno: Errno(ke.Errno), Msg: ke.Msg})
	case err != nil:
		return nil, fmt.Errorf("rdma netlink %s: %w", cmdName(cmd), err)
	}
	return msgs, nil
}

var cmdNames = map[uint16]string{
	CmdGet: "GET", CmdPortGet: "PORT_GET", CmdSysGet: "SYS_GET", CmdResGet: "RES_GET",
	CmdResQPGet: "RES_QP_GET", CmdStatGet: "STAT_GET", CmdStatGetState: "STAT_GET_STATUS",
}

func cmdName(cmd uint16) string {
	if s, ok := cmdNames[cmd]; ok {
		return s
	}
	return fmt.Sprintf("cmd %d", cmd)
}
