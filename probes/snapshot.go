package probes

import "time"

// Snapshot is everything known about the host at one sample, with rates
// against the previous sample. It is the JSON of `rdmatop --once --json`;
// field names are a stable contract: add, never rename.
type Snapshot struct {
	Time     time.Time `json:"time,omitzero" expr:"time"`
	Interval float64   `json:"interval_s" expr:"interval_s"` // seconds since the previous sample; 0 on the first
	Host     HostInfo  `json:"host" expr:"host"`
	Devices  []Device  `json:"devices" expr:"devices"`
	Ports    []Port    `json:"ports" expr:"ports"`
	QPs      []QP      `json:"qps" expr:"qps"`
	Events   []Event   `json:"events" expr:"events"`
	Config   Config    `json:"config" expr:"config"`
	Status   []Status  `json:"status" expr:"status"`
	// NCCLRAS is NCCL's RAS answer (--nccl-ras); nil when not asked or
	// not answered (the nccl-ras source's status says why).
	NCCLRAS *NCCLRAS `json:"nccl_ras,omitempty"`
	// GPUProcesses are the processes holding GPU device files, with
	// their TCP bytes (the gpu-tcp source); nil when not read.
	GPUProcesses []GPUProcess `json:"gpu_processes,omitempty" expr:"gpu_processes"`
	// RDMABalance is how the RDMA bytes spread over the ACTIVE ports
	// alike; nil without their byte rates (a first sample, a counter
	// that did not answer): absent is not idle.
	RDMABalance *RDMABalance `json:"rdma_balance,omitempty"`
}

// HostInfo names the machine the snapshot describes.
type HostInfo struct {
	Hostname string `json:"hostname,omitempty" expr:"hostname"`
	Kernel   string `json:"kernel,omitempty" expr:"kernel"`
	Source   string `json:"source" expr:"source"` // "live", "fixture DIR" or "bundle FILE"
}

// Device is an RDMA device.
type Device struct {
	Name     string `json:"name" expr:"name"`
	NodeType string `json:"node_type,omitempty" expr:"node_type"`
	NodeGUID string `json:"node_guid,omitempty" expr:"node_guid"`
	FW       string `json:"fw_ver,omitempty" expr:"fw_ver"`
	HCAType  string `json:"hca_type,omitempty" expr:"hca_type"`
	BoardID  string `json:"board_id,omitempty" expr:"board_id"`
	Driver   string `json:"driver,omitempty" expr:"driver"` // mlx5, rxe, ... (from the name or ethtool)
	Ports    int    `json:"ports" expr:"ports"`
}

// Port is one RDMA port with its netdev, counters and derived views.
type Port struct {
	Device    string  `json:"device" expr:"device"`
	Port      int     `json:"port" expr:"port"`
	Netdev    string  `json:"netdev,omitempty" expr:"netdev"`
	State     string  `json:"state,omitempty" expr:"state"`           // ACTIVE, DOWN, INIT, ARMED...
	PhysState string  `json:"phys_state,omitempty" expr:"phys_state"` // LinkUp, Disabled, Polling...
	LinkLayer string  `json:"link_layer,omitempty" expr:"link_layer"` // Ethernet (RoCE) or InfiniBand
	Rate      string  `json:"rate,omitempty" expr:"rate"`             // as sysfs says it
	RateGbps  float64 `json:"rate_gbps,omitempty" expr:"rate_gbps"`
	LID       string  `json:"lid,omitempty" expr:"lid"`
	// MTU is the netdev MTU; RoCEMTU the largest IB MTU it allows (the
	// netdev MTU minus RoCEv2 headers, rounded down to 256..4096).
	MTU       *int   `json:"mtu,omitempty" expr:"mtu"`
	RoCEMTU   *int   `json:"roce_mtu,omitempty" expr:"roce_mtu"`
	SpeedMbps *int   `json:"speed_mbps,omitempty" expr:"speed_mbps"`
	OperState string `json:"operstate,omitempty" expr:"operstate"`
	// StaleS is set when the port's state and attributes are not from
	// this sample: no source that reads them answered, and they are
	// carried forward from an answer this many seconds old.
	StaleS *float64 `json:"stale_s,omitempty" expr:"stale_s"`
	// From names the sources that gave the port's state this sample
	// when sysfs did not ("rdma netlink"); empty when sysfs did.
	From       string        `json:"state_from,omitempty" expr:"state_from"`
	Counters   []Counter     `json:"counters" expr:"counters"`
	PFC        []PFCPriority `json:"pfc,omitempty" expr:"pfc"`
	Congestion Congestion    `json:"congestion" expr:"congestion"`
	Traffic    Traffic       `json:"traffic" expr:"traffic"`
}

// Traffic is the port's throughput, from the best source available.
type Traffic struct {
	RxBytesPerSec   *float64 `json:"rx_bytes_per_s,omitempty" expr:"rx_bytes_per_s"`
	TxBytesPerSec   *float64 `json:"tx_bytes_per_s,omitempty" expr:"tx_bytes_per_s"`
	RxPacketsPerSec *float64 `json:"rx_packets_per_s,omitempty" expr:"rx_packets_per_s"`
	TxPacketsPerSec *float64 `json:"tx_packets_per_s,omitempty" expr:"tx_packets_per_s"`
	Source          string   `json:"source,omitempty" expr:"source"` // which counters these come from
}

// PFCPriority is priority flow control on one priority (802.1Qbb).
type PFCPriority struct {
	Priority int `json:"priority" expr:"priority"`
	// Enabled comes from DCB netlink (or MLNX_OFED sysfs); absent when unknown.
	Enabled         *bool    `json:"enabled,omitempty" expr:"enabled"`
	RxPausePerSec   *float64 `json:"rx_pause_per_s,omitempty" expr:"rx_pause_per_s"`
	TxPausePerSec   *float64 `json:"tx_pause_per_s,omitempty" expr:"tx_pause_per_s"`
	RxPausedPercent *float64 `json:"rx_paused_pct,omitempty" expr:"rx_paused_pct"` // share of the interval the port was paused (from pause duration)
	TxPausedPercent *float64 `json:"tx_paused_pct,omitempty" expr:"tx_paused_pct"`
	RxTransitions   *uint64  `json:"rx_pause_transitions,omitempty" expr:"rx_pause_transitions"`
	TxTransitions   *uint64  `json:"tx_pause_transitions,omitempty" expr:"tx_pause_transitions"`
	RxPauseTotal    *uint64  `json:"rx_pause,omitempty" expr:"rx_pause"`
	TxPauseTotal    *uint64  `json:"tx_pause,omitempty" expr:"tx_pause"`
}

// Congestion is DCQCN at a glance: rates per second of the port's CNP and
// ECN counters, absent where the device does not count them.
type Congestion struct {
	CNPSentPerSec     *float64 `json:"cnp_sent_per_s,omitempty" expr:"cnp_sent_per_s"`
	CNPHandledPerSec  *float64 `json:"cnp_handled_per_s,omitempty" expr:"cnp_handled_per_s"`
	CNPIgnoredPerSec  *float64 `json:"cnp_ignored_per_s,omitempty" expr:"cnp_ignored_per_s"`
	ECNMarkedPerSec   *float64 `json:"ecn_marked_per_s,omitempty" expr:"ecn_marked_per_s"`
	PauseStormWarning *uint64  `json:"pause_storm_warning_events,omitempty" expr:"pause_storm_warning_events"`
	PauseStormError   *uint64  `json:"pause_storm_error_events,omitempty" expr:"pause_storm_error_events"`
}

// QP is one queue pair from the RDMA netlink resource dump.
type QP struct {
	Device           string  `json:"device" expr:"device"`
	Port             int     `json:"port,omitempty" expr:"port"`
	LQPN             uint32  `json:"lqpn" expr:"lqpn"`
	RQPN             *uint32 `json:"rqpn,omitempty" expr:"rqpn"`
	Type             string  `json:"type" expr:"type"`
	State            string  `json:"state" expr:"state"`
	SQPSN            *uint32 `json:"sq_psn,omitempty" expr:"sq_psn"`
	RQPSN            *uint32 `json:"rq_psn,omitempty" expr:"rq_psn"`
	PathMig          string  `json:"path_mig_state,omitempty" expr:"path_mig_state"`
	PID              *int    `json:"pid,omitempty" expr:"pid"`
	Comm             string  `json:"comm,omitempty" expr:"comm"`
	KernOwner        string  `json:"kernel_owner,omitempty" expr:"kernel_owner"`
	MemlockSoft      *uint64 `json:"memlock_soft,omitempty" expr:"memlock_soft"` // bytes; absent when unlimited or unknown
	MemlockUnlimited bool    `json:"memlock_unlimited,omitempty" expr:"memlock_unlimited"`
	// What the owner's cgroup says (probes/owner): its path, the
	// container (runtime and 64-hex id) and the Kubernetes pod (UID, its
	// QoS class, and Pod: NAMESPACE/NAME when the node's /var/log/pods
	// names the UID). Empty when unknown or when the cgroup names none.
	Cgroup      string `json:"cgroup,omitempty" expr:"cgroup"`
	Runtime     string `json:"container_runtime,omitempty" expr:"container_runtime"`
	ContainerID string `json:"container_id,omitempty" expr:"container_id"`
	PodUID      string `json:"pod_uid,omitempty" expr:"pod_uid"`
	// PodQoS is the pod's Kubernetes QoS class, from the cgroup's pod
	// slice: guaranteed, burstable or besteffort.
	PodQoS string `json:"pod_qos_class,omitempty" expr:"pod_qos_class"`
	Pod    string `json:"pod,omitempty" expr:"pod"`
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
	Time     time.Time `json:"time,omitzero" expr:"time"`
	Source   string    `json:"source" expr:"source"` // qp, port, device, gid, kmsg
	Kind     string    `json:"kind" expr:"kind"`     // qp_state, qp_created, port_state, link_downed, ...
	Severity Severity  `json:"severity" expr:"severity"`
	Device   string    `json:"device,omitempty" expr:"device"`
	// PCI and Netdev: the PCI address and netdev a kernel log line names
	// besides its Device (the most specific of them), so that a command
	// about the event can name the very function it came from.
	PCI    string  `json:"pci,omitempty" expr:"pci"`
	Netdev string  `json:"netdev,omitempty" expr:"netdev"`
	Port   int     `json:"port,omitempty" expr:"port"`
	QPN    *uint32 `json:"qpn,omitempty" expr:"qpn"`
	Detail string  `json:"detail" expr:"detail"`
	// NCCL is what an NCCL log line said (source nccl), parsed.
	NCCL *NCCLError `json:"nccl,omitempty" expr:"nccl"`
}

// NCCLError is a work completion error (or an asynchronous event) NCCL's
// IB/RoCE transport logged. Fields a line did not carry are zero or nil:
// NCCL's wording changed over its versions (probes/nccl).
type NCCLError struct {
	Host    string `json:"host,omitempty" expr:"host"` // NCCL's line prefix: hostname, pid, CUDA device
	PID     int    `json:"pid,omitempty" expr:"pid"`
	CUDADev *int   `json:"cuda_dev,omitempty" expr:"cuda_dev"`
	// Status is the ibv_wc_status number (12: IBV_WC_RETRY_EXC_ERR), nil
	// for an asynchronous event; StatusName its verbs name.
	Status     *int   `json:"status,omitempty" expr:"status"`
	StatusName string `json:"status_name,omitempty" expr:"status_name"`
	Opcode     *int   `json:"opcode,omitempty" expr:"opcode"`
	VendorErr  *int   `json:"vendor_err,omitempty" expr:"vendor_err"`
	Direction  string `json:"direction,omitempty" expr:"direction"` // Send or Recv
	// Peer is the remote address NCCL names (IPv4 or IPv6), PeerPort its
	// port; LocalGID and RemoteGID the GIDs of the connection.
	Peer      string `json:"peer,omitempty" expr:"peer"`
	PeerPort  int    `json:"peer_port,omitempty" expr:"peer_port"`
	LocalGID  string `json:"local_gid,omitempty" expr:"local_gid"`
	RemoteGID string `json:"remote_gid,omitempty" expr:"remote_gid"`
	// GIDIndex is the local GID's index, where NCCL logs it.
	GIDIndex *int `json:"gid_index,omitempty" expr:"gid_index"`
	// Async is an asynchronous event's name (port error, local catastrophic
	// error, ...), empty for a completion error.
	Async string `json:"async,omitempty" expr:"async"`
	// What NCCL chose, from its INFO lines (probes/nccl choices.go): the
	// network (IB, Socket, a plugin's name) and the devices it uses
	// ("mlx5_0:1/RoCE", "eth0:10.0.0.7<0>"); why it has no RDMA device;
	// GPUDirect RDMA on an HCA (nil: not said); a channel's transport
	// ("NET/IB/0/GDRDMA", "NET/Socket/1", "P2P/IPC"); an NCCL_* setting it
	// read.
	Net     string   `json:"net,omitempty" expr:"net"`
	Devices []string `json:"devices,omitempty" expr:"devices"`
	Reason  string   `json:"reason,omitempty" expr:"reason"`
	GDR     *bool    `json:"gdr,omitempty" expr:"gdr"`
	Via     string   `json:"via,omitempty" expr:"via"`
	// Paths are a topology graph's path types, within the node and from a
	// GPU to its NIC ("NVL/PIX", "SYS/SYS"), as NCCL's search logs them.
	Paths   string `json:"paths,omitempty" expr:"paths"`
	Setting string `json:"setting,omitempty" expr:"setting"`
	Value   string `json:"value,omitempty" expr:"value"`
}

// Config is the host's configuration as it bears on RoCE.
type Config struct {
	GIDs   []GID         `json:"gids" expr:"gids"`
	DCB    []DCBConfig   `json:"dcb,omitempty" expr:"dcb"`
	ECN    []ECNConfig   `json:"ecn,omitempty" expr:"ecn"`
	Memory *MemoryConfig `json:"memory,omitempty" expr:"memory"`
	// GPUDirect is the kernel side of GPUDirect RDMA; nil when
	// /sys/module could not be read.
	GPUDirect *GPUDirectConfig `json:"gpudirect,omitempty" expr:"gpudirect"`
}

// GPUDirectConfig is what /sys/module says of GPUDirect RDMA.
type GPUDirectConfig struct {
	NVIDIA bool `json:"nvidia" expr:"nvidia"` // NVIDIA's GPU driver (nvidia) is loaded
	// PeerMem are the peer-memory modules loaded (nvidia_peermem,
	// nv_peer_mem): without one, an RDMA NIC can reach GPU memory only
	// through DMA-BUF (NCCL 2.13+, Linux 5.12+, NVIDIA's open kernel
	// modules).
	PeerMem []string `json:"peer_mem,omitempty" expr:"peer_mem"`
}

// GID is one populated GID table entry.
type GID struct {
	Device string `json:"device" expr:"device"`
	Port   int    `json:"port" expr:"port"`
	Index  int    `json:"index" expr:"index"`
	GID    string `json:"gid" expr:"gid"`
	Type   string `json:"type" expr:"type"` // "IB/RoCE v1" or "RoCE v2"
	Netdev string `json:"netdev,omitempty" expr:"netdev"`
}

// DCBConfig is a netdev's PFC, trust and DSCP map (DCB netlink, IEEE).
type DCBConfig struct {
	Netdev     string      `json:"netdev" expr:"netdev"`
	PFCEnabled []int       `json:"pfc_enabled" expr:"pfc_enabled"` // priorities with PFC on
	Trust      string      `json:"trust,omitempty" expr:"trust"`   // "dscp" when DSCP app entries exist, else "pcp"
	DSCPToPrio map[int]int `json:"dscp_to_prio,omitempty" expr:"dscp_to_prio"`
	PrioToTC   []int       `json:"prio_tc,omitempty" expr:"prio_tc"`
	// TCTSA is each traffic class's transmission selection by name
	// (strict, ets, cb_shaper, vendor), when ETS was reported.
	TCTSA []string `json:"tc_tsa,omitempty" expr:"tc_tsa"`
}

// ECNConfig is the congestion-control setting of a netdev or device where
// the host exposes it (MLNX_OFED ecn/, debugfs cc_params).
type ECNConfig struct {
	Netdev    string            `json:"netdev,omitempty" expr:"netdev"`
	Device    string            `json:"device,omitempty" expr:"device"`
	NPEnabled map[int]bool      `json:"np_enabled,omitempty" expr:"np_enabled"` // notification point (CNP generation) per priority
	RPEnabled map[int]bool      `json:"rp_enabled,omitempty" expr:"rp_enabled"` // reaction point (rate reduction) per priority
	Params    map[string]string `json:"params,omitempty" expr:"params"`
	Source    string            `json:"source" expr:"source"`
}

// MemoryConfig is what memory registration depends on.
type MemoryConfig struct {
	HugePagesTotal  *uint64 `json:"hugepages_total,omitempty" expr:"hugepages_total"`
	HugePagesFree   *uint64 `json:"hugepages_free,omitempty" expr:"hugepages_free"`
	HugePageSizeKB  *uint64 `json:"hugepage_size_kb,omitempty" expr:"hugepage_size_kb"`
	MemAvailableKB  *uint64 `json:"mem_available_kb,omitempty" expr:"mem_available_kb"`
	HighOrderFreeKB *uint64 `json:"high_order_free_kb,omitempty" expr:"high_order_free_kb"` // free memory in blocks of 2 MiB or more
}
