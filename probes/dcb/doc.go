// Package dcb reads a netdev's Data Center Bridging configuration — PFC per
// priority, ETS, the APP table with its DSCP→priority map, trust, DCBX mode,
// max rates and buffers — through DCB netlink (rtnetlink RTM_GETDCB), the
// way `dcb pfc show dev eth0` or `mlnx_qos -i eth0` do. It only ever sends
// GET commands: it never changes configuration.
//
// The kernel side is net/dcb/dcbnl.c; every number and struct layout here
// comes from include/uapi/linux/dcbnl.h (see consts.go) as summarised in
// the project's reference (rdma-netlink.md §g).
//
// Reading is split in two so that a recording replays through the same
// code: ReadContext asks a Querier (the Linux netlink one, or a Fake) for the raw
// replies and returns them as a Raw value (JSON-serializable: reply bytes
// and errnos); Decode turns a Raw into a Config. Netlink messages are in
// host byte order; a Raw recorded on a little-endian host (every RoCE host
// rdmatop knows of) decodes the same on any little-endian host.
package dcb
