package rdmanl

import "github.com/rdmatop/rdmatop/internal/nlmsg"

// SysInfo is the RDMA subsystem state from SYS_GET. Fields a kernel does
// not send stay false.
type SysInfo struct {
	// NetnsShared is true when RDMA devices are shared by all network
	// namespaces (the default), false in exclusive mode.
	NetnsShared bool `json:"netns_shared"`
	// MonitorSupported: the kernel sends monitor events (attribute 103,
	// added in late 2024). Older kernels do not.
	MonitorSupported bool `json:"monitor_supported"`
	CopyOnFork       bool `json:"copy_on_fork"`
	PrivilegedQKey   bool `json:"privileged_qkey"`
}

// ParseSys decodes the replies to SysGetRequest.
func ParseSys(replies [][]byte) (SysInfo, error) { return parseSys(nlmsg.Native, replies) }

func parseSys(o nlmsg.Order, replies [][]byte) (SysInfo, error) {
	var s SysInfo
	msgs, err := replyMessages(o, replies, CmdSysGet)
	if err != nil {
		return s, err
	}
	for _, m := range msgs {
		as, err := m.Attrs(0)
		if err != nil {
			return s, err
		}
		for _, a := range as {
			var v uint8
			switch a.Type {
			case attrNetnsMode, attrSysMonitorMode, attrCopyOnFork, attrPrivQKeyMode:
				if v, err = a.U8(); err != nil {
					return s, err
				}
			}
			switch a.Type {
			case attrNetnsMode:
				s.NetnsShared = v != 0
			case attrSysMonitorMode:
				s.MonitorSupported = v != 0
			case attrCopyOnFork:
				s.CopyOnFork = v != 0
			case attrPrivQKeyMode:
				s.PrivilegedQKey = v != 0
			}
		}
	}
	return s, nil
}
