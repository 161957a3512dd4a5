package rules

import (
	"fmt"

	"github.com/rdmatop/rdmatop/qos"
)

// The QoS functions of a condition and of evidence ({{.Priority "" .Flow.DSCP .Flow.PCP}}):
// one lookup (qos.Host) of a class's priority and of what a priority
// has, on the host's netdevs. Each answers nil when it cannot tell:
//
//	Priority(netdev, dscp, pcp)  the priority the host gives a class (pcp nil: untagged)
//	PFC(netdev, prio)            PFC on the priority
//	TSA(netdev, prio)            its traffic class's transmission selection
//	NP(netdev, prio)             DCQCN notification point (CNP generation) on it
//	RP(netdev, prio)             DCQCN reaction point (rate reduction) on it
//	ECNInUse(netdev)             DCQCN enabled on any priority
//	CNPPriority(netdev)          the priority of the CNPs the host sends
//
// netdev "" asks every netdev, and they must agree (qos.Agree): which of
// them carried a captured flow is not known. A nil priority gives nil.

// Priority: see above.
func (e *Env) Priority(a ...any) any {
	nd, dscp, pcp := qosArgs("Priority", a, 3)
	d, ok := dscp.(int)
	if !ok {
		return nil
	}
	var tag *uint8
	if p, ok := pcp.(int); ok {
		v := uint8(p)
		tag = &v
	}
	return orNil(qos.Agree(e.qos(), nd, func(n *qos.Netdev) (int, bool) { return n.Priority(uint8(d), tag) }))
}

// PFC: see Priority.
func (e *Env) PFC(a ...any) any {
	return e.perPrio("PFC", a, (*qos.Netdev).PFCOn)
}

// NP: see Priority.
func (e *Env) NP(a ...any) any { return e.perPrio("NP", a, (*qos.Netdev).NPOn) }

// RP: see Priority.
func (e *Env) RP(a ...any) any { return e.perPrio("RP", a, (*qos.Netdev).RPOn) }

// TSA: see Priority.
func (e *Env) TSA(a ...any) any {
	nd, p, _ := qosArgs("TSA", a, 2)
	prio, ok := p.(int)
	if !ok {
		return nil
	}
	return orNil(qos.Agree(e.qos(), nd, func(n *qos.Netdev) (string, bool) { return n.TSA(prio) }))
}

// ECNInUse: see Priority.
func (e *Env) ECNInUse(a ...any) any {
	nd, _, _ := qosArgs("ECNInUse", a, 1)
	return orNil(qos.Agree(e.qos(), nd, func(n *qos.Netdev) (bool, bool) {
		return n.ECNInUse(), n.NP != nil || n.RP != nil
	}))
}

// CNPPriority: see Priority.
func (e *Env) CNPPriority(a ...any) any {
	nd, _, _ := qosArgs("CNPPriority", a, 1)
	return orNil(qos.Agree(e.qos(), nd, (*qos.Netdev).CNPPriority))
}

func (e *Env) perPrio(fn string, a []any, ask func(*qos.Netdev, int) (bool, bool)) any {
	nd, p, _ := qosArgs(fn, a, 2)
	prio, ok := p.(int)
	if !ok {
		return nil
	}
	return orNil(qos.Agree(e.qos(), nd, func(n *qos.Netdev) (bool, bool) { return ask(n, prio) }))
}

func (e *Env) qos() qos.Host {
	if e.Host == nil {
		return qos.Host{}
	}
	return e.Host.qos
}

func orNil[T any](v T, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

// qosArgs checks a QoS function's arguments: a netdev name, then up to
// two small integers (uint8 or int, or a pointer to one; nil or a nil
// pointer stays nil). A wrong type fails the evaluation with a message
// naming the function.
func qosArgs(fn string, a []any, n int) (netdev string, x, y any) {
	if len(a) != n {
		panic(fmt.Sprintf("%s: want %d arguments, have %d", fn, n, len(a)))
	}
	nd, ok := a[0].(string)
	if !ok {
		panic(fmt.Sprintf("%s: netdev is %T, not a string", fn, a[0]))
	}
	ints := make([]any, 2)
	for i, v := range a[1:] {
		switch v := v.(type) {
		case nil:
		case int:
			ints[i] = v
		case uint8:
			ints[i] = int(v)
		case *uint8:
			if v != nil {
				ints[i] = int(*v)
			}
		case float64:
			ints[i] = int(v)
		default:
			panic(fmt.Sprintf("%s: argument %d is %T, not a number", fn, i+2, v))
		}
	}
	return nd, ints[0], ints[1]
}
