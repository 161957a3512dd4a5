// Package probes is rdmatop's model of a live host: RDMA devices and ports,
// counters with deltas and rates, PFC, congestion, QPs, events and
// configuration, and the status of every source that fed them.
//
// Each source is its own small package below this one (sysfs, ethtool,
// rtnl, rdmanl, dcb, kmsg, procinfo). A source reads raw data through a
// narrow interface with a Linux implementation and a fake, and parses it
// with pure functions, so that tests feed fixtures and a recorded bundle
// replays through the same parsing. Nothing here reads the clock: sample
// times come from the caller.
package probes
