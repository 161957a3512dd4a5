package kmsg

import (
	"regexp"
	"strconv"
	"sync"

	"github.com/rdmatop/rdmatop/internal/lazyre"
	"github.com/rdmatop/rdmatop/probes"
)

// A rule classifies the lines its pattern matches. Named groups pci,
// ibdev, netdev and driver fill the event's device fields; other named
// groups go to Fields. Rules are tried in order; the first match wins.
type rule struct {
	kind    Kind
	sev     probes.Severity
	hint    string // a literal every matching line contains, checked first (cheap)
	re      *regexp.Regexp
	meaning string
	adjust  func(*Event)
}

const (
	info = probes.SevInfo
	warn = probes.SevWarning
	crit = probes.SevCritical
)

const meaningErrCQE = "a work request completed with an error CQE; the QP has gone to the error state and its later work requests flush. " +
	"The status/syndrome names the cause (local protection: bad lkey or MR; remote access: bad rkey or range on the peer; " +
	"retry exceeded: no ACK from the peer, path or peer down; RNR retry exceeded: the peer posted no receive)"

// rules returns the rules, in order. Every pattern is exercised by a line
// in testdata/kmsg/lines.json, real where one could be found (its source
// is cited there) and marked synthetic otherwise, or in vendorLines
// (vendor_test.go), built from the kernel's format strings. The patterns
// are compiled on the first call, not at package init: a command that
// never classifies a kernel log line pays nothing for them.
var rules = sync.OnceValue(func() []rule {
	return []rule{
		// --- mlx5 completion errors (drivers/infiniband/hw/mlx5/cq.c) ---
		{KindErrCQE, warn, "error cqe on cqn", regexp.MustCompile(`(?P<side>Requestor|Responder) error cqe on cqn (?P<cqn>0x[0-9a-fA-F]+)`), meaningErrCQE, nil},
		{KindErrCQE, warn, "WC error: ", regexp.MustCompile(`WC error: (?P<wc_status>\d+), [Mm]essage: (?P<wc_message>.+?)\s*$`), meaningErrCQE, nil},
		{KindErrCQE, warn, "dump error cqe", regexp.MustCompile(`dump error cqe`), meaningErrCQE + "; the hex lines that follow are the raw CQE", nil},
		{KindErrCQE, warn, ", vendor syndrome ", regexp.MustCompile(`syndrome (?P<syndrome>0x[0-9a-fA-F]+), vendor syndrome (?P<vendor_syndrome>0x[0-9a-fA-F]+)`),
			meaningErrCQE + " (syndrome 0x5 is a flushed WR: look for the first error on the QP)", nil},
		{KindCQError, warn, "CQ error on CQN ", regexp.MustCompile(`CQ error on CQN (?P<cqn>0x[0-9a-fA-F]+), syndrome (?P<syndrome>0x[0-9a-fA-F]+)`),
			"a completion queue reported an error event (syndrome 0x1 is CQ overrun: completions arrived faster than they were polled, or the CQ is too small)", nil},

		// --- firmware health (drivers/net/ethernet/mellanox/mlx5/core/health.c) ---
		{KindFWHealth, crit, "health compromised", regexp.MustCompile(`device's health compromised`),
			"the NIC's firmware stopped updating its health counter: the device is hung; expect every QP on it to fail and a reset/recovery (check `devlink health show`)", nil},
		{KindFWHealth, crit, "Health issue observed, ", regexp.MustCompile(`Health issue observed, (?P<issue>[^,]+), severity\((?P<fw_severity>\d+)\)`),
			"the NIC's firmware reported an internal error; the lines that follow dump its health buffer (syndrome, assert location) for the vendor", nil},
		{KindFWHealthDetail, info, "print_health_info", regexp.MustCompile(`print_health_info(?::\d+)?:(?:\(pid \d+\):)? (?P<field>assert_var\[\d+\]|assert_exit_ptr|assert_callra|fw_ver|time|hw_id|rfr|severity|irisc_index|synd|ext_synd|raw fw_ver)(?:\s+(?P<value>.*))?$`),
			"firmware health buffer detail (part of a health report above)", nil},
		{KindFWFatal, crit, "Fatal error ", regexp.MustCompile(`Fatal error (?P<fatal_error>\d+) detected`),
			"the NIC's firmware or hardware is in a fatal state (PCI reads failing, firmware assert with recovery request); the device goes to internal error and all RDMA resources on it are lost until it recovers", nil},
		{KindFWRecoveryFailed, crit, "health recovery flow aborted", regexp.MustCompile(`health recovery flow aborted`),
			"the driver gave up recovering the device (e.g. PCI reads still failing): the NIC stays down until a reset or reboot", nil},

		// --- firmware command interface (mlx5 cmd.c, bnxt_re qplib_rcfw.c) ---
		{KindFWCmdTimeout, crit, "timeout. Will cause a leak", regexp.MustCompile(`(?P<command>[A-Z][A-Z0-9_]+)\((?P<opcode>0x[0-9a-f]+)\) timeout\. Will cause a leak of a command resource`),
			"a firmware command got no completion: the firmware is slow or hung; resource creation (QPs, MRs, CQs) on this device fails or stalls", nil},
		{KindFWCmdTimeout, crit, " No done completion", regexp.MustCompile(`cmd\[(?P<cmd_index>-?\d+)\]: (?P<command>[A-Z][A-Z0-9_]+)\((?P<opcode>0x[0-9a-f]+)\) No done completion`),
			"a firmware command got no completion: the firmware is slow or hung; resource creation (QPs, MRs, CQs) on this device fails or stalls", nil},
		{KindFWCmdTimeout, warn, " recovered after timeout", regexp.MustCompile(`cmd\[(?P<cmd_index>-?\d+)\]: (?P<command>[A-Z][A-Z0-9_]+)\((?P<opcode>0x[0-9a-f]+)\) recovered after timeout`),
			"a firmware command completed only after the driver recovered a lost completion event (interrupt delivery problem)", nil},
		{KindFWCmdError, warn, "failed to allocate command entry", regexp.MustCompile(`failed to allocate command entry`),
			"the driver ran out of firmware command slots: commands are stuck in the firmware", nil},
		{KindFWCmdError, warn, " failed, status ", regexp.MustCompile(`(?P<command>[A-Z][A-Z0-9_]+)\((?P<opcode>0x[0-9a-f]+)\)(?: op_mod\((?P<op_mod>0x[0-9a-f]+)\))? failed, status (?P<status>[^(]+?)\((?P<status_code>0x[0-9a-f]+)\), syndrome \((?P<syndrome>0x[0-9a-f]+)\)`),
			"the firmware rejected a command; the status and syndrome say why (vendor tools decode the syndrome)", nil},
		{KindFWStall, crit, "FW STALL Detected", regexp.MustCompile(`QPLIB: (?:\w+: )?FW STALL Detected`),
			"the RoCE firmware stopped answering commands: the RDMA device fails to start or its QPs stop", nil},
		{KindFWCmdError, warn, "QPLIB: cmdq[", regexp.MustCompile(`QPLIB: cmdq\[(?P<cmdq>0x[0-9a-f]+)\]=(?P<opcode>0x[0-9a-f]+) status (?P<status>0x[0-9a-f]+)`),
			"the RoCE firmware failed a command (bnxt_re); the line after it says which operation", nil},

		// --- PCIe (drivers/pci/pcie/aer.c, mlx5 events.c, pci.c) ---
		{KindPCIeAER, warn, " error ", regexp.MustCompile(`AER: (?:Multiple )?(?P<aer_class>Corrected|Correctable|Uncorrected \((?:Non-Fatal|Fatal)\)|Uncorrectable \((?:Non-Fatal|Fatal)\)) error (?:message )?received(?::| from) (?:id=)?(?P<source>\S+)`),
			"a PCIe link reported an error; corrected errors are retried by hardware but bursts of them mean a marginal link (riser, slot, signal integrity) and can stall DMA", adjustAER},
		{KindPCIeAER, warn, "PCIe Bus Error: severity=", regexp.MustCompile(`PCIe Bus Error: severity=(?P<aer_class>[^,]+), type=(?P<aer_type>[^,]+)`),
			"a PCIe link reported an error; corrected errors are retried by hardware but bursts of them mean a marginal link (riser, slot, signal integrity) and can stall DMA", adjustAER},
		{KindPCIeAERDetail, info, "error status/mask=", regexp.MustCompile(`device \[(?P<vendor>[0-9a-f]{4}):(?P<device_id>[0-9a-f]{4})\] error status/mask=(?P<status>[0-9a-f]+)/(?P<mask>[0-9a-f]+)`),
			"PCIe AER status detail (part of an AER report above)", nil},
		{KindPCIeAERDetail, info, "] ", regexp.MustCompile(`^(?:\S+ \S+: +)?(?:AER: +)?\[ ?(?P<bit>\d{1,2})\] (?P<error>(?:Receiver Error|RxErr|BadTLP|BadDLLP|Rollover|Timeout|[A-Z][A-Za-z]+))\s*(?:\(First\))?\s*$`),
			"PCIe AER error bit (part of an AER report above)", nil},
		{KindPCIePower, warn, "insufficient power on the PCIe slot", regexp.MustCompile(`Detected insufficient power on the PCIe slot \((?P<watts>\d+)W\)`),
			"the PCIe slot cannot supply the power the NIC needs: the NIC may throttle or misbehave; move it to a slot with enough power", nil},
		{KindPCIeBandwidth, warn, " available PCIe bandwidth, limited by ", regexp.MustCompile(`(?P<available>[\d.]+ Gb/s) available PCIe bandwidth, limited by (?P<limited_by>.+?) link at (?P<limiting_device>\S+) \(capable of (?P<capable>[\d.]+ Gb/s)`),
			"the NIC sits in a PCIe slot (or behind a link) narrower or slower than it supports: RDMA throughput is capped below line rate", nil},

		// --- links and RDMA ports ---
		{KindLinkDown, warn, "ink down", regexp.MustCompile(`: [Ll]ink down$`), "the netdev lost carrier: RoCE traffic on it stops; QPs retry until their timeout, then go to the error state", nil},
		{KindLinkUp, info, "ink up", regexp.MustCompile(`: [Ll]ink up$`), "the netdev has carrier again", nil},
		{KindLinkDown, warn, "NIC Link is Down", regexp.MustCompile(`NIC Link is Down`), "the netdev lost carrier: RoCE traffic on it stops; QPs retry until their timeout, then go to the error state", nil},
		// ixgbe/i40e "Up 10 Gbps", bnxt_en "Up, 25000 Mbps", ice "up 100 Gbps".
		{KindLinkUp, info, "NIC Link is ", regexp.MustCompile(`NIC Link is [Uu]p,? (?P<speed>\d+ [GM]bps)`), "the netdev has carrier again", nil},
		{KindPortDown, warn, ": set down", regexp.MustCompile(`^infiniband (?P<ibdev>\S+): set down$`), "the RDMA port went DOWN (Soft-RoCE follows its netdev): connected QPs will time out and go to the error state", nil},
		{KindPortActive, info, ": set active", regexp.MustCompile(`^infiniband (?P<ibdev>\S+): set active$`), "the RDMA port is ACTIVE", nil},
		{KindPortActive, info, " Link ACTIVE", regexp.MustCompile(`Port: (?P<port>\d+) Link ACTIVE$`), "the RDMA port is ACTIVE", nil},
		{KindPortState, info, "Port: ", regexp.MustCompile(`Port: (?P<port>\d+) Link (?P<state>INIT|ARMED|DOWN)$`), "the RDMA port changed state", adjustPortState},
		{KindModuleEvent, info, "Port module event", regexp.MustCompile(`Port module event(?P<error>\[error\])?: module (?P<module>\d+), (?P<status>.+)$`),
			"the port's transceiver/cable was plugged, unplugged or reported an error", adjustModuleEvent},

		// --- RDMA drivers, devices and modules ---
		{KindModuleLoad, info, ": loaded", regexp.MustCompile(`^(?P<module>rdma_rxe|siw): loaded$`), "an RDMA driver module was loaded", nil},
		{KindModuleUnload, info, ": unloaded", regexp.MustCompile(`^(?P<module>rdma_rxe|siw): unloaded$`), "an RDMA driver module was unloaded: its devices and their QPs are gone", nil},
		{KindModuleLoad, info, "Broadcom NetXtreme-C/E RoCE Driver", regexp.MustCompile(`^(?P<module>bnxt_re): Broadcom NetXtreme-C/E RoCE Driver`), "an RDMA driver module was loaded", nil},
		{KindModuleLoad, info, ": Mellanox ConnectX", regexp.MustCompile(`^(?P<module>mlx4_core|mlx4_en): Mellanox ConnectX`), "a Mellanox ConnectX-3 driver module was loaded", nil},
		{KindModuleLoad, info, "Mellanox ConnectX InfiniBand driver", regexp.MustCompile(`(?P<module>mlx4_ib): Mellanox ConnectX InfiniBand driver`), "a Mellanox ConnectX-3 driver module was loaded", nil},
		{KindProbeFailed, crit, ": probe of ", regexp.MustCompile(`^(?P<driver>[a-z0-9_]+): probe of (?P<pci>\S+) failed with error (?P<errno>-?\d+)`),
			"the driver could not initialise the NIC: it has no netdev or RDMA device until fixed (firmware/driver mismatch, resources, hardware)", nil},
		{KindProbeFailed, crit, "mlx5_load_one failed with error code ", regexp.MustCompile(`mlx5_load_one failed with error code (?P<errno>-?\d+)`),
			"the mlx5 driver could not initialise the NIC: it has no netdev or RDMA device until fixed", nil},
		{KindDeviceProbe, info, ": firmware version: ", regexp.MustCompile(`^(?P<driver>mlx[45]_core) \S+: firmware version: (?P<fw_version>\S+)`), "the driver is probing a NIC (firmware version shown)", nil},
		{KindDeviceAdded, info, ": added ", regexp.MustCompile(`^infiniband (?P<ibdev>\S+): added (?P<netdev>\S+)$`), "a Soft-RoCE device was created on a netdev", nil},
		{KindDeviceAdded, info, " successfully", regexp.MustCompile(`^infiniband (?P<ibdev>\S+): Device registered(?: with IB)? successfully`), "an RDMA device was registered", nil},
		{KindDriverError, warn, "bnxt_re", regexp.MustCompile(`(?P<ibdev>bnxt_re\d+): (?P<error>(?:Failed to|Couldn't|Free \w+ failed).*)$`),
			"the bnxt_re RoCE driver failed an operation (often after a firmware command error)", nil},
		// ibdev_err with the bnxt_en PCI function (or, on the auxiliary bus,
		// bnxt_re's own device) as parent, whatever udev renamed bnxt_re0 to.
		{KindDriverError, warn, "bnxt_", regexp.MustCompile(`^(?:bnxt_en|bnxt_re[\w.]*) \S+ (?P<ibdev>[A-Za-z0-9_.-]+): (?P<error>(?:Failed to|Couldn't|Free \w+ failed).*)$`),
			"the bnxt_re RoCE driver failed an operation (often after a firmware command error)", nil},
		// dev_err on the RDMA device itself: the name says nothing of the
		// vendor once udev renamed it (rocep33s0f0).
		{KindDriverError, warn, "infiniband ", regexp.MustCompile(`^infiniband (?P<ibdev>[A-Za-z0-9_.-]+): (?P<error>(?:Failed to|Couldn't|Free \w+ failed).*)$`),
			"an RDMA driver failed an operation on this device (bnxt_re: often after a firmware command error)", nil},
		// irdma (Intel E810/X722): drivers/infiniband/hw/irdma/main.c, hw.c.
		{KindFWFatal, crit, "critical PE Error", regexp.MustCompile(`critical PE Error, GLPE_CRITERR=(?P<criterr>0x[0-9a-fA-F]+)`),
			"the Intel RDMA (irdma) protocol engine hit a critical error and the driver requests a function reset: every QP, CQ and MR on the device is lost", nil},
		{KindFWFatal, crit, " Error", regexp.MustCompile(`: (?P<error>HMC Error|PE Push Error)$`),
			"the Intel RDMA (irdma) device reported an internal error and the driver requests a function reset: every QP, CQ and MR on the device is lost", nil},
		{KindDriverError, warn, "abnormal ae_id = ", regexp.MustCompile(`abnormal ae_id = (?P<ae_id>0x[0-9a-fA-F]+) bool qp=(?P<is_qp>\d) qp_id = (?P<qp_id>\d+)`),
			"the irdma device raised an asynchronous error on a QP (or CQ when qp=0); ae_id names it (e.g. retries exhausted, protection or length error) and the QP goes to the error state", nil},
		{KindDriverError, warn, "<mlx4_ib> ", regexp.MustCompile(`^<(?P<driver>mlx4_ib)> (?P<function>\w+): (?P<error>Couldn't .*)$`),
			"the mlx4 RDMA driver failed an operation", nil},
		{KindDriverError, warn, "rdma_rxe: ", regexp.MustCompile(`^(?P<driver>rdma_rxe): (?P<error>not enough indices for max_elem|.*pool destroyed with unfree'd elem)`),
			"the Soft-RoCE driver reported an internal resource problem", nil},

		// --- the kernel itself ---
		{KindHungTask, warn, "INFO: task ", regexp.MustCompile(`INFO: task (?P<comm>.+):(?P<pid>\d+) blocked for more than (?P<seconds>\d+) seconds`),
			"a task has been stuck in uninterruptible sleep; in RDMA stacks this is often a driver waiting on firmware or a QP/CM teardown that never completes", nil},
		{KindSoftLockup, warn, "soft lockup - CPU#", regexp.MustCompile(`(?:NMI )?watchdog: BUG: soft lockup - CPU#(?P<cpu>\d+) stuck for (?P<seconds>\d+)s!(?: \[(?P<comm>.+):(?P<pid>\d+)\])?`),
			"a CPU ran kernel code without scheduling for many seconds; latency-sensitive work on it (interrupts, completions) was starved", nil},
		{KindRCUStall, warn, "rcu: INFO: ", regexp.MustCompile(`rcu: INFO: (?P<flavor>rcu_\w+) (?:self-)?detected stall`),
			"RCU detected a CPU that did not make progress: the system is stalling (soft lockup, interrupt storm, or a stopped VM)", nil},
		{KindOOMKill, warn, "ut of memory: Killed process ", regexp.MustCompile(`(?P<cgroup>Memory cgroup )?[Oo]ut of memory: Killed process (?P<pid>\d+) \((?P<comm>.*?)\)(?: total-vm|,|$)`),
			"the kernel killed a process to free memory; if it owned QPs they are gone and its peers' QPs will fail", adjustOOM},
		{KindOOM, warn, " invoked oom-killer: ", regexp.MustCompile(`^(?P<comm>.+) invoked oom-killer: gfp_mask=(?P<gfp_mask>\S+), order=(?P<order>\d+)`),
			"memory ran out and the OOM killer is choosing a victim (an oom_kill line follows)", nil},
		{KindPageAllocFailure, warn, ": page allocation failure: order:", regexp.MustCompile(`^(?P<comm>.+?): page allocation failure: order:(?P<order>\d+), mode:(?P<mode>[^ ,]+)`),
			"the kernel could not find a free block of 2^order pages; high orders fail when free memory is fragmented even if plenty is free. RDMA memory registration, large CQ/QP rings and huge pages need such blocks: check buddyinfo's high-order free memory", adjustPageAlloc},
	}
})

func adjustAER(e *Event) {
	switch c := e.Fields["aer_class"]; {
	case c == "Corrected" || c == "Correctable":
		e.Severity = warn
	default:
		e.Severity = crit
		e.Meaning = "an uncorrectable PCIe error: the device may have lost transactions or been reset; expect driver errors and failed RDMA operations on it"
	}
	if s := e.Fields["source"]; rePCI().MatchString(s) {
		e.PCI = s // the device that reported it, not the port that relayed it
	}
}

func adjustPortState(e *Event) {
	if e.Fields["state"] == "DOWN" {
		e.Kind, e.Severity = KindPortDown, warn
	}
}

var rePlugged = lazyre.New(`(?i)^cable plugged`)

func adjustModuleEvent(e *Event) {
	if e.Fields["error"] != "" || !rePlugged().MatchString(e.Fields["status"]) {
		e.Severity = warn
	}
	delete(e.Fields, "error")
}

func adjustOOM(e *Event) {
	if e.Fields["cgroup"] != "" {
		e.Fields["cgroup"] = "true"
		e.Meaning = "a memory cgroup hit its limit and the kernel killed a process in it; if it owned QPs they are gone and its peers' QPs will fail"
	}
}

func adjustPageAlloc(e *Event) {
	if o, err := strconv.Atoi(e.Fields["order"]); err == nil && o >= 9 {
		e.Fields["high_order"] = "true"
	}
}
