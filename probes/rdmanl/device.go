package rdmanl

import "github.com/rdmatop/rdmatop/internal/nlmsg"

// Device is one RDMA device as RDMA_NLDEV_CMD_GET describes it.
type Device struct {
	Index        uint32   `json:"index"`
	Name         string   `json:"name"`
	NumPorts     uint32   `json:"num_ports"` // PORT_INDEX in a device message is the port count
	CapFlags     uint64   `json:"cap_flags"`
	FW           string   `json:"fw,omitempty"` // absent when the driver has none (rxe)
	NodeGUID     uint64   `json:"node_guid"`
	SysImageGUID uint64   `json:"sys_image_guid"`
	NodeType     NodeType `json:"node_type"`
	Protocol     string   `json:"protocol,omitempty"` // "ib", "roce", "iw", "opa", "usnic"
	DIM          bool     `json:"dim,omitempty"`      // adaptive interrupt moderation
	DevType      uint8    `json:"dev_type,omitempty"` // 1 = SMI sub-device (newest kernels)
	ParentName   string   `json:"parent,omitempty"`   // parent of a sub-device
}

// ParseDevices decodes the replies to DevDumpRequest or DevGetRequest.
func ParseDevices(replies [][]byte) ([]Device, error) { return parseDevices(nlmsg.Native, replies) }

func parseDevices(o nlmsg.Order, replies [][]byte) ([]Device, error) {
	msgs, err := replyMessages(o, replies, CmdGet)
	if err != nil {
		return nil, err
	}
	devs := make([]Device, 0, len(msgs))
	for _, m := range msgs {
		d, err := parseDevice(m)
		if err != nil {
			return nil, err
		}
		devs = append(devs, d)
	}
	return devs, nil
}

func parseDevice(m nlmsg.Message) (Device, error) {
	var d Device
	as, err := m.Attrs(0)
	if err != nil {
		return d, err
	}
	for _, a := range as {
		var u8 uint8
		switch a.Type {
		case attrDevIndex:
			d.Index, err = a.U32()
		case attrDevName:
			d.Name = a.String()
		case attrPortIndex:
			d.NumPorts, err = a.U32()
		case attrCapFlags:
			d.CapFlags, err = a.U64()
		case attrFWVersion:
			d.FW = a.String()
		case attrNodeGUID:
			d.NodeGUID, err = a.U64()
		case attrSysImageGUID:
			d.SysImageGUID, err = a.U64()
		case attrDevNodeType:
			u8, err = a.U8()
			d.NodeType = NodeType(u8)
		case attrDevProtocol:
			d.Protocol = a.String()
		case attrDevDim:
			u8, err = a.U8()
			d.DIM = u8 != 0
		case attrDevType:
			d.DevType, err = a.U8()
		case attrParentName:
			d.ParentName = a.String()
		}
		if err != nil {
			return d, err
		}
	}
	return d, nil
}
