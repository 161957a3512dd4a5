// Package rtnl reads a netdev's state and traffic counters from rtnetlink
// (RTM_GETLINK): ifindex, MTU, operstate, carrier and carrier changes,
// the rtnl_link_stats64 counters, the master (bond, bridge) and parent
// (VLAN's lower device) it hangs off, and the link speed from ethtool.
//
// An OS answers with Link values (Kernel on Linux, Fake in tests). A Link
// is the raw data: JSON-serializable, what a recorder stores per tick and a
// replay hands back. Kernel decodes the kernel's message with the pure
// DecodeLink. Absent is not zero: a field the kernel did not send (an old
// kernel without carrier up/down counts, a speed on a link that is down)
// is nil.
//
// RoCE traffic bypasses the netdev: these counters see the Ethernet
// traffic of the host stack only.
//
// WatchAddrs follows the kernel's announcements of address changes
// (RTM_NEWADDR, RTM_DELADDR, decoded by the pure DecodeAddr): RoCE GIDs
// are the netdevs' addresses, so a change is when a GID table changes.
// The sampler drains it at each sample (AddrSource).
package rtnl
