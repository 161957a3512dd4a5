package nlmsg

import (
	"bytes"
	"fmt"
)

// AttrHdrLen is sizeof(struct nlattr).
const AttrHdrLen = 4

// typeMask strips NLA_F_NESTED and NLA_F_NET_BYTEORDER from a type.
const typeMask = 0x3fff

// Attr is one attribute; Data points into the buffer it came from.
type Attr struct {
	Type  uint16 // with NLA_F_NESTED and NLA_F_NET_BYTEORDER stripped
	Flags uint16 // NLA_F_NESTED and NLA_F_NET_BYTEORDER as sent
	order Order
	Data  []byte
}

// Attrs splits b into attributes. A length shorter than the header or
// running past the buffer, or stray bytes after the last attribute, is an
// error (the attributes before it are returned); unknown types are the
// caller's to skip.
func (o Order) Attrs(b []byte) ([]Attr, error) {
	var out []Attr
	for len(b) > 0 {
		if len(b) < AttrHdrLen {
			return out, fmt.Errorf("netlink: %d stray bytes after the last attribute", len(b))
		}
		n := int(o.Uint16(b))
		t := o.Uint16(b[2:])
		if n < AttrHdrLen || n > len(b) {
			return out, fmt.Errorf("netlink: attribute %d: length %d out of range (%d bytes left)", t&typeMask, n, len(b))
		}
		out = append(out, Attr{Type: t & typeMask, Flags: t &^ typeMask, order: o, Data: b[AttrHdrLen:n]})
		b = b[min(Align(n), len(b)):]
	}
	return out, nil
}

// Attrs splits attributes in this host's byte order (Native.Attrs).
func Attrs(b []byte) ([]Attr, error) { return Native.Attrs(b) }

// Attrs splits the attributes nested in a, in a's byte order.
func (a Attr) Attrs() ([]Attr, error) { return a.order.Attrs(a.Data) }

// Order is the byte order a was split with: of its data's integers.
func (a Attr) Order() Order { return a.order }

// U8 is the attribute as a u8.
func (a Attr) U8() (uint8, error) {
	if len(a.Data) < 1 {
		return 0, a.sizeErr(1)
	}
	return a.Data[0], nil
}

// U16 is the attribute as a u16 in host order.
func (a Attr) U16() (uint16, error) {
	if len(a.Data) < 2 {
		return 0, a.sizeErr(2)
	}
	return a.order.Uint16(a.Data), nil
}

// U32 is the attribute as a u32 in host order.
func (a Attr) U32() (uint32, error) {
	if len(a.Data) < 4 {
		return 0, a.sizeErr(4)
	}
	return a.order.Uint32(a.Data), nil
}

// U64 is the attribute as a u64 in host order.
func (a Attr) U64() (uint64, error) {
	if len(a.Data) < 8 {
		return 0, a.sizeErr(8)
	}
	return a.order.Uint64(a.Data), nil
}

// String is a NUL-terminated string attribute; a missing NUL is tolerated.
func (a Attr) String() string {
	if i := bytes.IndexByte(a.Data, 0); i >= 0 {
		return string(a.Data[:i])
	}
	return string(a.Data)
}

func (a Attr) sizeErr(want int) error {
	return fmt.Errorf("netlink: attribute %d has %d bytes, want %d", a.Type, len(a.Data), want)
}

// AppendAttr appends an attribute of type typ (flags included) with data
// as its value, in this host's byte order, padded to 4 bytes.
func AppendAttr(b []byte, typ uint16, data []byte) []byte {
	b = ne.AppendUint16(b, uint16(AttrHdrLen+len(data)))
	b = ne.AppendUint16(b, typ)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
