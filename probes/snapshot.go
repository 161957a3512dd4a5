package probes

import "time"

// Snapshot is everything known about the host at one sample, with rates
// against the previous sample. It is the JSON of `rdmatop --once --json`;
// field names are a stable contract: add, never rename.
type Snapshot struct {
	Time     time.Time `json:"time"`
	Interval float64   `json:"interval_s"` // seconds since the previous sample; 0 on the first
	Host     HostInfo  `json:"host"`
	Devices  []Device  `json:"devices"`
	Ports    []Port    `json:"ports"`
	QPs      []QP      `json:"qps"`
	Events   []Event   `json:"events"`
	Config   Config    `json:"config"`
	Status   []Status  `json:"status"`
}

// HostInfo names the machine the snapshot describes.
type HostInfo struct {
	Hostname string `json:"hostname,omitempty"`
	Kernel   string `json:"kernel,omitempty"`
	Source   string `json:"source"` // "live", "fixture DIR" or "bundle FILE"
}

// Device is an RDMA device.
type Device struct {
	Name     string `json:"name"`
	NodeType string `json:"node_type,omitempty"`
	NodeGUID string `json:"node_guid,omitempty"`
	FW       string `json:"fw_ver,omitempty"`
	HCAType  string `json:"hca_type,omitempty"`
	BoardID  string `json:"board_id,omitempty"`
	Driver   string `json:"driver,omitempty"` // mlx5, rxe, ... (from the name or ethtool)
	Ports    int    `json:"ports"`
}

// Port is one RDMA port with its netdev, counters and derived views.
type Port struct {
	Device    string  `json:"device"`
	Port      int     `json:"port"`
	Netdev    string  `json:"netdev,omitempty"`
	State     string  `json:"state,omitempty"`      // ACTIVE, DOWN, INIT, ARMED...
	PhysState string  `json:"phys_state,omitempty"` // LinkUp, Disabled, Polling...
	LinkLayer string  `json:"link_layer,omitempty"` // Ethernet (RoCE) or InfiniBand
	Rate      string  `json:"rate,omitempty"`       // as sysfs says it
	RateGbps  float64 `json:"rate_gbps,omitempty"`
	LID       string  `json:"lid,omitempty"`
	// MTU is the netdev MTU; RoCEMTU the largest IB MTU it allows (the
	// netdev MTU minus RoCEv2 headers, rounded down to 256..4096).
	MTU        *int          `json:"mtu,omitempty"`
	RoCEMTU    *int          `json:"roce_mtu,omitempty"`
	SpeedMbps  *int          `json:"speed_mbps,omitempty"`
	OperState  string        `json:"operstate,omitempty"`
	Counters   []Counter     `json:"counters"`
	PFC        []PFCPriority `json:"pfc,omitempty"`
	Congestion Congestion    `json:"congestion"`
	Traffic    Traffic       `json:"traffic"`
}

// Traffic is the port's throughput, from the best source available.
type Traffic struct {
	RxBytesPerSec   *float64 `json:"rx_bytes_per_s,omitempty"`
	TxBytesPerSec   *float64 `json:"tx_bytes_per_s,omitempty"`
	RxPacketsPerSec *float64 `json:"rx_packets_per_s,omitempty"`
	TxPacketsPerSec *float64 `json:"tx_packets_per_s,omitempty"`
	Source          string   `json:"source,omitempty"` // which counters these come from
}

// PFCPriority is priority flow control on one priority (802.1Qbb).
type PFCPriority struct {
	Priority int `json:"priority"`
	// Enabled comes from DCB netlink (or MLNX_OFED sysfs); absent when unknown.
	Enabled         *bool    `json:"enabled,omitempty"`
	RxPausePerSec   *float64 `json:"rx_pause_per_s,omitempty"`
	TxPausePerSec   *float64 `json:"tx_pause_per_s,omitempty"`
	RxPausedPercent *float64 `json:"rx_paused_pct,omitempty"` // share of the interval the port was paused (from pause duration)
	TxPausedPercent *float64 `json:"tx_paused_pct,omitempty"`
	RxTransitions   *uint64  `json:"rx_pause_transitions,omitempty"`
	TxTransitions   *uint64  `json:"tx_pause_transitions,omitempty"`
	RxPauseTotal    *uint64  `json:"rx_pause,omitempty"`
	TxPauseTotal    *uint64  `json:"tx_pause,omitempty"`
}

// Congestion is DCQCN at a glance: rates per second of the port's CNP and
// ECN counters, absent where the device does not count them.
type Congestion struct {
	CNPSentPerSec     *float64 `json:"cnp_sent_per_s,omitempty"`
	CNPHandledPerSec  *float64 `json:"cnp_handled_per_s,omitempty"`
	CNPIgnoredPerSec  *float64 `json:"cnp_ignored_per_s,omitempty"`
	ECNMarkedPerSec   *float64 `json:"ecn_marked_per_s,omitempty"`
	PauseStormWarning *uint64  `json:"pause_storm_warning_events,omitempty"`
	PauseStormError   *uint64  `json:"pause_storm_error_events,omitempty"`
}

// QP is one queue pair from the RDMA netlink resource dump.
type QP struct {
	Device           string  `json:"device"`
	Port             int     `json:"port,omitempty"`
	LQPN             uint32  `json:"lqpn"`
	RQPN             *uint32 `json:"rqpn,omitempty"`
	Type             string  `json:"type"`
	State            string  `json:"state"`
	SQPSN            *uint32 `json:"sq_psn,omitempty"`
	RQPSN            *uint32 `json:"rq_psn,omitempty"`
	PathMig          string  `json:"path_mig_state,omitempty"`
	PID              *int    `json:"pid,omitempty"`
	Comm             string  `json:"comm,omitempty"`
	KernOwner        string  `json:"kernel_owner,omitempty"`
	MemlockSoft      *uint64 `json:"memlock_soft,omitempty"` // bytes; absent when unlimited or unknown
	MemlockUnlimited bool    `json:"memlock_unlimited,omitempty"`
}

// Severity of an event or finding.
type Severity string

// Severities.
const (
	SevInfo     Severity = "info"
	SevWarning  Severity = "warning"
	SevCritical Severity = "critical"
)

// Event is something that happened between two samples.
type Event struct {
	Time     time.Time `json:"time"`
	Source   string    `json:"source"` // qp, port, device, gid, kmsg
	Kind     string    `json:"kind"`   // qp_state, qp_created, port_state, link_downed, ...
	Severity Severity  `json:"severity"`
	Device   string    `json:"device,omitempty"`
	Port     int       `json:"port,omitempty"`
	QPN      *uint32   `json:"qpn,omitempty"`
	Detail   string    `json:"detail"`
}

// Config is the host's configuration as it bears on RoCE.
type Config struct {
	GIDs   []GID         `json:"gids"`
	DCB    []DCBConfig   `json:"dcb,omitempty"`
	ECN    []ECNConfig   `json:"ecn,omitempty"`
	Memory *MemoryConfig `json:"memory,omitempty"`
}

// GID is one populated GID table entry.
type GID struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
	Index  int    `json:"index"`
	GID    string `json:"gid"`
	Type   string `json:"type"` // "IB/RoCE v1" or "RoCE v2"
	Netdev string `json:"netdev,omitempty"`
}

// DCBConfig is a netdev's PFC, trust and DSCP map (DCB netlink, IEEE).
type DCBConfig struct {
	Netdev     string      `json:"netdev"`
	PFCEnabled []int       `json:"pfc_enabled"`     // priorities with PFC on
	Trust      string      `json:"trust,omitempty"` // "dscp" when DSCP app entries exist, else "pcp"
	DSCPToPrio map[int]int `json:"dscp_to_prio,omitempty"`
	PrioToTC   []int       `json:"prio_tc,omitempty"`
}

// ECNConfig is the congestion-control setting of a netdev or device where
// the host exposes it (MLNX_OFED ecn/, debugfs cc_params).
type ECNConfig struct {
	Netdev    string            `json:"netdev,omitempty"`
	Device    string            `json:"device,omitempty"`
	NPEnabled map[int]bool      `json:"np_enabled,omitempty"` // notification point (CNP generation) per priority
	RPEnabled map[int]bool      `json:"rp_enabled,omitempty"` // reaction point (rate reduction) per priority
	Params    map[string]string `json:"params,omitempty"`
	Source    string            `json:"source"`
}

// MemoryConfig is what memory registration depends on.
type MemoryConfig struct {
	HugePagesTotal  *uint64 `json:"hugepages_total,omitempty"`
	HugePagesFree   *uint64 `json:"hugepages_free,omitempty"`
	HugePageSizeKB  *uint64 `json:"hugepage_size_kb,omitempty"`
	MemAvailableKB  *uint64 `json:"mem_available_kb,omitempty"`
	HighOrderFreeKB *uint64 `json:"high_order_free_kb,omitempty"` // free memory in blocks of 2 MiB or more
}
