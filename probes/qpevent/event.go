package qpevent

import (
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// Kind says what happened to a QP.
type Kind string

// Event kinds (the Kind of probes.Event as well).
const (
	Created     Kind = "qp_created"
	Destroyed   Kind = "qp_destroyed"
	StateChange Kind = "qp_state"
)

// Event is one QP change seen between two dumps.
type Event struct {
	Time     time.Time // the time of the dump that showed the change
	Kind     Kind
	Severity probes.Severity
	DevIndex uint32
	Dev      string
	Port     uint32 // 0 when not bound to a port
	LQPN     uint32
	RQPN     uint32 // 0 when the QP has none (yet)
	Type     rdmanl.QPType
	PID      uint32 // 0 for kernel QPs
	Comm     string // command name, or the kernel owner of a kernel QP
	// From is the state before (StateChange, Destroyed: the last state
	// seen); To the state after (StateChange, Created: the first seen).
	From, To rdmanl.QPState
}

// IsError reports a transition into ERR or SQE (or a QP first seen there).
func (e Event) IsError() bool { return e.Severity == probes.SevCritical }

// Detail describes the event in one line, e.g.
// "rxe0/1 QP 0x12 (RC, python3 pid 496, remote QP 0x12): RTS -> ERR".
func (e Event) Detail() string {
	where := e.Dev
	if e.Port != 0 {
		where = fmt.Sprintf("%s/%d", e.Dev, e.Port)
	}
	who := e.Type.String()
	switch {
	case e.PID != 0 && e.Comm != "":
		who += fmt.Sprintf(", %s pid %d", e.Comm, e.PID)
	case e.PID != 0:
		who += fmt.Sprintf(", pid %d", e.PID)
	case e.Comm != "":
		who += ", kernel " + e.Comm
	}
	if e.RQPN != 0 {
		who += ", remote QP " + probes.FormatQPN(e.RQPN)
	}
	head := fmt.Sprintf("%s QP %s (%s)", where, probes.FormatQPN(e.LQPN), who)
	switch e.Kind {
	case Created:
		return fmt.Sprintf("%s: created, %s", head, e.To)
	case Destroyed:
		return fmt.Sprintf("%s: destroyed (was %s)", head, e.From)
	}
	return fmt.Sprintf("%s: %s -> %s", head, e.From, e.To)
}

// Probe is the event in the snapshot model (probes.Event).
func (e Event) Probe() probes.Event {
	qpn := e.LQPN
	return probes.Event{
		Time:     e.Time,
		Source:   "qp",
		Kind:     string(e.Kind),
		Severity: e.Severity,
		Device:   e.Dev,
		Port:     int(e.Port),
		QPN:      &qpn,
		Detail:   e.Detail(),
	}
}

func newEvent(k Kind, q rdmanl.QP, at time.Time) Event {
	e := Event{Time: at, Kind: k, Severity: probes.SevInfo, DevIndex: q.DevIndex, Dev: q.Dev,
		Port: q.Port, LQPN: q.LQPN, Type: q.Type, Comm: q.Owner()}
	if q.HasRQPN {
		e.RQPN = q.RQPN
	}
	if q.HasPID {
		e.PID = q.PID
	}
	return e
}

func isErrorState(s rdmanl.QPState) bool { return s == rdmanl.QPErr || s == rdmanl.QPSQE }
