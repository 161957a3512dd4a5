package rdmanl

import "github.com/rdmatop/rdmatop/internal/nlmsg"

// Port is one port as RDMA_NLDEV_CMD_PORT_GET describes it. The IB-only
// attributes (CapFlags, SubnetPrefix, LID, SMLID, LMC) are zero on RoCE
// ports; the netdev is absent when none is attached in the caller's
// network namespace.
type Port struct {
	DevIndex     uint32    `json:"dev_index"`
	Dev          string    `json:"dev"`
	Index        uint32    `json:"port"`
	CapFlags     uint64    `json:"cap_flags,omitempty"`
	SubnetPrefix uint64    `json:"subnet_prefix,omitempty"`
	LID          uint32    `json:"lid,omitempty"`
	SMLID        uint32    `json:"sm_lid,omitempty"`
	LMC          uint8     `json:"lmc,omitempty"`
	State        PortState `json:"state"`
	PhysState    PhysState `json:"phys_state"`
	NetdevIndex  uint32    `json:"netdev_index,omitempty"`
	Netdev       string    `json:"netdev,omitempty"`
}

// ParsePorts decodes the replies to PortGetRequest or PortDumpRequest.
// The kernel answers a single PORT_GET with a message typed CMD_GET
// (0x1401, as captured), the dump with PORT_GET (0x1405): both are taken.
func ParsePorts(replies [][]byte) ([]Port, error) { return parsePorts(nlmsg.Native, replies) }

func parsePorts(o nlmsg.Order, replies [][]byte) ([]Port, error) {
	msgs, err := replyMessages(o, replies, CmdPortGet, CmdGet)
	if err != nil {
		return nil, err
	}
	ports := make([]Port, 0, len(msgs))
	for _, m := range msgs {
		pt, err := parsePort(m)
		if err != nil {
			return nil, err
		}
		ports = append(ports, pt)
	}
	return ports, nil
}

func parsePort(m nlmsg.Message) (Port, error) {
	var pt Port
	as, err := m.Attrs(0)
	if err != nil {
		return pt, err
	}
	for _, a := range as {
		var u8 uint8
		switch a.Type {
		case attrDevIndex:
			pt.DevIndex, err = a.U32()
		case attrDevName:
			pt.Dev = a.String()
		case attrPortIndex:
			pt.Index, err = a.U32()
		case attrCapFlags:
			pt.CapFlags, err = a.U64()
		case attrSubnetPrefix:
			pt.SubnetPrefix, err = a.U64()
		case attrLID:
			pt.LID, err = a.U32()
		case attrSMLID:
			pt.SMLID, err = a.U32()
		case attrLMC:
			pt.LMC, err = a.U8()
		case attrPortState:
			u8, err = a.U8()
			pt.State = PortState(u8)
		case attrPortPhysState:
			u8, err = a.U8()
			pt.PhysState = PhysState(u8)
		case attrNdevIndex:
			pt.NetdevIndex, err = a.U32()
		case attrNdevName:
			pt.Netdev = a.String()
		}
		if err != nil {
			return pt, err
		}
	}
	return pt, nil
}
