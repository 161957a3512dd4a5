package rdmanl

import (
	"fmt"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// QP is one queue pair of the RES_QP_GET dump. Attributes the kernel
// sends only for some QPs come with a Has flag: RQPN, RQ PSN and the
// path-migration state only for connected types (RC, UC, XRC), PDN and
// PID only for user QPs. PSNs are 24-bit values.
type QP struct {
	DevIndex   uint32       `json:"dev_index"`
	Dev        string       `json:"dev"`
	Port       uint32       `json:"port,omitempty"` // 0 until the QP is bound to a port (RESET/INIT)
	LQPN       uint32       `json:"lqpn"`
	RQPN       uint32       `json:"rqpn,omitempty"`
	HasRQPN    bool         `json:"has_rqpn,omitempty"`
	Type       QPType       `json:"type"`
	SubType    string       `json:"subtype,omitempty"` // driver QPs (type DRIVER), e.g. mlx5 "DCI"
	State      QPState      `json:"state"`
	SQPSN      uint32       `json:"sq_psn"`
	RQPSN      uint32       `json:"rq_psn,omitempty"`
	HasRQPSN   bool         `json:"has_rq_psn,omitempty"`
	PathMig    PathMigState `json:"path_mig_state,omitempty"`
	HasPathMig bool         `json:"has_path_mig_state,omitempty"`
	PDN        uint32       `json:"pdn,omitempty"`
	HasPDN     bool         `json:"has_pdn,omitempty"`
	// PID is the owning task in the caller's PID namespace (user QPs).
	PID    uint32 `json:"pid,omitempty"`
	HasPID bool   `json:"has_pid,omitempty"`
	// Comm is the owner's command name. Netlink does not carry it: it is
	// /proc/PID/comm, filled in by a CommFunc (as iproute2 does).
	Comm string `json:"comm,omitempty"`
	// KernOwner names the kernel module owning a kernel QP ("ib_core",
	// "rdma_cm", "nvme_rdma", ...).
	KernOwner string `json:"kern_owner,omitempty"`
}

// Owner is what rdma prints as "comm": the kernel owner of a kernel QP,
// else the task's command name.
func (q QP) Owner() string {
	if q.KernOwner != "" {
		return q.KernOwner
	}
	return q.Comm
}

// ParseQPs decodes the replies to QPDumpRequest: every RES_QP_ENTRY of
// every message, in kernel order.
func ParseQPs(replies [][]byte) ([]QP, error) { return parseQPs(nlmsg.Native, replies) }

func parseQPs(o nlmsg.Order, replies [][]byte) ([]QP, error) {
	msgs, err := replyMessages(o, replies, CmdResQPGet)
	if err != nil {
		return nil, err
	}
	var qps []QP
	for _, m := range msgs {
		qps, err = appendQPs(qps, m)
		if err != nil {
			return nil, err
		}
	}
	return qps, nil
}

func appendQPs(qps []QP, m nlmsg.Message) ([]QP, error) {
	as, err := m.Attrs(0)
	if err != nil {
		return qps, err
	}
	var dev QP // device fields shared by the entries
	var tables []nlmsg.Attr
	for _, a := range as {
		switch a.Type {
		case attrDevIndex:
			if dev.DevIndex, err = a.U32(); err != nil {
				return qps, err
			}
		case attrDevName:
			dev.Dev = a.String()
		case attrResQP:
			tables = append(tables, a)
		}
	}
	for _, t := range tables {
		entries, err := t.Attrs()
		if err != nil {
			return qps, err
		}
		for _, e := range entries {
			if e.Type != attrResQPEntry {
				continue
			}
			q, err := parseQPEntry(e)
			if err != nil {
				return qps, err
			}
			q.DevIndex, q.Dev = dev.DevIndex, dev.Dev
			qps = append(qps, q)
		}
	}
	return qps, nil
}

func parseQPEntry(entry nlmsg.Attr) (QP, error) {
	var q QP
	as, err := entry.Attrs()
	if err != nil {
		return q, err
	}
	var haveLQPN, haveType, haveState bool
	for _, a := range as {
		var u8 uint8
		switch a.Type {
		case attrPortIndex:
			q.Port, err = a.U32()
		case attrResLQPN:
			q.LQPN, err = a.U32()
			haveLQPN = true
		case attrResRQPN:
			q.RQPN, err = a.U32()
			q.HasRQPN = true
		case attrResRQPSN:
			q.RQPSN, err = a.U32()
			q.HasRQPSN = true
		case attrResSQPSN:
			q.SQPSN, err = a.U32()
		case attrResPathMigState:
			u8, err = a.U8()
			q.PathMig, q.HasPathMig = PathMigState(u8), true
		case attrResType:
			u8, err = a.U8()
			q.Type, haveType = QPType(u8), true
		case attrResState:
			u8, err = a.U8()
			q.State, haveState = QPState(u8), true
		case attrResPID:
			q.PID, err = a.U32()
			q.HasPID = true
		case attrResKernName:
			q.KernOwner = a.String()
		case attrResPDN:
			q.PDN, err = a.U32()
			q.HasPDN = true
		case attrResSubtype:
			q.SubType = a.String()
		}
		if err != nil {
			return q, err
		}
	}
	if !haveLQPN || !haveType || !haveState {
		return q, fmt.Errorf("rdma netlink RES_QP_GET: QP entry without LQPN, TYPE or STATE")
	}
	return q, nil
}
