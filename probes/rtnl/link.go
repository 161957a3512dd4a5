package rtnl

// Link is one netdev as rtnetlink reports it.
type Link struct {
	Name  string `json:"name"`
	Index int    `json:"ifindex"`
	// Kind is the link type (IFLA_INFO_KIND: "veth", "vlan", "bond",
	// "bridge", ...); empty for a hardware device.
	Kind string `json:"kind,omitempty"`
	// SlaveKind is the kind of the master this link is enslaved to
	// ("bond", "bridge", "vrf"), if any.
	SlaveKind string `json:"slave_kind,omitempty"`
	Address   string `json:"address,omitempty"` // link-layer address
	MTU       int    `json:"mtu"`
	// OperState is the RFC 2863 state as /sys/class/net/IF/operstate spells
	// it: unknown, notpresent, down, lowerlayerdown, testing, dormant, up.
	OperState string `json:"operstate"`
	Flags     uint32 `json:"flags"`    // IFF_* flags of the ifinfomsg
	AdminUp   bool   `json:"admin_up"` // IFF_UP
	LowerUp   bool   `json:"lower_up"` // IFF_LOWER_UP: the driver signals L1 up

	Carrier          *bool   `json:"carrier,omitempty"`
	CarrierChanges   *uint32 `json:"carrier_changes,omitempty"`
	CarrierUpCount   *uint32 `json:"carrier_up_count,omitempty"`   // Linux 4.16+
	CarrierDownCount *uint32 `json:"carrier_down_count,omitempty"` // Linux 4.16+

	// SpeedMbps is the link speed (ethtool), absent when the link is down,
	// the speed is unknown or the driver does not say.
	SpeedMbps *uint32 `json:"speed_mbps,omitempty"`

	// MasterIndex is the bond, bridge or VRF this link belongs to.
	MasterIndex int `json:"master_ifindex,omitempty"`
	// ParentIndex is the link this one sits on (IFLA_LINK): a VLAN's lower
	// device, a veth's peer. With ParentNetnsID set it lives in another
	// network namespace and the index is meaningful there only.
	ParentIndex   int     `json:"parent_ifindex,omitempty"`
	ParentNetnsID *int32  `json:"parent_netnsid,omitempty"`
	VLANID        *uint16 `json:"vlan_id,omitempty"`
	// ParentDev is the bus device under the netdev ("0000:3b:00.0"), and
	// ParentDevBus its bus ("pci"), Linux 5.15+: the way to the RDMA device.
	ParentDev    string `json:"parent_dev,omitempty"`
	ParentDevBus string `json:"parent_dev_bus,omitempty"`

	Stats *Stats64 `json:"stats,omitempty"`
}

// Up reports whether the link can carry traffic: administratively up and
// with carrier.
func (l *Link) Up() bool {
	return l.AdminUp && l.Carrier != nil && *l.Carrier
}

// Stats64 is struct rtnl_link_stats64 (IFLA_STATS64), field by field.
// The last fields came with later kernels and are absent on older ones.
type Stats64 struct {
	RxPackets         uint64 `json:"rx_packets"`
	TxPackets         uint64 `json:"tx_packets"`
	RxBytes           uint64 `json:"rx_bytes"`
	TxBytes           uint64 `json:"tx_bytes"`
	RxErrors          uint64 `json:"rx_errors"`
	TxErrors          uint64 `json:"tx_errors"`
	RxDropped         uint64 `json:"rx_dropped"`
	TxDropped         uint64 `json:"tx_dropped"`
	Multicast         uint64 `json:"multicast"` // received
	Collisions        uint64 `json:"collisions"`
	RxLengthErrors    uint64 `json:"rx_length_errors"`
	RxOverErrors      uint64 `json:"rx_over_errors"` // receiver ring buffer overflow
	RxCRCErrors       uint64 `json:"rx_crc_errors"`
	RxFrameErrors     uint64 `json:"rx_frame_errors"`
	RxFIFOErrors      uint64 `json:"rx_fifo_errors"`
	RxMissedErrors    uint64 `json:"rx_missed_errors"` // missed by the host (no buffer)
	TxAbortedErrors   uint64 `json:"tx_aborted_errors"`
	TxCarrierErrors   uint64 `json:"tx_carrier_errors"`
	TxFIFOErrors      uint64 `json:"tx_fifo_errors"`
	TxHeartbeatErrors uint64 `json:"tx_heartbeat_errors"`
	TxWindowErrors    uint64 `json:"tx_window_errors"`
	RxCompressed      uint64 `json:"rx_compressed"`
	TxCompressed      uint64 `json:"tx_compressed"`
	// RxNoHandler: received, but no protocol took it (Linux 4.6+).
	RxNoHandler *uint64 `json:"rx_nohandler,omitempty"`
	// RxOtherhostDropped: dropped for another host's MAC (Linux 5.19+).
	RxOtherhostDropped *uint64 `json:"rx_otherhost_dropped,omitempty"`
}

// Slaves returns the links enslaved to master (a bond's ports), in the
// order given.
func Slaves(links []Link, master int) []Link {
	var out []Link
	for _, l := range links {
		if master != 0 && l.MasterIndex == master {
			out = append(out, l)
		}
	}
	return out
}
