package rules

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/nccl"
)

// ncclShown is how many distinct NCCL errors a finding's evidence lists:
// a job logs the same error once per channel and rank, and the first few
// distinct ones name the peers and devices.
const ncclShown = 4

// ncclEvidence summarises the NCCL log's events of one kind (for
// completion errors, of the given ibv_wc_status numbers; none: any): each
// distinct error once, with how often it was logged, at most ncclShown.
// It is the evidence template function "nccl".
func ncclEvidence(events []probes.Event, kind string, statuses ...int) string {
	type group struct {
		text string
		n    int
	}
	var groups []group
	index := map[string]int{}
	for i := range events {
		e := &events[i]
		if e.Source != "nccl" || e.Kind != kind || e.NCCL == nil {
			continue
		}
		n := e.NCCL
		if len(statuses) > 0 && (n.Status == nil || !slices.Contains(statuses, *n.Status)) {
			continue
		}
		t := ncclText(e)
		if k, ok := index[t]; ok {
			groups[k].n++
			continue
		}
		index[t] = len(groups)
		groups = append(groups, group{t, 1})
	}
	var b strings.Builder
	for i, g := range groups {
		if i == ncclShown {
			fmt.Fprintf(&b, "; and %d more", len(groups)-ncclShown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(g.text)
		if g.n > 1 {
			fmt.Fprintf(&b, " (×%d)", g.n)
		}
	}
	return b.String()
}

// ncclText describes one NCCL event for people: what failed, toward whom,
// on which device, as logged on which host.
func ncclText(e *probes.Event) string {
	n := e.NCCL
	var b strings.Builder
	if n.Host != "" {
		b.WriteString(n.Host)
		if n.PID != 0 {
			b.WriteString(" pid " + strconv.Itoa(n.PID))
		}
		b.WriteString(": ")
	}
	switch e.Kind {
	case nccl.KindCompletion:
		if n.Status != nil {
			b.WriteString("status " + strconv.Itoa(*n.Status))
			if n.StatusName != "" {
				b.WriteString(" " + n.StatusName)
			}
		} else {
			b.WriteString("completion error")
		}
		if n.Peer != "" {
			b.WriteString(" toward " + n.Peer)
		}
		if e.Device != "" {
			b.WriteString(" on " + e.Device)
		}
		if e.QPN != nil {
			fmt.Fprintf(&b, " QP %d", *e.QPN)
		}
		if n.Direction != "" {
			b.WriteString(" (" + n.Direction + ")")
		}
		if n.VendorErr != nil {
			fmt.Fprintf(&b, ", vendor err %d (0x%x)", *n.VendorErr, *n.VendorErr)
		}
		if n.LocalGID != "" || n.RemoteGID != "" {
			b.WriteString(", GID " + n.LocalGID + " → " + n.RemoteGID)
		}
	case nccl.KindLinkLocalGID:
		b.WriteString("QPs from ")
		if n.GIDIndex != nil {
			b.WriteString("GID index " + strconv.Itoa(*n.GIDIndex) + ", ")
		}
		b.WriteString(n.LocalGID + " (link-local)")
	case nccl.KindAsync:
		if e.Device != "" {
			b.WriteString(e.Device + ":" + strconv.Itoa(e.Port) + " ")
		}
		b.WriteString(n.Async)
	default:
		b.WriteString(e.Detail)
	}
	return b.String()
}

// ncclSockets is the evidence that NCCL moves data over TCP sockets: what
// it logged choosing them (the network, the interfaces, why IB had no
// device) and the processes whose channels go via NET/Socket, beside the
// host's ACTIVE RDMA ports. It is the evidence template function
// "ncclsockets".
func ncclSockets(h *HostEnv) string {
	var said, why, ifs []string
	procs := map[string]bool{}
	for e := range ncclEvents(h.Events) {
		n := e.NCCL
		switch {
		case e.Kind == nccl.KindNetwork && n.Net == "Socket":
			said = appendOnce(said, "'Using network Socket'")
		case e.Kind == nccl.KindNoRDMA:
			why = appendOnce(why, n.Reason+" ('"+e.Detail+"')")
		case e.Kind == nccl.KindNetDevices && n.Net == "Socket":
			said = appendOnce(said, "'NET/Socket : Using'")
			ifs = appendOnce(ifs, strings.Join(n.Devices, " "))
		case e.Kind == nccl.KindChannel && strings.HasPrefix(n.Via, "NET/Socket"):
			procs[n.Host+" pid "+strconv.Itoa(n.PID)] = true
		}
	}
	var b strings.Builder
	b.WriteString(ncclVersion(h) + "NCCL logged " + strings.Join(said, ", "))
	if len(ifs) > 0 {
		b.WriteString(", over " + strings.Join(ifs, "; "))
	}
	if len(procs) > 0 {
		fmt.Fprintf(&b, "; channels via NET/Socket in %d process(es)", len(procs))
	}
	if len(why) > 0 {
		b.WriteString("; why: " + strings.Join(why, "; "))
	} else {
		b.WriteString("; the log does not say why (NCCL_DEBUG_SUBSYS=INIT,NET shows the NET/IB lines)")
	}
	switch {
	case len(h.ActivePorts) > 0:
		fmt.Fprintf(&b, "; this host has %d ACTIVE RDMA port(s): %s", len(h.ActivePorts), strings.Join(h.ActivePorts, ", "))
	case h.RDMAPorts > 0:
		fmt.Fprintf(&b, "; none of this host's %d RDMA port(s) is ACTIVE", h.RDMAPorts)
	default:
		b.WriteString("; this host's RDMA ports were not read (the log alone)")
	}
	return b.String()
}

// ncclGDROff is the evidence that GPUDirect RDMA is off for HCAs NCCL
// uses: each HCA NCCL said it off for, with NCCL's reason, and how many
// processes' channels go over the network without /GDRDMA. It is the
// evidence template function "ncclgdr".
func ncclGDROff(h *HostEnv) string {
	var off []string
	procs := map[string]bool{}
	for e := range ncclEvents(h.Events) {
		n := e.NCCL
		switch {
		case e.Kind == nccl.KindGDR && n.GDR != nil && !*n.GDR:
			t := e.Device
			if n.Reason != "" {
				t += " (" + n.Reason + ")"
			}
			off = appendOnce(off, t)
		case e.Kind == nccl.KindChannel && strings.HasPrefix(n.Via, "NET/") && !strings.HasPrefix(n.Via, "NET/Socket") && !strings.Contains(n.Via, "/GDRDMA"):
			procs[n.Host+" pid "+strconv.Itoa(n.PID)] = true
		}
	}
	var parts []string
	if len(off) > 0 {
		parts = append(parts, "NCCL logged GPU Direct RDMA disabled for HCA "+strings.Join(off, ", "))
	}
	if len(procs) > 0 {
		parts = append(parts, fmt.Sprintf("channels over the network without /GDRDMA in %d process(es)", len(procs)))
	}
	if h.Config != nil && h.Config.GPUDirect != nil {
		parts = append(parts, peerMemEvidence(h.Config.GPUDirect))
	}
	return ncclVersion(h) + strings.Join(parts, "; ")
}

// peerMemEvidence says what this host's /sys/module says of GPUDirect
// RDMA's kernel side.
func peerMemEvidence(g *probes.GPUDirectConfig) string {
	switch {
	case len(g.PeerMem) > 0:
		return "this host has " + strings.Join(g.PeerMem, " and ") + " loaded: the reason is elsewhere (DMA-BUF, NCCL_NET_GDR_LEVEL, the PCIe path)"
	case g.NVIDIA:
		return "this host has the nvidia driver loaded and no peer-memory module (no /sys/module/nvidia_peermem or nv_peer_mem): only DMA-BUF could give GPUDirect RDMA"
	}
	return "this host has neither the nvidia driver nor a peer-memory module loaded (/sys/module): the log is not of this host's GPUs, or their driver is another vendor's"
}

// ncclGraphSYS is the evidence that NCCL's topology search settled on
// GPU-to-NIC paths of type SYS: the processes that logged it and the
// first such line. It is the evidence template function "ncclgraph".
func ncclGraphSYS(h *HostEnv) string {
	var procs []string
	var line string
	for e := range ncclEvents(h.Events) {
		if e.Kind != nccl.KindGraph || !strings.HasSuffix(e.NCCL.Paths, "/SYS") {
			continue
		}
		procs = appendOnce(procs, e.NCCL.Host+" pid "+strconv.Itoa(e.NCCL.PID))
		if line == "" {
			line = e.Detail
		}
	}
	return fmt.Sprintf("%sNCCL's topology search settled on GPU-to-NIC paths of type SYS (through the interconnect between CPUs) in %d process(es) (%s): '%s'",
		ncclVersion(h), len(procs), strings.Join(procs, ", "), line)
}

// ncclVersion is "NCCL 2.25.1+cuda12.4: " when the log named the version
// (every version it named, joined), "" when it did not.
func ncclVersion(h *HostEnv) string {
	var vs []string
	for e := range ncclEvents(h.Events) {
		if e.Kind == nccl.KindVersion {
			vs = appendOnce(vs, e.NCCL.Value)
		}
	}
	if len(vs) == 0 {
		return ""
	}
	return "NCCL " + strings.Join(vs, ", ") + ": "
}

// ncclEvents yields the events NCCL's log gave, with what they said.
func ncclEvents(events []probes.Event) iter.Seq[*probes.Event] {
	return func(yield func(*probes.Event) bool) {
		for i := range events {
			if e := &events[i]; e.Source == "nccl" && e.NCCL != nil && !yield(e) {
				return
			}
		}
	}
}

// appendOnce appends s to ss unless ss holds it.
func appendOnce(ss []string, s string) []string {
	if slices.Contains(ss, s) {
		return ss
	}
	return append(ss, s)
}

// ncclPorts is the evidence that NCCL leaves NICs idle: the ports its
// network uses and the ACTIVE ones of the same kind it does not. It is
// the evidence template function "ncclports".
func ncclPorts(h *HostEnv) string {
	return fmt.Sprintf("NCCL's network uses %d of this host's RDMA ports (%s); %d more ACTIVE, of the same link layer and rate, carry none of its traffic: %s",
		len(h.NCCLPortsUsed), strings.Join(h.NCCLPortsUsed, ", "), len(h.NCCLPortsIdle), strings.Join(h.NCCLPortsIdle, ", "))
}
