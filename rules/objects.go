package rules

import (
	"sort"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/qos"
)

func hostEnv(f Frame) HostEnv {
	h := HostEnv{Sources: map[string]string{}, Live: f.Live}
	s := f.Snapshot
	if s == nil {
		return h
	}
	h.HasSnapshot = true
	h.IntervalSec = s.Interval
	h.Config = &s.Config
	h.qos = qos.HostOf(&s.Config)
	for _, st := range s.Status {
		h.Sources[st.Source] = string(st.State)
		if st.State == probes.StatePermissionDenied {
			h.Denied = append(h.Denied, st.Source+": "+st.Detail)
		}
	}
	h.Events = s.Events
	for _, e := range s.Events {
		if e.Source == "kmsg" && e.Severity != probes.SevInfo && kmsg.Kind(e.Kind).Hardware() {
			h.HardwareEvents = append(h.HardwareEvents, e)
		}
	}
	h.NCCLRAS = s.NCCLRAS
	h.QPs = len(s.QPs)
	if m := s.Config.Memory; m != nil {
		h.Memory = m
		h.HugePagesTotal, h.HugePagesFree, h.HighOrderFreeKB = u64(m.HugePagesTotal), u64(m.HugePagesFree), u64(m.HighOrderFreeKB)
	}
	h.RDMAPorts = len(s.Ports)
	h.NCCLPortsUsed, h.NCCLPortsIdle = ncclIdlePorts(s.Events, s.Ports)
	h.RDMABalance = portBalance(s.RDMABalance)
	h.GPUOnTCP = gpuOnTCP(s.GPUProcesses)
	h.GPURead = h.Sources["gpu-tcp"] == string(probes.StateOK) || len(s.GPUProcesses) > 0
	for i := range s.Ports {
		if p := &s.Ports[i]; p.State == "ACTIVE" {
			h.ActivePorts = append(h.ActivePorts, portLabel(p))
		}
	}
	var sum float64
	have := false
	for _, p := range s.Ports {
		for _, n := range []string{"rx_packets", "tx_packets"} {
			if c := firstCounter(p.Counters, n); c != nil && c.Rate != nil {
				sum += *c.Rate
				have = true
			}
		}
	}
	if have {
		h.RDMAPacketsPerSec = sum
	}
	return h
}

// portLabel names an RDMA port with its link layer and rate, for
// evidence: "mlx5_0/1 Ethernet 200 Gb/s".
func portLabel(p *probes.Port) string {
	b := p.Device + "/" + strconv.Itoa(p.Port)
	if p.LinkLayer != "" {
		b += " " + p.LinkLayer
	}
	if p.RateGbps > 0 {
		b += " " + humanFloat(p.RateGbps) + " Gb/s"
	}
	return b
}

func u64(p *uint64) any {
	if p == nil {
		return nil
	}
	return float64(*p)
}

func f64(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// firstCounter is the first of cs called name (canonical or native).
func firstCounter(cs []probes.Counter, name string) *probes.Counter {
	for i := range cs {
		if c := &cs[i]; c.Name == name || c.Native == name {
			return c
		}
	}
	return nil
}

func wireEnv(f Frame) *WireEnv {
	w := f.Wire
	if w == nil {
		return nil
	}
	env := &WireEnv{Totals: w.Totals, RoCEPackets: w.RoCEPackets, RoCEv1Packets: w.RoCEv1Packets, Packets: w.Packets,
		DurationSec: w.DurationSec, PMTU: w.PMTU, Malformed: w.MalformedPackets, KernelDrops: u64(w.KernelDrops),
		Unrecorded: u64(w.Unrecorded), BlindS: w.BlindS, LinkDown: w.LinkDown,
		RoCEPacketsSoFar: w.RoCEPacketsSoFar, Interface: w.Interface, Paths: w.Paths}
	return env
}

// objectSet is what the rules of one scope are evaluated on in a frame
// (or why there is nothing to evaluate: why).
type objectSet struct {
	// qps are the snapshot's QPs as rules see them (scope qp), src the
	// same as sampled, and same says which of them are as they were in
	// the previous frame that had QPs (at the same place, no events in
	// either): gen numbers these frames. A frame can hold 10,000 QPs.
	qps  []QPEnv
	src  []probes.QP
	same []bool
	gen  uint64
	// flows are the capture's flows (scope flow), and peers the index in
	// flows of each one's peer (-1: none). A frame can hold 100,000
	// flows; their objects are made one at a time as a rule goes
	// through them.
	flows []capture.FlowSummary
	peers []int32
	// objs are the other objects: the host, ports, priorities, and QPs
	// that changed and vanished within the sample.
	objs []object
	why  string
}

func (s *objectSet) len() int { return len(s.qps) + len(s.flows) + len(s.objs) }

// objects lists what a rule of scope is evaluated on.
func (e *Engine) objects(f Frame, scope Scope, host *HostEnv) *objectSet {
	switch scope {
	case ScopeQP:
		return e.qpObjects(f, host)
	case ScopeFlow:
		return flowObjects(f)
	}
	objs, why := e.otherObjects(f, scope)
	return &objectSet{objs: objs, why: why}
}

// otherObjects lists the objects of the host, port and priority scopes,
// or why there is nothing to evaluate.
func (e *Engine) otherObjects(f Frame, scope Scope) ([]object, string) {
	s := f.Snapshot
	if scope == ScopeHost {
		return []object{{name: "host"}}, ""
	}
	if s == nil {
		return nil, "no host data in this frame (a capture alone)"
	}
	if scope != ScopePort && scope != ScopePriority {
		return nil, "unknown scope"
	}
	if len(s.Ports) == 0 {
		return nil, "no RDMA ports"
	}
	var out []object
	to := maxPayloadTo(f.Wire)
	counters := e.portCounters(s.Ports)
	for i := range s.Ports {
		p := &s.Ports[i]
		pe := &PortEnv{Device: p.Device, Port: p.Port, Netdev: p.Netdev, State: p.State, PhysState: p.PhysState,
			LinkLayer: p.LinkLayer, RateGbps: p.RateGbps, MTU: intp(p.MTU), RoCEMTU: intp(p.RoCEMTU), OperState: p.OperState, StateFrom: p.From,
			MaxPayloadIn: portMaxPayloadIn(to, &s.Config, p.Device, p.Port)}
		for _, e := range s.Events {
			if e.Device == p.Device && e.Port == p.Port && (e.Source == "port" || e.Source == "gid") || kmsgLinkEvent(e, p) {
				pe.Events = append(pe.Events, e)
			}
		}
		if scope == ScopePort {
			out = append(out, object{port: pe, counters: &counters[i], srcPort: p})
			continue
		}
		for j := range p.PFC {
			pr := &p.PFC[j]
			pv := &PrioEnv{Priority: pr.Priority, RxPausePerSec: f64(pr.RxPausePerSec), TxPausePerSec: f64(pr.TxPausePerSec),
				RxPausedPct: f64(pr.RxPausedPercent), TxPausedPct: f64(pr.TxPausedPercent)}
			if pr.Enabled != nil {
				pv.Enabled = *pr.Enabled
			}
			out = append(out, object{port: pe, prio: pv, counters: &counters[i], srcPort: p, srcPrio: pr})
		}
	}
	if scope == ScopePriority && len(out) == 0 {
		return nil, "no per-priority PFC counters (ethtool) on these ports"
	}
	return out, ""
}

// portCounters returns the counter sets of ports, by place, kept from
// frame to frame so that their indexes are built once.
func (e *Engine) portCounters(ports []probes.Port) []counterSet {
	if e.counterFrame == e.frame {
		return e.counters
	}
	e.counterFrame = e.frame
	if len(e.counters) < len(ports) {
		e.counters = append(e.counters, make([]counterSet, len(ports)-len(e.counters))...)
	}
	for i := range ports {
		e.counters[i].set(ports[i].Counters)
	}
	return e.counters
}

// flowObjects lists the flows of the frame's capture, each with its peer
// (the last flow of that id, should two have it).
func flowObjects(f Frame) *objectSet {
	if f.Wire == nil {
		return &objectSet{why: "no capture in this frame"}
	}
	flows := f.Wire.Flows
	if len(flows) == 0 {
		return &objectSet{why: "the capture has no RoCE flows"}
	}
	peers := make([]int32, len(flows))
	// Flows are numbered from 1 in order: a flow's id is its place, and a
	// peer is found without an index.
	inOrder := true
	for i := range flows {
		if flows[i].ID != i+1 {
			inOrder = false
			break
		}
	}
	var byID map[int]int32
	if !inOrder {
		byID = make(map[int]int32, len(flows))
		for i := range flows {
			byID[flows[i].ID] = int32(i)
		}
	}
	for i := range flows {
		peers[i] = -1
		id := flows[i].PeerID
		if id == 0 {
			continue
		}
		if inOrder {
			if id >= 1 && id <= len(flows) {
				peers[i] = int32(id - 1)
			}
		} else if p, ok := byID[id]; ok {
			peers[i] = p
		}
	}
	return &objectSet{flows: flows, peers: peers}
}

// qpObjects lists the QPs of the frame: those of the snapshot, and those
// that changed and vanished within the sample (from their events).
func (e *Engine) qpObjects(f Frame, host *HostEnv) *objectSet {
	s := f.Snapshot
	if s == nil {
		return &objectSet{why: "no host data in this frame (a capture alone)"}
	}
	// This frame's QPs, beside the previous frame's: the two slices are
	// reused, as the QPs of one frame are mostly the last frame's.
	prev := e.qpCur
	cur := e.qpPrev[:0]
	for i := range s.QPs {
		var like *QPEnv
		if i < len(prev) {
			like = &prev[i]
		}
		cur = append(cur, qpEnvOf(&s.QPs[i], like))
	}
	e.qpPrev, e.qpCur = prev, cur
	e.qpGen++
	set := &objectSet{qps: cur, src: s.QPs, gen: e.qpGen}
	// Keyed by a struct, not "dev/qpn": no string built per QP.
	var events map[qpRef][]probes.Event
	for _, ev := range s.Events {
		if ev.Source == "qp" && ev.QPN != nil {
			if events == nil {
				events = map[qpRef][]probes.Event{}
			}
			k := qpRef{ev.Device, *ev.QPN}
			events[k] = append(events[k], ev)
		}
	}
	var seen map[qpRef]bool
	if len(events) > 0 {
		seen = map[qpRef]bool{}
		for i := range s.QPs {
			q := &s.QPs[i]
			k := qpRef{q.Device, q.LQPN}
			if evs, ok := events[k]; ok {
				cur[i].Events = evs
				seen[k] = true
			}
		}
	}
	if cap(e.qpSame) < len(cur) {
		e.qpSame = make([]bool, len(cur))
	}
	set.same = e.qpSame[:len(cur)]
	for i := range cur {
		set.same[i] = i < len(prev) && cur[i].Events == nil && prev[i].Events == nil && cur[i].QPFields == prev[i].QPFields
	}
	if len(events) == 0 {
		if len(s.QPs) == 0 && host.Sources["rdma netlink"] != string(probes.StateOK) {
			set.why = "QPs need RDMA netlink: " + host.Sources["rdma netlink"]
		}
		return set
	}
	// QPs that changed and vanished within one sample still count, in a
	// fixed order (their findings' order must not depend on a map).
	var gone []string
	ref := map[string]qpRef{}
	for k := range events {
		if !seen[k] {
			name := k.device + "/" + strconv.Itoa(int(k.qpn))
			gone = append(gone, name)
			ref[name] = k
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		evs := events[ref[name]]
		ev := evs[len(evs)-1]
		qe := &QPEnv{QPFields: QPFields{Device: ev.Device, LQPN: int(*ev.QPN), State: "DESTROYED"}, Events: evs}
		set.objs = append(set.objs, object{qp: qe})
	}
	return set
}

// qpRef names a QP: its device and number.
type qpRef struct {
	device string
	qpn    uint32
}

// object is one thing a rule is evaluated on: what it shows a rule (its
// scope's fields, its port's counters) and what names it in a finding.
type object struct {
	port     *PortEnv
	prio     *PrioEnv
	qp       *QPEnv
	flow     *capture.FlowSummary
	peer     *capture.FlowSummary // a flow's peer, nil: none
	counters *counterSet
	// srcPort, srcPrio and srcQP are the sampled port, priority and QP
	// (srcQP is nil for a QP gone within the sample).
	srcPort *probes.Port
	srcPrio *probes.PFCPriority
	srcQP   *probes.QP
	// name is the identity of the object, built when first needed.
	name string
}

// id is o's identity: the key of its timers and findings.
func (o *object) id() string {
	switch {
	case o.qp != nil:
		return qpID(o.qp.Device, uint32(o.qp.LQPN))
	case o.name == "":
		o.name = idOf(o.keys())
	}
	return o.name
}

// idOf is the identity of an object described by keys: its sorted
// key=value pairs.
func idOf(keys map[string]string) string {
	ks := make([]string, 0, len(keys))
	for k, v := range keys {
		ks = append(ks, k+"="+v)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func qpID(dev string, qpn uint32) string {
	return "qp " + dev + "/" + strconv.FormatUint(uint64(qpn), 10)
}

// keys describes o in a finding.
func (o *object) keys() map[string]string {
	switch {
	case o.srcQP != nil:
		return qpKeys(o.srcQP)
	case o.qp != nil:
		return qpKeys(&probes.QP{Device: o.qp.Device, LQPN: uint32(o.qp.LQPN)}) // gone: no owner known
	case o.flow != nil:
		fl := o.flow
		return map[string]string{"flow": strconv.Itoa(fl.ID), "src": fl.Src, "dst": fl.Dst, "dest_qp": fl.DestQP.String()}
	case o.srcPort != nil:
		p := o.srcPort
		keys := map[string]string{"device": p.Device, "port": strconv.Itoa(p.Port)}
		if p.Netdev != "" {
			keys["netdev"] = p.Netdev
		}
		if o.srcPrio != nil {
			keys["priority"] = strconv.Itoa(o.srcPrio.Priority)
		}
		return keys
	}
	return map[string]string{} // the host
}

// qpKeys names a QP and its owner: the process, and its pod (by name,
// else by UID) and container (runtime and short id) when known.
func qpKeys(q *probes.QP) map[string]string {
	keys := map[string]string{"device": q.Device, "qpn": probes.FormatQPN(q.LQPN)}
	if q.Comm != "" {
		keys["comm"] = q.Comm
	}
	if q.PID != nil {
		keys["pid"] = strconv.Itoa(*q.PID)
	}
	switch {
	case q.Pod != "":
		keys["pod"] = q.Pod
	case q.PodUID != "":
		keys["pod_uid"] = q.PodUID
	}
	if q.ContainerID != "" {
		keys["container"] = probes.ContainerName(q.Runtime, q.ContainerID)
	}
	return keys
}

func intp(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// kmsgLinkEvent: a kernel log line saying that the port's RDMA device
// (its one port, or any: the line names no port) or its netdev went down
// or came back. They belong to the port: with sysfs hung they are what
// says it flapped.
func kmsgLinkEvent(e probes.Event, p *probes.Port) bool {
	if e.Source != "kmsg" || e.Device == "" {
		return false
	}
	switch e.Kind {
	case "port_down", "port_active", "link_down", "link_up":
	default:
		return false
	}
	return e.Device == p.Device || p.Netdev != "" && e.Device == p.Netdev
}
