package rtnl

// speedUnknown values: SPEED_UNKNOWN (-1) as the kernel reports it, and
// its 16-bit form in the legacy ETHTOOL_GSET speed field.
const (
	speedUnknown   = 0xffffffff
	speedUnknown16 = 0xffff
)

// linkSpeed is the speed to report for l given what ethtool said: absent
// when ethtool did not answer, when the driver does not know (mlx5 says
// SPEED_UNKNOWN while the link is down), and whenever the link is down
// (veth reports 10000 Mb/s regardless).
func linkSpeed(l *Link, mbps uint32, ok bool) *uint32 {
	if !ok || !l.Up() || mbps == 0 || mbps == speedUnknown || mbps == speedUnknown16 {
		return nil
	}
	return &mbps
}
