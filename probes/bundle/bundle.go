// Package bundle is rdmatop's recording format: everything the probes read
// on a host, tick by tick, so that an incident recorded at 3 a.m. replays
// anywhere through the same parsers.
//
// Two versions exist, both optionally gzip-compressed:
//
//   - Version 1 is JSON Lines: a header line, then one line per tick
//     (NewWriter).
//   - Version 2 is pcapng: the host ticks and the RoCE packets captured at
//     the same time, on one timeline, in a file Wireshark and tshark open
//     as is. The header and each tick are JSON in pcapng custom blocks,
//     the packets are ordinary Enhanced Packet Blocks (NewPcapngWriter).
//
// Open (or NewReader) reads both and returns records in file order. Each
// tick is flushed as a whole when it is written, so a Ctrl-C or a kill
// loses at most the tick being written; a reader stops cleanly at a cut
// last record and says so (Reader.Truncated). The format is documented in
// docs/bundle.md.
package bundle

import (
	"encoding/json"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/fsrec"
)

// Format names a bundle in its header; Version1 and Version2 are the
// versions this package reads. Readers refuse other formats and versions.
const (
	Format   = "rdmatop-bundle"
	Version1 = 1 // JSON Lines
	Version2 = 2 // pcapng: ticks and packets on one timeline
)

// Version is the version NewWriter writes.
//
// Deprecated: use Version1 (NewWriter) or Version2 (NewPcapngWriter).
const Version = Version1

// Header is the first record of a bundle.
type Header struct {
	Format   string    `json:"format"`
	Version  int       `json:"version"`
	Created  time.Time `json:"created"`
	Tool     string    `json:"tool"` // rdmatop version that recorded it
	Host     Host      `json:"host"`
	Interval string    `json:"interval"` // sampling interval, time.Duration text
	// Selection is what the recording was limited to (-i / -d), if anything.
	Selection string `json:"selection,omitempty"`
}

// Host holds facts about the recorded machine.
type Host struct {
	Hostname string `json:"hostname"`
	Kernel   string `json:"kernel"`
	Arch     string `json:"arch,omitempty"`
	// ByteOrder is the recording host's, "little" or "big": the raw
	// netlink answers in its ticks (RDMA netlink, DCB) are in its kernel's
	// native integers, and a replay on a host of the other order reads
	// them swapped. The writer fills it in when it is empty.
	ByteOrder string `json:"byte_order,omitempty"`
	Uid       int    `json:"uid"`
}

// Order is the byte order the recording's raw netlink answers are in:
// ByteOrder, or, in a recording written before rdmatop stated it, the
// order of its Arch; "" when neither says (read as this host's, as those
// versions did).
func (h Host) Order() string {
	if h.ByteOrder != "" {
		return h.ByteOrder
	}
	switch h.Arch {
	case "s390x", "ppc64", "mips", "mips64", "sparc64":
		return "big"
	case "":
		return ""
	}
	return "little"
}

// Tick is what the probes saw at one sample time: the files read (sysfs,
// proc), the raw answers of the other sources keyed by source name
// ("ethtool/eth0", "rtnl/eth0", "rdmanl", "dcb/eth0", "kmsg"), and how
// each source fared.
type Tick struct {
	Time   time.Time                  `json:"time"`
	Files  fsrec.Tree                 `json:"files,omitempty"`
	Raw    map[string]json.RawMessage `json:"raw,omitempty"`
	Status []probes.Status            `json:"status,omitempty"`
	// Full: the probes read everything on this tick, as on a recording's
	// first (between such ticks they keep what does not change: device
	// attributes, GID tables). A replay can start here (the flight
	// recorder's incidents do); a tick without it needs those before it.
	Full bool `json:"full,omitempty"`
	// Capture is how the live capture fared up to this tick; nil in a
	// recording without a capture, or made before rdmatop wrote it (its
	// replay then knows nothing of what the capture missed).
	Capture *CaptureState `json:"capture,omitempty"`
	// Skipped and LateS say how the live run kept time at this tick: the
	// whole intervals lost before it (a sample overran) and how late it
	// started, in seconds (monitor.Frame's fields of the same names).
	Skipped int     `json:"skipped,omitempty"`
	LateS   float64 `json:"late_s,omitempty"`
}

// CaptureState is a live capture's account of what it could not see,
// as running totals since it opened: a replay takes the difference
// between two ticks (the first tick of a file is its baseline, so an
// incident cut from a longer run counts only its own time).
type CaptureState struct {
	// KernelDrops: frames the kernel dropped from the capture's rings
	// (the reader did not keep up).
	KernelDrops uint64 `json:"kernel_drops"`
	// Unrecorded: frames captured and analysed live that this file lacks
	// (the writer fell behind, or the flight recorder let them go).
	Unrecorded uint64 `json:"unrecorded,omitempty"`
	// BlindS: seconds the capture's interface was down.
	BlindS float64 `json:"blind_s,omitempty"`
	// LinkDown: the interface is down at this tick, and why.
	LinkDown string `json:"link_down,omitempty"`
}
