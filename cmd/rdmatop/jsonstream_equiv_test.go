package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/capture"
)

// The stream writes through goccy/go-json and promises encoding/json's
// bytes: these tests hold it to that, for every field of the summary
// types with random values, for a real capture, and under a fuzzer.

// sjIndents are the prefix/indent pairs the whole-document comparison
// tries; elements are written with "    " and "  ".
var sjIndents = [][2]string{{"", "  "}, {"  ", "  "}, {"    ", "  "}}

// sjCompare fails t unless the stream's element encoder writes v as
// json.MarshalIndent(v, "    ", "  ") does, appending to a non-empty
// buffer.
func sjCompare(t testing.TB, v any, what string) {
	t.Helper()
	want, err := json.MarshalIndent(v, "    ", "  ")
	if err != nil {
		t.Fatalf("%s: encoding/json: %v", what, err)
	}
	got, err := newElemEncoder().appendTo([]byte("xyz"), v)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !bytes.HasPrefix(got, []byte("xyz")) {
		t.Fatalf("%s: dst's bytes were overwritten", what)
	}
	if got = got[3:]; !bytes.Equal(got, want) {
		t.Fatalf("%s: differs from encoding/json at byte %d\n got: %s\nwant: %s",
			what, sjFirstDiff(got, want), got, want)
	}
}

// sjCompareDoc fails t unless the stream's marshal writes v as
// json.MarshalIndent does, at every prefix the stream uses.
func sjCompareDoc(t testing.TB, v any, what string) {
	t.Helper()
	for _, pi := range sjIndents {
		want, err := json.MarshalIndent(v, pi[0], pi[1])
		if err != nil {
			t.Fatalf("%s: encoding/json: %v", what, err)
		}
		s := &jsonStream{}
		if got := s.marshal(v, pi[0]); s.err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s, prefix %q: %v; differs from encoding/json at byte %d\n got: %s\nwant: %s",
				what, pi[0], s.err, sjFirstDiff(got, want), got, want)
		}
	}
}

func sjFirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// sjStringPieces are glued together into random strings: JSON's special
// characters, HTML's, control characters, the JavaScript line separators,
// invalid UTF-8 and multi-byte runes.
var sjStringPieces = []string{
	"", "a", "rc", "10.0.0.1", "fe80::1", "2024-05-01T10:00:00.123456789Z",
	`"`, `\`, "/", "<", ">", "&", "<script>", "'",
	"\x00", "\x01", "\b", "\f", "\n", "\r", "\t", "\x1f", "\x7f", " ",
	"\u2028", "\u2029", "\u2027", "\u202a", "é", "€", "😀", "\ufffd", "日本",
	"\xff", "\xc3", "\xe2\x80", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf",
}

func sjString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(8) {
		b.WriteString(sjStringPieces[r.IntN(len(sjStringPieces))])
	}
	return b.String()
}

// sjFloats are the float64 values where encoding/json's formatting turns:
// around the 1e-6 and 1e21 cutoffs, signed zeros, extremes.
var sjFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, 1.5, 3.14159, 100, 1e6, 1e20, 1e21, 9.999999999999999e20,
	1e-6, 9.99999e-7, 1e-7, 1.5e-7, 1e-9, 1e-10, 1e-100, 123456789.123, 1e100, 1e300, -1e-7, -1e21,
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308,
	float64(math.MaxInt64), float64(math.MaxUint64), 0.1 + 0.2,
}

func sjFloat(r *rand.Rand) float64 {
	switch r.IntN(3) {
	case 0:
		return sjFloats[r.IntN(len(sjFloats))]
	case 1: // any finite bit pattern
		for {
			if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	default: // a plausible measurement at a random scale
		return (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(60)-30))
	}
}

// sjFill sets v, and everything it holds, to random values by reflection,
// so that a field added to the summary types gets values too and the
// equivalence test fails until the encoder writes it. Kinds the summaries
// do not use fail the test: teach sjFill (and the encoder) about them.
func sjFill(t testing.TB, r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				sjFill(t, r, v.Field(i))
			}
		}
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		sjFill(t, r, v.Elem())
	case reflect.Slice:
		switch r.IntN(4) {
		case 0:
			v.SetZero() // nil: null
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0)) // empty: []
		default:
			n := 1 + r.IntN(4)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				sjFill(t, r, v.Index(i))
			}
		}
	case reflect.String:
		v.SetString(sjString(r))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := v.Type().Bits()
		switch r.IntN(4) {
		case 0:
			v.SetInt(0) // omitempty
		case 1:
			v.SetInt(-1 << (bits - 1)) // the minimum
		case 2:
			v.SetInt(1<<(bits-1) - 1) // the maximum
		default:
			v.SetInt(int64(r.Uint64()) >> (64 - bits))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := v.Type().Bits()
		switch r.IntN(3) {
		case 0:
			v.SetUint(0)
		case 1:
			v.SetUint(math.MaxUint64 >> (64 - bits))
		default:
			v.SetUint(r.Uint64() >> (64 - bits))
		}
	case reflect.Float64:
		v.SetFloat(sjFloat(r))
	default:
		t.Fatalf("sjFill: no random values for %s (kind %s): teach it", v.Type(), v.Kind())
	}
}

func TestSummaryJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var f capture.FlowSummary
		sjFill(t, r, reflect.ValueOf(&f).Elem())
		sjCompare(t, &f, "random flow")
		var a capture.Anomaly
		sjFill(t, r, reflect.ValueOf(&a).Elem())
		sjCompare(t, &a, "random anomaly")
		if t.Failed() {
			t.Fatalf("iteration %d", i)
		}
	}
	// What rest writes: a whole summary, its flows and anomalies too.
	for range 50 {
		var s capture.Summary
		sjFill(t, r, reflect.ValueOf(&s).Elem())
		sjCompareDoc(t, &s, "random summary")
	}
	// Zero values: every omitempty field left out, nil opcodes.
	sjCompare(t, &capture.FlowSummary{}, "zero flow")
	sjCompare(t, &capture.Anomaly{}, "zero anomaly")
	sjCompareDoc(t, &capture.Summary{}, "zero summary")
}

// TestSummaryJSONNonFinite: encoding/json refuses NaN and infinities, and
// so does the stream: the analysis never produces them, and should it,
// the run fails saying so rather than write a document that is not JSON.
func TestSummaryJSONNonFinite(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		var out bytes.Buffer
		s := newJSONStream(&out)
		s.openArray("flows")
		s.elemsOf(2*elemChunk, func(i int) any {
			if i == elemChunk+1 {
				return &capture.FlowSummary{Gbps: v}
			}
			return &capture.FlowSummary{ID: i}
		})
		s.closeArray()
		if err := s.rest(struct{}{}); err == nil || !strings.Contains(err.Error(), "unsupported value") {
			t.Errorf("%v: stream error %v, want encoding/json's unsupported value", v, err)
		}
	}
}

// TestSummaryJSONRealCapture compares every flow and anomaly of a real
// Soft-RoCE capture with loss, and the whole summary.
func TestSummaryJSONRealCapture(t *testing.T) {
	s, err := capture.AnalyzeFile("../../testdata/rxe/pcap/lossy1.pcap", capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Flows) == 0 || len(s.Anomalies) == 0 {
		t.Fatalf("%d flows, %d anomalies: want some of both", len(s.Flows), len(s.Anomalies))
	}
	for i := range s.Flows {
		sjCompare(t, &s.Flows[i], "flow "+s.Flows[i].Src+" -> "+s.Flows[i].Dst)
	}
	for i := range s.Anomalies {
		sjCompare(t, &s.Anomalies[i], "anomaly "+s.Anomalies[i].Kind)
	}
	sjCompareDoc(t, s, "lossy1's summary")
}

// FuzzFlowJSON checks the string escaping, and float and integer
// formatting, against encoding/json.
func FuzzFlowJSON(f *testing.F) {
	for _, s := range sjStringPieces {
		f.Add(s, s+"<&>"+s, 1.5, int64(3))
	}
	f.Add("10.0.0.1", "psn 5 expected 3", 1e-7, int64(-1))
	f.Fuzz(func(t *testing.T, s, detail string, x float64, n int64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 0 // both refuse them; TestSummaryJSONNonFinite covers it
		}
		credits := int(n)
		fl := capture.FlowSummary{
			ID: int(n), Src: s, Dst: detail, Encap: s, Transport: detail, PeerID: int(n),
			FirstTS: s, LastTS: detail, Gbps: x, LastACKCredits: &credits,
			RTTus:   capture.RTT{Min: x, P50: -x, P99: x * 1e10, P999: x / 1e10, Max: x},
			Opcodes: []capture.OpcodeCount{{Opcode: uint8(n), Name: s, Packets: uint64(n)}},
		}
		sjCompare(t, &fl, "flow")
		sjCompare(t, &capture.Anomaly{Kind: s, TS: s, Detail: detail, FlowID: int(n), PSN: uint32(n)}, "anomaly")
	})
}

// sjBenchFlow is a realistic flow: an RC connection with traffic both
// ways, RTT samples and an opcode histogram.
func sjBenchFlow() *capture.FlowSummary {
	credits, nakPSN, vlan, pcp := 31, uint32(0x123456), uint16(100), uint8(3)
	return &capture.FlowSummary{
		ID: 4711, Src: "192.168.10.21", Dst: "192.168.10.22", DestQP: 0x11a, Encap: "rocev2",
		Transport: "RC", PeerID: 4712, Packets: 1843211, Bytes: 7738001234, PayloadBytes: 7549123456,
		MaxPayload: 4096, Requests: 1843000, Responses: 211, Messages: 460800,
		FirstTS: "2024-05-01T10:00:00.123456Z", LastTS: "2024-05-01T10:00:12.654321Z",
		FirstPacket: 17, LastPacket: 9876543, Gbps: 4.938271604938271,
		FirstPSN: 0x100, LastPSN: 0x1c2f08, PSNGaps: 3, MissingPSNs: 12, RetransmittedPackets: 12,
		GoBackN: 2, ACKs: 115200, LastACKCredits: &credits, NAKs: capture.NAKCounts{PSNSequenceError: 2},
		LastNAKPSN: &nakPSN, CNPs: 14, ECNCE: 40, ECN: capture.ECNCounts{ECT0: 1843171, CE: 40},
		DSCP: 26, VLAN: &vlan, PCP: &pcp,
		RTTus: capture.RTT{Samples: 115200, Min: 3.2, P50: 7.75, P99: 41.5, P999: 212.125, Max: 1043.875},
		Opcodes: []capture.OpcodeCount{
			{Opcode: 6, Name: "RC SEND_FIRST", Packets: 460800},
			{Opcode: 7, Name: "RC SEND_MIDDLE", Packets: 921600},
			{Opcode: 8, Name: "RC SEND_LAST", Packets: 460600},
			{Opcode: 17, Name: "RC ACKNOWLEDGE", Packets: 211},
		},
		Troubled: true,
	}
}

// BenchmarkFlowJSON: a flow as the stream writes it, and as
// encoding/json would.
func BenchmarkFlowJSON(b *testing.B) {
	f := sjBenchFlow()
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.MarshalIndent(f, "    ", "  "); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		e := newElemEncoder()
		buf, _ := e.appendTo(nil, f)
		for b.Loop() {
			buf, _ = e.appendTo(buf[:0], f)
		}
		b.SetBytes(int64(len(buf)))
	})
}

// BenchmarkFlowTableJSON: a whole-capture flow table of 65,536 flows as
// the stream writes it, on every core, to io.Discard. B/op is what the
// encoder allocates (its three allocations a flow) and the chunk
// buffers: most of it when those grew by append.
func BenchmarkFlowTableJSON(b *testing.B) {
	f := sjBenchFlow()
	flows := make([]capture.FlowSummary, 65536)
	for i := range flows {
		flows[i] = *f
		flows[i].ID = i + 1
	}
	b.ReportAllocs()
	for b.Loop() {
		s := newJSONStream(io.Discard)
		s.openArray("flows")
		s.elemsOf(len(flows), func(i int) any { return &flows[i] })
		s.closeArray()
		if err := s.rest(struct{}{}); err != nil {
			b.Fatal(err)
		}
	}
}
