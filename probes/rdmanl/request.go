package rdmanl

import (
	"encoding/binary"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// Request encoders. Each returns one netlink message exactly as iproute2's
// rdma (6.1) builds it, with nlmsg_seq and nlmsg_pid 0: the connection
// stamps its own sequence number (SetSeq) before sending. Every request
// asks for an ACK, as rdma does, so a reply always ends in NLMSG_DONE
// (dumps) or an NLMSG_ERROR acknowledgement (single gets).

const (
	getFlags  = nlmsg.FlagRequest | nlmsg.FlagAck
	dumpFlags = nlmsg.FlagRequest | nlmsg.FlagAck | nlmsg.FlagDump
)

// DevDumpRequest lists every RDMA device: RDMA_NLDEV_CMD_GET with
// NLM_F_DUMP and no attributes (what rdma sends first for every command).
func DevDumpRequest() []byte { return nlmsg.NewRequest(MsgType(CmdGet), dumpFlags, nil).Bytes() }

// DevGetRequest asks for one device (rdma dev show).
func DevGetRequest(dev uint32) []byte {
	return nlmsg.NewRequest(MsgType(CmdGet), getFlags, nil).U32(attrDevIndex, dev).Bytes()
}

// PortGetRequest asks for one port (rdma link show DEV/PORT).
func PortGetRequest(dev, port uint32) []byte {
	return nlmsg.NewRequest(MsgType(CmdPortGet), getFlags, nil).U32(attrDevIndex, dev).U32(attrPortIndex, port).Bytes()
}

// PortDumpRequest lists every port of one device; the kernel requires
// DEV_INDEX for this dump.
func PortDumpRequest(dev uint32) []byte {
	return nlmsg.NewRequest(MsgType(CmdPortGet), dumpFlags, nil).U32(attrDevIndex, dev).Bytes()
}

// QPDumpRequest dumps the QPs of one device (rdma res show qp). port 0
// leaves PORT_INDEX out; rdma sends both forms (port 0, then each port)
// and the kernel answers both with every QP of the device, so one
// request with port 0 is enough.
func QPDumpRequest(dev, port uint32) []byte {
	e := nlmsg.NewRequest(MsgType(CmdResQPGet), dumpFlags, nil).U32(attrDevIndex, dev)
	if port != 0 {
		e.U32(attrPortIndex, port)
	}
	return e.Bytes()
}

// StatGetRequest reads the default hardware counters of one port (rdma
// statistic show link DEV/PORT): STAT_GET without NLM_F_DUMP and without
// STAT_RES.
func StatGetRequest(dev, port uint32) []byte {
	return nlmsg.NewRequest(MsgType(CmdStatGet), getFlags, nil).U32(attrDevIndex, dev).U32(attrPortIndex, port).Bytes()
}

// SysGetRequest reads the RDMA subsystem settings, among them whether the
// kernel supports the monitor group (rdma monitor checks this first).
func SysGetRequest() []byte { return nlmsg.NewRequest(MsgType(CmdSysGet), getFlags, nil).Bytes() }

// SetSeq returns a copy of the request msg with nlmsg_seq set to seq and
// nlmsg_pid 0.
func SetSeq(msg []byte, seq uint32) []byte {
	out := append([]byte(nil), msg...)
	if len(out) >= nlmsg.HdrLen {
		binary.NativeEndian.PutUint32(out[8:], seq)
		binary.NativeEndian.PutUint32(out[12:], 0)
	}
	return out
}
