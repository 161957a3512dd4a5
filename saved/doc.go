// Package saved reads what a customer sends when the host is out of reach:
// a sosreport (directory or tarball), a directory of saved outputs, or
// single files of `ethtool -S`, sysfs counter listings, `rdma statistic`,
// `rdma res show qp`, `rdma link`, `ip -s link`, `mlnx_qos -i`, kernel
// log excerpts, `ibv_devinfo -v`, `mlxconfig query` and jobs' NCCL logs.
//
// Every file is recognised by its content, never by its name (a name only
// adds context a content lacks: sos's ethtool_-S_eth0 names the netdev).
// Each input is reported with what it was recognised as, what was read from
// it and what was ignored and why; a file nobody recognises is reported,
// never fatal.
//
// What was read becomes a host model in the schema of `rdmatop --once
// --json` (probes.Snapshot). Several readings of the same counters (two
// ethtool -S dumps, rdma statistic before and after) become consecutive
// snapshots with deltas, and rates when each reading says when it was taken
// (a `date` line before it). Counters and names go through the same alias
// tables as a live host, so rules read the same canonical counters.
//
// The package reads files only: it never runs a command.
package saved
