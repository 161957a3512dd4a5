package rtnl

import (
	"encoding/binary"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// attr encodes one netlink attribute, padded to 4 bytes.
func attr(typ uint16, val []byte) []byte {
	b := make([]byte, 4, 4+len(val)+3)
	binary.NativeEndian.PutUint16(b[0:], uint16(4+len(val)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	b = append(b, val...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func nested(typ uint16, attrs ...[]byte) []byte {
	var v []byte
	for _, a := range attrs {
		v = append(v, a...)
	}
	return attr(typ|0x8000, v) // NLA_F_NESTED, as the kernel sets it
}

func le32(v uint32) []byte { return binary.NativeEndian.AppendUint32(nil, v) }
func le16(v uint16) []byte { return binary.NativeEndian.AppendUint16(nil, v) }
func str(s string) []byte  { return append([]byte(s), 0) }

func ifinfomsg(index int32, flags uint32) []byte {
	b := make([]byte, 16)
	b[0] = 0                                // AF_UNSPEC
	binary.NativeEndian.PutUint16(b[2:], 1) // ARPHRD_ETHER
	binary.NativeEndian.PutUint32(b[4:], uint32(index))
	binary.NativeEndian.PutUint32(b[8:], flags)
	return b
}

// stats64 encodes n fields of rtnl_link_stats64 with values 1000+i.
func stats64(n int) []byte {
	var b []byte
	for i := range n {
		b = binary.NativeEndian.AppendUint64(b, uint64(1000+i))
	}
	return b
}

func msg(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestDecodeLinkFull(t *testing.T) {
	m := msg(
		ifinfomsg(7, iffUp|iffLowerUp|0x1002), // UP, BROADCAST, MULTICAST, LOWER_UP
		attr(iflaIfname, str("eth0.100")),
		attr(iflaAddress, []byte{0xb8, 0xce, 0xf6, 0x5a, 0x3c, 0x10}),
		attr(iflaMTU, le32(9000)),
		attr(iflaLink, le32(3)),
		attr(iflaMaster, le32(9)),
		attr(iflaOperstate, []byte{6}),
		attr(iflaCarrier, []byte{1}),
		attr(iflaCarrierChanges, le32(5)),
		attr(iflaCarrierUpCount, le32(3)),
		attr(iflaCarrierDownCount, le32(2)),
		attr(iflaParentDevName, str("0000:3b:00.0")),
		attr(iflaParentDevBusName, str("pci")),
		attr(iflaStats64, stats64(25)),
		nested(iflaLinkinfo,
			attr(iflaInfoKind, str("vlan")),
			nested(iflaInfoData, attr(2, le32(0)), attr(iflaVLANID, le16(100))),
			attr(iflaInfoSlaveKind, str("bond")),
		),
		attr(200, []byte{1, 2, 3}), // unknown attributes are skipped
	)
	l, err := DecodeLink(m)
	if err != nil {
		t.Fatal(err)
	}
	u32 := func(v uint32) *uint32 { return &v }
	tru := true
	vid := uint16(100)
	want := Link{
		Name: "eth0.100", Index: 7, Kind: "vlan", SlaveKind: "bond",
		Address: "b8:ce:f6:5a:3c:10", MTU: 9000, OperState: "up",
		Flags: iffUp | iffLowerUp | 0x1002, AdminUp: true, LowerUp: true,
		Carrier: &tru, CarrierChanges: u32(5), CarrierUpCount: u32(3), CarrierDownCount: u32(2),
		MasterIndex: 9, ParentIndex: 3, VLANID: &vid,
		ParentDev: "0000:3b:00.0", ParentDevBus: "pci",
	}
	s := l.Stats
	l.Stats = nil
	if !reflect.DeepEqual(l, want) {
		t.Errorf("got  %+v\nwant %+v", l, want)
	}
	if s == nil {
		t.Fatal("no stats")
	}
	// Field order is the kernel's: field i holds 1000+i.
	v := reflect.ValueOf(*s)
	for i := range 23 {
		if got := v.Field(i).Uint(); got != uint64(1000+i) {
			t.Errorf("stats field %d (%s) = %d, want %d", i, v.Type().Field(i).Name, got, 1000+i)
		}
	}
	if s.RxNoHandler == nil || *s.RxNoHandler != 1023 || s.RxOtherhostDropped == nil || *s.RxOtherhostDropped != 1024 {
		t.Errorf("rx_nohandler %v, rx_otherhost_dropped %v; want 1023, 1024", s.RxNoHandler, s.RxOtherhostDropped)
	}
	if !l.Up() {
		t.Error("Up() = false")
	}
}

func TestDecodeLinkAbsent(t *testing.T) {
	// A minimal message: nothing optional is invented.
	l, err := DecodeLink(msg(ifinfomsg(1, 0x9), attr(iflaIfname, str("lo")), attr(iflaStats64, stats64(23))))
	if err != nil {
		t.Fatal(err)
	}
	if l.Carrier != nil || l.CarrierChanges != nil || l.CarrierUpCount != nil || l.SpeedMbps != nil || l.VLANID != nil || l.ParentNetnsID != nil {
		t.Errorf("absent fields set: %+v", l)
	}
	if l.OperState != "unknown" || !l.AdminUp || l.LowerUp || l.Up() {
		t.Errorf("operstate %q admin %v lower %v up %v", l.OperState, l.AdminUp, l.LowerUp, l.Up())
	}
	// 23 fields (before Linux 4.6): the later ones are absent, not zero.
	if l.Stats == nil || l.Stats.RxNoHandler != nil || l.Stats.RxOtherhostDropped != nil {
		t.Errorf("stats %+v", l.Stats)
	}
	b, _ := json.Marshal(l)
	for _, absent := range []string{"carrier", "speed_mbps", "rx_nohandler", "vlan_id", "master_ifindex", "parent_ifindex"} {
		if strings.Contains(string(b), `"`+absent+`"`) {
			t.Errorf("JSON has %s: %s", absent, b)
		}
	}

	// 24 fields (Linux 4.6 to 5.18).
	l, err = DecodeLink(msg(ifinfomsg(1, 0), attr(iflaStats64, stats64(24))))
	if err != nil || l.Stats.RxNoHandler == nil || *l.Stats.RxNoHandler != 1023 || l.Stats.RxOtherhostDropped != nil {
		t.Errorf("24 fields: %+v, %v", l.Stats, err)
	}
	// Carrier off; a parent equal to the link itself is no parent; a
	// netns id without parent is dropped; a VLAN id outside a vlan is ignored.
	l, err = DecodeLink(msg(ifinfomsg(4, iffUp),
		attr(iflaCarrier, []byte{0}), attr(iflaLink, le32(4)), attr(iflaLinkNetnsid, le32(0)),
		nested(iflaLinkinfo, attr(iflaInfoKind, str("veth")), nested(iflaInfoData, attr(iflaVLANID, le16(5))))))
	if err != nil || l.Carrier == nil || *l.Carrier || l.ParentIndex != 0 || l.ParentNetnsID != nil || l.VLANID != nil || l.Kind != "veth" || l.Up() {
		t.Errorf("got %+v, %v", l, err)
	}
	// A veth whose peer is in another namespace.
	l, err = DecodeLink(msg(ifinfomsg(4, 0), attr(iflaLink, le32(11)), attr(iflaLinkNetnsid, le32(2))))
	if err != nil || l.ParentIndex != 11 || l.ParentNetnsID == nil || *l.ParentNetnsID != 2 {
		t.Errorf("got %+v, %v", l, err)
	}
}

func TestDecodeOperStates(t *testing.T) {
	for v, want := range []string{"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up", "state_7"} {
		l, err := DecodeLink(msg(ifinfomsg(1, 0), attr(iflaOperstate, []byte{byte(v)})))
		if err != nil || l.OperState != want {
			t.Errorf("operstate %d = %q, %v; want %q", v, l.OperState, err, want)
		}
	}
}

func TestDecodeLinkErrors(t *testing.T) {
	good := msg(ifinfomsg(2, 0), attr(iflaMTU, le32(1500)))
	for name, tc := range map[string]struct {
		in   []byte
		want string
	}{
		"empty":           {nil, "shorter than ifinfomsg"},
		"short header":    {good[:15], "shorter than ifinfomsg"},
		"cut attribute":   {good[:len(good)-2], "length 8 out of range (6 bytes left)"},
		"cut attr header": {append(append([]byte{}, good...), 1, 2), "2 stray bytes"},
		"zero length":     {msg(ifinfomsg(2, 0), []byte{0, 0, 4, 0}), "length 0"},
		"short mtu":       {msg(ifinfomsg(2, 0), attr(iflaMTU, []byte{1, 2})), "attribute 4 has 2 bytes, want 4"},
		"short carrier":   {msg(ifinfomsg(2, 0), attr(iflaCarrier, nil)), "attribute 33 has 0 bytes, want 1"},
		"short operstate": {msg(ifinfomsg(2, 0), attr(iflaOperstate, nil)), "attribute 16 has 0 bytes, want 1"},
		"short stats":     {msg(ifinfomsg(2, 0), attr(iflaStats64, stats64(22))), "IFLA_STATS64 of 176 bytes"},
		"short vlan id":   {msg(ifinfomsg(2, 0), nested(iflaLinkinfo, attr(iflaInfoKind, str("vlan")), nested(iflaInfoData, attr(iflaVLANID, []byte{1})))), "linkinfo: netlink: attribute 1 has 1 bytes, want 2"},
		"bad nested":      {msg(ifinfomsg(2, 0), attr(iflaLinkinfo, []byte{9, 0, 1, 0})), "length 9"},
		"short changes":   {msg(ifinfomsg(2, 0), attr(iflaCarrierChanges, []byte{1})), "attribute 35 has 1 bytes, want 4"},
	} {
		_, err := DecodeLink(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
	// The last attribute's padding may be missing.
	m := msg(ifinfomsg(2, 0), attr(iflaIfname, str("ab")))
	if l, err := DecodeLink(m[:len(m)-1]); err != nil || l.Name != "ab" {
		t.Errorf("unpadded last attribute: %+v, %v", l, err)
	}
}

// A Link survives the recorder's JSON round trip unchanged.
func TestLinkJSONRoundTrip(t *testing.T) {
	l, err := DecodeLink(msg(ifinfomsg(7, iffUp|iffLowerUp), attr(iflaIfname, str("eth0")),
		attr(iflaCarrier, []byte{1}), attr(iflaCarrierChanges, le32(0)), attr(iflaStats64, stats64(25))))
	if err != nil {
		t.Fatal(err)
	}
	sp := uint32(100000)
	l.SpeedMbps = &sp
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"carrier_changes":0`) || !strings.Contains(string(b), `"speed_mbps":100000`) {
		t.Errorf("JSON %s: a present zero must stay", b)
	}
	var back Link
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, l) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, l)
	}
}

func FuzzDecodeLink(f *testing.F) {
	f.Add(msg(ifinfomsg(7, 1), attr(iflaIfname, str("eth0")), attr(iflaStats64, stats64(25)),
		nested(iflaLinkinfo, attr(iflaInfoKind, str("vlan")), nested(iflaInfoData, attr(iflaVLANID, le16(100))))))
	f.Add(msg(ifinfomsg(1, 0), attr(iflaCarrier, []byte{1}), attr(iflaOperstate, []byte{6})))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeLink(b)
		if err != nil {
			return
		}
		if _, err := json.Marshal(l); err != nil {
			t.Fatal(err)
		}
	})
}

// deref shows a pointer's value in test messages, or "absent".
func deref[T any](p *T) any {
	if p == nil {
		return "absent"
	}
	return *p
}
