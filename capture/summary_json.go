package capture

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// A hand-written JSON encoder for the two element types that
// `rdmatop replay --json` streams by the tens of thousands: the flow table
// and the anomaly log. encoding/json spends most of such a run in
// reflection and in MarshalIndent's re-scan of its own output; these
// methods append the same bytes directly. summary_json_test.go checks,
// field by field and with random values, that the output stays identical
// to encoding/json's, so a field added to FlowSummary or Anomaly must be
// added here too.

// AppendJSONIndent appends to dst the JSON of f exactly as
// json.MarshalIndent(f, prefix, indent) writes it, byte for byte, without
// reflection and without allocating beyond growing dst. It exists because
// replay --json writes one FlowSummary per flow, and encoding/json made
// that the cost of the whole command.
//
// Unlike encoding/json, which fails on them, a NaN or infinite float is
// written as null: the analysis never produces one (rates and RTTs are
// finite), and a valid document is better than a failed run.
func (f *FlowSummary) AppendJSONIndent(dst []byte, prefix, indent string) []byte {
	w := jsonWriter{b: dst, prefix: prefix, indent: indent}
	outer := w.open('{')
	w.key("id")
	w.int(int64(f.ID))
	w.key("src")
	w.string(f.Src)
	w.key("dst")
	w.string(f.Dst)
	w.key("dest_qp")
	w.uint(uint64(f.DestQP))
	w.key("encap")
	w.string(f.Encap)
	w.key("transport")
	w.string(f.Transport)
	if f.PeerID != 0 {
		w.key("peer_id")
		w.int(int64(f.PeerID))
	}
	w.key("packets")
	w.uint(f.Packets)
	w.key("bytes")
	w.uint(f.Bytes)
	w.key("payload_bytes")
	w.uint(f.PayloadBytes)
	w.key("max_payload")
	w.int(int64(f.MaxPayload))
	w.key("requests")
	w.uint(f.Requests)
	w.key("responses")
	w.uint(f.Responses)
	w.key("messages")
	w.uint(f.Messages)
	w.key("first_ts")
	w.string(f.FirstTS)
	w.key("last_ts")
	w.string(f.LastTS)
	w.key("first_packet")
	w.uint(f.FirstPacket)
	w.key("last_packet")
	w.uint(f.LastPacket)
	w.key("gbps")
	w.float(f.Gbps)
	w.key("first_psn")
	w.uint(uint64(f.FirstPSN))
	w.key("last_psn")
	w.uint(uint64(f.LastPSN))
	w.key("psn_gaps")
	w.uint(f.PSNGaps)
	w.key("missing_psns")
	w.uint(f.MissingPSNs)
	w.key("retransmitted_packets")
	w.uint(f.RetransmittedPackets)
	w.key("go_back_n")
	w.uint(f.GoBackN)
	w.key("out_of_order")
	w.uint(f.OutOfOrder)
	w.key("duplicates")
	w.uint(f.Duplicates)
	w.key("read_reissues")
	w.uint(f.ReadReissues)
	w.key("read_reissues_unanswered")
	w.uint(f.ReadReissuesUnanswered)
	w.key("timer_episodes")
	w.uint(f.TimerEpisodes)
	w.key("timer_wait_us")
	w.float(f.TimerWaitUs)
	w.key("acks")
	w.uint(f.ACKs)
	if f.LastACKCredits != nil {
		w.key("last_ack_credits")
		w.int(int64(*f.LastACKCredits))
	}
	w.key("zero_credit_acks")
	w.uint(f.ZeroCreditACKs)
	w.key("repeated_acks")
	w.uint(f.RepeatedACKs)
	w.key("undone_nak_episodes")
	w.uint(f.UndoneNAKEpisodes)
	w.key("undone_timer_episodes")
	w.uint(f.UndoneTimerEpisodes)
	w.key("resends_after_ack")
	w.uint(f.ResendsAfterACK)
	w.key("naks")
	f.NAKs.appendJSON(&w)
	if f.LastNAKPSN != nil {
		w.key("last_nak_psn")
		w.uint(uint64(*f.LastNAKPSN))
	}
	w.key("cnps")
	w.uint(f.CNPs)
	w.key("cnps_carried")
	w.uint(f.CNPsCarried)
	w.key("ecn_ce")
	w.uint(f.ECNCE)
	w.key("ecn")
	f.ECN.appendJSON(&w)
	w.key("dscp")
	w.uint(uint64(f.DSCP))
	if f.VLAN != nil {
		w.key("vlan")
		w.uint(uint64(*f.VLAN))
	}
	if f.PCP != nil {
		w.key("pcp")
		w.uint(uint64(*f.PCP))
	}
	w.key("icrc_errors")
	w.uint(f.ICRCErrors)
	w.key("icrc_unverifiable")
	w.uint(f.ICRCUnverifiable)
	w.key("rtt_us")
	f.RTTus.appendJSON(&w)
	w.key("opcodes")
	if f.Opcodes == nil {
		w.b = append(w.b, "null"...)
	} else {
		arr := w.open('[')
		for i := range f.Opcodes {
			w.elem()
			f.Opcodes[i].appendJSON(&w)
		}
		w.close(']', arr)
	}
	w.key("troubled")
	w.bool(f.Troubled)
	w.close('}', outer)
	return w.b
}

// AppendJSONIndent appends to dst the JSON of a exactly as
// json.MarshalIndent(a, prefix, indent) writes it, byte for byte, without
// reflection and without allocating beyond growing dst. It exists because
// replay --json writes every anomaly of the log, up to its cap, through it.
func (a *Anomaly) AppendJSONIndent(dst []byte, prefix, indent string) []byte {
	w := jsonWriter{b: dst, prefix: prefix, indent: indent}
	outer := w.open('{')
	w.key("kind")
	w.string(a.Kind)
	w.key("packet")
	w.uint(a.Packet)
	w.key("ts")
	w.string(a.TS)
	if a.FlowID != 0 {
		w.key("flow_id")
		w.int(int64(a.FlowID))
	}
	w.key("psn")
	w.uint(uint64(a.PSN))
	w.key("detail")
	w.string(a.Detail)
	w.close('}', outer)
	return w.b
}

func (e *ECNCounts) appendJSON(w *jsonWriter) {
	o := w.open('{')
	w.key("not_ect")
	w.uint(e.NotECT)
	w.key("ect1")
	w.uint(e.ECT1)
	w.key("ect0")
	w.uint(e.ECT0)
	w.key("ce")
	w.uint(e.CE)
	w.close('}', o)
}

func (r *RTT) appendJSON(w *jsonWriter) {
	o := w.open('{')
	w.key("samples")
	w.uint(r.Samples)
	w.key("min")
	w.float(r.Min)
	w.key("p50")
	w.float(r.P50)
	w.key("p99")
	w.float(r.P99)
	w.key("p99_9")
	w.float(r.P999)
	w.key("max")
	w.float(r.Max)
	w.close('}', o)
}

func (c *OpcodeCount) appendJSON(w *jsonWriter) {
	o := w.open('{')
	w.key("opcode")
	w.uint(uint64(c.Opcode))
	w.key("name")
	w.string(c.Name)
	w.key("packets")
	w.uint(c.Packets)
	w.close('}', o)
}

// jsonWriter appends indented JSON laid out as json.MarshalIndent lays it
// out: every member of a non-empty object or array on its own line, after
// prefix and one indent per level; `{}` and `[]` when empty; ": " after
// keys. It lives on the caller's stack.
type jsonWriter struct {
	b              []byte
	prefix, indent string
	depth          int
	n              int // members written so far in the innermost open object or array
}

// open starts an object or array; pass what it returns to close.
func (w *jsonWriter) open(c byte) (outer int) {
	w.b = append(w.b, c)
	w.depth++
	outer, w.n = w.n, 0
	return outer
}

func (w *jsonWriter) close(c byte, outer int) {
	w.depth--
	if w.n > 0 {
		w.newline()
	}
	w.b = append(w.b, c)
	w.n = outer
}

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.prefix...)
	for range w.depth {
		w.b = append(w.b, w.indent...)
	}
}

// elem starts an array element.
func (w *jsonWriter) elem() {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.newline()
}

// key starts an object member; k must need no escaping.
func (w *jsonWriter) key(k string) {
	w.elem()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':', ' ')
}

func (w *jsonWriter) int(v int64)   { w.b = strconv.AppendInt(w.b, v, 10) }
func (w *jsonWriter) uint(v uint64) { w.b = strconv.AppendUint(w.b, v, 10) }
func (w *jsonWriter) bool(v bool)   { w.b = strconv.AppendBool(w.b, v) }
func (w *jsonWriter) string(s string) {
	w.b = appendJSONString(w.b, s)
}

// float writes v as encoding/json writes a float64 (the shortest
// representation that round-trips, in exponent form only below 1e-6 or
// from 1e21), and NaN or infinities, which it refuses, as null.
func (w *jsonWriter) float(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		w.b = append(w.b, "null"...)
		return
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, v, format, -1, 64)
	if format == 'e' {
		// e-07 -> e-7, as encoding/json does.
		n := len(w.b)
		if n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
			w.b[n-2] = w.b[n-1]
			w.b = w.b[:n-1]
		}
	}
}

// appendJSONString appends s quoted as encoding/json quotes a string by
// default: `"` and `\` escaped, \b \f \n \r \t by name, other control
// characters and the HTML-sensitive <, > and & as \u00XX, U+2028 and
// U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8 as \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
