package roce

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// kernelRNRTimers are the names of Linux's enum ib_rnr_timeout
// (include/rdma/ib_verbs.h): IB_RNR_TIMER_655_36 = 0, IB_RNR_TIMER_000_01 = 1,
// ... IB_RNR_TIMER_491_52 = 31, each naming the timer in milliseconds
// (IBTA vol. 1 table "RNR NAK Timer Field Encodings").
var kernelRNRTimers = [32]string{
	"655_36", "000_01", "000_02", "000_03", "000_04", "000_06", "000_08", "000_12",
	"000_16", "000_24", "000_32", "000_48", "000_64", "000_96", "001_28", "001_92",
	"002_56", "003_84", "005_12", "007_68", "010_24", "015_36", "020_48", "030_72",
	"040_96", "061_44", "081_92", "122_88", "163_84", "245_76", "327_68", "491_52",
}

// kernelCreditTable is credit_table[31] of drivers/infiniband/sw/rdmavt/rc.c
// ("Convert the AETH credit code into the number of credits"); code 31 means
// the credit count is invalid.
var kernelCreditTable = [31]int{
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
}

func TestRNRTimerTable(t *testing.T) {
	for code, name := range kernelRNRTimers {
		ms, frac, _ := strings.Cut(name, "_")
		m, _ := strconv.Atoi(ms)
		f, _ := strconv.Atoi(frac)
		want := time.Duration(m)*time.Millisecond + time.Duration(f)*10*time.Microsecond
		if got := RNRTimerDuration(uint8(code)); got != want {
			t.Errorf("code %d (IB_RNR_TIMER_%s): %v, want %v", code, name, got, want)
		}
		// Only the low five bits are the timer.
		if got := RNRTimerDuration(uint8(code) | 0xe0); got != want {
			t.Errorf("code %d with high bits: %v, want %v", code, got, want)
		}
		a := AETH{Syndrome: 0x20 | uint8(code)}
		if a.Type() != AckTypeRNRNAK || a.RNRTimer() != want {
			t.Errorf("syndrome %#x: type %v timer %v", a.Syndrome, a.Type(), a.RNRTimer())
		}
	}
	for _, tt := range []struct {
		code uint8
		want time.Duration
	}{
		{24, 40960 * time.Microsecond},
		{0, 655360 * time.Microsecond},
		{1, 10 * time.Microsecond},
		{31, 491520 * time.Microsecond},
	} {
		if got := RNRTimerDuration(tt.code); got != tt.want {
			t.Errorf("RNRTimerDuration(%d) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

func TestCreditTable(t *testing.T) {
	for code, want := range kernelCreditTable {
		a := AETH{Syndrome: uint8(code)}
		got, ok := a.Credits()
		if !ok || got != want {
			t.Errorf("credit code %d: %d %v, want %d", code, got, ok, want)
		}
		if a.Type() != AckTypeACK || a.Value() != uint8(code) {
			t.Errorf("credit code %d: type %v value %d", code, a.Type(), a.Value())
		}
	}
	a := AETH{Syndrome: 31}
	if n, ok := a.Credits(); ok || n != 0 {
		t.Errorf("credit code 31: %d %v, want invalid", n, ok)
	}
}

func TestAckTypeAndNAKCodes(t *testing.T) {
	types := map[AckType]string{AckTypeACK: "ACK", AckTypeRNRNAK: "RNR_NAK", AckTypeReserved: "RESERVED", AckTypeNAK: "NAK"}
	for ty, want := range types {
		if got := ty.String(); got != want {
			t.Errorf("AckType(%d) = %q, want %q", ty, got, want)
		}
	}
	// IBTA vol. 1 table "NAK codes" (also the NAK codes in the oracle's column docs).
	naks := []string{"PSN_SEQUENCE_ERROR", "INVALID_REQUEST", "REMOTE_ACCESS_ERROR", "REMOTE_OPERATIONAL_ERROR", "INVALID_RD_REQUEST"}
	for code, want := range naks {
		if got := NAKCode(code).String(); got != want {
			t.Errorf("NAKCode(%d) = %q, want %q", code, got, want)
		}
		a := AETH{Syndrome: 0x60 | uint8(code)}
		if a.Type() != AckTypeNAK || a.NAKCode() != NAKCode(code) {
			t.Errorf("syndrome %#x: type %v code %v", a.Syndrome, a.Type(), a.NAKCode())
		}
	}
	for code := 5; code < 32; code++ {
		if got, want := NAKCode(code).String(), "RESERVED_NAK_"+strconv.Itoa(code); got != want {
			t.Errorf("NAKCode(%d) = %q, want %q", code, got, want)
		}
	}
	if NAKPSNSequenceError != 0 || NAKInvalidRequest != 1 || NAKRemoteAccessError != 2 || NAKRemoteOperationalError != 3 || NAKInvalidRDRequest != 4 {
		t.Error("NAK code constants do not match IBTA")
	}
}

func TestSyndromeString(t *testing.T) {
	tests := []struct {
		syndrome uint8
		want     string
	}{
		// Syndromes seen in the real captures under testdata (oracle column aeth_syndrome).
		{6, "ACK credits=8"},                 // oferby-proxy_roce.pcap frame 16 (hardware NIC)
		{31, "ACK"},                          // rxe: "invalid credit count"
		{56, "RNR_NAK timer=40.96ms"},        // testdata/rxe/faults/rnr-recover
		{96, "NAK PSN_SEQUENCE_ERROR"},       // testdata/rxe/faults/rnr-exceeded
		{97, "NAK INVALID_REQUEST"},          // testdata/rxe/faults/invreq
		{98, "NAK REMOTE_ACCESS_ERROR"},      // testdata/rxe/faults/access
		{99, "NAK REMOTE_OPERATIONAL_ERROR"}, // testdata/rxe/faults/remop
		// Every kind and boundary.
		{0, "ACK credits=0"},
		{0x1e, "ACK credits=32768"},
		{0x20, "RNR_NAK timer=655.36ms"}, // code 0 is the longest
		{0x21, "RNR_NAK timer=10µs"},
		{0x3f, "RNR_NAK timer=491.52ms"},
		{0x64, "NAK INVALID_RD_REQUEST"},
		{0x65, "NAK RESERVED_NAK_5"},
		{0x7f, "NAK RESERVED_NAK_31"},
		{0x40, "RESERVED_SYNDROME_0x40"}, // syndrome type 10b is reserved
		{0x5f, "RESERVED_SYNDROME_0x5f"},
		{0x80 | 6, "ACK credits=8"}, // bit 7 is reserved and ignored
		{0x80 | 0x38, "RNR_NAK timer=40.96ms"},
		{0x80 | 0x40, "RESERVED_SYNDROME_0xc0"},
		{0x80 | 0x60 | 2, "NAK REMOTE_ACCESS_ERROR"},
	}
	for _, tt := range tests {
		a := AETH{Syndrome: tt.syndrome}
		if got := a.SyndromeString(); got != tt.want {
			t.Errorf("syndrome %d (%#x): %q, want %q", tt.syndrome, tt.syndrome, got, tt.want)
		}
	}
}

func TestAETHEncodeDecode(t *testing.T) {
	b := []byte{0x38, 0x01, 0x02, 0x03}
	var a AETH
	a.Decode(b)
	if a.Syndrome != 0x38 || a.MSN != 0x010203 || a.Type() != AckTypeRNRNAK || a.Value() != 24 {
		t.Fatalf("Decode: %+v type %v value %d", a, a.Type(), a.Value())
	}
	out := make([]byte, 4)
	a.Encode(out)
	if string(out) != string(b) {
		t.Fatalf("Encode = % x", out)
	}
	// MSN is 24 bits: the top byte of a larger value is dropped.
	a = AETH{Syndrome: 1, MSN: 0xff123456}
	a.Encode(out)
	if out[0] != 1 || out[1] != 0x12 || out[2] != 0x34 || out[3] != 0x56 {
		t.Fatalf("Encode masked = % x", out)
	}
}
