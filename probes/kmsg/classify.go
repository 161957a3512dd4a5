package kmsg

import (
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/internal/lazyre"
	"github.com/rdmatop/rdmatop/probes"
)

// Kind names what a kernel log line reports.
type Kind string

// Kinds of classified lines.
const (
	KindErrCQE           Kind = "err_cqe"            // a work request completed in error (mlx5 error CQE)
	KindCQError          Kind = "cq_error"           // a CQ error event (e.g. CQ overrun)
	KindFWHealth         Kind = "fw_health"          // firmware health poll failed / health issue
	KindFWHealthDetail   Kind = "fw_health_detail"   // the health buffer dump that follows
	KindFWFatal          Kind = "fw_fatal"           // firmware fatal error / device in internal error
	KindFWRecoveryFailed Kind = "fw_recovery_failed" // health recovery gave up
	KindFWCmdTimeout     Kind = "fw_cmd_timeout"     // a firmware command timed out
	KindFWCmdError       Kind = "fw_cmd_error"       // a firmware command failed with a status/syndrome
	KindFWStall          Kind = "fw_stall"           // firmware stopped answering commands (bnxt_re)
	KindPCIeAER          Kind = "pcie_aer"           // PCIe Advanced Error Reporting
	KindPCIeAERDetail    Kind = "pcie_aer_detail"    // the status lines that follow an AER report
	KindPCIePower        Kind = "pcie_power"         // slot power insufficient for the NIC
	KindPCIeBandwidth    Kind = "pcie_bandwidth"     // the slot limits the NIC's bandwidth
	KindLinkUp           Kind = "link_up"            // netdev carrier up
	KindLinkDown         Kind = "link_down"          // netdev carrier down
	KindPortActive       Kind = "port_active"        // RDMA port became ACTIVE
	KindPortDown         Kind = "port_down"          // RDMA port went DOWN
	KindPortState        Kind = "port_state"         // other RDMA port state (INIT, ...)
	KindModuleEvent      Kind = "module_event"       // transceiver plugged, unplugged or in error
	KindModuleLoad       Kind = "module_load"        // an RDMA driver module loaded
	KindModuleUnload     Kind = "module_unload"      // an RDMA driver module unloaded
	KindDeviceProbe      Kind = "device_probe"       // a NIC was probed (firmware version line)
	KindProbeFailed      Kind = "probe_failed"       // a NIC failed to probe/load
	KindDeviceAdded      Kind = "rdma_device_added"  // an RDMA device was registered
	KindDriverError      Kind = "rdma_driver_error"  // an RDMA driver reported a failure
	KindHungTask         Kind = "hung_task"
	KindSoftLockup       Kind = "soft_lockup"
	KindRCUStall         Kind = "rcu_stall"
	KindOOMKill          Kind = "oom_kill"
	KindOOM              Kind = "oom" // the OOM killer was invoked
	KindPageAllocFailure Kind = "page_alloc_failure"
)

// Hardware reports whether k is a problem of the NIC's own hardware below
// RDMA: its firmware, its PCIe link or slot, its transceiver (not a
// detail line that follows one, not port or link changes, which have
// their own kinds and rules).
func (k Kind) Hardware() bool {
	switch k {
	case KindFWHealth, KindFWFatal, KindFWRecoveryFailed, KindFWCmdTimeout, KindFWCmdError, KindFWStall,
		KindPCIeAER, KindPCIePower, KindPCIeBandwidth, KindModuleEvent:
		return true
	}
	return false
}

// Event is a classified record.
type Event struct {
	Record
	Kind     Kind            `json:"kind"`
	Severity probes.Severity `json:"severity"`
	// Meaning says, for the on-call engineer, what the line means.
	Meaning string `json:"meaning"`
	Driver  string `json:"driver,omitempty"` // kernel driver or class that printed it
	PCI     string `json:"pci,omitempty"`    // PCI address (0000:3b:00.0) it concerns
	IBDev   string `json:"ibdev,omitempty"`  // RDMA device (mlx5_0, rxe0, bnxt_re0)
	Netdev  string `json:"netdev,omitempty"`
	// Fields holds what the pattern extracted: syndrome, cqn, order,
	// comm, pid, module, ...
	Fields map[string]string `json:"fields,omitempty"`
}

// Device returns the most specific device name the event carries.
func (e Event) Device() string {
	for _, s := range []string{e.IBDev, e.Netdev, e.PCI} {
		if s != "" {
			return s
		}
	}
	return ""
}

// pr_fmt: "<module>: ".
var reModulePrefix = lazyre.New(`^([a-z][a-z0-9_]*): `)

// Classify returns the event a record reports, or false when the line is
// not one rdmatop watches.
func Classify(r Record) (Event, bool) {
	msg := r.Message
	rs := rules()
	for i := range rs {
		ru := &rs[i]
		if !strings.Contains(msg, ru.hint) {
			continue
		}
		m := ru.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		e := Event{Record: r, Kind: ru.kind, Severity: ru.sev, Meaning: ru.meaning}
		fillDevice(&e, msg)
		for j, name := range ru.re.SubexpNames() {
			if name == "" || m[j] == "" {
				continue
			}
			switch name {
			case "pci":
				e.PCI = m[j]
			case "ibdev":
				e.IBDev = m[j]
			case "netdev":
				e.Netdev = m[j]
			case "driver":
				e.Driver = m[j]
			default:
				if e.Fields == nil {
					e.Fields = map[string]string{}
				}
				e.Fields[name] = m[j]
			}
		}
		if e.Netdev == e.IBDev {
			e.Netdev = "" // "bnxt_en 0000:12:00.0 bnxt_re0: ..." names the RDMA device there
		}
		if ru.adjust != nil {
			ru.adjust(&e)
		}
		return e, true
	}
	return Event{}, false
}

// Snapshot converts e to the snapshot model's event. boot is the wall time
// the kernel's monotonic clock started (e.g. from /proc/stat btime); the
// event time is zero when the record had no timestamp.
func (e Event) Snapshot(boot time.Time) probes.Event {
	ev := probes.Event{
		Source:   "kmsg",
		Kind:     string(e.Kind),
		Severity: e.Severity,
		Device:   e.Device(),
		PCI:      e.PCI,
		Netdev:   e.Netdev,
		Detail:   e.Meaning + ": " + e.Message,
	}
	if e.Usec != nil && !boot.IsZero() {
		ev.Time = boot.Add(time.Duration(*e.Usec) * time.Microsecond)
	}
	return ev
}
