package roce

import "strconv"

// Opcode is the BTH OpCode: the top three bits name the transport service,
// the low five bits the operation (IBTA vol. 1, table "OpCode field").
type Opcode uint8

// Transport is the service named by the top three opcode bits.
type Transport uint8

// Transport services.
const (
	TransportRC     Transport = 0 // reliable connection
	TransportUC     Transport = 1 // unreliable connection
	TransportRD     Transport = 2 // reliable datagram
	TransportUD     Transport = 3 // unreliable datagram
	TransportCNP    Transport = 4 // congestion notification (RoCEv2 annex A17)
	TransportXRC    Transport = 5 // extended reliable connection
	TransportVendor Transport = 6 // 6 and 7: manufacturer specific
)

var transportNames = [8]string{"RC", "UC", "RD", "UD", "CNP", "XRC", "VENDOR", "VENDOR"}

func (t Transport) String() string { return transportNames[t&7] }

// Operations: the low five bits of an opcode.
const (
	OpSendFirst                 = 0x00
	OpSendMiddle                = 0x01
	OpSendLast                  = 0x02
	OpSendLastImm               = 0x03
	OpSendOnly                  = 0x04
	OpSendOnlyImm               = 0x05
	OpWriteFirst                = 0x06
	OpWriteMiddle               = 0x07
	OpWriteLast                 = 0x08
	OpWriteLastImm              = 0x09
	OpWriteOnly                 = 0x0a
	OpWriteOnlyImm              = 0x0b
	OpReadRequest               = 0x0c
	OpReadResponseFirst         = 0x0d
	OpReadResponseMiddle        = 0x0e
	OpReadResponseLast          = 0x0f
	OpReadResponseOnly          = 0x10
	OpAcknowledge               = 0x11
	OpAtomicAcknowledge         = 0x12
	OpCompareSwap               = 0x13
	OpFetchAdd                  = 0x14
	OpResync                    = 0x15 // RD only
	OpSendLastInvalidate        = 0x16
	OpSendOnlyInvalidate        = 0x17
	OpFlush                     = 0x1c // IBTA 1.5 memory placement extensions
	OpAtomicWrite               = 0x1d // IBTA 1.5 memory placement extensions
	opCNP                       = 0x01 // with TransportCNP: 0x81
	OpcodeCNP            Opcode = 0x81
)

// Header flags: which extended transport headers follow the BTH, in wire order.
const (
	HasRDETH uint16 = 1 << iota
	HasDETH
	HasXRCETH
	HasFETH
	HasRETH
	HasAtomicETH
	HasAETH
	HasAtomicAckETH
	HasImmDt
	HasIETH
	HasPayload  // the opcode carries a data payload
	hasCNPResvd // CNP: 16 reserved bytes
)

// Opcode classes.
const (
	classRequest uint8 = 1 << iota
	classResponse
	classFirst
	classMiddle
	classLast // LAST or ONLY: the message ends here
	classValid
)

type opInfo struct {
	name    string
	headers uint16
	class   uint8
}

// ops describes the 32 operations; per-transport validity is in opValid.
var ops = [32]opInfo{
	OpSendFirst:          {"SEND_FIRST", HasPayload, classRequest | classFirst},
	OpSendMiddle:         {"SEND_MIDDLE", HasPayload, classRequest | classMiddle},
	OpSendLast:           {"SEND_LAST", HasPayload, classRequest | classLast},
	OpSendLastImm:        {"SEND_LAST_WITH_IMMEDIATE", HasImmDt | HasPayload, classRequest | classLast},
	OpSendOnly:           {"SEND_ONLY", HasPayload, classRequest | classFirst | classLast},
	OpSendOnlyImm:        {"SEND_ONLY_WITH_IMMEDIATE", HasImmDt | HasPayload, classRequest | classFirst | classLast},
	OpWriteFirst:         {"RDMA_WRITE_FIRST", HasRETH | HasPayload, classRequest | classFirst},
	OpWriteMiddle:        {"RDMA_WRITE_MIDDLE", HasPayload, classRequest | classMiddle},
	OpWriteLast:          {"RDMA_WRITE_LAST", HasPayload, classRequest | classLast},
	OpWriteLastImm:       {"RDMA_WRITE_LAST_WITH_IMMEDIATE", HasImmDt | HasPayload, classRequest | classLast},
	OpWriteOnly:          {"RDMA_WRITE_ONLY", HasRETH | HasPayload, classRequest | classFirst | classLast},
	OpWriteOnlyImm:       {"RDMA_WRITE_ONLY_WITH_IMMEDIATE", HasRETH | HasImmDt | HasPayload, classRequest | classFirst | classLast},
	OpReadRequest:        {"RDMA_READ_REQUEST", HasRETH, classRequest | classFirst | classLast},
	OpReadResponseFirst:  {"RDMA_READ_RESPONSE_FIRST", HasAETH | HasPayload, classResponse | classFirst},
	OpReadResponseMiddle: {"RDMA_READ_RESPONSE_MIDDLE", HasPayload, classResponse | classMiddle},
	OpReadResponseLast:   {"RDMA_READ_RESPONSE_LAST", HasAETH | HasPayload, classResponse | classLast},
	OpReadResponseOnly:   {"RDMA_READ_RESPONSE_ONLY", HasAETH | HasPayload, classResponse | classFirst | classLast},
	OpAcknowledge:        {"ACKNOWLEDGE", HasAETH, classResponse | classFirst | classLast},
	OpAtomicAcknowledge:  {"ATOMIC_ACKNOWLEDGE", HasAETH | HasAtomicAckETH, classResponse | classFirst | classLast},
	OpCompareSwap:        {"COMPARE_SWAP", HasAtomicETH, classRequest | classFirst | classLast},
	OpFetchAdd:           {"FETCH_ADD", HasAtomicETH, classRequest | classFirst | classLast},
	OpResync:             {"RESYNC", 0, classRequest | classFirst | classLast},
	OpSendLastInvalidate: {"SEND_LAST_WITH_INVALIDATE", HasIETH | HasPayload, classRequest | classLast},
	OpSendOnlyInvalidate: {"SEND_ONLY_WITH_INVALIDATE", HasIETH | HasPayload, classRequest | classFirst | classLast},
	OpFlush:              {"FLUSH", HasFETH | HasRETH, classRequest | classFirst | classLast},
	OpAtomicWrite:        {"ATOMIC_WRITE", HasRETH | HasPayload, classRequest | classFirst | classLast},
}

// opValid[t] has bit op set when operation op exists for transport t.
var opValid = [8]uint32{
	TransportRC:  rcOps,
	TransportUC:  1<<OpSendFirst | 1<<OpSendMiddle | 1<<OpSendLast | 1<<OpSendLastImm | 1<<OpSendOnly | 1<<OpSendOnlyImm | 1<<OpWriteFirst | 1<<OpWriteMiddle | 1<<OpWriteLast | 1<<OpWriteLastImm | 1<<OpWriteOnly | 1<<OpWriteOnlyImm,
	TransportRD:  rdOps,
	TransportUD:  1<<OpSendOnly | 1<<OpSendOnlyImm,
	TransportCNP: 1 << opCNP,
	TransportXRC: rcOps,
}

const rcOps = 1<<(OpFetchAdd+1) - 1 | 1<<OpSendLastInvalidate | 1<<OpSendOnlyInvalidate | 1<<OpFlush | 1<<OpAtomicWrite

// rdOps is 0x00..0x15 (with RESYNC) plus FLUSH (Linux ib_pack.h has
// IB_OPCODE_RD_FLUSH) and ATOMIC WRITE (Wireshark's RD_ATOMIC_WRITE, 0x5d).
const rdOps = 1<<(OpResync+1) - 1 | 1<<OpFlush | 1<<OpAtomicWrite

// opcodeTable is the flattened, precomputed view used on the hot path.
var opcodeTable [256]opInfo

func init() {
	for i := range 256 {
		op := Opcode(i)
		t, o := op.Transport(), uint8(op)&0x1f
		if opValid[t]&(1<<o) == 0 {
			opcodeTable[i] = opInfo{name: "RESERVED"}
			continue
		}
		info := ops[o]
		switch t {
		case TransportCNP:
			info = opInfo{name: "CNP", headers: hasCNPResvd}
		case TransportUD:
			info.headers |= HasDETH
		case TransportRD:
			info.headers |= HasRDETH
			if info.class&classRequest != 0 {
				info.headers |= HasDETH
			}
		case TransportXRC:
			if info.class&classRequest != 0 {
				info.headers |= HasXRCETH
			}
		}
		info.class |= classValid
		if t != TransportCNP {
			info.name = t.String() + "_" + info.name
		}
		opcodeTable[i] = info
	}
}

// Transport returns the service encoded in the top three bits.
func (o Opcode) Transport() Transport { return Transport(o >> 5) }

// Operation returns the low five bits.
func (o Opcode) Operation() uint8 { return uint8(o) & 0x1f }

// Valid reports whether the opcode is defined (not reserved).
func (o Opcode) Valid() bool { return opcodeTable[o].class&classValid != 0 }

// Headers returns the Has* flags of the extended headers this opcode carries.
func (o Opcode) Headers() uint16 { return opcodeTable[o].headers }

// IsRequest reports whether the opcode is sent by a requester.
func (o Opcode) IsRequest() bool { return opcodeTable[o].class&classRequest != 0 }

// IsResponse reports whether the opcode is sent by a responder (ACKs, READ responses).
func (o Opcode) IsResponse() bool { return opcodeTable[o].class&classResponse != 0 }

// IsFirst reports whether the packet starts a message (FIRST or ONLY).
func (o Opcode) IsFirst() bool { return opcodeTable[o].class&classFirst != 0 }

// IsLast reports whether the packet ends a message (LAST or ONLY).
func (o Opcode) IsLast() bool { return opcodeTable[o].class&classLast != 0 }

// IsReadResponse reports whether the opcode is one of the four RDMA READ responses.
func (o Opcode) IsReadResponse() bool {
	op := o.Operation()
	return o.Valid() && op >= OpReadResponseFirst && op <= OpReadResponseOnly
}

// IsCNP reports whether the opcode is the RoCEv2 congestion notification packet.
func (o Opcode) IsCNP() bool { return o == OpcodeCNP }

// String returns the kernel-style name (RC_SEND_FIRST, UD_SEND_ONLY, CNP) or
// RESERVED_0xNN for opcodes the specifications do not define.
func (o Opcode) String() string {
	if !o.Valid() {
		return "RESERVED_0x" + strconv.FormatUint(uint64(o)|0x100, 16)[1:]
	}
	if o == OpcodeCNP {
		return "CNP"
	}
	return opcodeTable[o].name
}

// Name is String without the per-value suffix on reserved opcodes: "RESERVED".
func (o Opcode) Name() string {
	if o == OpcodeCNP {
		return "CNP"
	}
	return opcodeTable[o].name
}
