package rdmanl

import (
	"bytes"
	"testing"

	"github.com/rdmatop/rdmatop/probes/internal/nlmsg"
)

// Monitor messages as the reference lays them out (rdma-netlink.md (d)):
// type 0x1400+28, seq 0, EVENT_TYPE always, other attributes per event.
// No capture exists (the lab kernel, 6.1, predates the monitor).
func TestParseMonitor(t *testing.T) {
	typ := MsgType(CmdMonitor)
	if typ != 5148 {
		t.Fatalf("monitor type %d", typ)
	}
	ev := func(e EventType, attrs ...[]byte) []byte {
		return msg(typ, 0, append([][]byte{tlv(attrEventType, []byte{byte(e)})}, attrs...)...)
	}
	dev := [][]byte{tlv(attrDevIndex, u32b(2)), tlv(attrDevName, strb("mlx5_0"))}
	buf := bytes.Join([][]byte{
		ev(EventRegister, dev...),
		ev(EventUnregister, dev...),
		ev(EventNetdevAttach, append(dev, tlv(attrPortIndex, u32b(1)), tlv(attrNdevIndex, u32b(5)), tlv(attrNdevName, strb("eth2")))...),
		ev(EventNetdevDetach, append(dev, tlv(attrPortIndex, u32b(1)))...),
		ev(EventRename, tlv(attrDevIndex, u32b(2)), tlv(attrDevName, strb("roce0"))),
		ev(EventNetdevRename, tlv(attrNdevIndex, u32b(5)), tlv(attrNdevName, strb("ens1f0"))),
		msg(MsgType(CmdGet), 0, tlv(attrDevIndex, u32b(9))), // not a monitor message
		ev(9, tlv(777, u32b(1))), // an event type from a newer kernel
	}, nil)
	got, err := ParseMonitor(buf)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"[REGISTER] dev 2 mlx5_0",
		"[UNREGISTER] dev 2 mlx5_0",
		"[NETDEV_ATTACH] dev 2 mlx5_0 port 1 netdev 5 eth2",
		"[NETDEV_DETACH] dev 2 mlx5_0 port 1",
		"[RENAME] dev 2 roce0",
		"[NETDEV_RENAME] netdev 5 ens1f0",
		"[UNKNOWN 0x09]",
	}
	if len(got) != len(want) {
		t.Fatalf("%d events: %v", len(got), got)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("event %d: %q, want %q", i, got[i], want[i])
		}
	}
	if got[2].Netdev != "eth2" || got[2].NetdevIndex != 5 || got[2].Port != 1 || got[5].HasDev {
		t.Errorf("fields: %+v %+v", got[2], got[5])
	}
	if _, err := ParseMonitor(msg(typ, 0, tlv(attrDevIndex, u32b(1)))); err == nil {
		t.Error("monitor message without EVENT_TYPE accepted")
	}
}

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
