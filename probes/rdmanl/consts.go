package rdmanl

// NetlinkRDMA is the netlink protocol number of RDMA netlink.
const NetlinkRDMA = 20

// nldevClient is RDMA_NL_NLDEV; message types are (client << 10) + cmd.
const nldevClient = 5

// Commands (enum rdma_nldev_command).
const (
	CmdGet          = 1
	CmdPortGet      = 5
	CmdSysGet       = 6
	CmdResGet       = 9
	CmdResQPGet     = 10
	CmdStatGet      = 17
	CmdStatGetState = 24
)

// MsgType is the nlmsg_type of an nldev command.
func MsgType(cmd uint16) uint16 { return nldevClient<<10 + cmd }

// Attributes (enum rdma_nldev_attr) this package reads or writes.
const (
	attrPad             = 0
	attrDevIndex        = 1
	attrDevName         = 2
	attrPortIndex       = 3
	attrCapFlags        = 4
	attrFWVersion       = 5
	attrNodeGUID        = 6
	attrSysImageGUID    = 7
	attrSubnetPrefix    = 8
	attrLID             = 9
	attrSMLID           = 10
	attrLMC             = 11
	attrPortState       = 12
	attrPortPhysState   = 13
	attrDevNodeType     = 14
	attrResQP           = 19
	attrResQPEntry      = 20
	attrResLQPN         = 21
	attrResRQPN         = 22
	attrResRQPSN        = 23
	attrResSQPSN        = 24
	attrResPathMigState = 25
	attrResType         = 26
	attrResState        = 27
	attrResPID          = 28
	attrResKernName     = 29
	attrNdevIndex       = 50
	attrNdevName        = 51
	attrResPDN          = 60
	attrNetnsMode       = 66
	attrDevProtocol     = 67
	attrStatHWCounters  = 80
	attrStatHWCntEntry  = 81
	attrStatHWCntName   = 82
	attrStatHWCntValue  = 83
	attrDevDim          = 84
	attrCopyOnFork      = 93
	attrPrivQKeyMode    = 96
	attrResSubtype      = 98
	attrDevType         = 99
	attrParentName      = 100
	attrNameAssignType  = 101
	attrSysMonitorMode  = 103
)
