// Package procinfo reads the /proc facts RDMA memory registration depends
// on, through github.com/prometheus/procfs: huge pages and free memory
// (meminfo), free-memory fragmentation (buddyinfo: how much free memory
// sits in blocks of 2 MiB or more), and, for the processes that own QPs,
// their command name, locked-memory limits (RLIMIT_MEMLOCK, soft and hard,
// "unlimited" told apart) and locked/pinned memory (VmLck, VmPin).
//
// FS is rooted anywhere (the host's /, a fixture tree, /host in a
// container): it reads <root>/proc. procfs parses from files, so a
// recording is replayed by writing the recorded files back under a
// scratch root (Materialize) and reading that with the same code.
package procinfo
