package rdmanl

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Netlink attributes are struct nlattr TLVs in host byte order (the
// fixtures and every supported host are little-endian), padded to 4 bytes.

var le = binary.LittleEndian

type attr struct {
	typ  uint16 // with NLA_F_NESTED / NLA_F_NET_BYTEORDER stripped
	data []byte
}

// parseAttrs splits b into attributes. A length that runs past the buffer
// or is shorter than the header is an error; unknown types are the
// caller's to skip.
func parseAttrs(b []byte) ([]attr, error) {
	var out []attr
	for len(b) > 0 {
		if len(b) < nlaHdrLen {
			return nil, fmt.Errorf("rdma netlink: %d stray bytes after the last attribute", len(b))
		}
		n := int(le.Uint16(b))
		if n < nlaHdrLen || n > len(b) {
			return nil, fmt.Errorf("rdma netlink: attribute length %d out of range (%d bytes left)", n, len(b))
		}
		out = append(out, attr{typ: le.Uint16(b[2:]) & nlaTypeMask, data: b[nlaHdrLen:n]})
		adv := align4(n)
		if adv > len(b) {
			adv = len(b)
		}
		b = b[adv:]
	}
	return out, nil
}

func align4(n int) int { return (n + 3) &^ 3 }

func (a attr) u8() (uint8, error) {
	if len(a.data) < 1 {
		return 0, a.sizeErr(1)
	}
	return a.data[0], nil
}

func (a attr) u32() (uint32, error) {
	if len(a.data) < 4 {
		return 0, a.sizeErr(4)
	}
	return le.Uint32(a.data), nil
}

func (a attr) u64() (uint64, error) {
	if len(a.data) < 8 {
		return 0, a.sizeErr(8)
	}
	return le.Uint64(a.data), nil
}

// str is a NUL-terminated string; a missing NUL is tolerated.
func (a attr) str() string {
	if i := bytes.IndexByte(a.data, 0); i >= 0 {
		return string(a.data[:i])
	}
	return string(a.data)
}

func (a attr) sizeErr(want int) error {
	return fmt.Errorf("rdma netlink: attribute %d has %d bytes, want %d", a.typ, len(a.data), want)
}

// encoder builds one request message.
type encoder struct{ b []byte }

func newRequest(cmd uint16, flags uint16) *encoder {
	e := &encoder{b: make([]byte, nlmsgHdrLen, 32)}
	le.PutUint16(e.b[4:], MsgType(cmd))
	le.PutUint16(e.b[6:], flags)
	return e
}

func (e *encoder) u32(typ uint16, v uint32) *encoder {
	var a [8]byte
	le.PutUint16(a[0:], 8)
	le.PutUint16(a[2:], typ)
	le.PutUint32(a[4:], v)
	e.b = append(e.b, a[:]...)
	return e
}

func (e *encoder) bytes() []byte {
	le.PutUint32(e.b[0:], uint32(len(e.b)))
	return e.b
}
