//go:build linux

package rtnl

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The decoder's own constants are the kernel's.
func TestConstantsMatchKernelHeaders(t *testing.T) {
	for _, c := range []struct {
		name      string
		ours, sys int
	}{
		{"IFLA_ADDRESS", iflaAddress, unix.IFLA_ADDRESS},
		{"IFLA_IFNAME", iflaIfname, unix.IFLA_IFNAME},
		{"IFLA_MTU", iflaMTU, unix.IFLA_MTU},
		{"IFLA_LINK", iflaLink, unix.IFLA_LINK},
		{"IFLA_MASTER", iflaMaster, unix.IFLA_MASTER},
		{"IFLA_OPERSTATE", iflaOperstate, unix.IFLA_OPERSTATE},
		{"IFLA_LINKINFO", iflaLinkinfo, unix.IFLA_LINKINFO},
		{"IFLA_STATS64", iflaStats64, unix.IFLA_STATS64},
		{"IFLA_CARRIER", iflaCarrier, unix.IFLA_CARRIER},
		{"IFLA_CARRIER_CHANGES", iflaCarrierChanges, unix.IFLA_CARRIER_CHANGES},
		{"IFLA_LINK_NETNSID", iflaLinkNetnsid, unix.IFLA_LINK_NETNSID},
		{"IFLA_CARRIER_UP_COUNT", iflaCarrierUpCount, unix.IFLA_CARRIER_UP_COUNT},
		{"IFLA_CARRIER_DOWN_COUNT", iflaCarrierDownCount, unix.IFLA_CARRIER_DOWN_COUNT},
		{"IFLA_PARENT_DEV_NAME", iflaParentDevName, unix.IFLA_PARENT_DEV_NAME},
		{"IFLA_PARENT_DEV_BUS_NAME", iflaParentDevBusName, unix.IFLA_PARENT_DEV_BUS_NAME},
		{"IFLA_INFO_KIND", iflaInfoKind, unix.IFLA_INFO_KIND},
		{"IFLA_INFO_DATA", iflaInfoData, unix.IFLA_INFO_DATA},
		{"IFLA_INFO_SLAVE_KIND", iflaInfoSlaveKind, unix.IFLA_INFO_SLAVE_KIND},
		{"IFLA_VLAN_ID", iflaVLANID, unix.IFLA_VLAN_ID},
		{"IFF_UP", iffUp, unix.IFF_UP},
		{"IFF_LOWER_UP", iffLowerUp, unix.IFF_LOWER_UP},
		{"sizeof(ifinfomsg)", sizeofIfInfomsg, unix.SizeofIfInfomsg},
	} {
		if c.ours != c.sys {
			t.Errorf("%s = %d, x/sys/unix says %d", c.name, c.ours, c.sys)
		}
	}
}
