package nlmsg

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Order is the byte order of netlink data, relative to this host's.
// Netlink is in the byte order of the host that wrote it (its kernel's
// native integers), so a recording made on a host of the other order -
// s390x read on amd64 - decodes with its bytes swapped. Messages and
// attributes carry the Order they were split with, and their integer
// accessors and nested attributes use it.
type Order struct{ swapped bool }

// Native is this host's byte order: what its kernel writes.
var Native = Order{}

// nativeBig: this host is big-endian.
var nativeBig = binary.NativeEndian.Uint16([]byte{0, 1}) == 1

// OrderNamed returns the Order of data written on a host whose byte
// order is name, "little" or "big" (a recording's header says which).
func OrderNamed(name string) (Order, error) {
	switch name {
	case "little":
		return Order{swapped: nativeBig}, nil
	case "big":
		return Order{swapped: !nativeBig}, nil
	}
	return Native, fmt.Errorf("netlink: byte order %q is neither little nor big", name)
}

// NativeName names this host's byte order as OrderNamed takes it.
func NativeName() string { return Native.Name() }

// Name is "little" or "big".
func (o Order) Name() string {
	if nativeBig != o.swapped {
		return "big"
	}
	return "little"
}

// Uint16 reads a 16-bit integer in the order o.
func (o Order) Uint16(b []byte) uint16 {
	v := ne.Uint16(b)
	if o.swapped {
		v = bits.ReverseBytes16(v)
	}
	return v
}

// Uint32 reads a 32-bit integer in the order o.
func (o Order) Uint32(b []byte) uint32 {
	v := ne.Uint32(b)
	if o.swapped {
		v = bits.ReverseBytes32(v)
	}
	return v
}

// Uint64 reads a 64-bit integer in the order o.
func (o Order) Uint64(b []byte) uint64 {
	v := ne.Uint64(b)
	if o.swapped {
		v = bits.ReverseBytes64(v)
	}
	return v
}
