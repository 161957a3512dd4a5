package qpevent

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

var t0 = time.Unix(1795985390, 808279000)

func rc(dev uint32, lqpn uint32, s rdmanl.QPState) rdmanl.QP {
	return rdmanl.QP{DevIndex: dev, Dev: []string{"rxe0", "rxe1"}[dev], Port: 1, LQPN: lqpn, RQPN: lqpn, HasRQPN: true,
		Type: rdmanl.QPTypeRC, State: s, HasPID: true, PID: 496, Comm: "python3"}
}

func gsi(dev uint32) rdmanl.QP {
	return rdmanl.QP{DevIndex: dev, Dev: []string{"rxe0", "rxe1"}[dev], Port: 1, LQPN: 1, Type: rdmanl.QPTypeGSI,
		State: rdmanl.QPRTS, KernOwner: "ib_core"}
}

func summary(ev []Event) []string {
	var s []string
	for _, e := range ev {
		s = append(s, string(e.Severity)+" "+e.Detail())
	}
	return s
}

func TestDiff(t *testing.T) {
	prev := []rdmanl.QP{gsi(0), rc(0, 0x12, rdmanl.QPRTS), rc(1, 0x12, rdmanl.QPRTS), rc(0, 0x13, rdmanl.QPRTR), rc(0, 0x14, rdmanl.QPRTS)}
	moved := gsi(0)
	moved.SQPSN = 9 // PSNs move all the time: not an event
	cur := []rdmanl.QP{rc(1, 0x12, rdmanl.QPRTS), rc(0, 0x12, rdmanl.QPErr), moved, rc(0, 0x13, rdmanl.QPSQE), rc(1, 0x15, rdmanl.QPInit)}
	prevCopy := append([]rdmanl.QP(nil), prev...)
	curCopy := append([]rdmanl.QP(nil), cur...)
	got := summary(Diff(prev, cur, t0))
	want := []string{
		"critical rxe0/1 QP 0x000012 (RC, python3 pid 496, remote QP 0x000012): RTS -> ERR",
		"critical rxe0/1 QP 0x000013 (RC, python3 pid 496, remote QP 0x000013): RTR -> SQE",
		"info rxe0/1 QP 0x000014 (RC, python3 pid 496, remote QP 0x000014): destroyed (was RTS)",
		"info rxe1/1 QP 0x000015 (RC, python3 pid 496, remote QP 0x000015): created, INIT",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !reflect.DeepEqual(prev, prevCopy) || !reflect.DeepEqual(cur, curCopy) {
		t.Error("Diff modified its arguments")
	}
	ev := Diff(prev, cur, t0)
	if e := ev[0]; e.Time != t0 || e.From != rdmanl.QPRTS || e.To != rdmanl.QPErr || !e.IsError() || e.Kind != StateChange ||
		e.Dev != "rxe0" || e.Port != 1 || e.LQPN != 0x12 || e.RQPN != 0x12 || e.Type != rdmanl.QPTypeRC || e.PID != 496 || e.Comm != "python3" {
		t.Errorf("event fields: %+v", e)
	}
	if ev[3].IsError() {
		t.Error("creation in INIT is not an error")
	}
	// Nothing changed, nothing to say; nil inputs are empty dumps.
	if len(Diff(cur, cur, t0)) != 0 || len(Diff(nil, nil, t0)) != 0 {
		t.Error("events without change")
	}
	if got := Diff(nil, []rdmanl.QP{gsi(1)}, t0); len(got) != 1 || got[0].Detail() != "rxe1/1 QP 0x000001 (GSI, kernel ib_core): created, RTS" {
		t.Errorf("kernel QP: %v", summary(got))
	}
}

// A QP number reused by another process between two dumps is a
// destruction and a creation, not a state change.
func TestDiffReuse(t *testing.T) {
	old := rc(0, 0x11, rdmanl.QPErr)
	reused := rc(0, 0x11, rdmanl.QPRTS)
	reused.PID, reused.Comm = 700, "ib_write_bw"
	got := summary(Diff([]rdmanl.QP{old}, []rdmanl.QP{reused}, t0))
	want := []string{
		"info rxe0/1 QP 0x000011 (RC, python3 pid 496, remote QP 0x000011): destroyed (was ERR)",
		"info rxe0/1 QP 0x000011 (RC, ib_write_bw pid 700, remote QP 0x000011): created, RTS",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
	// First seen already in ERR: created, as an error.
	ev := Diff(nil, []rdmanl.QP{rc(0, 0x20, rdmanl.QPErr)}, t0)
	if len(ev) != 1 || ev[0].Kind != Created || !ev[0].IsError() {
		t.Errorf("created in ERR: %+v", ev)
	}
	// A duplicate entry keeps the first.
	ev = Diff([]rdmanl.QP{rc(0, 5, rdmanl.QPRTS)}, []rdmanl.QP{rc(0, 5, rdmanl.QPRTS), rc(0, 5, rdmanl.QPErr)}, t0)
	if len(ev) != 0 {
		t.Errorf("duplicate: %v", summary(ev))
	}
}

func TestDetector(t *testing.T) {
	var d Detector
	base := []rdmanl.QP{gsi(0), gsi(1), rc(0, 0x12, rdmanl.QPRTS), rc(1, 0x12, rdmanl.QPRTS)}
	if ev := d.Observe(base, t0); len(ev) != 0 {
		t.Fatalf("baseline produced %v", summary(ev))
	}
	// rxe1's dump failed this tick: its QPs are not destroyed.
	onlyRxe0 := []rdmanl.QP{gsi(0), rc(0, 0x12, rdmanl.QPErr)}
	ev := d.Observe(onlyRxe0, t0.Add(time.Second), 1)
	if len(ev) != 1 || ev[0].To != rdmanl.QPErr || ev[0].Dev != "rxe0" {
		t.Fatalf("partial: %v", summary(ev))
	}
	// Next tick rxe1 is back, with its QP gone.
	ev = d.Observe([]rdmanl.QP{gsi(0), gsi(1), rc(0, 0x12, rdmanl.QPErr)}, t0.Add(2*time.Second))
	if len(ev) != 1 || ev[0].Kind != Destroyed || ev[0].Dev != "rxe1" || ev[0].From != rdmanl.QPRTS {
		t.Fatalf("after partial: %v", summary(ev))
	}
	// The detector keeps its own copy.
	cur := []rdmanl.QP{gsi(0)}
	d.Observe(cur, t0.Add(3*time.Second))
	cur[0].State = rdmanl.QPErr
	if ev := d.Observe([]rdmanl.QP{gsi(0)}, t0.Add(4*time.Second)); len(ev) != 0 {
		t.Errorf("aliasing: %v", summary(ev))
	}
}

func TestProbeEvent(t *testing.T) {
	e := Diff([]rdmanl.QP{rc(0, 0x12, rdmanl.QPRTS)}, []rdmanl.QP{rc(0, 0x12, rdmanl.QPErr)}, t0)[0]
	p := e.Probe()
	if p.Source != "qp" || p.Kind != "qp_state" || p.Severity != probes.SevCritical || p.Device != "rxe0" || p.Port != 1 ||
		p.QPN == nil || *p.QPN != 0x12 || !p.Time.Equal(t0) || p.Detail != e.Detail() {
		t.Errorf("%+v", p)
	}
	unbound := rdmanl.QP{DevIndex: 0, Dev: "rxe0", LQPN: 0x19, Type: rdmanl.QPTypeRC, State: rdmanl.QPReset, HasPID: true, PID: 3}
	if d := Diff(nil, []rdmanl.QP{unbound}, t0)[0].Detail(); d != "rxe0 QP 0x000019 (RC, pid 3): created, RESET" {
		t.Errorf("unbound: %q", d)
	}
}
