// Package sysfs reads RDMA devices, ports, counters and the netdevs they
// run over from /sys, through an fs.FS whose root is the host's "/" (paths
// look like "sys/class/infiniband/mlx5_0/ports/1/state"), so that fixture
// trees, a container's /host and recorded bundles (probes/fsrec) go
// through the same code as the live host.
//
// What it reads:
//
//   - Discover: every device under sys/class/infiniband with its attributes
//     (node type and GUIDs, firmware, HCA type, board id, description),
//     its driver and parent device, and every port: state, physical state,
//     rate, link layer, LIDs, the GID table (v1/v2 type and netdev of each
//     populated entry) and P_Keys.
//   - ReadNetdev: a netdev's MTU, operstate, speed, address, type, carrier
//     changes and parent device.
//   - LinksFrom: netdev ↔ (device, port), by the
//     GID table's netdevs, rxe's parent file, the shared parent (PCI or
//     auxiliary) device, and for IPoIB the port GUID in the address.
//   - ReadCounters: every file in ports/N/counters and ports/N/hw_counters
//     (and the device-level hw_counters), listed, never assumed, with each
//     counter's unit, width and overflow behaviour where known, and a
//     per-counter error where a read or parse failed.
//   - ReadECN, ReadCCParams: MLNX_OFED's ecn/roce_np|roce_rp knobs and the
//     upstream debugfs cc_params when readable.
//
// Never writes, never runs anything, never reads the clock. Absent is not
// zero: an attribute that is not there is a nil pointer, a counter that is
// not there is not in the set. A file that cannot be read is reported
// (FileError) and the rest is still read.
package sysfs
