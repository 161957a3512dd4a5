package dcb

// Config is what DCB netlink says about one netdev. Pointer and nil-slice
// fields are absent when the driver does not report them (absent is not
// zero: a driver without PFC support has PFC == nil, not PFC disabled).
type Config struct {
	Ifname string `json:"ifname"`
	// DCBX is the DCBX mode (DCB_ATTR_DCBX), when the driver has getdcbx.
	DCBX *DCBX `json:"dcbx,omitempty"`
	// State is the CEE "DCB enabled" state (DCB_CMD_GSTATE), when the
	// driver has getstate.
	State *bool `json:"dcb_state,omitempty"`
	ETS   *ETS  `json:"ets,omitempty"`
	PFC   *PFC  `json:"pfc,omitempty"`
	// MaxRate is the per-TC rate limit in bits/s (0: no limit).
	MaxRate *[8]uint64 `json:"maxrate_bps,omitempty"`
	Buffer  *Buffer    `json:"buffer,omitempty"`
	// Apps is the APP table. nil: the reply had no table; empty: it had an
	// empty one (the kernel always sends one for IEEE_GET).
	Apps []App `json:"apps"`
	// AppTrust lists the trusted APP selectors in precedence order
	// (DCB_ATTR_DCB_APP_TRUST_TABLE, Linux ≥ 6.2); nil when the driver has
	// no dcbnl_getapptrust (mlx5 has none).
	AppTrust []uint8 `json:"app_trust,omitempty"`
	// Trust is the classification trust derived from AppTrust or, without
	// it, from the APP table (see DeriveTrust).
	Trust Trust `json:"trust"`
	// DSCPMap is the DSCP→priority map: the APP entries with the DSCP
	// selector, sorted by DSCP then priority.
	DSCPMap []DSCPPrio `json:"dscp_map"`

	PeerETS     *ETS         `json:"peer_ets,omitempty"`
	PeerPFC     *PFC         `json:"peer_pfc,omitempty"`
	PeerAppInfo *PeerAppInfo `json:"peer_app_info,omitempty"`
	PeerApps    []App        `json:"peer_apps,omitempty"`

	// Skipped lists DCB_ATTR_IEEE sub-attributes present in the reply
	// that this package does not decode (QCN, rewrite table, ...).
	Skipped []uint16 `json:"skipped_attrs,omitempty"`
}

// DCBX is the DCBX mode bitmap.
type DCBX struct {
	Mode uint8 `json:"mode"`
	// Flags names the bits: host, lld_managed, cee, ieee, static.
	Flags []string `json:"flags"`
}

// ETS is struct ieee_ets: traffic classes, their bandwidth and the
// priority→TC map.
type ETS struct {
	Willing   bool     `json:"willing"`
	ETSCap    uint8    `json:"ets_cap"` // number of TCs the device supports
	CBS       bool     `json:"cbs"`
	TCTxBW    [8]uint8 `json:"tc_tx_bw"` // % of bandwidth per TC
	TCRxBW    [8]uint8 `json:"tc_rx_bw"`
	TCTSA     [8]uint8 `json:"tc_tsa"`
	TSA       []string `json:"tsa"`     // TCTSA by name: strict, cb_shaper, ets, vendor
	PrioTC    [8]uint8 `json:"prio_tc"` // priority → TC
	TCRecoBW  [8]uint8 `json:"tc_reco_bw"`
	TCRecoTSA [8]uint8 `json:"tc_reco_tsa"`
	RecoPrio  [8]uint8 `json:"reco_prio_tc"`
}

// PFC is struct ieee_pfc: which priorities are lossless.
type PFC struct {
	Cap uint8 `json:"pfc_cap"` // how many priorities can have PFC at once
	// Mask is pfc_en: bit p set means PFC on priority p.
	Mask    uint8   `json:"pfc_en"`
	Enabled [8]bool `json:"enabled"` // Mask per priority
	MBC     bool    `json:"mbc"`     // MACsec bypass capability
	Delay   uint16  `json:"delay"`   // allowance for cable/propagation delay, bits (mlx5: cable length)
	// Requests and Indications count PFC frames sent and received per
	// priority; their meaning is driver-dependent (mlx5 fills them from
	// the same PPCNT counters as ethtool's tx/rx_prioN_pause).
	Requests    [8]uint64 `json:"requests"`
	Indications [8]uint64 `json:"indications"`
}

// Buffer is struct dcbnl_buffer: the port's receive buffers.
type Buffer struct {
	Prio2Buffer [8]uint8  `json:"prio2buffer"`
	BufferSize  [8]uint32 `json:"buffer_size"` // bytes
	TotalSize   uint32    `json:"total_size"`
}

// App is one struct dcb_app entry.
type App struct {
	Selector     uint8  `json:"selector"`
	SelectorName string `json:"selector_name"`
	Priority     uint8  `json:"priority"`
	Protocol     uint16 `json:"protocol"` // DSCP value, ethertype or port, by selector
}

// PeerAppInfo is struct dcb_peer_app_info, learned from the link partner.
type PeerAppInfo struct {
	Willing uint8 `json:"willing"`
	Error   uint8 `json:"error"`
}

// DSCPPrio maps one DSCP value to a priority.
type DSCPPrio struct {
	DSCP     uint8 `json:"dscp"`
	Priority uint8 `json:"priority"`
}

// Trust says which packet field selects the priority of received traffic.
type Trust struct {
	// Mode is "dscp", "pcp", another selector name, "none" (a trust table
	// that trusts nothing), or "" when unknown.
	Mode string `json:"mode"`
	// Order is the trust table by name, when the driver has one.
	Order []string `json:"order,omitempty"`
	// Source says how Mode was found: "app_trust_table", or
	// "dscp_app_entries" / "no_dscp_app_entries" when inferred from the APP
	// table the way mlx5 behaves (it trusts DSCP exactly while DSCP APP
	// entries exist).
	Source string `json:"source,omitempty"`
}

// Trust sources.
const (
	TrustFromTable      = "app_trust_table"
	TrustFromDSCPApps   = "dscp_app_entries"
	TrustFromNoDSCPApps = "no_dscp_app_entries"
)

const (
	trustModeNone       = "none"
	trustModeDSCP       = "dscp"
	trustModePCP        = "pcp"
	dscpMax       uint8 = 63
)
