package rules

import (
	"sort"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
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
	for _, st := range s.Status {
		h.Sources[st.Source] = string(st.State)
		if st.State == probes.StatePermissionDenied {
			h.Denied = append(h.Denied, st.Source+": "+st.Detail)
		}
	}
	h.Events = s.Events
	h.QPs = len(s.QPs)
	if m := s.Config.Memory; m != nil {
		h.Memory = m
		h.HugePagesTotal, h.HugePagesFree, h.HighOrderFreeKB = u64(m.HugePagesTotal), u64(m.HugePagesFree), u64(m.HighOrderFreeKB)
	}
	var sum float64
	have := false
	for _, p := range s.Ports {
		e := Env{counters: p.Counters}
		for _, n := range []string{"rx_packets", "tx_packets"} {
			if r := e.Rate(n); r != nil {
				sum += r.(float64)
				have = true
			}
		}
	}
	if have {
		h.RDMAPacketsPerSec = sum
	}
	return h
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

func wireEnv(f Frame) *WireEnv {
	w := f.Wire
	if w == nil {
		return nil
	}
	env := &WireEnv{Totals: w.Totals, RoCEPackets: w.RoCEPackets, RoCEv1Packets: w.RoCEv1Packets, Packets: w.Packets,
		DurationSec: w.DurationSec, PMTU: w.PMTU, Malformed: w.MalformedPackets, KernelDrops: u64(w.KernelDrops),
		RoCEPacketsSoFar: w.RoCEPacketsSoFar, Interface: w.Interface}
	return env
}

// objectSet is what the rules of one scope are evaluated on in a frame
// (or why there is nothing to evaluate: why).
type objectSet struct {
	// qps are the snapshot's QPs (scope qp), first, with their events
	// (by index in qps, ascending). A frame can hold 10,000 QPs: their
	// objects are made one at a time as a rule goes through them (next).
	qps    []probes.QP
	events []eventsAt
	base   *Env
	// flows are the capture's flows (scope flow), and peers the index in
	// flows of each one's peer (-1: none). A frame can hold 100,000
	// flows: their objects are made one at a time too, their
	// environments only when a condition runs on them (flowfast.go).
	flows []capture.FlowSummary
	peers []int32
	// objs are the other objects.
	objs []object
	why  string
}

type eventsAt struct {
	i   int
	evs []probes.Event
}

func (s *objectSet) len() int { return len(s.qps) + len(s.flows) + len(s.objs) }

// objectIter goes through an objectSet. The object it returns is valid
// until the next call.
type objectIter struct {
	s     *objectSet
	i, ev int
	qp    object
	fl    object
	flEnv Env // the environment of fl, when a condition runs on it
}

func (it *objectIter) next() *object {
	s, i := it.s, it.i
	it.i++
	if i < len(s.qps) {
		// Only what differs from one QP to the next is written: this runs
		// for every QP and every qp-scope condition.
		o := &it.qp
		o.env, o.base, o.qp, o.events = nil, s.base, &s.qps[i], nil
		if it.ev < len(s.events) && s.events[it.ev].i == i {
			o.events = s.events[it.ev].evs
			it.ev++
		}
		return o
	}
	if i -= len(s.qps); i < len(s.flows) {
		o := &it.fl
		o.env, o.base, o.flow, o.peer, o.name, o.store = nil, s.base, &s.flows[i], nil, "", &it.flEnv
		if p := s.peers[i]; p >= 0 {
			o.peer = &s.flows[p]
		}
		return o
	}
	if i -= len(s.flows); i < len(s.objs) {
		return &s.objs[i]
	}
	return nil
}

// skipFalseQPs passes over the QPs, from the iterator's place on, that
// quick decides false, doing what the engine does with a false answer
// (their timers are dropped), and returns how many it passed. It stops at
// the first QP quick does not decide false, which next returns.
func (it *objectIter) skipFalseQPs(quick quickTest, timers map[string]timer) int {
	s, n := it.s, 0
	for ; it.i < len(s.qps); it.i++ {
		q := &s.qps[it.i]
		var evs []probes.Event
		withEvents := it.ev < len(s.events) && s.events[it.ev].i == it.i
		if withEvents {
			evs = s.events[it.ev].evs
		}
		if quick(q, evs) != no {
			break
		}
		if len(timers) > 0 {
			delete(timers, qpID(q.Device, q.LQPN))
		}
		if withEvents {
			it.ev++
		}
		n++
	}
	return n
}

// objects lists what a rule of scope is evaluated on.
func objects(f Frame, scope Scope, host *HostEnv, wire *WireEnv) *objectSet {
	switch scope {
	case ScopeQP:
		return qpObjects(f, host, wire)
	case ScopeFlow:
		return flowObjects(f, host, wire)
	}
	objs, why := otherObjects(f, scope, host, wire)
	return &objectSet{objs: objs, why: why}
}

// otherObjects lists the objects of the scopes other than qp, or why
// there is nothing to evaluate.
func otherObjects(f Frame, scope Scope, host *HostEnv, wire *WireEnv) ([]object, string) {
	base := Env{Host: host, Wire: wire}
	s := f.Snapshot
	switch scope {
	case ScopeHost:
		return []object{{env: &base, name: "host"}}, ""
	}
	if s == nil {
		return nil, "no host data in this frame (a capture alone)"
	}
	switch scope {
	case ScopePort, ScopePriority:
		if len(s.Ports) == 0 {
			return nil, "no RDMA ports"
		}
		var out []object
		var envs []Env // allocated together, as many as objects
		n := len(s.Ports)
		if scope == ScopePriority {
			n = 0
			for i := range s.Ports {
				n += len(s.Ports[i].PFC)
			}
		}
		envs = make([]Env, 0, n)
		to := maxPayloadTo(f.Wire)
		for i := range s.Ports {
			p := &s.Ports[i]
			pe := &PortEnv{Device: p.Device, Port: p.Port, Netdev: p.Netdev, State: p.State, PhysState: p.PhysState,
				LinkLayer: p.LinkLayer, RateGbps: p.RateGbps, MTU: intp(p.MTU), RoCEMTU: intp(p.RoCEMTU), OperState: p.OperState,
				MaxPayloadIn: portMaxPayloadIn(to, &s.Config, p.Device, p.Port)}
			for _, e := range s.Events {
				if e.Device == p.Device && e.Port == p.Port && e.Source == "port" {
					pe.Events = append(pe.Events, e)
				}
			}
			env := base
			env.Port, env.counters = pe, p.Counters
			if scope == ScopePort {
				envs = append(envs, env)
				out = append(out, object{env: &envs[len(envs)-1], port: p})
				continue
			}
			for j := range p.PFC {
				pr := &p.PFC[j]
				pv := &PrioEnv{Priority: pr.Priority, RxPausePerSec: f64(pr.RxPausePerSec), TxPausePerSec: f64(pr.TxPausePerSec),
					RxPausedPct: f64(pr.RxPausedPercent), TxPausedPct: f64(pr.TxPausedPercent)}
				if pr.Enabled != nil {
					pv.Enabled = *pr.Enabled
				}
				envs = append(envs, env)
				envs[len(envs)-1].Prio = pv
				out = append(out, object{env: &envs[len(envs)-1], port: p, prio: pr})
			}
		}
		if scope == ScopePriority && len(out) == 0 {
			return nil, "no per-priority PFC counters (ethtool) on these ports"
		}
		return out, ""
	}
	return nil, "unknown scope"
}

// flowObjects lists the flows of the frame's capture, each with its peer
// (the last flow of that id, should two have it).
func flowObjects(f Frame, host *HostEnv, wire *WireEnv) *objectSet {
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
	return &objectSet{flows: flows, peers: peers, base: &Env{Host: host, Wire: wire}}
}

// qpObjects lists the QPs of the frame: those of the snapshot, and those
// that changed and vanished within the sample (from their events).
func qpObjects(f Frame, host *HostEnv, wire *WireEnv) *objectSet {
	s := f.Snapshot
	if s == nil {
		return &objectSet{why: "no host data in this frame (a capture alone)"}
	}
	set := &objectSet{qps: s.QPs, base: &Env{Host: host, Wire: wire}}
	// Keyed by a struct, not "dev/qpn": no string built per QP.
	var events map[qpRef][]probes.Event
	for _, e := range s.Events {
		if e.Source == "qp" && e.QPN != nil {
			if events == nil {
				events = map[qpRef][]probes.Event{}
			}
			k := qpRef{e.Device, *e.QPN}
			events[k] = append(events[k], e)
		}
	}
	if len(events) == 0 {
		if len(s.QPs) == 0 && host.Sources["rdma netlink"] != string(probes.StateOK) {
			set.why = "QPs need RDMA netlink: " + host.Sources["rdma netlink"]
		}
		return set
	}
	seen := map[qpRef]bool{}
	for i := range s.QPs {
		q := &s.QPs[i]
		k := qpRef{q.Device, q.LQPN}
		if evs, ok := events[k]; ok {
			set.events = append(set.events, eventsAt{i, evs})
			seen[k] = true
		}
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
		e := evs[len(evs)-1]
		env := *set.base
		env.QP = &QPEnv{Device: e.Device, LQPN: int(*e.QPN), State: "DESTROYED", Events: evs}
		set.objs = append(set.objs, object{env: &env})
	}
	return set
}

// qpRef names a QP: its device and number.
type qpRef struct {
	device string
	qpn    uint32
}

// object is one thing a rule is evaluated on. A snapshot QP's environment,
// identity and description are built only when a rule must run on it or
// fires on it (see prepare, id, keys): a frame can hold 10,000 QPs, most
// of them decided without running anything (memo.go), and their objects
// are kept small.
type object struct {
	// env is what a rule sees of the object; nil for a snapshot QP until
	// prepare builds it from base, qp and events.
	env  *Env
	base *Env
	// port, prio (of port) and flow are the objects of the other scopes
	// (none: the host); name is the identity of these objects, built from
	// their keys when first needed.
	port *probes.Port
	prio *probes.PFCPriority
	flow *capture.FlowSummary
	name string
	// peer is a capture flow's peer (nil: none), and store where prepare
	// builds the flow's environment (nil for other objects).
	peer  *capture.FlowSummary
	store *Env
	// qp is a QP of the snapshot and events its events in the frame. Nil
	// for other objects, and for a QP gone from the snapshot (whose
	// env.QP is set).
	qp     *probes.QP
	events []probes.Event
}

// prepare returns what a rule with params sees of o, building a QP's.
func (o *object) prepare(params map[string]float64) *Env {
	if o.env == nil && o.store != nil {
		*o.store = *o.base
		o.store.Flow, o.store.Peer = o.flow, o.peer
		o.env = o.store
	}
	if o.env == nil {
		env := *o.base
		env.QP = qpEnvOf(o.qp, o.events)
		o.env = &env
	}
	o.env.Params = params
	return o.env
}

// id is o's identity: the key of its timers and findings.
func (o *object) id() string {
	switch {
	case o.qp != nil:
		return qpID(o.qp.Device, o.qp.LQPN)
	case o.env != nil && o.env.QP != nil:
		return qpID(o.env.QP.Device, uint32(o.env.QP.LQPN))
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
	case o.qp != nil:
		return qpKeys(o.qp.Device, o.qp.LQPN, o.qp.Comm, o.qp.PID)
	case o.env != nil && o.env.QP != nil:
		return qpKeys(o.env.QP.Device, uint32(o.env.QP.LQPN), "", nil) // gone: no owner known
	case o.flow != nil:
		fl := o.flow
		return map[string]string{"flow": strconv.Itoa(fl.ID), "src": fl.Src, "dst": fl.Dst, "dest_qp": probes.FormatQPN(fl.DestQP)}
	case o.port != nil:
		p := o.port
		keys := map[string]string{"device": p.Device, "port": strconv.Itoa(p.Port)}
		if p.Netdev != "" {
			keys["netdev"] = p.Netdev
		}
		if o.prio != nil {
			keys["priority"] = strconv.Itoa(o.prio.Priority)
		}
		return keys
	}
	return map[string]string{} // the host
}

func qpKeys(dev string, qpn uint32, comm string, pid *int) map[string]string {
	keys := map[string]string{"device": dev, "qpn": probes.FormatQPN(qpn)}
	if comm != "" {
		keys["comm"] = comm
	}
	if pid != nil {
		keys["pid"] = strconv.Itoa(*pid)
	}
	return keys
}

func intp(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
