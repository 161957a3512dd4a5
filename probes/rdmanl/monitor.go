package rdmanl

import (
	"fmt"

	"github.com/rdmatop/rdmatop/probes/internal/nlmsg"
)

// MonitorEvent is one message of the RDMA_NL_GROUP_NOTIFY multicast group
// (what rdma monitor prints). The monitor does not report port state, GID
// or QP changes: those come from polling.
type MonitorEvent struct {
	Type        EventType `json:"type"`
	DevIndex    uint32    `json:"dev_index"`
	HasDev      bool      `json:"has_dev,omitempty"` // NETDEV_RENAME names no RDMA device
	Dev         string    `json:"dev,omitempty"`
	Port        uint32    `json:"port,omitempty"`
	NetdevIndex uint32    `json:"netdev_index,omitempty"`
	Netdev      string    `json:"netdev,omitempty"`
}

// String reads like a line of rdma monitor.
func (e MonitorEvent) String() string {
	s := "[" + e.Type.String() + "]"
	if e.HasDev {
		s += fmt.Sprintf(" dev %d %s", e.DevIndex, e.Dev)
	}
	if e.Port != 0 {
		s += fmt.Sprintf(" port %d", e.Port)
	}
	if e.Netdev != "" || e.NetdevIndex != 0 {
		s += fmt.Sprintf(" netdev %d %s", e.NetdevIndex, e.Netdev)
	}
	return s
}

// ParseMonitor decodes one buffer received on a socket that joined the
// monitor group. Messages of other types are skipped.
func ParseMonitor(buf []byte) ([]MonitorEvent, error) {
	msgs, err := nlmsg.Split(buf)
	if err != nil {
		return nil, err
	}
	var out []MonitorEvent
	for _, m := range msgs {
		if m.Type != MsgType(CmdMonitor) {
			continue
		}
		ev, err := parseMonitorEvent(m.Payload)
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func parseMonitorEvent(p []byte) (MonitorEvent, error) {
	var ev MonitorEvent
	as, err := nlmsg.Attrs(p)
	if err != nil {
		return ev, err
	}
	typed := false
	for _, a := range as {
		var u8 uint8
		switch a.Type {
		case attrEventType:
			u8, err = a.U8()
			ev.Type, typed = EventType(u8), true
		case attrDevIndex:
			ev.DevIndex, err = a.U32()
			ev.HasDev = true
		case attrDevName:
			ev.Dev = a.String()
		case attrPortIndex:
			ev.Port, err = a.U32()
		case attrNdevIndex:
			ev.NetdevIndex, err = a.U32()
		case attrNdevName:
			ev.Netdev = a.String()
		}
		if err != nil {
			return ev, err
		}
	}
	if !typed {
		return ev, fmt.Errorf("rdma netlink MONITOR: message without EVENT_TYPE")
	}
	return ev, nil
}
