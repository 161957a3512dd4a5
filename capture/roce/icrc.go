package roce

import "hash/crc32"

// The ICRC is a CRC-32 (IEEE 802.3 polynomial) over the invariant fields of
// the packet: 8 bytes of ones standing for an LRH, the network header with
// its variant fields set to ones (IPv4: TOS, TTL, header checksum; IPv6 and
// GRH: traffic class, flow label, hop limit), the UDP header with its
// checksum set to ones (RoCEv2), the BTH with byte 4 (resv8a, where FECN and
// BECN live) set to ones, and everything after it up to the ICRC. IBTA vol. 1
// annex A16 (RoCE) and A17 (RoCEv2). It is stored least significant byte first.

// Hasher computes ICRCs. Its scratch buffer for the masked headers lives
// in the Hasher, so a long-lived Hasher (one per decoder) computes without
// allocating; the zero value is ready to use.
type Hasher struct {
	buf [8 + 60 + 8 + BTHLen + clmulBlock]byte
}

// clmulBlock: hash/crc32 on amd64 and arm64 folds whole 16-byte blocks
// of a slice of at least 64 bytes with carry-less multiplication and
// takes what is left byte by byte, about ten times slower. The masked
// headers alone are 48 to 88 bytes, so finish tops them up with the
// start of the payload to a length that is a multiple of the block and
// at least 64 (BenchmarkICRCv4, 1 KiB WRITE ONLY: 92 -> 72 ns).
const clmulBlock = 16

// ICRCv4 computes the ICRC of a RoCEv2 packet over IPv4. ip is the IPv4
// header (with options), udp the 8-byte UDP header, ib the transport part
// from the BTH up to (not including) the ICRC.
func (h *Hasher) ICRCv4(ip, udp, ib []byte) uint32 {
	buf := h.buf[:]
	n := copy(buf[:8], ones[:])
	hl := copy(buf[n:n+min(len(ip), 60)], ip)
	buf[n+1] = 0xff                   // TOS: DSCP and ECN
	buf[n+8] = 0xff                   // TTL
	buf[n+10], buf[n+11] = 0xff, 0xff // header checksum
	n += hl
	return finish(buf, n, udp, ib)
}

// ICRCv6 computes the ICRC of a RoCEv2 packet over IPv6 (40-byte fixed header;
// RoCEv2 does not use extension headers).
func (h *Hasher) ICRCv6(ip, udp, ib []byte) uint32 {
	buf := h.buf[:]
	n := copy(buf[:8], ones[:])
	n += maskGRH(buf[n:], ip)
	return finish(buf, n, udp, ib)
}

// ICRCv1 computes the ICRC of a RoCEv1 packet: grh is the 40-byte GRH.
func (h *Hasher) ICRCv1(grh, ib []byte) uint32 {
	buf := h.buf[:]
	n := copy(buf[:8], ones[:])
	n += maskGRH(buf[n:], grh)
	return finish(buf, n, nil, ib)
}

// ICRCv4 is Hasher.ICRCv4 with a fresh Hasher.
func ICRCv4(ip, udp, ib []byte) uint32 { var h Hasher; return h.ICRCv4(ip, udp, ib) }

// ICRCv6 is Hasher.ICRCv6 with a fresh Hasher.
func ICRCv6(ip, udp, ib []byte) uint32 { var h Hasher; return h.ICRCv6(ip, udp, ib) }

// ICRCv1 is Hasher.ICRCv1 with a fresh Hasher.
func ICRCv1(grh, ib []byte) uint32 { var h Hasher; return h.ICRCv1(grh, ib) }

var ones = [8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

func maskGRH(dst, h []byte) int {
	n := copy(dst[:GRHLen], h)
	dst[0] |= 0x0f // version kept; traffic class and flow label to ones
	dst[1], dst[2], dst[3] = 0xff, 0xff, 0xff
	dst[7] = 0xff // hop limit
	return n
}

func finish(buf []byte, n int, udp, ib []byte) uint32 {
	if udp != nil {
		n += copy(buf[n:n+8], udp)
		buf[n-2], buf[n-1] = 0xff, 0xff // UDP checksum
	}
	bth := copy(buf[n:n+BTHLen], ib)
	if bth == BTHLen {
		buf[n+4] = 0xff // resv8a
	}
	n += bth
	rest := ib[bth:]
	want := max(64, (n+clmulBlock-1)/clmulBlock*clmulBlock)
	k := copy(buf[n:want], rest)
	crc := crc32.Update(0, crc32.IEEETable, buf[:n+k])
	if len(rest) > k {
		crc = crc32.Update(crc, crc32.IEEETable, rest[k:])
	}
	return crc
}
