// Package rdmanl is a pure-Go client for the kernel's RDMA netlink
// interface (NETLINK_RDMA, the "nldev" commands that iproute2's rdma tool
// speaks): RDMA devices, ports and their netdevs, the per-device QP
// resource dump, per-port hardware counters (STAT_GET) and the subsystem's
// settings (SYS_GET).
//
// The package is split the way every rdmatop source is:
//
//   - request encoders (request.go) are pure functions returning the exact
//     bytes iproute2's rdma sends, with nlmsg_seq and nlmsg_pid left 0 for
//     the connection to stamp;
//   - reply parsers (device.go, port.go, qp.go, stat.go, sys.go) are pure
//     functions over the raw receive buffers, read once by nlmsg's Reply
//     in the byte order of the host that answered, so a recorded tick -
//     from this host or one of the other order (NewReplayFrom) - replays
//     through the same code as a live host;
//   - Conn is the narrow OS boundary: one request in, the raw reply
//     buffers out. Dial (conn_linux.go) opens the NETLINK_RDMA socket;
//     Replay and Recorder (conn.go) replay and capture exchanges. All
//     three are ContextConns: a request is abandoned when its context
//     ends, and the Client's ...Context methods pass one down.
//
// Errors carried by the kernel (NLMSG_ERROR, or the errno in a dump's
// NLMSG_DONE) are returned as *Error; EOPNOTSUPP matches
// probes.ErrNotSupported and EPERM/EACCES come wrapped in a
// probes.PermissionError naming CAP_NET_ADMIN. A kernel without RDMA
// netlink (no ib_core) makes Dial fail with an error matching
// probes.ErrNotSupported.
//
// Layouts and numbers: the kernel's include/uapi/rdma/rdma_netlink.h,
// checked byte for byte against messages captured from iproute2 6.1 on a
// Soft-RoCE host (testdata/rxe-netlink).
package rdmanl
