package nlmsg

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// These tests run on the build machine and, with `make test-bigendian`,
// on s390x under qemu-user: every expected byte is written with the
// byte order of the machine running them, as the kernel would write it.

// put writes v in the order of the machine the test runs on.
func put16(v uint16) []byte { return binary.NativeEndian.AppendUint16(nil, v) }
func put32(v uint32) []byte { return binary.NativeEndian.AppendUint32(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// RTM_GETLINK for "eth0" as the kernel reads it: header, struct
// ifinfomsg, IFLA_IFNAME with its NUL, padded.
func TestRequestHostOrder(t *testing.T) {
	ifinfo := make([]byte, 16)
	got := NewRequest(18, 0, ifinfo).String(3, "eth0").Bytes()
	want := cat(put32(16+16+12), put16(18), put16(FlagRequest), put32(0), put32(0),
		ifinfo,
		put16(4+5), put16(3), []byte("eth0\x00\x00\x00\x00"))
	if !bytes.Equal(got, want) {
		t.Fatalf("request\n got % x\nwant % x", got, want)
	}
	u := NewRequest(0x1407, FlagDump, nil).U32(1, 0x01020304).Bytes()
	wantU := cat(put32(16+8), put16(0x1407), put16(FlagRequest|FlagDump), put32(0), put32(0),
		put16(8), put16(1), put32(0x01020304))
	if !bytes.Equal(u, wantU) {
		t.Fatalf("u32 request\n got % x\nwant % x", u, wantU)
	}
}

// A dump answer of two messages and the NLMSG_DONE, attributes with the
// nested flag, decoded field by field.
func TestSplitAndAttrs(t *testing.T) {
	attrs := cat(put16(8), put16(1), put32(0xdeadbeef),
		put16(4+3), put16(2|0x8000), []byte("ab\x00\x00"), // nested flag stripped
		put16(12), put16(5), binary.NativeEndian.AppendUint64(nil, 1<<40|7))
	msg := func(typ, flags uint16, seq uint32, payload []byte) []byte {
		return cat(put32(uint32(16+len(payload))), put16(typ), put16(flags), put32(seq), put32(42), payload)
	}
	buf := cat(msg(0x1401, FlagMulti, 9, attrs), msg(0x1401, FlagMulti, 9, nil), msg(TypeDone, FlagMulti, 9, put32(0)))
	ms, err := Split(buf)
	if err != nil || len(ms) != 3 {
		t.Fatalf("Split: %d messages, %v", len(ms), err)
	}
	if m := ms[0]; m.Type != 0x1401 || m.Flags != FlagMulti || m.Seq != 9 || m.PID != 42 || !bytes.Equal(m.Payload, attrs) {
		t.Fatalf("first message %+v", m)
	}
	if !ms[2].IsDone() || ms[2].Errno() != 0 {
		t.Fatalf("NLMSG_DONE %+v", ms[2])
	}
	as, err := Attrs(ms[0].Payload)
	if err != nil || len(as) != 3 {
		t.Fatalf("Attrs: %v %v", as, err)
	}
	if v, err := as[0].U32(); err != nil || v != 0xdeadbeef || as[0].Type != 1 {
		t.Errorf("u32 attribute: type %d value %#x %v", as[0].Type, v, err)
	}
	if as[1].Type != 2 || as[1].String() != "ab" {
		t.Errorf("string attribute: type %d %q", as[1].Type, as[1].String())
	}
	if v, err := as[2].U64(); err != nil || v != 1<<40|7 {
		t.Errorf("u64 attribute: %#x %v", v, err)
	}
	if _, err := as[1].U64(); err == nil {
		t.Error("a 3-byte attribute read as u64")
	}
}

// The kernel's error: errno, the echoed header, an extended ACK's text.
func TestErrorAndExtAck(t *testing.T) {
	req := NewRequest(0x1401, 0, nil).Bytes()
	ext := cat(put16(4+13), put16(ErrAttrMsg), []byte("no such dev\x00\x00\x00\x00\x00"))
	code := -int32(syscall.ENODEV)
	payload := cat(put32(uint32(code)), req, ext)
	buf := cat(put32(uint32(16+len(payload))), put16(TypeError), put16(FlagAckTLVs), put32(1), put32(0), payload)
	ms, err := Split(buf)
	if err != nil || len(ms) != 1 {
		t.Fatal(ms, err)
	}
	m := ms[0]
	if !m.IsError() || m.Errno() != syscall.ENODEV {
		t.Errorf("errno %v, want ENODEV", m.Errno())
	}
	if got := m.ExtAck(); got != "no such dev" {
		t.Errorf("extack %q", got)
	}
}

// Damage is an error, never a silent short read.
func TestDamage(t *testing.T) {
	for name, b := range map[string][]byte{
		"length past the buffer": cat(put32(64), put16(1), put16(0), put32(0), put32(0)),
		"length below header":    cat(put32(8), put16(1), put16(0), put32(0), put32(0)),
		"stray bytes":            cat(put32(16), put16(1), put16(0), put32(0), put32(0), []byte{1, 2}),
	} {
		if _, err := Split(b); err == nil || !strings.Contains(err.Error(), "netlink") {
			t.Errorf("Split(%s): %v", name, err)
		}
	}
	for name, b := range map[string][]byte{
		"length past the buffer": cat(put16(12), put16(1), put32(0)),
		"length below header":    cat(put16(2), put16(1), put32(0)),
		"stray bytes":            cat(put16(8), put16(1), put32(0), []byte{1}),
	} {
		if _, err := Attrs(b); err == nil {
			t.Errorf("Attrs(%s): no error", name)
		}
	}
}

func FuzzSplitAttrs(f *testing.F) {
	f.Add(NewRequest(18, 0, make([]byte, 16)).String(3, "eth0").Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, _ := Split(b)
		for _, m := range ms {
			as, _ := Attrs(m.Payload)
			for _, a := range as {
				a.U8()
				a.U16()
				a.U32()
				a.U64()
				_ = a.String()
			}
			_ = m.ExtAck()
			_ = m.Errno()
		}
	})
}

// A message written on a host of the other byte order decodes the same
// through its Order: header, errno, nested attributes and integers.
func TestForeignOrderDecodes(t *testing.T) {
	native := NewRequest(0x1502, FlagAck, nil).U32(1, 0x01020304).Attr(2, nest(0xa1b2c3d4e5f60708)).Bytes()
	foreign := swapped(native)
	other := map[string]string{"little": "big", "big": "little"}[NativeName()]
	o, err := OrderNamed(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    Order
		b    []byte
	}{{"native", Native, native}, {"foreign", o, foreign}} {
		msgs, err := c.o.Split(c.b)
		if err != nil || len(msgs) != 1 || msgs[0].Type != 0x1502 || msgs[0].Flags != FlagRequest|FlagAck {
			t.Fatalf("%s: %+v %v", c.name, msgs, err)
		}
		as, err := msgs[0].Attrs(0)
		if err != nil || len(as) != 2 {
			t.Fatalf("%s: attributes %+v %v", c.name, as, err)
		}
		if v, err := as[0].U32(); v != 0x01020304 || err != nil {
			t.Errorf("%s: u32 %#x %v", c.name, v, err)
		}
		inner, err := as[1].Attrs()
		if err != nil || len(inner) != 1 {
			t.Fatalf("%s: nested %+v %v", c.name, inner, err)
		}
		if v, err := inner[0].U64(); v != 0xa1b2c3d4e5f60708 || err != nil {
			t.Errorf("%s: nested u64 %#x %v", c.name, v, err)
		}
	}
	if o.Name() != other || Native.Name() != NativeName() {
		t.Errorf("names: %s %s", o.Name(), Native.Name())
	}
	if _, err := OrderNamed("middle"); err == nil {
		t.Error("a byte order neither little nor big was taken")
	}
}

// nest is one nested u64 attribute of type 3, native order.
func nest(v uint64) []byte {
	b := make([]byte, 12)
	ne.PutUint16(b, 12)
	ne.PutUint16(b[2:], 3)
	ne.PutUint64(b[4:], v)
	return b
}

// swapped is the test message above as a host of the other order wrote
// it: every header field and integer reversed, by the layout the test
// built.
func swapped(b []byte) []byte {
	out := append([]byte(nil), b...)
	rev := func(i, n int) { slices.Reverse(out[i : i+n]) }
	rev(0, 4)
	rev(4, 2)
	rev(6, 2)
	rev(8, 4)
	rev(12, 4)
	rev(16, 2) // attr 1: len, type, u32
	rev(18, 2)
	rev(20, 4)
	rev(24, 2) // attr 2: len, type
	rev(26, 2)
	rev(28, 2) // nested: len, type, u64
	rev(30, 2)
	rev(32, 8)
	return out
}

// An attribute's flags come apart from its type and go back with it.
func TestAttrFlagsRoundTrip(t *testing.T) {
	b := AppendAttr(nil, 3|0x8000, AppendAttr(nil, 1, []byte("eth0\x00")))
	b = AppendAttr(b, 2, []byte{7})
	as, err := Attrs(b)
	if err != nil || len(as) != 2 || as[0].Type != 3 || as[0].Flags != 0x8000 || as[1].Type != 2 || as[1].Flags != 0 {
		t.Fatalf("%+v %v", as, err)
	}
	var again []byte
	for _, a := range as {
		again = AppendAttr(again, a.Type|a.Flags, a.Data)
	}
	if !bytes.Equal(again, b) || len(b)%4 != 0 {
		t.Errorf("re-encoded % x, was % x", again, b)
	}
	if inner, err := as[0].Attrs(); err != nil || len(inner) != 1 || inner[0].String() != "eth0" {
		t.Errorf("nested %+v %v", inner, err)
	}
}
