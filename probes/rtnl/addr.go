package rtnl

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// Address message numbers from linux/rtnetlink.h and linux/if_addr.h
// (fixed kernel ABI; a Linux test checks them against x/sys/unix).
const (
	rtmNewAddr       = 20
	rtmDelAddr       = 21
	ifaAddress       = 1
	ifaLocal         = 2
	sizeofIfAddrmsg  = 8
	rtnlGroupIPv4Ifa = 5 // RTNLGRP_IPV4_IFADDR
	rtnlGroupIPv6Ifa = 9 // RTNLGRP_IPV6_IFADDR
)

// AddrEvent is an address added to or removed from a netdev, as
// rtnetlink announces it (RTM_NEWADDR, RTM_DELADDR). RoCE derives its
// GIDs from the netdev's addresses: the GID table changes with them.
type AddrEvent struct {
	Time    time.Time  `json:"time"`
	Index   int        `json:"ifindex"`
	Netdev  string     `json:"netdev,omitempty"` // named by the reader of the links, from Index
	Removed bool       `json:"removed,omitempty"`
	Addr    netip.Addr `json:"addr"`
	Prefix  int        `json:"prefix"`
}

// String says what happened, for an event's detail: "192.168.77.1/24
// removed from veth0".
func (e AddrEvent) String() string {
	what, dev := "added to", e.Netdev
	if e.Removed {
		what = "removed from"
	}
	if dev == "" {
		dev = fmt.Sprintf("ifindex %d", e.Index)
	}
	return fmt.Sprintf("%s/%d %s %s", e.Addr, e.Prefix, what, dev)
}

// DecodeAddr decodes an RTM_NEWADDR or RTM_DELADDR message (typ) body:
// struct ifaddrmsg and its attributes. The address is IFA_LOCAL where
// the kernel sends it (on a point-to-point link IFA_ADDRESS is the
// peer's), else IFA_ADDRESS. Pure and total: bad input is an error.
func DecodeAddr(typ uint16, msg []byte) (AddrEvent, error) {
	if typ != rtmNewAddr && typ != rtmDelAddr {
		return AddrEvent{}, fmt.Errorf("rtnetlink message type %d is not an address message", typ)
	}
	if len(msg) < sizeofIfAddrmsg {
		return AddrEvent{}, fmt.Errorf("rtnetlink address message: %d bytes, shorter than ifaddrmsg (%d)", len(msg), sizeofIfAddrmsg)
	}
	e := AddrEvent{Removed: typ == rtmDelAddr, Prefix: int(msg[1]),
		Index: int(int32(binary.NativeEndian.Uint32(msg[4:8])))}
	as, err := nlmsg.Attrs(msg[sizeofIfAddrmsg:])
	if err != nil {
		return AddrEvent{}, fmt.Errorf("rtnetlink address message (ifindex %d): %w", e.Index, err)
	}
	var addr, local netip.Addr
	for _, a := range as {
		switch a.Type {
		case ifaAddress:
			addr, _ = netip.AddrFromSlice(a.Data)
		case ifaLocal:
			local, _ = netip.AddrFromSlice(a.Data)
		}
	}
	e.Addr = addr
	if local.IsValid() {
		e.Addr = local
	}
	if !e.Addr.IsValid() {
		return AddrEvent{}, fmt.Errorf("rtnetlink address message (ifindex %d): no address", e.Index)
	}
	return e, nil
}
