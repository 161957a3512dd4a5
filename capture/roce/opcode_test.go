package roce

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The reference for opcode values and names is the Linux kernel's
// include/rdma/ib_pack.h (torvalds/linux, the enum built with the
// IB_OPCODE(transport, op) macro: IB_OPCODE_RC = 0x00, IB_OPCODE_UC = 0x20,
// IB_OPCODE_RD = 0x40, IB_OPCODE_UD = 0x60, IB_OPCODE_CNP = 0x80, and the
// operations IB_OPCODE_SEND_FIRST = 0x00 ... IB_OPCODE_ATOMIC_WRITE = 0x1D).
// The tables below are transcribed from that file, not derived from the
// package under test.
var kernelOps = map[string]uint8{
	"SEND_FIRST":                     0x00,
	"SEND_MIDDLE":                    0x01,
	"SEND_LAST":                      0x02,
	"SEND_LAST_WITH_IMMEDIATE":       0x03,
	"SEND_ONLY":                      0x04,
	"SEND_ONLY_WITH_IMMEDIATE":       0x05,
	"RDMA_WRITE_FIRST":               0x06,
	"RDMA_WRITE_MIDDLE":              0x07,
	"RDMA_WRITE_LAST":                0x08,
	"RDMA_WRITE_LAST_WITH_IMMEDIATE": 0x09,
	"RDMA_WRITE_ONLY":                0x0a,
	"RDMA_WRITE_ONLY_WITH_IMMEDIATE": 0x0b,
	"RDMA_READ_REQUEST":              0x0c,
	"RDMA_READ_RESPONSE_FIRST":       0x0d,
	"RDMA_READ_RESPONSE_MIDDLE":      0x0e,
	"RDMA_READ_RESPONSE_LAST":        0x0f,
	"RDMA_READ_RESPONSE_ONLY":        0x10,
	"ACKNOWLEDGE":                    0x11,
	"ATOMIC_ACKNOWLEDGE":             0x12,
	"COMPARE_SWAP":                   0x13,
	"FETCH_ADD":                      0x14,
	// "opcode 0x15 is reserved" (ib_pack.h); IBTA defines it as RD RESYNC.
	"SEND_LAST_WITH_INVALIDATE": 0x16,
	"SEND_ONLY_WITH_INVALIDATE": 0x17,
	"FLUSH":                     0x1c,
	"ATOMIC_WRITE":              0x1d,
}

var kernelTransports = map[string]uint8{"RC": 0x00, "UC": 0x20, "RD": 0x40, "UD": 0x60}

// kernelOpcodeNames lists IB_OPCODE(transport, op) exactly as ib_pack.h does.
var kernelOpcodeNames = []string{
	// RC
	"RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST", "RC_SEND_LAST_WITH_IMMEDIATE",
	"RC_SEND_ONLY", "RC_SEND_ONLY_WITH_IMMEDIATE", "RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_MIDDLE",
	"RC_RDMA_WRITE_LAST", "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "RC_RDMA_WRITE_ONLY",
	"RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RC_RDMA_READ_REQUEST", "RC_RDMA_READ_RESPONSE_FIRST",
	"RC_RDMA_READ_RESPONSE_MIDDLE", "RC_RDMA_READ_RESPONSE_LAST", "RC_RDMA_READ_RESPONSE_ONLY",
	"RC_ACKNOWLEDGE", "RC_ATOMIC_ACKNOWLEDGE", "RC_COMPARE_SWAP", "RC_FETCH_ADD",
	"RC_SEND_LAST_WITH_INVALIDATE", "RC_SEND_ONLY_WITH_INVALIDATE", "RC_FLUSH", "RC_ATOMIC_WRITE",
	// UC
	"UC_SEND_FIRST", "UC_SEND_MIDDLE", "UC_SEND_LAST", "UC_SEND_LAST_WITH_IMMEDIATE",
	"UC_SEND_ONLY", "UC_SEND_ONLY_WITH_IMMEDIATE", "UC_RDMA_WRITE_FIRST", "UC_RDMA_WRITE_MIDDLE",
	"UC_RDMA_WRITE_LAST", "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "UC_RDMA_WRITE_ONLY",
	"UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
	// RD
	"RD_SEND_FIRST", "RD_SEND_MIDDLE", "RD_SEND_LAST", "RD_SEND_LAST_WITH_IMMEDIATE",
	"RD_SEND_ONLY", "RD_SEND_ONLY_WITH_IMMEDIATE", "RD_RDMA_WRITE_FIRST", "RD_RDMA_WRITE_MIDDLE",
	"RD_RDMA_WRITE_LAST", "RD_RDMA_WRITE_LAST_WITH_IMMEDIATE", "RD_RDMA_WRITE_ONLY",
	"RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RD_RDMA_READ_REQUEST", "RD_RDMA_READ_RESPONSE_FIRST",
	"RD_RDMA_READ_RESPONSE_MIDDLE", "RD_RDMA_READ_RESPONSE_LAST", "RD_RDMA_READ_RESPONSE_ONLY",
	"RD_ACKNOWLEDGE", "RD_ATOMIC_ACKNOWLEDGE", "RD_COMPARE_SWAP", "RD_FETCH_ADD", "RD_FLUSH",
	// UD
	"UD_SEND_ONLY", "UD_SEND_ONLY_WITH_IMMEDIATE",
}

// extraOpcodes are defined by the specifications but absent from mainline
// ib_pack.h:
//   - RD RESYNC (0x55): IBTA vol. 1 table 38; Wireshark packet-infiniband.h RD_RESYNC = 85.
//   - RD ATOMIC WRITE (0x5d): Wireshark packet-infiniband.h RD_ATOMIC_WRITE = 93
//     (IBTA 1.5 memory placement extensions); mainline ib_pack.h has RD_FLUSH only.
//   - XRC (0xa0 + op): IBTA vol. 1 table 38, transport 101b. The names are those
//     of the XRC patch proposed for ib_pack.h on linux-rdma ("ib_pack.h defines
//     enums for all the RDMA opcodes except for the XRC opcodes", Bob Pearson):
//     XRC_SEND_FIRST ... XRC_FETCH_ADD, XRC_SEND_{LAST,ONLY}_WITH_INVALIDATE.
//   - XRC FLUSH / ATOMIC WRITE (0xbc, 0xbd): accepted by this package as the
//     memory placement extensions of XRC; not confirmed by the kernel or
//     Wireshark sources, which list no XRC opcodes at all.
//   - CNP (0x81): RoCEv2 annex A17 (IB_OPCODE_CNP = 0x80 is the transport).
var extraOpcodes = map[Opcode]string{
	0x55: "RD_RESYNC",
	0x5d: "RD_ATOMIC_WRITE",
	0x81: "CNP",
}

var xrcOpNames = []string{
	"SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMMEDIATE", "SEND_ONLY",
	"SEND_ONLY_WITH_IMMEDIATE", "RDMA_WRITE_FIRST", "RDMA_WRITE_MIDDLE", "RDMA_WRITE_LAST",
	"RDMA_WRITE_LAST_WITH_IMMEDIATE", "RDMA_WRITE_ONLY", "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
	"RDMA_READ_REQUEST", "RDMA_READ_RESPONSE_FIRST", "RDMA_READ_RESPONSE_MIDDLE",
	"RDMA_READ_RESPONSE_LAST", "RDMA_READ_RESPONSE_ONLY", "ACKNOWLEDGE", "ATOMIC_ACKNOWLEDGE",
	"COMPARE_SWAP", "FETCH_ADD", "SEND_LAST_WITH_INVALIDATE", "SEND_ONLY_WITH_INVALIDATE",
	"FLUSH", "ATOMIC_WRITE",
}

// expectedOpcodes is every defined opcode with its name.
func expectedOpcodes(t *testing.T) map[Opcode]string {
	t.Helper()
	want := map[Opcode]string{}
	for _, name := range kernelOpcodeNames {
		tr, op, _ := strings.Cut(name, "_")
		tv, ok := kernelTransports[tr]
		ov, ok2 := kernelOps[op]
		if !ok || !ok2 {
			t.Fatalf("bad table entry %q", name)
		}
		want[Opcode(tv|ov)] = name
	}
	for o, name := range extraOpcodes {
		want[o] = name
	}
	for _, op := range xrcOpNames {
		want[Opcode(0xa0|kernelOps[op])] = "XRC_" + op
	}
	return want
}

func TestOpcodeNamesMatchKernel(t *testing.T) {
	want := expectedOpcodes(t)
	if n := len(kernelOpcodeNames); n != 25+12+22+2 {
		t.Fatalf("kernel table has %d entries", n)
	}
	for i := range 256 {
		o := Opcode(i)
		name, defined := want[o]
		if !defined {
			if o.Valid() {
				t.Errorf("0x%02x: Valid() for a reserved opcode (String %q)", i, o.String())
			}
			if got, w := o.String(), fmt.Sprintf("RESERVED_0x%02x", i); got != w {
				t.Errorf("0x%02x: String() = %q, want %q", i, got, w)
			}
			if o.Name() != "RESERVED" {
				t.Errorf("0x%02x: Name() = %q, want RESERVED", i, o.Name())
			}
			if o.Headers() != 0 || o.IsRequest() || o.IsResponse() || o.IsFirst() || o.IsLast() || o.IsReadResponse() || o.IsCNP() {
				t.Errorf("0x%02x: reserved opcode has properties: headers %#x", i, o.Headers())
			}
			continue
		}
		if !o.Valid() {
			t.Errorf("0x%02x (%s): not Valid()", i, name)
		}
		if got := o.String(); got != name {
			t.Errorf("0x%02x: String() = %q, want %q", i, got, name)
		}
		if got := o.Name(); got != name {
			t.Errorf("0x%02x: Name() = %q, want %q", i, got, name)
		}
	}
}

func TestOpcodeCNP(t *testing.T) {
	if OpcodeCNP != 0x81 {
		t.Fatalf("OpcodeCNP = %#x, want 0x81", uint8(OpcodeCNP))
	}
	o := OpcodeCNP
	if !o.IsCNP() || !o.Valid() || o.Transport() != TransportCNP || o.Operation() != 1 {
		t.Errorf("CNP: IsCNP %v Valid %v Transport %v Operation %d", o.IsCNP(), o.Valid(), o.Transport(), o.Operation())
	}
	if o.IsRequest() || o.IsResponse() || o.IsFirst() || o.IsLast() {
		t.Errorf("CNP classified as request/response/first/last")
	}
	if o.Headers()&^hasCNPResvd != 0 || ExtLen(o.Headers()) != CNPReservedLen {
		t.Errorf("CNP headers %#x, ExtLen %d, want only the 16 reserved bytes", o.Headers(), ExtLen(o.Headers()))
	}
	if Opcode(0x80).Valid() || Opcode(0x82).Valid() {
		t.Errorf("0x80/0x82 must be reserved")
	}
	for i := range 256 {
		if Opcode(i).IsCNP() != (i == 0x81) {
			t.Errorf("0x%02x: IsCNP = %v", i, Opcode(i).IsCNP())
		}
	}
}

func TestTransportString(t *testing.T) {
	want := []string{"RC", "UC", "RD", "UD", "CNP", "XRC", "VENDOR", "VENDOR"}
	for i, w := range want {
		if got := Transport(i).String(); got != w {
			t.Errorf("Transport(%d) = %q, want %q", i, got, w)
		}
		if got := Opcode(i << 5).Transport(); got != Transport(i) {
			t.Errorf("Opcode(%#x).Transport() = %v", i<<5, got)
		}
	}
	// Manufacturer-specific opcodes (0xc0-0xff) are all reserved to this decoder.
	for i := 0xc0; i < 0x100; i++ {
		if Opcode(i).Valid() {
			t.Errorf("vendor opcode 0x%02x is Valid", i)
		}
	}
}

// expectedHeaders derives the extended headers of a defined opcode from its
// name and transport, following IBTA vol. 1 ch. 9 (table 38 and section
// 9.3) as the kernel's rxe_opcode.c encodes them, independently of the
// package's own tables.
func expectedHeaders(o Opcode, name string) uint16 {
	if name == "CNP" {
		return hasCNPResvd
	}
	tr, op, _ := strings.Cut(name, "_")
	response := strings.HasPrefix(op, "RDMA_READ_RESPONSE") || op == "ACKNOWLEDGE" || op == "ATOMIC_ACKNOWLEDGE"
	var h uint16
	switch tr {
	case "RD":
		h |= HasRDETH
		if !response {
			h |= HasDETH
		}
	case "UD":
		h |= HasDETH
	case "XRC":
		if !response {
			h |= HasXRCETH
		}
	}
	switch op {
	case "FLUSH":
		h |= HasFETH | HasRETH
	case "RDMA_WRITE_FIRST", "RDMA_WRITE_ONLY", "RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RDMA_READ_REQUEST", "ATOMIC_WRITE":
		h |= HasRETH
	case "COMPARE_SWAP", "FETCH_ADD":
		h |= HasAtomicETH
	case "RDMA_READ_RESPONSE_FIRST", "RDMA_READ_RESPONSE_LAST", "RDMA_READ_RESPONSE_ONLY", "ACKNOWLEDGE":
		h |= HasAETH
	case "ATOMIC_ACKNOWLEDGE":
		h |= HasAETH | HasAtomicAckETH
	}
	if strings.HasSuffix(op, "WITH_IMMEDIATE") {
		h |= HasImmDt
	}
	if strings.HasSuffix(op, "WITH_INVALIDATE") {
		h |= HasIETH
	}
	if strings.HasPrefix(op, "SEND") || strings.HasPrefix(op, "RDMA_WRITE") || strings.HasPrefix(op, "RDMA_READ_RESPONSE") || op == "ATOMIC_WRITE" {
		h |= HasPayload
	}
	return h
}

func TestOpcodeHeadersAllDefined(t *testing.T) {
	for o, name := range expectedOpcodes(t) {
		if got, want := o.Headers(), expectedHeaders(o, name); got != want {
			t.Errorf("%s (0x%02x): Headers() = %v, want %v", name, uint8(o), HeaderNames(got), HeaderNames(want))
		}
	}
}

func TestOpcodeHeadersRepresentative(t *testing.T) {
	tests := []struct {
		op   Opcode
		want uint16
	}{
		{0x64, HasDETH | HasPayload},                                 // UD SEND_ONLY
		{0x65, HasDETH | HasImmDt | HasPayload},                      // UD SEND_ONLY_WITH_IMMEDIATE
		{0x4b, HasRDETH | HasDETH | HasRETH | HasImmDt | HasPayload}, // RD RDMA_WRITE_ONLY_WITH_IMMEDIATE
		{0x4e, HasRDETH | HasPayload},                                // RD RDMA_READ_RESPONSE_MIDDLE
		{0x51, HasRDETH | HasAETH},                                   // RD ACKNOWLEDGE
		{0x52, HasRDETH | HasAETH | HasAtomicAckETH},                 // RD ATOMIC_ACKNOWLEDGE
		{0x53, HasRDETH | HasDETH | HasAtomicETH},                    // RD COMPARE_SWAP
		{0x55, HasRDETH | HasDETH},                                   // RD RESYNC
		{0x5c, HasRDETH | HasDETH | HasFETH | HasRETH},               // RD FLUSH
		{0xa4, HasXRCETH | HasPayload},                               // XRC SEND_ONLY
		{0xab, HasXRCETH | HasRETH | HasImmDt | HasPayload},          // XRC RDMA_WRITE_ONLY_WITH_IMMEDIATE
		{0xad, HasAETH | HasPayload},                                 // XRC RDMA_READ_RESPONSE_FIRST
		{0xb1, HasAETH},                                              // XRC ACKNOWLEDGE
		{0xb3, HasXRCETH | HasAtomicETH},                             // XRC COMPARE_SWAP
		{0xb7, HasXRCETH | HasIETH | HasPayload},                     // XRC SEND_ONLY_WITH_INVALIDATE
		{0x00, HasPayload},                                           // RC SEND_FIRST
		{0x03, HasImmDt | HasPayload},                                // RC SEND_LAST_WITH_IMMEDIATE
		{0x06, HasRETH | HasPayload},                                 // RC RDMA_WRITE_FIRST
		{0x07, HasPayload},                                           // RC RDMA_WRITE_MIDDLE
		{0x0b, HasRETH | HasImmDt | HasPayload},                      // RC RDMA_WRITE_ONLY_WITH_IMMEDIATE
		{0x0c, HasRETH},                                              // RC RDMA_READ_REQUEST
		{0x0d, HasAETH | HasPayload},                                 // RC RDMA_READ_RESPONSE_FIRST
		{0x0e, HasPayload},                                           // RC RDMA_READ_RESPONSE_MIDDLE
		{0x11, HasAETH},                                              // RC ACKNOWLEDGE
		{0x12, HasAETH | HasAtomicAckETH},                            // RC ATOMIC_ACKNOWLEDGE
		{0x13, HasAtomicETH},                                         // RC COMPARE_SWAP
		{0x14, HasAtomicETH},                                         // RC FETCH_ADD
		{0x16, HasIETH | HasPayload},                                 // RC SEND_LAST_WITH_INVALIDATE
		{0x17, HasIETH | HasPayload},                                 // RC SEND_ONLY_WITH_INVALIDATE
		{0x1c, HasFETH | HasRETH},                                    // RC FLUSH
		{0x1d, HasRETH | HasPayload},                                 // RC ATOMIC_WRITE
		{0x2b, HasRETH | HasImmDt | HasPayload},                      // UC RDMA_WRITE_ONLY_WITH_IMMEDIATE
		{0x81, hasCNPResvd},                                          // CNP
		{0x15, 0},                                                    // RC 0x15: reserved (RESYNC is RD only)
		{0x2c, 0},                                                    // UC RDMA_READ_REQUEST does not exist
		{0x31, 0},                                                    // UC ACKNOWLEDGE does not exist
		{0x36, 0},                                                    // UC SEND_LAST_WITH_INVALIDATE is not in ib_pack.h
		{0x57, 0},                                                    // RD SEND_ONLY_WITH_INVALIDATE does not exist
		{0x60, 0},                                                    // UD SEND_FIRST does not exist
		{0x80, 0},                                                    // CNP transport, operation 0
		{0xb5, 0},                                                    // XRC 0x15
		{0xff, 0},                                                    // manufacturer specific
	}
	for _, tt := range tests {
		if got := tt.op.Headers(); got != tt.want {
			t.Errorf("%s (0x%02x): Headers() = %v, want %v", tt.op, uint8(tt.op), HeaderNames(got), HeaderNames(tt.want))
		}
	}
}

func TestOpcodeClasses(t *testing.T) {
	for o, name := range expectedOpcodes(t) {
		if name == "CNP" {
			continue
		}
		_, op, _ := strings.Cut(name, "_")
		response := strings.HasPrefix(op, "RDMA_READ_RESPONSE") || op == "ACKNOWLEDGE" || op == "ATOMIC_ACKNOWLEDGE"
		if o.IsResponse() != response || o.IsRequest() == response {
			t.Errorf("%s: IsRequest %v IsResponse %v", name, o.IsRequest(), o.IsResponse())
		}
		first, last := true, true // single-packet operations are both
		switch {
		case strings.Contains(op, "FIRST"):
			last = false
		case strings.Contains(op, "MIDDLE"):
			first, last = false, false
		case strings.Contains(op, "LAST"):
			first = false
		}
		if o.IsFirst() != first || o.IsLast() != last {
			t.Errorf("%s: IsFirst %v IsLast %v, want %v %v", name, o.IsFirst(), o.IsLast(), first, last)
		}
		if got := o.IsReadResponse(); got != strings.HasPrefix(op, "RDMA_READ_RESPONSE") {
			t.Errorf("%s: IsReadResponse = %v", name, got)
		}
		if o.Operation() != uint8(o)&0x1f || o.Transport() != Transport(uint8(o)>>5) {
			t.Errorf("%s: Operation/Transport split wrong", name)
		}
	}
}

// rxeOffsets is, for a few opcodes, the byte offset of each header inside
// the transport part, and the header length, as drivers/infiniband/sw/rxe/
// rxe_opcode.c gives them (.offset[] and .length, with RXE_BTH_BYTES 12,
// RXE_RDETH_BYTES 4, RXE_DETH_BYTES 8, RXE_RETH_BYTES 16, RXE_ATMETH_BYTES 28,
// RXE_AETH_BYTES 4, RXE_ATMACK_BYTES 8, RXE_IMMDT_BYTES 4, RXE_IETH_BYTES 4,
// RXE_FETH_BYTES 4, and XRCETH 4 = IB_EXT_XRC_BYTES of ib_pack.h).
var rxeOffsets = []struct {
	op     Opcode
	offset map[uint16]int
	length int
}{
	{0x0b, map[uint16]int{HasRETH: 12, HasImmDt: 28}, 32},                            // RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE
	{0x12, map[uint16]int{HasAETH: 12, HasAtomicAckETH: 16}, 24},                     // RC_ATOMIC_ACKNOWLEDGE
	{0x13, map[uint16]int{HasAtomicETH: 12}, 40},                                     // RC_COMPARE_SWAP
	{0x16, map[uint16]int{HasIETH: 12}, 16},                                          // RC_SEND_LAST_WITH_INVALIDATE
	{0x1c, map[uint16]int{HasFETH: 12, HasRETH: 16}, 32},                             // RC_FLUSH
	{0x1d, map[uint16]int{HasRETH: 12}, 28},                                          // RC_ATOMIC_WRITE
	{0x0d, map[uint16]int{HasAETH: 12}, 16},                                          // RC_RDMA_READ_RESPONSE_FIRST
	{0x43, map[uint16]int{HasRDETH: 12, HasDETH: 16, HasImmDt: 24}, 28},              // RD_SEND_LAST_WITH_IMMEDIATE
	{0x4b, map[uint16]int{HasRDETH: 12, HasDETH: 16, HasRETH: 24, HasImmDt: 40}, 44}, // RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE
	{0x4d, map[uint16]int{HasRDETH: 12, HasAETH: 16}, 20},                            // RD_RDMA_READ_RESPONSE_FIRST
	{0x52, map[uint16]int{HasRDETH: 12, HasAETH: 16, HasAtomicAckETH: 20}, 28},       // RD_ATOMIC_ACKNOWLEDGE
	{0x53, map[uint16]int{HasRDETH: 12, HasDETH: 16, HasAtomicETH: 24}, 52},          // RD_COMPARE_SWAP
	{0x65, map[uint16]int{HasDETH: 12, HasImmDt: 20}, 24},                            // UD_SEND_ONLY_WITH_IMMEDIATE
	{0xb3, map[uint16]int{HasXRCETH: 12, HasAtomicETH: 16}, 44},                      // XRC_COMPARE_SWAP (rxe XRC patch)
	{0xb7, map[uint16]int{HasXRCETH: 12, HasIETH: 16}, 20},                           // XRC_SEND_ONLY_WITH_INVALIDATE (rxe XRC patch)
	{0xab, map[uint16]int{HasXRCETH: 12, HasRETH: 16, HasImmDt: 32}, 36},             // XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE
	{0x81, map[uint16]int{}, 28},                                                     // CNP: BTH + 16 reserved bytes
	{0x5c, map[uint16]int{HasRDETH: 12, HasDETH: 16, HasFETH: 24, HasRETH: 28}, 44},  // RD_FLUSH
	{0x64, map[uint16]int{HasDETH: 12}, 20},                                          // UD_SEND_ONLY
	{0x0c, map[uint16]int{HasRETH: 12}, 28},                                          // RC_RDMA_READ_REQUEST
	{0x11, map[uint16]int{HasAETH: 12}, 16},                                          // RC_ACKNOWLEDGE
	{0x51, map[uint16]int{HasRDETH: 12, HasAETH: 16}, 20},                            // RD_ACKNOWLEDGE
	{0x00, map[uint16]int{}, 12},                                                     // RC_SEND_FIRST
	{0xb2, map[uint16]int{HasAETH: 12, HasAtomicAckETH: 16}, 24},                     // XRC_ATOMIC_ACKNOWLEDGE
	{0xac, map[uint16]int{HasXRCETH: 12, HasRETH: 16}, 32},                           // XRC_RDMA_READ_REQUEST
	{0x55, map[uint16]int{HasRDETH: 12, HasDETH: 16}, 24},                            // RD_RESYNC
	{0x5d, map[uint16]int{HasRDETH: 12, HasDETH: 16, HasRETH: 24}, 40},               // RD_ATOMIC_WRITE
	{0xbc, map[uint16]int{HasXRCETH: 12, HasFETH: 16, HasRETH: 20}, 36},              // XRC_FLUSH
	{0x0e, map[uint16]int{}, 12},                                                     // RC_RDMA_READ_RESPONSE_MIDDLE
	{0x4e, map[uint16]int{HasRDETH: 12}, 16},                                         // RD_RDMA_READ_RESPONSE_MIDDLE
	{0x15, map[uint16]int{}, BTHLen},                                                 // reserved, BTH only
	{0xff, map[uint16]int{}, BTHLen},                                                 // vendor, BTH only
}

// markers are distinctive first bytes for each extended header.
var markers = map[uint16][]byte{
	HasRDETH:        {0x00, 0xa1, 0xa2, 0xa3},
	HasDETH:         {0xd1, 0xd2, 0xd3, 0xd4},
	HasXRCETH:       {0x00, 0xc1, 0xc2, 0xc3},
	HasFETH:         {0xf1, 0xf2, 0xf3, 0xf4},
	HasRETH:         {0xe1, 0xe2, 0xe3, 0xe4},
	HasAtomicETH:    {0xb1, 0xb2, 0xb3, 0xb4},
	HasAETH:         {0x1f, 0x91, 0x92, 0x93},
	HasAtomicAckETH: {0x81, 0x82, 0x83, 0x84},
	HasImmDt:        {0x71, 0x72, 0x73, 0x74},
	HasIETH:         {0x61, 0x62, 0x63, 0x64},
}

func markedPacket(op Opcode) *Packet {
	p := &Packet{BTH: BTH{Opcode: op, PKey: 0xffff}}
	p.RDETH.EEContext = 0xa1a2a3
	p.DETH = DETH{QKey: 0xd1d2d3d4, SrcQP: 0x123456}
	p.XRCETH.XRCSRQ = 0xc1c2c3
	p.FETH.Bits = 0xf1f2f3f4
	p.RETH = RETH{VA: 0xe1e2e3e4e5e6e7e8, RKey: 1, DMALength: 2}
	p.AtomicETH = AtomicETH{VA: 0xb1b2b3b4b5b6b7b8, RKey: 3, SwapAdd: 4, Compare: 5}
	p.AETH = AETH{Syndrome: 0x1f, MSN: 0x919293}
	p.AtomicAckETH.OrigRemoteData = 0x8182838485868788
	p.ImmDt.Data = 0x71727374
	p.IETH.RKey = 0x61626364
	return p
}

func TestWireOffsetsMatchRXE(t *testing.T) {
	for _, tt := range rxeOffsets {
		op := tt.op
		if got := BTHLen + ExtLen(op.Headers()); got != tt.length {
			t.Errorf("%s: header length %d, rxe says %d", op, got, tt.length)
		}
		p := markedPacket(op)
		p.Payload = []byte{0x5a, 0x5a, 0x5a, 0x5a}
		b := make([]byte, p.Len())
		p.Encode(b)
		if b[0] != byte(op) {
			t.Errorf("%s: byte 0 = %#x", op, b[0])
		}
		var found uint16
		for flag, off := range tt.offset {
			found |= flag
			if got, want := b[off:off+4], markers[flag]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %v at offset %d: % x, want % x", op, HeaderNames(flag), off, got, want)
			}
		}
		if hdr := op.Headers() &^ (HasPayload | hasCNPResvd); hdr != found {
			t.Errorf("%s: headers %v, rxe lists %v", op, HeaderNames(hdr), HeaderNames(found))
		}
		// The payload follows the headers directly.
		if op.Headers()&HasPayload != 0 && !reflect.DeepEqual(b[tt.length:tt.length+4], p.Payload) {
			t.Errorf("%s: payload not at offset %d: % x", op, tt.length, b)
		}
	}
}

func TestHeaderLengths(t *testing.T) {
	// IBTA vol. 1 ch. 9 sizes, as in rxe_hdr.h and ib_pack.h.
	want := map[uint16]int{HasRDETH: 4, HasDETH: 8, HasXRCETH: 4, HasFETH: 4, HasRETH: 16,
		HasAtomicETH: 28, HasAETH: 4, HasAtomicAckETH: 8, HasImmDt: 4, HasIETH: 4, HasPayload: 0, hasCNPResvd: 16}
	all := uint16(0)
	for flag, n := range want {
		if got := ExtLen(flag); got != n {
			t.Errorf("ExtLen(%v) = %d, want %d", HeaderNames(flag), got, n)
		}
		all |= flag
	}
	if got := ExtLen(all); got != 4+8+4+4+16+28+4+8+4+4+16 {
		t.Errorf("ExtLen(all) = %d", got)
	}
	if BTHLen != 12 || ICRCLen != 4 || GRHLen != 40 {
		t.Errorf("BTH %d ICRC %d GRH %d", BTHLen, ICRCLen, GRHLen)
	}
	names := HeaderNames(all)
	wantNames := []string{"RDETH", "DETH", "XRCETH", "FETH", "RETH", "AtomicETH", "AETH", "AtomicAckETH", "ImmDt", "IETH"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("HeaderNames(all) = %v, want %v", names, wantNames)
	}
	if HeaderNames(HasPayload) != nil {
		t.Errorf("HeaderNames(HasPayload) = %v, want nil", HeaderNames(HasPayload))
	}
}

func TestBTHBitLayout(t *testing.T) {
	// IBTA vol. 1 figure "BTH": OpCode | SE M PadCnt(2) TVer(4) | P_Key(16) |
	// resv8a (FECN BECN resv6) | DestQP(24) | A resv7 | PSN(24).
	b := []byte{0x64, 0xb5, 0x12, 0x34, 0xc7, 0xab, 0xcd, 0xef, 0x81, 0x00, 0x00, 0x07}
	var h BTH
	h.Decode(b)
	want := BTH{Opcode: 0x64, SolicitedEvent: true, MigReq: false, PadCount: 3, TVer: 5, PKey: 0x1234,
		FECN: true, BECN: true, Resv6: 7, DestQP: 0xabcdef, AckReq: true, Resv7: 1, PSN: 7}
	if h != want {
		t.Fatalf("Decode = %+v\nwant     %+v", h, want)
	}
	out := make([]byte, BTHLen)
	h.Encode(out)
	if !reflect.DeepEqual(out, b) {
		t.Fatalf("Encode = % x, want % x", out, b)
	}
	// Out-of-range values are masked to their field width on Encode.
	h = BTH{PadCount: 0xff, TVer: 0xff, Resv6: 0xff, Resv7: 0xff, DestQP: 0xffffffff, PSN: 0xffffffff}
	h.Encode(out)
	if want := []byte{0, 0x3f, 0, 0, 0x3f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff}; !reflect.DeepEqual(out, want) {
		t.Fatalf("masked Encode = % x, want % x", out, want)
	}
	if binary.BigEndian.Uint16(out[2:]) != 0 {
		t.Fatal("PKey leaked")
	}
}

func TestFETHFields(t *testing.T) {
	f := FETH{Bits: 0x00000031}
	if f.PlacementType() != 1 || f.SelectivityLevel() != 3 {
		t.Errorf("FETH %#x: placement %d selectivity %d", f.Bits, f.PlacementType(), f.SelectivityLevel())
	}
}
