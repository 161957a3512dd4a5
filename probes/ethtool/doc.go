// Package ethtool reads a netdev's driver statistics (what `ethtool -S`
// prints) and parses them into the views rdmatop needs for RoCE: PFC per
// priority, 802.3x pause, pause-storm events, discards and buffer pressure,
// PHY errors, PCIe and module events, and RDMA vPort traffic.
//
// Reading and parsing are separate. An OS reads the raw name→value map of
// one interface (Kernel over the SIOCETHTOOL ioctl on Linux, Fake in
// tests); Parse turns a raw map into Counters, ParseText reads a saved
// `ethtool -S` dump into a raw map, whole or grep'd, with or without its
// header, and ParseTextInfo also says which netdev a pasted command line
// names. Raw is what a recorder stores per tick and what a replay feeds
// back through Parse.
//
// Names vary with the driver, its configuration and firmware: mlx5 lists
// the per-priority pause counters only for priorities with PFC enabled,
// and the global pause ones only with 802.3x pause on. Parse reads what is
// there; a counter the driver did not list is absent (a nil pointer), never
// zero, and the full map is always kept.
package ethtool
