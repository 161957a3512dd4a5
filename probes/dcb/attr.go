package dcb

import (
	"encoding/binary"
	"fmt"
)

// ne is the byte order of netlink messages: the host's.
var ne = binary.NativeEndian

// Netlink attribute header flags that are not part of the type.
const (
	nlaFNested    = 0x8000
	nlaFByteOrder = 0x4000
	nlaTypeMask   = ^uint16(nlaFNested | nlaFByteOrder)
)

type attr struct {
	typ  uint16
	data []byte
}

// attrs splits b into netlink attributes (struct nlattr: u16 len, u16 type,
// payload padded to 4 bytes). Like the kernel's nla_for_each_attr it
// tolerates fewer than 4 trailing bytes; an attribute whose length runs
// past the buffer or is shorter than its header is an error.
func attrs(b []byte) ([]attr, error) {
	var out []attr
	for len(b) >= 4 {
		l := int(ne.Uint16(b[0:2]))
		t := ne.Uint16(b[2:4]) & nlaTypeMask
		if l < 4 || l > len(b) {
			return out, fmt.Errorf("attribute type %d: length %d with %d bytes left", t, l, len(b))
		}
		out = append(out, attr{typ: t, data: b[4:l]})
		next := (l + 3) &^ 3
		if next > len(b) {
			next = len(b)
		}
		b = b[next:]
	}
	return out, nil
}

// cString returns a NUL-terminated attribute as a string.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func need(name string, b []byte, n int) error {
	if len(b) < n {
		return fmt.Errorf("%s: %d bytes, want %d", name, len(b), n)
	}
	return nil
}
