package dcb

import "strconv"

// Numbers from include/uapi/linux/dcbnl.h (Linux 6.x) and
// include/uapi/linux/rtnetlink.h.

// rtmGetDCB is the rtnetlink message type of DCB requests and replies.
const rtmGetDCB = 78 // RTM_GETDCB

// Command is a DCB netlink command (enum dcbnl_commands), carried in
// struct dcbmsg.cmd.
type Command uint8

// The GET commands this package sends.
const (
	CmdGetState Command = 1  // DCB_CMD_GSTATE: CEE "DCB enabled" state
	CmdIEEEGet  Command = 21 // DCB_CMD_IEEE_GET: ETS, PFC, APP table, ...
	CmdGetDCBX  Command = 22 // DCB_CMD_GDCBX: DCBX mode bits
)

func (c Command) String() string {
	switch c {
	case CmdGetState:
		return "DCB_CMD_GSTATE"
	case CmdIEEEGet:
		return "DCB_CMD_IEEE_GET"
	case CmdGetDCBX:
		return "DCB_CMD_GDCBX"
	}
	return "DCB_CMD_" + strconv.Itoa(int(c))
}

// Top-level attributes (enum dcbnl_attrs).
const (
	attrIfname = 1  // DCB_ATTR_IFNAME, NUL-terminated string
	attrState  = 2  // DCB_ATTR_STATE, u8
	attrIEEE   = 13 // DCB_ATTR_IEEE, nested ieee_attrs
	attrDCBX   = 14 // DCB_ATTR_DCBX, u8
)

// Attributes nested in DCB_ATTR_IEEE (enum ieee_attrs).
const (
	ieeeETS        = 1  // DCB_ATTR_IEEE_ETS, struct ieee_ets
	ieeePFC        = 2  // DCB_ATTR_IEEE_PFC, struct ieee_pfc
	ieeeAppTable   = 3  // DCB_ATTR_IEEE_APP_TABLE, nested APP entries
	ieeePeerETS    = 4  // DCB_ATTR_IEEE_PEER_ETS, struct ieee_ets
	ieeePeerPFC    = 5  // DCB_ATTR_IEEE_PEER_PFC, struct ieee_pfc
	ieeePeerApp    = 6  // DCB_ATTR_IEEE_PEER_APP, dcb_peer_app_info + APP entries
	ieeeMaxRate    = 7  // DCB_ATTR_IEEE_MAXRATE, struct ieee_maxrate
	ieeeBuffer     = 10 // DCB_ATTR_DCB_BUFFER, struct dcbnl_buffer
	ieeeTrustTable = 11 // DCB_ATTR_DCB_APP_TRUST_TABLE, nested u8 selectors (Linux ≥ 6.2)
)

// Attributes nested in an APP table (enum ieee_attrs_app). A peer APP
// table starts with an UNSPEC attribute holding struct dcb_peer_app_info.
const (
	appUnspec = 0 // DCB_ATTR_IEEE_APP_UNSPEC
	appIEEE   = 1 // DCB_ATTR_IEEE_APP: struct dcb_app, IEEE selectors 1..5
	appDCB    = 2 // DCB_ATTR_DCB_APP: struct dcb_app, non-IEEE selectors (PCP = 255)
)

// Struct sizes (C layout on Linux; see the encoder in the tests).
const (
	sizeETS     = 59  // struct ieee_ets: 3 u8 + 7 × u8[8]
	sizePFC     = 136 // struct ieee_pfc: u8 cap, en, mbc; pad; u16 delay; pad; u64 requests[8]; u64 indications[8]
	sizeApp     = 4   // struct dcb_app: u8 selector, u8 priority, u16 protocol
	sizeMaxRate = 64  // struct ieee_maxrate: u64 tc_maxrate[8]
	sizeBuffer  = 44  // struct dcbnl_buffer: u8 prio2buffer[8], u32 buffer_size[8], u32 total_size
	sizePeerApp = 2   // struct dcb_peer_app_info: u8 willing, u8 error
)

// APP selectors (IEEE_8021QAZ_APP_SEL_*, and the kernel's DCB_APP_SEL_PCP).
const (
	SelEthertype uint8 = 1
	SelStream    uint8 = 2 // TCP/SCTP port
	SelDgram     uint8 = 3 // UDP port
	SelAny       uint8 = 4 // TCP/SCTP/UDP/DCCP port
	SelDSCP      uint8 = 5
	SelPCP       uint8 = 255
)

// SelectorName is the name iproute2's `dcb app` uses for a selector.
func SelectorName(sel uint8) string {
	switch sel {
	case SelEthertype:
		return "ethtype"
	case SelStream:
		return "stream-port"
	case SelDgram:
		return "dgram-port"
	case SelAny:
		return "port"
	case SelDSCP:
		return "dscp"
	case SelPCP:
		return "pcp"
	}
	return "selector-" + strconv.Itoa(int(sel))
}

// TSA names (IEEE_8021QAZ_TSA_*), as `dcb ets show` prints them.
func tsaName(t uint8) string {
	switch t {
	case 0:
		return "strict"
	case 1:
		return "cb_shaper"
	case 2:
		return "ets"
	case 255:
		return "vendor"
	}
	return "tsa-" + strconv.Itoa(int(t))
}

// DCBX mode bits (DCB_CAP_DCBX_*).
const (
	DCBXHost       uint8 = 0x01
	DCBXLLDManaged uint8 = 0x02
	DCBXVerCEE     uint8 = 0x04
	DCBXVerIEEE    uint8 = 0x08
	DCBXStatic     uint8 = 0x10
)
