// Package gputcp finds the processes that hold GPU device files and
// measures what they move over TCP: the host's own view of a job whose
// collectives fell back from RDMA to sockets.
//
// A process counts as a GPU process when one of its file descriptors is
// an NVIDIA GPU (/dev/nvidiaN) or AMD's compute device (/dev/kfd), by the
// path its own mount namespace gives (a container's /dev/nvidia0 reads
// the same from the host). Its TCP sockets are the socket:[inode] links
// among its descriptors; their bytes come from the kernel's socket
// diagnostics (NETLINK_SOCK_DIAG, INET_DIAG_INFO: tcp_info's bytes_acked
// and bytes_received), dumped in the process's own network namespace: a
// pod's sockets are not in the host's.
//
// Reading every process's descriptors costs a readlink each, so the
// whole of /proc is scanned only every RescanEvery; between scans only
// the GPU processes found are read again. Poll takes the time from its
// caller. It never writes anything: entering a network namespace to open
// a socket there changes nothing of it.
package gputcp
