package roce

import (
	"strconv"
	"time"
)

// AckType is the kind of an AETH syndrome (bits 6-5).
type AckType uint8

// AETH syndrome kinds.
const (
	AckTypeACK      AckType = 0
	AckTypeRNRNAK   AckType = 1
	AckTypeReserved AckType = 2
	AckTypeNAK      AckType = 3
)

func (t AckType) String() string {
	return [...]string{"ACK", "RNR_NAK", "RESERVED", "NAK"}[t&3]
}

// NAKCode is the low five bits of a NAK syndrome.
type NAKCode uint8

// NAK codes (IBTA vol. 1, table "AETH syndrome").
const (
	NAKPSNSequenceError       NAKCode = 0
	NAKInvalidRequest         NAKCode = 1
	NAKRemoteAccessError      NAKCode = 2
	NAKRemoteOperationalError NAKCode = 3
	NAKInvalidRDRequest       NAKCode = 4
)

var nakNames = [...]string{"PSN_SEQUENCE_ERROR", "INVALID_REQUEST", "REMOTE_ACCESS_ERROR", "REMOTE_OPERATIONAL_ERROR", "INVALID_RD_REQUEST"}

func (c NAKCode) String() string {
	if int(c) < len(nakNames) {
		return nakNames[c]
	}
	return "RESERVED_NAK_" + strconv.Itoa(int(c))
}

// Type returns the syndrome kind.
func (h *AETH) Type() AckType { return AckType(h.Syndrome >> 5 & 3) }

// Value returns the low five bits: credit code (ACK), timer (RNR NAK) or NAK code.
func (h *AETH) Value() uint8 { return h.Syndrome & 0x1f }

// NAKCode returns the NAK code; meaningful only when Type is AckTypeNAK.
func (h *AETH) NAKCode() NAKCode { return NAKCode(h.Syndrome & 0x1f) }

// Credits returns the number of receive credits an ACK advertises, and false
// for the "invalid credit count" code 31 (end-to-end credits not in use).
func (h *AETH) Credits() (int, bool) {
	c := h.Syndrome & 0x1f
	if c == 31 {
		return 0, false
	}
	return creditTable[c], true
}

// RNRTimer returns the minimum time the requester must wait before retrying
// after an RNR NAK.
func (h *AETH) RNRTimer() time.Duration { return RNRTimerDuration(h.Syndrome & 0x1f) }

// RNRTimerDuration decodes the 5-bit RNR timer encoding.
func RNRTimerDuration(code uint8) time.Duration {
	return time.Duration(rnrTimerMicros[code&0x1f]) * 10 * time.Microsecond / 10
}

// Microseconds per RNR timer code; code 0 is the longest (655.36 ms).
var rnrTimerMicros = [32]int64{
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
}

var creditTable = [31]int{
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
}

// SyndromeString renders a syndrome the way a person reads it: "ACK credits=4",
// "RNR_NAK timer=40.96ms", "NAK PSN_SEQUENCE_ERROR".
func (h *AETH) SyndromeString() string {
	switch h.Type() {
	case AckTypeACK:
		if c, ok := h.Credits(); ok {
			return "ACK credits=" + strconv.Itoa(c)
		}
		return "ACK"
	case AckTypeRNRNAK:
		return "RNR_NAK timer=" + h.RNRTimer().String()
	case AckTypeNAK:
		return "NAK " + h.NAKCode().String()
	}
	return "RESERVED_SYNDROME_0x" + strconv.FormatUint(uint64(h.Syndrome), 16)
}
