package rdmanl

import "fmt"

// QPState is enum ib_qp_state (RES_STATE).
type QPState uint8

// QP states.
const (
	QPReset QPState = 0
	QPInit  QPState = 1
	QPRTR   QPState = 2
	QPRTS   QPState = 3
	QPSQD   QPState = 4
	QPSQE   QPState = 5
	QPErr   QPState = 6
)

var qpStateNames = []string{"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"}

// String is iproute2's spelling ("RTS", "ERR", ...; "UNKNOWN" otherwise).
func (s QPState) String() string { return name(qpStateNames, int(s)) }

// QPType is enum ib_qp_type (RES_TYPE).
type QPType uint8

// QP types.
const (
	QPTypeSMI          QPType = 0
	QPTypeGSI          QPType = 1
	QPTypeRC           QPType = 2
	QPTypeUC           QPType = 3
	QPTypeUD           QPType = 4
	QPTypeRawIPv6      QPType = 5
	QPTypeRawEthertype QPType = 6
	QPTypeRawPacket    QPType = 8
	QPTypeXRCIni       QPType = 9
	QPTypeXRCTgt       QPType = 10
	QPTypeDriver       QPType = 0xff
)

var qpTypeNames = []string{"SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6",
	"RAW_ETHERTYPE", "UNKNOWN", "RAW_PACKET", "XRC_INI", "XRC_TGT"}

// String is iproute2's spelling ("RC", "GSI", "DRIVER", ...).
func (t QPType) String() string {
	if t == QPTypeDriver {
		return "DRIVER"
	}
	return name(qpTypeNames, int(t))
}

// PathMigState is the path migration state (RES_PATH_MIG_STATE).
type PathMigState uint8

var pathMigNames = []string{"MIGRATED", "REARM", "ARMED"}

// String is iproute2's spelling.
func (p PathMigState) String() string { return name(pathMigNames, int(p)) }

// PortState is enum ib_port_state (PORT_STATE).
type PortState uint8

// Port states.
const (
	PortNop         PortState = 0
	PortDown        PortState = 1
	PortInit        PortState = 2
	PortArmed       PortState = 3
	PortActive      PortState = 4
	PortActiveDefer PortState = 5
)

var portStateNames = []string{"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"}

// String is iproute2's spelling ("ACTIVE", "DOWN", ...).
func (s PortState) String() string { return name(portStateNames, int(s)) }

// PhysState is the port physical state (PORT_PHYS_STATE).
type PhysState uint8

var physStateNames = []string{"NOP", "SLEEP", "POLLING", "DISABLED", "ARMED",
	"LINK_UP", "LINK_ERROR_RECOVER", "PHY_TEST", "UNKNOWN", "OPA_OFFLINE",
	"UNKNOWN", "OPA_TEST"}

// String is iproute2's spelling ("LINK_UP", "DISABLED", "POLLING", ...).
func (s PhysState) String() string { return name(physStateNames, int(s)) }

// NodeType is enum rdma_node_type (DEV_NODE_TYPE).
type NodeType uint8

var nodeTypeNames = []string{"unknown", "ca", "switch", "router", "rnic",
	"usnic", "usnic_udp", "unspecified"}

// String is iproute2's spelling ("ca", "rnic", ...).
func (n NodeType) String() string { return name(nodeTypeNames, int(n)) }

func name(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return "UNKNOWN"
}

// lookup is the inverse of name: the index of s, or false.
func lookup(names []string, s string) (int, bool) {
	for i, n := range names {
		if n == s && n != "UNKNOWN" {
			return i, true
		}
	}
	return 0, false
}

// ParseQPState maps iproute2's spelling back to a QPState.
func ParseQPState(s string) (QPState, bool) {
	i, ok := lookup(qpStateNames, s)
	return QPState(i), ok
}

// ParseQPType maps iproute2's spelling back to a QPType.
func ParseQPType(s string) (QPType, bool) {
	if s == "DRIVER" {
		return QPTypeDriver, true
	}
	i, ok := lookup(qpTypeNames, s)
	return QPType(i), ok
}

// ParsePathMigState maps iproute2's spelling back to a PathMigState.
func ParsePathMigState(s string) (PathMigState, bool) {
	i, ok := lookup(pathMigNames, s)
	return PathMigState(i), ok
}

// FormatGUID writes a GUID the way iproute2 and sysfs do:
// "0000:00ff:fe00:7701" (four 16-bit groups, most significant first).
func FormatGUID(g uint64) string {
	return fmt.Sprintf("%04x:%04x:%04x:%04x", uint16(g>>48), uint16(g>>32), uint16(g>>16), uint16(g))
}
