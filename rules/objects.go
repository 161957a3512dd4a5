package rules

import (
	"fmt"
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
		DurationSec: w.DurationSec, PMTU: w.PMTU, Malformed: w.MalformedPackets, KernelDrops: u64(w.KernelDrops)}
	if w.Format == "live" {
		env.Interface = w.File
	}
	env.TimerResendFlows = timerResendFlows(w)
	return env
}

// objects lists what a rule of scope is evaluated on, or why there is
// nothing to evaluate.
func objects(f Frame, scope Scope, host *HostEnv, wire *WireEnv) ([]object, string) {
	base := Env{Host: host, Wire: wire}
	s := f.Snapshot
	switch scope {
	case ScopeHost:
		return []object{{env: base, id: func() string { return "host" }, keys: func() map[string]string { return map[string]string{} }}}, ""
	case ScopeFlow:
		if f.Wire == nil {
			return nil, "no capture in this frame"
		}
		byID := make(map[int]*capture.FlowSummary, len(f.Wire.Flows))
		for i := range f.Wire.Flows {
			byID[f.Wire.Flows[i].ID] = &f.Wire.Flows[i]
		}
		var out []object
		for i := range f.Wire.Flows {
			fl := &f.Wire.Flows[i]
			env := base
			env.Flow = fl
			if fl.PeerID != 0 {
				env.Peer = byID[fl.PeerID]
			}
			keys := map[string]string{"flow": strconv.Itoa(fl.ID), "src": fl.Src, "dst": fl.Dst, "dest_qp": fmt.Sprintf("0x%06x", fl.DestQP)}
			out = append(out, fixed(env, keys))
		}
		if len(out) == 0 {
			return nil, "the capture has no RoCE flows"
		}
		return out, ""
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
			keys := map[string]string{"device": p.Device, "port": strconv.Itoa(p.Port)}
			if p.Netdev != "" {
				keys["netdev"] = p.Netdev
			}
			env := base
			env.Port, env.counters = pe, p.Counters
			if scope == ScopePort {
				out = append(out, fixed(env, keys))
				continue
			}
			for _, pr := range p.PFC {
				pv := &PrioEnv{Priority: pr.Priority, RxPausePerSec: f64(pr.RxPausePerSec), TxPausePerSec: f64(pr.TxPausePerSec),
					RxPausedPct: f64(pr.RxPausedPercent), TxPausedPct: f64(pr.TxPausedPercent)}
				if pr.Enabled != nil {
					pv.Enabled = *pr.Enabled
				}
				k := map[string]string{"priority": strconv.Itoa(pr.Priority)}
				for kk, vv := range keys {
					k[kk] = vv
				}
				e2 := env
				e2.Prio = pv
				out = append(out, fixed(e2, k))
			}
		}
		if scope == ScopePriority && len(out) == 0 {
			return nil, "no per-priority PFC counters (ethtool) on these ports"
		}
		return out, ""
	case ScopeQP:
		events := map[string][]probes.Event{}
		for _, e := range s.Events {
			if e.Source == "qp" && e.QPN != nil {
				k := e.Device + "/" + strconv.Itoa(int(*e.QPN))
				events[k] = append(events[k], e)
			}
		}
		out := make([]object, 0, len(s.QPs)+len(events))
		seen := make(map[string]bool, len(s.QPs))
		for _, q := range s.QPs {
			k := q.Device + "/" + strconv.Itoa(int(q.LQPN))
			seen[k] = true
			qe := &QPEnv{Device: q.Device, LQPN: int(q.LQPN), Type: q.Type, State: q.State, Comm: q.Comm,
				MemlockBytes: u64(q.MemlockSoft), MemlockUnlimited: q.MemlockUnlimited, Events: events[k]}
			if q.PID != nil {
				qe.PID = *q.PID
			}
			out = append(out, qpObject(base, qe))
		}
		// QPs that changed and vanished within one sample still count, in
		// a fixed order (their findings' order must not depend on a map).
		var gone []string
		for k := range events {
			if !seen[k] {
				gone = append(gone, k)
			}
		}
		sort.Strings(gone)
		for _, k := range gone {
			evs := events[k]
			e := evs[len(evs)-1]
			qe := &QPEnv{Device: e.Device, LQPN: int(*e.QPN), State: "DESTROYED", Events: evs}
			out = append(out, qpObject(base, qe))
		}
		if len(out) == 0 && host.Sources["rdma netlink"] != string(probes.StateOK) {
			return nil, "QPs need RDMA netlink: " + host.Sources["rdma netlink"]
		}
		return out, ""
	}
	return nil, "unknown scope"
}

func qpObject(base Env, q *QPEnv) object {
	env := base
	env.QP = q
	return object{env: env,
		id: func() string { return "qp " + q.Device + "/" + strconv.Itoa(q.LQPN) },
		keys: func() map[string]string {
			keys := map[string]string{"device": q.Device, "qpn": fmt.Sprintf("0x%x", q.LQPN)}
			if q.Comm != "" {
				keys["comm"] = q.Comm
			}
			if q.PID != nil {
				keys["pid"] = fmt.Sprint(q.PID)
			}
			return keys
		}}
}

// fixed is an object whose keys are already built (few objects: ports,
// priorities, flows).
func fixed(env Env, keys map[string]string) object {
	ks := make([]string, 0, len(keys))
	for k, v := range keys {
		ks = append(ks, k+"="+v)
	}
	sort.Strings(ks)
	id := strings.Join(ks, ",")
	return object{env: env, id: func() string { return id }, keys: func() map[string]string { return keys }}
}

func intp(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
