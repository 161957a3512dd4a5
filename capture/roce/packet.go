package roce

import "fmt"

// Packet is the InfiniBand transport part of a RoCE packet: the BTH, the
// extended headers its opcode requires, payload, pad and ICRC. It is decoded
// in one pass into a reusable value, without allocating.
type Packet struct {
	BTH          BTH
	Headers      uint16 // Has* flags of the extended headers present
	RDETH        RDETH
	DETH         DETH
	XRCETH       XRCETH
	FETH         FETH
	RETH         RETH
	AtomicETH    AtomicETH
	AETH         AETH
	AtomicAckETH AtomicAckETH
	ImmDt        ImmDt
	IETH         IETH

	// HeaderLen is BTH plus extended headers (plus a CNP's reserved bytes).
	HeaderLen int
	// PayloadLen is the payload length implied by the packet's own length,
	// valid even when the capture cut the packet short.
	PayloadLen int
	// Payload holds the captured payload bytes: PayloadLen of them, or fewer
	// when Truncated.
	Payload []byte
	// ICRC as stored on the wire (little-endian, as the CRC-32 is emitted);
	// valid only when HasICRC.
	ICRC    uint32
	HasICRC bool
	// Truncated is set when the captured bytes end before the packet does
	// (capture snap length); headers decoded, ICRC not verifiable.
	Truncated bool
	// Contents is BTH through the byte before the ICRC (what the ICRC covers
	// after the network headers), as captured.
	Contents []byte
}

// Decode decodes data, the captured bytes starting at the BTH. wireLen is the
// length of the transport part as the packet itself states it (from the IP or
// UDP length), or -1 when only the captured bytes are known. A packet cut by
// the snap length decodes as long as its headers were captured.
func (p *Packet) Decode(data []byte, wireLen int) error {
	if wireLen < 0 {
		wireLen = len(data)
	}
	truncated := len(data) < wireLen
	if len(data) > wireLen {
		data = data[:wireLen] // Ethernet padding after a short frame
	}
	if len(data) < BTHLen {
		if truncated && wireLen >= BTHLen+ICRCLen {
			return ErrTruncated
		}
		// Too short whatever the opcode: no BTH and ICRC fit in wireLen.
		return fmt.Errorf("%w: %d bytes, a BTH and ICRC need %d", ErrTooShort, wireLen, BTHLen+ICRCLen)
	}
	p.BTH.Decode(data)
	op := p.BTH.Opcode
	flags := op.Headers()
	hl := BTHLen + ExtLen(flags)
	if wireLen < hl+ICRCLen {
		return errShort(op, hl+ICRCLen, wireLen)
	}
	if len(data) < hl {
		return ErrTruncated
	}
	p.Headers = flags
	p.HeaderLen = hl
	p.Truncated = truncated
	off := BTHLen
	if flags&HasRDETH != 0 {
		p.RDETH.Decode(data[off:])
		off += RDETHLen
	}
	if flags&HasDETH != 0 {
		p.DETH.Decode(data[off:])
		off += DETHLen
	}
	if flags&HasXRCETH != 0 {
		p.XRCETH.Decode(data[off:])
		off += XRCETHLen
	}
	if flags&HasFETH != 0 {
		p.FETH.Decode(data[off:])
		off += FETHLen
	}
	if flags&HasRETH != 0 {
		p.RETH.Decode(data[off:])
		off += RETHLen
	}
	if flags&HasAtomicETH != 0 {
		p.AtomicETH.Decode(data[off:])
		off += AtomicETHLen
	}
	if flags&HasAETH != 0 {
		p.AETH.Decode(data[off:])
		off += AETHLen
	}
	if flags&HasAtomicAckETH != 0 {
		p.AtomicAckETH.Decode(data[off:])
		off += AtomicAckETHLen
	}
	if flags&HasImmDt != 0 {
		p.ImmDt.Decode(data[off:])
		off += ImmDtLen
	}
	if flags&HasIETH != 0 {
		p.IETH.Decode(data[off:])
	}
	body := wireLen - hl - ICRCLen // payload + pad
	pad := int(p.BTH.PadCount)
	if pad > body {
		return ErrPadding
	}
	p.PayloadLen = body - pad
	end := min(hl+p.PayloadLen, len(data))
	p.Payload = data[hl:end]
	icrcOff := wireLen - ICRCLen
	if len(data) >= wireLen {
		b := data[icrcOff:]
		p.ICRC = uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		p.HasICRC = true
		p.Contents = data[:icrcOff]
	} else {
		p.ICRC, p.HasICRC = 0, false
		p.Contents = data[:min(icrcOff, len(data))]
	}
	return nil
}

// Has reports whether the extended header flag is present.
func (p *Packet) Has(flag uint16) bool { return p.Headers&flag != 0 }

// Len returns the serialized length: headers, payload, pad and ICRC.
func (p *Packet) Len() int {
	return BTHLen + ExtLen(p.BTH.Opcode.Headers()) + len(p.Payload) + int(p.BTH.PadCount) + ICRCLen
}

// Encode writes the transport part (BTH, the extended headers the opcode
// requires, Payload, PadCount zero bytes, and a zero ICRC placeholder) into
// b, which must hold Len bytes. The ICRC depends on the network headers: see
// ICRCv4/ICRCv6/ICRCv1 and PutICRC.
func (p *Packet) Encode(b []byte) {
	off := p.encodeHeaders(b)
	off += copy(b[off:], p.Payload)
	clear(b[off : off+int(p.BTH.PadCount)+ICRCLen])
}

// encodeHeaders writes the BTH and extended headers and returns their length.
func (p *Packet) encodeHeaders(b []byte) int {
	flags := p.BTH.Opcode.Headers()
	p.BTH.Encode(b)
	off := BTHLen
	if flags&HasRDETH != 0 {
		p.RDETH.Encode(b[off:])
		off += RDETHLen
	}
	if flags&HasDETH != 0 {
		p.DETH.Encode(b[off:])
		off += DETHLen
	}
	if flags&HasXRCETH != 0 {
		p.XRCETH.Encode(b[off:])
		off += XRCETHLen
	}
	if flags&HasFETH != 0 {
		p.FETH.Encode(b[off:])
		off += FETHLen
	}
	if flags&HasRETH != 0 {
		p.RETH.Encode(b[off:])
		off += RETHLen
	}
	if flags&HasAtomicETH != 0 {
		p.AtomicETH.Encode(b[off:])
		off += AtomicETHLen
	}
	if flags&HasAETH != 0 {
		p.AETH.Encode(b[off:])
		off += AETHLen
	}
	if flags&HasAtomicAckETH != 0 {
		p.AtomicAckETH.Encode(b[off:])
		off += AtomicAckETHLen
	}
	if flags&HasImmDt != 0 {
		p.ImmDt.Encode(b[off:])
		off += ImmDtLen
	}
	if flags&HasIETH != 0 {
		p.IETH.Encode(b[off:])
		off += IETHLen
	}
	if flags&hasCNPResvd != 0 {
		clear(b[off : off+CNPReservedLen])
		off += CNPReservedLen
	}
	return off
}

// PutICRC stores crc in the last four bytes of b, little-endian as on the wire.
func PutICRC(b []byte, crc uint32) {
	b = b[len(b)-ICRCLen:]
	b[0], b[1], b[2], b[3] = byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24)
}
