// Package kmsg reads the kernel log from /dev/kmsg and picks out the lines
// an RDMA on-call engineer cares about: mlx5 error CQE dumps, firmware
// health and command failures, PCIe AER errors, RDMA module and device
// events, link up/down, hung tasks, soft lockups, OOM kills and page
// allocation failures.
//
// Three layers, each usable alone:
//
//   - ParseRecord parses one /dev/kmsg record ("prio,seq,usec,flags;text"
//     plus " KEY=value" dictionary lines); ParseText parses dmesg-style and
//     syslog-style text for fixtures and pasted logs: dmesg (-r, -T,
//     --time-format iso), journalctl -k (short, -precise, -iso, -full,
//     -monotonic), syslog; a pasted shell prompt is skipped.
//   - Classify maps a record to an Event (kind, severity, meaning, and the
//     driver, PCI address, RDMA device and netdev it names). Its patterns
//     are tested against real public log lines (testdata/kmsg). A device
//     may be named by PCI address, kernel or udev-renamed RDMA name
//     (mlx5_0, rocep33s0f0) or netdev; DeviceMap maps PCI addresses and
//     netdevs to RDMA devices when the caller knows them.
//   - Reader (Linux) polls /dev/kmsg without blocking and returns raw
//     records, so that a recorder can store exactly what was read.
//
// Lines are data: the message text is kept as the kernel wrote it (with
// /dev/kmsg's \xNN escapes); sanitising for display is the UI's job.
// Record times are the kernel's monotonic microseconds since boot; turning
// them into wall time needs the boot time, which callers supply. Pasted
// text may instead carry a wall-clock stamp (Record.Stamp, Record.Wall).
package kmsg
