package rules

import (
	"fmt"
	"reflect"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/qos"
)

// Frame is what the rules look at: a host snapshot, a capture analysis, or
// both, at one time.
//
// In a run evaluated tick after tick (live, or a replay played as a
// timeline) Wire is the analysis of the interval since the previous tick
// (capture.Analyzer.Cut: the interval's packets, flows that moved with
// their counters for the interval, DurationSec the interval's length, and
// for a live capture KernelDrops the frames the kernel dropped in it). A
// one-shot evaluation (check of a capture, --once) passes the whole
// capture.
type Frame struct {
	Time     time.Time
	Snapshot *probes.Snapshot // nil without host data
	Wire     *capture.Summary // nil without a capture
	// Live says the frame comes from this host now: the host was sampled
	// and the wire captured at the same time (capture-blind,
	// capture-incomplete and running-unprivileged only make sense live).
	// It may be true with a fixture --root.
	Live bool
}

// Env is what a rule's `when` and `evidence` see. Fields of the scope's
// object are set (Port, Prio, QP or Flow); Host and Wire are always there
// when the frame has them. docs/rules.md documents every name.
//
// A condition calls the counter functions (Rate("cnp_sent")) and known()
// through the Func fields, which newEnv binds to the Env once: expr calls
// a func(...any) any field directly, where it calls a method by
// reflection. Go code and evidence templates ({{.Rate "x"}}) call the
// methods of the same names.
type Env struct {
	Port *PortEnv             `expr:"port"`
	Prio *PrioEnv             `expr:"prio"`
	QP   *QPEnv               `expr:"qp"`
	Flow *capture.FlowSummary `expr:"flow"`
	// Peer is the flow carrying the other direction of Flow's connection
	// (its ACKs and NAKs, or its requests), nil when not paired.
	Peer   *capture.FlowSummary `expr:"peer"`
	Host   *HostEnv             `expr:"host"`
	Wire   *WireEnv             `expr:"wire"`
	Params map[string]float64   `expr:"params"`

	RateFunc    func(...any) any `expr:"Rate"`
	DeltaFunc   func(...any) any `expr:"Delta"`
	ValueFunc   func(...any) any `expr:"Value"`
	HasFunc     func(...any) any `expr:"Has"`
	AnyRateFunc func(...any) any `expr:"AnyRate"`
	KnownFunc   func(...any) any `expr:"known"`
	NeedFunc    func(...any) any `expr:"need"`
	// The QoS functions (qosenv.go).
	PriorityFunc    func(...any) any `expr:"Priority"`
	PFCFunc         func(...any) any `expr:"PFC"`
	TSAFunc         func(...any) any `expr:"TSA"`
	NPFunc          func(...any) any `expr:"NP"`
	RPFunc          func(...any) any `expr:"RP"`
	ECNInUseFunc    func(...any) any `expr:"ECNInUse"`
	CNPPriorityFunc func(...any) any `expr:"CNPPriority"`

	counters *counterSet
	// unknown says that known() found data missing in this evaluation:
	// the condition cannot be evaluated on this object.
	unknown bool
}

// newEnv returns an Env with its functions bound to it.
func newEnv() *Env {
	e := &Env{}
	e.RateFunc = func(a ...any) any { return e.Rate(counterName("Rate", a)) }
	e.DeltaFunc = func(a ...any) any { return e.Delta(counterName("Delta", a)) }
	e.ValueFunc = func(a ...any) any { return e.Value(counterName("Value", a)) }
	e.HasFunc = func(a ...any) any { return e.Has(counterName("Has", a)) }
	e.AnyRateFunc = func(a ...any) any {
		var best any
		for i := range a {
			name, ok := a[i].(string)
			if !ok {
				panic(fmt.Sprintf("AnyRate: argument %d is %T, not a counter name", i+1, a[i]))
			}
			best = e.larger(best, name)
		}
		return best
	}
	e.PriorityFunc, e.PFCFunc, e.TSAFunc = e.Priority, e.PFC, e.TSA
	e.NPFunc, e.RPFunc, e.ECNInUseFunc, e.CNPPriorityFunc = e.NP, e.RP, e.ECNInUse, e.CNPPriority
	// known(x, ...) and need(cond) say what data a condition needs: false,
	// and the condition cannot be evaluated on this object, when a value
	// is absent (nil) or the condition is not met. They stand where a
	// missing value would otherwise be compared, so that the common path
	// runs without errors.
	e.KnownFunc = func(a ...any) any {
		for _, v := range a {
			if isNil(v) {
				e.unknown = true
				return false
			}
		}
		return true
	}
	e.NeedFunc = func(a ...any) any {
		if len(a) != 1 {
			panic(fmt.Sprintf("need: want one condition, have %d arguments", len(a)))
		}
		if a[0] != true {
			e.unknown = true
			return false
		}
		return true
	}
	return e
}

// isNil reports whether v is absent: nil, or a nil pointer (wire, a
// setting).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

// counterName is the one argument of a counter function; anything else
// fails the evaluation with a message that names the function (expr
// turns the panic into the evaluation's error).
func counterName(fn string, a []any) string {
	if len(a) != 1 {
		panic(fmt.Sprintf("%s: want one counter name, have %d arguments", fn, len(a)))
	}
	s, ok := a[0].(string)
	if !ok {
		panic(fmt.Sprintf("%s: counter name is %T, not a string", fn, a[0]))
	}
	return s
}

// PortEnv is one RDMA port.
type PortEnv struct {
	Device    string  `expr:"device"`
	Port      int     `expr:"port"`
	Netdev    string  `expr:"netdev"`
	State     string  `expr:"state"`      // ACTIVE, DOWN, INIT, ARMED
	PhysState string  `expr:"phys_state"` // LinkUp, Disabled, Polling, ...
	LinkLayer string  `expr:"link_layer"` // Ethernet or InfiniBand
	RateGbps  float64 `expr:"rate_gbps"`
	MTU       any     `expr:"mtu"`      // netdev MTU, nil when unknown
	RoCEMTU   any     `expr:"roce_mtu"` // IB MTU the netdev MTU allows, nil when unknown
	OperState string  `expr:"operstate"`
	// StateFrom names the source of State when sysfs did not answer
	// ("rdma netlink"); "" when sysfs gave it.
	StateFrom string `expr:"state_from"`
	// MaxPayloadIn is the largest RoCE payload the capture shows addressed
	// to one of this port's GIDs; nil without a capture or with nothing
	// addressed here.
	MaxPayloadIn any `expr:"max_payload_in"`
	// Events of this port in the frame (port_state, link_downed, ...).
	Events []probes.Event `expr:"events"`
}

// PrioEnv is one priority of one port (PFC).
type PrioEnv struct {
	Priority      int `expr:"priority"`
	Enabled       any `expr:"enabled"` // bool, nil when DCB is unreadable
	RxPausePerSec any `expr:"rx_pause_per_s"`
	TxPausePerSec any `expr:"tx_pause_per_s"`
	RxPausedPct   any `expr:"rx_paused_pct"`
	TxPausedPct   any `expr:"tx_paused_pct"`
}

// QPEnv is one queue pair: what it is (QPFields, comparable: the engine
// tells a QP that did not change by it) and what happened to it.
type QPEnv struct {
	QPFields
	Events []probes.Event `expr:"events"` // this QP's transitions in the frame
}

// QPFields are a QP's fields, without its events.
type QPFields struct {
	Device           string `expr:"device"`
	LQPN             int    `expr:"lqpn"`
	Type             string `expr:"type"`
	State            string `expr:"state"`
	PID              any    `expr:"pid"`
	Comm             string `expr:"comm"`
	MemlockBytes     any    `expr:"memlock_bytes"` // soft limit; nil when unlimited or unknown
	MemlockUnlimited bool   `expr:"memlock_unlimited"`
	// The owner's container and pod (probes.QP): "" when unknown.
	Runtime     string `expr:"container_runtime"`
	ContainerID string `expr:"container_id"`
	PodUID      string `expr:"pod_uid"`
	Pod         string `expr:"pod"`
}

// qpEnvOf is what rules see of a snapshot QP. It takes the boxed
// numbers (pid, memlock) from like, the same QP one frame before, when
// they did not change: a frame holds 10,000 QPs, and boxing a number
// allocates.
func qpEnvOf(q *probes.QP, like *QPEnv) QPEnv {
	qe := QPEnv{QPFields: QPFields{Device: q.Device, LQPN: int(q.LQPN), Type: q.Type, State: q.State, Comm: q.Comm,
		MemlockUnlimited: q.MemlockUnlimited, Runtime: q.Runtime, ContainerID: q.ContainerID, PodUID: q.PodUID, Pod: q.Pod}}
	if q.PID != nil {
		if like != nil && like.PID == any(*q.PID) {
			qe.PID = like.PID
		} else {
			qe.PID = *q.PID
		}
	}
	if q.MemlockSoft != nil {
		if v := float64(*q.MemlockSoft); like != nil && like.MemlockBytes == any(v) {
			qe.MemlockBytes = like.MemlockBytes
		} else {
			qe.MemlockBytes = v
		}
	}
	return qe
}

// HostEnv is host-wide data.
type HostEnv struct {
	// Sources maps a probe source to its state: ok, not_supported,
	// permission_denied, timeout, failed. Absent: not run.
	Sources map[string]string `expr:"sources"`
	// Denied lists "source: detail" of the sources without permission.
	Denied []string             `expr:"denied"`
	Memory *probes.MemoryConfig `expr:"memory"`
	// Config is the host configuration (GIDs, DCB, ECN, memory) as in the
	// snapshot; nil without host data.
	Config          *probes.Config `expr:"config"`
	HugePagesTotal  any            `expr:"hugepages_total"`
	HugePagesFree   any            `expr:"hugepages_free"`
	HighOrderFreeKB any            `expr:"high_order_free_kb"`
	Events          []probes.Event `expr:"events"`
	// HardwareEvents are the kernel log's lines about the NIC's own
	// hardware (kmsg.Kind.Hardware) at warning or above, in order.
	HardwareEvents []probes.Event `expr:"hardware_events"`
	// NCCLRAS is NCCL's RAS answer (--nccl-ras): nil when not asked or
	// not answered.
	NCCLRAS *probes.NCCLRAS `expr:"nccl_ras"`
	// RDMAPacketsPerSec is the sum over ports of RDMA packets per second (nil
	// when no port counts them).
	RDMAPacketsPerSec any `expr:"rdma_packets_per_s"`
	// IntervalSec is the time the snapshot's rates cover (since the
	// previous sample); 0 on a first sample and without host data.
	IntervalSec float64 `expr:"interval_s"`
	Live        bool    `expr:"live"`
	HasSnapshot bool    `expr:"has_snapshot"`
	QPs         int     `expr:"qps"`
	// RDMAPorts counts the host's RDMA ports; ActivePorts names those
	// ACTIVE ("mlx5_0/1 Ethernet 200 Gb/s"). Both empty without host data
	// (a log read alone).
	RDMAPorts   int      `expr:"rdma_ports"`
	ActivePorts []string `expr:"active_ports"`
	// NCCLPortsUsed are the host's ports NCCL's log says its network
	// uses; NCCLPortsIdle the ACTIVE ones of the same link layer and rate
	// it leaves out (nccl_ports.go). Empty without both.
	NCCLPortsUsed []string `expr:"nccl_ports_used"`
	NCCLPortsIdle []string `expr:"nccl_ports_idle"`
	// RDMABalance is how the RDMA bytes spread over the ACTIVE ports
	// alike (balance.go); nil without byte rates.
	RDMABalance *PortBalance `expr:"rdma_balance"`
	// GPUOnTCP are the processes holding GPU device files whose TCP
	// rates are known, busiest first (gputcp.go); GPURead says the
	// gpu-tcp source answered this sample, so an empty list means none.
	GPUOnTCP []GPUTCP `expr:"gpu_on_tcp"`
	GPURead  bool     `expr:"gpu_read"`
	// qos is Config's QoS settings per netdev, for the QoS functions.
	qos qos.Host
}

// WireEnv is the capture analysis as a whole (of the frame's interval in
// a run evaluated tick after tick, see Frame).
type WireEnv struct {
	capture.Totals `expr:"totals"`
	RoCEPackets    uint64 `expr:"roce_packets"`
	RoCEv1Packets  uint64 `expr:"rocev1_packets"`
	Packets        uint64 `expr:"packets"`
	// DurationSec is the time the analysis covers: the interval's length
	// in a run evaluated tick after tick, first to last packet for a
	// whole capture.
	DurationSec float64 `expr:"duration_s"`
	PMTU        int     `expr:"pmtu"`
	Malformed   uint64  `expr:"malformed_packets"`
	// KernelDrops is the number of frames the kernel dropped from a live
	// capture's ring (the reader did not keep up) in the time the analysis
	// covers; nil when the capture is not live.
	KernelDrops any `expr:"kernel_drops"`
	// Unrecorded is the frames a recording's capture saw that the file
	// lacks (its writer fell behind); nil when the recording does not say.
	Unrecorded any `expr:"unrecorded"`
	// BlindS is the seconds the capture could not see (its interface was
	// down); LinkDown why, when it is still down.
	BlindS   float64 `expr:"blind_s"`
	LinkDown string  `expr:"link_down"`
	// RoCEPacketsSoFar is the RoCE packets the capture has analysed since
	// it began (RoCEPackets is the interval's share of them).
	RoCEPacketsSoFar uint64 `expr:"roce_packets_so_far"`
	// Interface is the network interface the capture is on (live, or a
	// recording's -i), "" for a capture file.
	Interface string `expr:"interface"`
	// Paths is the whole capture's traffic per host pair (capture.Paths);
	// nil for an interval, whose summary has none (computing it every
	// tick would cost every replay a sort of its flows).
	Paths []capture.PathSummary `expr:"paths"`
}

// FewTuples lists the paths that ride at most ports UDP source ports at
// gbps or more over the capture, the busiest first: ECMP places each of
// their 5-tuples on one link (see low-flow-entropy). Conditions and
// evidence call it with the rule's params.
func (w *WireEnv) FewTuples(ports, gbps float64) []capture.PathSummary {
	var out []capture.PathSummary
	if w == nil || w.DurationSec <= 0 {
		return nil
	}
	for _, p := range w.Paths {
		if float64(p.UDPSrcPorts) <= ports && w.Gbps(p) >= gbps {
			out = append(out, p)
		}
	}
	return out
}

// Gbps is a path's average rate over the time the analysis covers.
func (w *WireEnv) Gbps(p capture.PathSummary) float64 {
	if w == nil || w.DurationSec <= 0 {
		return 0
	}
	return float64(p.Bytes) * 8 / 1e9 / w.DurationSec
}

// Rate returns the per-second rate of the scope port's counter name
// (canonical, or native when it has no canonical name), or nil.
func (e *Env) Rate(name string) any {
	if c := e.counters.get(name); c != nil && c.Rate != nil {
		return *c.Rate
	}
	return nil
}

// Delta returns the counter's increase since the previous sample, or nil.
func (e *Env) Delta(name string) any {
	if c := e.counters.get(name); c != nil && c.Delta != nil {
		return float64(*c.Delta)
	}
	return nil
}

// Value returns the counter's raw reading, or nil.
func (e *Env) Value(name string) any {
	if c := e.counters.get(name); c != nil {
		return float64(c.Value)
	}
	return nil
}

// Has reports whether the port has the counter at all.
func (e *Env) Has(name string) bool { return e.counters.get(name) != nil }

// AnyRate returns the largest rate among the names the port has, or nil
// when it has none of them: rules about one symptom that vendors count
// under different names.
func (e *Env) AnyRate(names ...string) any {
	var best any
	for _, n := range names {
		best = e.larger(best, n)
	}
	return best
}

// larger is the larger of best and the rate of name, either nil.
func (e *Env) larger(best any, name string) any {
	if r := e.Rate(name); r != nil && (best == nil || r.(float64) > best.(float64)) {
		return r
	}
	return best
}
