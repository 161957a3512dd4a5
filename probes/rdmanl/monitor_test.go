package rdmanl

import (
	"testing"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

func TestParseSys(t *testing.T) {
	reply := [][]byte{
		msg(MsgType(CmdSysGet), 0,
			tlv(attrNetnsMode, []byte{1}),
			tlv(attrPrivQKeyMode, []byte{0}),
			tlv(attrSysMonitorMode, []byte{1}),
			tlv(attrCopyOnFork, []byte{1})),
		nlerr(0, nlmsg.FlagCapped),
	}
	s, err := ParseSys(reply)
	if err != nil {
		t.Fatal(err)
	}
	if s != (SysInfo{NetnsShared: true, MonitorSupported: true, CopyOnFork: true}) {
		t.Errorf("%+v", s)
	}
	// A 6.1 kernel: no MONITOR_MODE attribute.
	old, err := ParseSys([][]byte{msg(MsgType(CmdSysGet), 0, tlv(attrNetnsMode, []byte{1}), tlv(attrCopyOnFork, []byte{1})), nlerr(0, nlmsg.FlagCapped)})
	if err != nil || old.MonitorSupported {
		t.Errorf("old kernel: %+v %v", old, err)
	}
}

func TestEnums(t *testing.T) {
	for s := QPReset; s <= QPErr; s++ {
		if p, ok := ParseQPState(s.String()); !ok || p != s {
			t.Errorf("state %d round trip", s)
		}
	}
	if QPState(7).String() != "UNKNOWN" {
		t.Error("state 7")
	}
	if _, ok := ParseQPState("UNKNOWN"); ok {
		t.Error("UNKNOWN parsed")
	}
	for _, ty := range []QPType{0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 0xff} {
		if p, ok := ParseQPType(ty.String()); !ok || p != ty {
			t.Errorf("type %d (%s) round trip", ty, ty)
		}
	}
	if p, ok := ParsePathMigState("ARMED"); !ok || p != 2 {
		t.Error("ARMED")
	}
	if PortActive.String() != "ACTIVE" || PhysState(5).String() != "LINK_UP" || PhysState(3).String() != "DISABLED" || NodeType(1).String() != "ca" {
		t.Error("names")
	}
	if g := FormatGUID(0x000000fffe007701); g != "0000:00ff:fe00:7701" {
		t.Errorf("guid %s", g)
	}
}
