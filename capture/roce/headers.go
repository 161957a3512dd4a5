package roce

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Header lengths in bytes (IBTA vol. 1 ch. 9; FETH from the 1.5 memory
// placement extensions; the CNP's 16 reserved bytes from annex A17).
const (
	BTHLen          = 12
	RDETHLen        = 4
	DETHLen         = 8
	XRCETHLen       = 4
	FETHLen         = 4
	RETHLen         = 16
	AtomicETHLen    = 28
	AETHLen         = 4
	AtomicAckETHLen = 8
	ImmDtLen        = 4
	IETHLen         = 4
	CNPReservedLen  = 16
	ICRCLen         = 4
	GRHLen          = 40
)

// Decoding errors. ErrTruncated means the bytes end early, which is
// expected when a capture's snap length cut the packet.
var (
	ErrTruncated = errors.New("roce: packet ends inside its transport headers")
	ErrTooShort  = errors.New("roce: packet too short for its opcode's headers and ICRC")
	ErrPadding   = errors.New("roce: pad count larger than the payload")
)

// BTH is the Base Transport Header: 12 bytes that start every RoCE transport packet.
type BTH struct {
	Opcode         Opcode
	SolicitedEvent bool
	MigReq         bool
	PadCount       uint8 // 0..3 bytes of pad before the ICRC
	TVer           uint8 // transport header version, 0 today
	PKey           uint16
	FECN           bool  // byte 4 bit 7 (RoCEv2: reserved in resv8a, used by some NICs)
	BECN           bool  // byte 4 bit 6
	Resv6          uint8 // the other 6 bits of byte 4
	DestQP         uint32
	AckReq         bool
	Resv7          uint8
	PSN            uint32 // 24 bits
}

// Decode reads a BTH from b, which must hold at least BTHLen bytes.
func (h *BTH) Decode(b []byte) {
	_ = b[11]
	h.Opcode = Opcode(b[0])
	h.SolicitedEvent = b[1]&0x80 != 0
	h.MigReq = b[1]&0x40 != 0
	h.PadCount = b[1] >> 4 & 3
	h.TVer = b[1] & 0x0f
	h.PKey = binary.BigEndian.Uint16(b[2:])
	h.FECN = b[4]&0x80 != 0
	h.BECN = b[4]&0x40 != 0
	h.Resv6 = b[4] & 0x3f
	h.DestQP = uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7])
	h.AckReq = b[8]&0x80 != 0
	h.Resv7 = b[8] & 0x7f
	h.PSN = uint32(b[9])<<16 | uint32(b[10])<<8 | uint32(b[11])
}

// Encode writes the BTH into b[:BTHLen].
func (h *BTH) Encode(b []byte) {
	_ = b[11]
	b[0] = byte(h.Opcode)
	b[1] = bit(h.SolicitedEvent, 0x80) | bit(h.MigReq, 0x40) | (h.PadCount&3)<<4 | h.TVer&0x0f
	binary.BigEndian.PutUint16(b[2:], h.PKey)
	b[4] = bit(h.FECN, 0x80) | bit(h.BECN, 0x40) | h.Resv6&0x3f
	put24(b[5:], h.DestQP)
	b[8] = bit(h.AckReq, 0x80) | h.Resv7&0x7f
	put24(b[9:], h.PSN)
}

// RDETH is the Reliable Datagram Extended Transport Header.
type RDETH struct{ EEContext uint32 }

func (h *RDETH) Decode(b []byte) { h.EEContext = get24(b[1:]) }
func (h *RDETH) Encode(b []byte) { b[0] = 0; put24(b[1:], h.EEContext) }

// DETH is the Datagram Extended Transport Header (UD and RD).
type DETH struct {
	QKey  uint32
	SrcQP uint32
}

func (h *DETH) Decode(b []byte) {
	h.QKey = binary.BigEndian.Uint32(b)
	h.SrcQP = get24(b[5:])
}
func (h *DETH) Encode(b []byte) {
	binary.BigEndian.PutUint32(b, h.QKey)
	b[4] = 0
	put24(b[5:], h.SrcQP)
}

// XRCETH is the XRC Extended Transport Header: the destination XRC SRQ.
type XRCETH struct{ XRCSRQ uint32 }

func (h *XRCETH) Decode(b []byte) { h.XRCSRQ = get24(b[1:]) }
func (h *XRCETH) Encode(b []byte) { b[0] = 0; put24(b[1:], h.XRCSRQ) }

// FETH is the FLUSH Extended Transport Header (IBTA 1.5 memory placement).
type FETH struct{ Bits uint32 }

// PlacementType is the persistence/visibility type requested (bits 3-0).
func (h *FETH) PlacementType() uint8 { return uint8(h.Bits & 0x0f) }

// SelectivityLevel is 0 for the region named by the RETH, 1 for the whole MR (bits 5-4).
func (h *FETH) SelectivityLevel() uint8 { return uint8(h.Bits >> 4 & 3) }

func (h *FETH) Decode(b []byte) { h.Bits = binary.BigEndian.Uint32(b) }
func (h *FETH) Encode(b []byte) { binary.BigEndian.PutUint32(b, h.Bits) }

// RETH is the RDMA Extended Transport Header.
type RETH struct {
	VA        uint64
	RKey      uint32
	DMALength uint32
}

func (h *RETH) Decode(b []byte) {
	h.VA = binary.BigEndian.Uint64(b)
	h.RKey = binary.BigEndian.Uint32(b[8:])
	h.DMALength = binary.BigEndian.Uint32(b[12:])
}
func (h *RETH) Encode(b []byte) {
	binary.BigEndian.PutUint64(b, h.VA)
	binary.BigEndian.PutUint32(b[8:], h.RKey)
	binary.BigEndian.PutUint32(b[12:], h.DMALength)
}

// AtomicETH is the Atomic Extended Transport Header.
type AtomicETH struct {
	VA      uint64
	RKey    uint32
	SwapAdd uint64
	Compare uint64
}

func (h *AtomicETH) Decode(b []byte) {
	h.VA = binary.BigEndian.Uint64(b)
	h.RKey = binary.BigEndian.Uint32(b[8:])
	h.SwapAdd = binary.BigEndian.Uint64(b[12:])
	h.Compare = binary.BigEndian.Uint64(b[20:])
}
func (h *AtomicETH) Encode(b []byte) {
	binary.BigEndian.PutUint64(b, h.VA)
	binary.BigEndian.PutUint32(b[8:], h.RKey)
	binary.BigEndian.PutUint64(b[12:], h.SwapAdd)
	binary.BigEndian.PutUint64(b[20:], h.Compare)
}

// AETH is the ACK Extended Transport Header.
type AETH struct {
	Syndrome uint8
	MSN      uint32
}

func (h *AETH) Decode(b []byte) {
	h.Syndrome = b[0]
	h.MSN = get24(b[1:])
}
func (h *AETH) Encode(b []byte) { b[0] = h.Syndrome; put24(b[1:], h.MSN) }

// AtomicAckETH carries the original remote data of an atomic operation.
type AtomicAckETH struct{ OrigRemoteData uint64 }

func (h *AtomicAckETH) Decode(b []byte) { h.OrigRemoteData = binary.BigEndian.Uint64(b) }
func (h *AtomicAckETH) Encode(b []byte) { binary.BigEndian.PutUint64(b, h.OrigRemoteData) }

// ImmDt is the immediate data of a *_WITH_IMMEDIATE opcode.
type ImmDt struct{ Data uint32 }

func (h *ImmDt) Decode(b []byte) { h.Data = binary.BigEndian.Uint32(b) }
func (h *ImmDt) Encode(b []byte) { binary.BigEndian.PutUint32(b, h.Data) }

// IETH is the Invalidate Extended Transport Header of SEND_*_WITH_INVALIDATE.
type IETH struct{ RKey uint32 }

func (h *IETH) Decode(b []byte) { h.RKey = binary.BigEndian.Uint32(b) }
func (h *IETH) Encode(b []byte) { binary.BigEndian.PutUint32(b, h.RKey) }

// ExtLen returns the total length of the extended headers the flags name.
func ExtLen(flags uint16) int {
	n := 0
	for _, e := range extOrder {
		if flags&e.flag != 0 {
			n += e.len
		}
	}
	if flags&hasCNPResvd != 0 {
		n += CNPReservedLen
	}
	return n
}

// extOrder is the wire order of the extended headers after the BTH.
var extOrder = [...]struct {
	flag uint16
	len  int
	name string
}{
	{HasRDETH, RDETHLen, "RDETH"},
	{HasDETH, DETHLen, "DETH"},
	{HasXRCETH, XRCETHLen, "XRCETH"},
	{HasFETH, FETHLen, "FETH"},
	{HasRETH, RETHLen, "RETH"},
	{HasAtomicETH, AtomicETHLen, "AtomicETH"},
	{HasAETH, AETHLen, "AETH"},
	{HasAtomicAckETH, AtomicAckETHLen, "AtomicAckETH"},
	{HasImmDt, ImmDtLen, "ImmDt"},
	{HasIETH, IETHLen, "IETH"},
}

// HeaderNames lists the extended headers named by flags in wire order.
func HeaderNames(flags uint16) []string {
	var names []string
	for _, e := range extOrder {
		if flags&e.flag != 0 {
			names = append(names, e.name)
		}
	}
	return names
}

func bit(b bool, v byte) byte {
	if b {
		return v
	}
	return 0
}

func get24(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }

func put24(b []byte, v uint32) { b[0], b[1], b[2] = byte(v>>16), byte(v>>8), byte(v) }

// errShort is returned with context for fuzzers and humans.
func errShort(op Opcode, need, have int) error {
	return fmt.Errorf("%w: %s needs %d bytes, have %d", ErrTooShort, op, need, have)
}
