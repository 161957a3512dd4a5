package live

import "encoding/binary"

// FanoutShard returns which of n rings of a fanout group (OpenFanout)
// the kernel hands frame to: the program attached to the group computed in
// Go, for splitting a capture file the same way and for tests. frame is
// Ethernet, with or without one 802.1Q/802.1ad tag.
func FanoutShard(frame []byte, n int) int {
	if n <= 1 || len(frame) < 14 {
		return 0
	}
	et, l3 := binary.BigEndian.Uint16(frame[12:]), frame[14:]
	if (et == 0x8100 || et == 0x88a8) && len(frame) >= 18 {
		et, l3 = binary.BigEndian.Uint16(frame[16:]), frame[18:]
	}
	var src, dst uint32
	switch {
	case et == 0x0800 && len(l3) >= 20:
		src, dst = binary.BigEndian.Uint32(l3[12:]), binary.BigEndian.Uint32(l3[16:])
	case et == 0x86dd && len(l3) >= 40:
		for off := 8; off < 24; off += 4 {
			src ^= binary.BigEndian.Uint32(l3[off:])
			dst ^= binary.BigEndian.Uint32(l3[off+16:])
		}
	default:
		return 0
	}
	h := (src^dst)*fanoutMulXor + (src+dst)*fanoutMulSum
	return int(h>>24) % n
}

// Multiplicative hash constants (2^32/φ and MurmurHash3's): the products'
// top bits depend on every bit of the addresses.
const (
	fanoutMulXor = 0x9e3779b1
	fanoutMulSum = 0x85ebca6b
)
