package sampler

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/rtnl"
)

// addrBatch is the address changes rtnetlink announced between two
// samples, as a recording keeps them (rawAddrs).
type addrBatch struct {
	Events []rtnl.AddrEvent `json:"events"`
	Lost   int              `json:"lost,omitempty"`
}

// gidAddr is the address a GID stands for: an IPv4 address for an
// IPv4-mapped GID.
func gidAddr(g probes.GID) (netip.Addr, bool) {
	a, err := netip.ParseAddr(g.GID)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// gidChange is a GID that came (removed false) or went.
type gidChange struct {
	gid     probes.GID
	removed bool
}

// when is the time of the last announced change behind the first of
// changes that an announcement names; else now (and without a batch).
func (b *addrBatch) when(now time.Time, changes ...gidChange) time.Time {
	if b == nil {
		return now
	}
	for _, c := range changes {
		a, ok := gidAddr(c.gid)
		if !ok {
			continue
		}
		for j := len(b.Events) - 1; j >= 0; j-- {
			if e := b.Events[j]; e.Addr == a && e.Removed == c.removed {
				return e.Time
			}
		}
	}
	return now
}

// events reports the announced changes that concern the sampled RDMA
// ports: an address of a port's netdev, or one a GID (before or now)
// stands for. An address added and removed again between two samples
// leaves the GID tables as they were, but not the QPs created on it
// meanwhile: each announcement is an event of its own. links names the
// netdevs by index (the sample's rtnetlink reading).
func (b *addrBatch) events(links map[string]rtnl.Link, prev map[gidSlot]probes.GID, snap *probes.Snapshot) []probes.Event {
	byIndex := map[int]string{}
	for name, l := range links {
		byIndex[l.Index] = name
	}
	type place struct {
		dev  string
		port int
	}
	byAddr, byNetdev := map[netip.Addr]place{}, map[string]place{}
	for k, g := range prev {
		if a, ok := gidAddr(g); ok {
			byAddr[a] = place{k.dev, k.port}
		}
	}
	for _, g := range snap.Config.GIDs {
		if a, ok := gidAddr(g); ok {
			byAddr[a] = place{g.Device, g.Port}
		}
	}
	for _, p := range snap.Ports {
		if p.Netdev != "" && p.Device != "" {
			byNetdev[p.Netdev] = place{p.Device, p.Port}
		}
	}
	var out []probes.Event
	for _, e := range b.Events {
		if e.Netdev == "" {
			e.Netdev = byIndex[e.Index]
		}
		pl, ok := byAddr[e.Addr]
		if !ok {
			if pl, ok = byNetdev[e.Netdev]; !ok {
				continue
			}
		}
		kind := "address_added"
		if e.Removed {
			kind = "address_removed"
		}
		out = append(out, probes.Event{Time: e.Time, Source: "address", Kind: kind, Severity: probes.SevInfo,
			Device: pl.dev, Port: pl.port, Netdev: e.Netdev, Detail: e.String()})
	}
	if b.Lost > 0 {
		out = append(out, probes.Event{Time: snap.Time, Source: "address", Kind: "address_announcements_lost", Severity: probes.SevInfo,
			Detail: fmt.Sprintf("%d address announcements were lost (the netlink socket overran); the GID tables were read again", b.Lost)})
	}
	return out
}
