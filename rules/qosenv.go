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
	nd := qosNetdev("Priority", a, 3)
	d, ok := smallInt("Priority", 2, a[1])
	if !ok {
		return nil
	}
	var tag *uint8
	if p, ok := smallInt("Priority", 3, a[2]); ok {
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
	nd := qosNetdev("TSA", a, 2)
	prio, ok := smallInt("TSA", 2, a[1])
	if !ok {
		return nil
	}
	return orNil(qos.Agree(e.qos(), nd, func(n *qos.Netdev) (string, bool) { return n.TSA(prio) }))
}

// ECNInUse: see Priority.
func (e *Env) ECNInUse(a ...any) any {
	nd := qosNetdev("ECNInUse", a, 1)
	return orNil(qos.Agree(e.qos(), nd, func(n *qos.Netdev) (bool, bool) {
		return n.ECNInUse(), n.NP != nil || n.RP != nil
	}))
}

// CNPPriority: see Priority.
func (e *Env) CNPPriority(a ...any) any {
	nd := qosNetdev("CNPPriority", a, 1)
	return orNil(qos.Agree(e.qos(), nd, (*qos.Netdev).CNPPriority))
}

func (e *Env) perPrio(fn string, a []any, ask func(*qos.Netdev, int) (bool, bool)) any {
	nd := qosNetdev(fn, a, 2)
	prio, ok := smallInt(fn, 2, a[1])
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

// qosNetdev checks a QoS function's arguments: n of them, the first a
// netdev name. A wrong call fails the evaluation with a message naming
// the function.
func qosNetdev(fn string, a []any, n int) string {
	if len(a) != n {
		panic(fmt.Sprintf("%s: want %d arguments, have %d", fn, n, len(a)))
	}
	nd, ok := a[0].(string)
	if !ok {
		panic(fmt.Sprintf("%s: netdev is %T, not a string", fn, a[0]))
	}
	return nd
}

// smallInt is argument pos of fn as an int: uint8 or int, or a pointer
// to a uint8 (a flow's PCP); false for nil or a nil pointer.
func smallInt(fn string, pos int, v any) (int, bool) {
	switch v := v.(type) {
	case nil:
		return 0, false
	case int:
		return v, true
	case uint8:
		return int(v), true
	case *uint8:
		if v == nil {
			return 0, false
		}
		return int(*v), true
	case float64:
		return int(v), true
	}
	panic(fmt.Sprintf("%s: argument %d is %T, not a number", fn, pos, v))
}
