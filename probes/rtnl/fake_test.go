package rtnl

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

func TestFake(t *testing.T) {
	one := uint32(1)
	f := &Fake{All: []Link{
		{Name: "bond0", Index: 5, Kind: "bond"},
		{Name: "eth1", Index: 3, MasterIndex: 5, SlaveKind: "bond", CarrierChanges: &one, Stats: &Stats64{RxPackets: 1}},
		{Name: "eth0", Index: 2, MasterIndex: 5, SlaveKind: "bond"},
		{Name: "lo", Index: 1},
	}}
	l, err := f.Link("eth1")
	if err != nil || l.Index != 3 {
		t.Fatalf("Link(eth1) = %+v, %v", l, err)
	}
	*l.CarrierChanges = 9
	l.Stats.RxPackets = 9
	if l2, _ := f.Link("eth1"); *l2.CarrierChanges != 1 || l2.Stats.RxPackets != 1 {
		t.Error("Link returned the fake's own values")
	}
	links, err := f.Links()
	if err != nil || len(links) != 4 || links[0].Name != "lo" || links[3].Name != "bond0" {
		t.Errorf("Links = %+v, %v", links, err)
	}
	slaves := Slaves(links, 5)
	if len(slaves) != 2 || slaves[0].Name != "eth0" || slaves[1].Name != "eth1" {
		t.Errorf("Slaves(bond0) = %+v", slaves)
	}
	if s := Slaves(links, 0); len(s) != 0 {
		t.Errorf("Slaves(0) = %+v, want none", s)
	}

	_, err = f.Link("nosuch0")
	if !errors.Is(err, ErrNoDevice) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nosuch0") {
		t.Errorf("Link(nosuch0) = %v", err)
	}
	f.Err = &probes.PermissionError{What: "rtnetlink access", Err: os.ErrPermission}
	_, err = f.Link("eth0")
	if st := probes.StatusOf("rtnl eth0", err); st.State != probes.StatePermissionDenied {
		t.Errorf("status %+v", st)
	}
}

func TestCheckNameIndex(t *testing.T) {
	for _, ok := range []string{"eth0", "a", "enp65s0f0np0", strings.Repeat("x", 127)} {
		if err := checkName(ok); err != nil {
			t.Errorf("checkName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "a b", "a:b", strings.Repeat("x", 128), "a\x00"} {
		if err := checkName(bad); err == nil {
			t.Errorf("checkName(%q) = nil", bad)
		}
	}
}
