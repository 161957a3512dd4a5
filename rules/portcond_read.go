package rules

import (
	"github.com/expr-lang/expr/ast"

	"github.com/rdmatop/rdmatop/probes"
)

// How port and priority conditions (portcond.go) read the Env: params,
// the port's and priority's fields, and the port's counters by constant
// name, without making an any of each value.

// member reads params.x, port.x, prio.x.
func (c *portCond) member(n *ast.MemberNode) (cVal, cStatus) {
	id, ok := n.Node.(*ast.IdentifierNode)
	name, ok2 := n.Property.(*ast.StringNode)
	if !ok || !ok2 {
		return cVal{}, cUnknown
	}
	for i := range c.vars {
		if c.vars[i].name == id.Value {
			return cVal{}, cUnknown // a let named as the Env's fields
		}
	}
	switch id.Value {
	case "params":
		if x, ok := c.params[name.Value]; ok {
			return cVal{k: cFloat, f: x}, cDone
		}
	case "port":
		if p := c.env.Port; p != nil {
			return portField(p, name.Value)
		}
	case "prio":
		if p := c.env.Prio; p != nil {
			return prioField(p, name.Value)
		}
	}
	return cVal{}, cUnknown
}

func portField(p *PortEnv, name string) (cVal, cStatus) {
	switch name {
	case "device":
		return cVal{k: cString, s: p.Device}, cDone
	case "port":
		return cVal{k: cInt, i: p.Port}, cDone
	case "netdev":
		return cVal{k: cString, s: p.Netdev}, cDone
	case "state":
		return cVal{k: cString, s: p.State}, cDone
	case "phys_state":
		return cVal{k: cString, s: p.PhysState}, cDone
	case "link_layer":
		return cVal{k: cString, s: p.LinkLayer}, cDone
	case "rate_gbps":
		return cVal{k: cFloat, f: p.RateGbps}, cDone
	case "operstate":
		return cVal{k: cString, s: p.OperState}, cDone
	case "mtu":
		return scalar(p.MTU)
	case "roce_mtu":
		return scalar(p.RoCEMTU)
	case "max_payload_in":
		return scalar(p.MaxPayloadIn)
	}
	return cVal{}, cUnknown
}

func prioField(p *PrioEnv, name string) (cVal, cStatus) {
	switch name {
	case "priority":
		return cVal{k: cInt, i: p.Priority}, cDone
	case "enabled":
		return scalar(p.Enabled)
	case "rx_pause_per_s":
		return scalar(p.RxPausePerSec)
	case "tx_pause_per_s":
		return scalar(p.TxPausePerSec)
	case "rx_paused_pct":
		return scalar(p.RxPausedPct)
	case "tx_paused_pct":
		return scalar(p.TxPausedPct)
	}
	return cVal{}, cUnknown
}

// scalar reads an Env field of type any.
func scalar(x any) (cVal, cStatus) {
	switch x := x.(type) {
	case nil:
		return cVal{}, cDone
	case int:
		return cVal{k: cInt, i: x}, cDone
	case float64:
		return cVal{k: cFloat, f: x}, cDone
	case bool:
		return cVal{k: cBool, b: x}, cDone
	case string:
		return cVal{k: cString, s: x}, cDone
	}
	return cVal{}, cUnknown
}

// call runs Env's counter methods on constant names (Env.Rate and the
// others, without making an any of the value).
func (c *portCond) call(n *ast.CallNode) (cVal, cStatus) {
	id, ok := n.Callee.(*ast.IdentifierNode)
	if !ok || len(n.Arguments) == 0 || (id.Value != "AnyRate" && len(n.Arguments) != 1) {
		return cVal{}, cUnknown
	}
	for i := range c.vars {
		if c.vars[i].name == id.Value {
			return cVal{}, cUnknown
		}
	}
	best := cVal{}
	for _, a := range n.Arguments {
		s, ok := a.(*ast.StringNode)
		if !ok {
			return cVal{}, cUnknown
		}
		if best, ok = counterStep(c.env.counters, id.Value, s.Value, best); !ok {
			return cVal{}, cUnknown
		}
	}
	return best, cDone
}

// counterStep is what Env's counter method returns for name (AnyRate:
// the greater of that and best, the method's value for the names before
// it); false for another method.
func counterStep(cs []probes.Counter, method, name string, best cVal) (cVal, bool) {
	cn := firstCounter(cs, name)
	switch method {
	case "Rate", "AnyRate":
		if cn != nil && cn.Rate != nil && (best.k == cNil || *cn.Rate > best.f) {
			best = cVal{k: cFloat, f: *cn.Rate}
		}
	case "Delta":
		if cn != nil && cn.Delta != nil {
			best = cVal{k: cFloat, f: float64(*cn.Delta)}
		}
	case "Value":
		if cn != nil {
			best = cVal{k: cFloat, f: float64(cn.Value)}
		}
	case "Has":
		best = cVal{k: cBool, b: cn != nil}
	default:
		return cVal{}, false
	}
	return best, true
}
