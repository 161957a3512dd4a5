package capture

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// Each RoCEv2 flow's UDP source port (its ECMP entropy) is the one
// Wireshark decodes in its last packet, and its changes the packets whose
// port differs from the flow's packet before: checked on every capture
// with a committed oracle, among them real NCCL traffic between three
// nodes (testdata/pcaps/rdma-ib-tutorial_nccl_*).
func TestFlowUDPSourcePortsMatchWireshark(t *testing.T) {
	type key struct {
		src, dst string
		qp       uint32
	}
	type want struct {
		sport   uint16
		changes uint32
	}
	checked, changed := 0, 0
	for _, f := range oracleCaptures(t) {
		data, err := os.ReadFile(committedOracle(f))
		if err != nil {
			continue // captures without an oracle: the decoder tests cover them
		}
		rows := readOracle(t, bytes.NewReader(data))
		wants := map[key]*want{}
		frames := make([]int, 0, len(rows))
		for n := range rows {
			frames = append(frames, n)
		}
		slices.Sort(frames)
		for _, n := range frames {
			row := rows[n]
			if row["transport"] != "rocev2" || row["destqp"] == "" || row["udp_sport"] == "" {
				continue
			}
			qp, err1 := strconv.ParseUint(row["destqp"], 0, 32)
			sp, err2 := strconv.ParseUint(row["udp_sport"], 10, 16)
			if err1 != nil || err2 != nil {
				continue
			}
			k := key{row["src"], row["dst"], uint32(qp)}
			w := wants[k]
			if w == nil {
				w = &want{}
				wants[k] = w
			} else if uint16(sp) != w.sport {
				w.changes++
			}
			w.sport = uint16(sp)
		}
		if len(wants) == 0 {
			continue
		}
		s := analyze(t, f, Config{NoICRC: true})
		for _, fl := range s.Flows {
			if fl.Encap != "rocev2" {
				continue
			}
			k := key{canonIP(fl.Src), canonIP(fl.Dst), uint32(fl.DestQP)}
			w, ok := wants[k]
			if !ok {
				continue // a flow of packets Wireshark does not decode as RoCE
			}
			checked++
			if w.changes > 0 {
				changed++
			}
			if fl.UDPSrcPort != w.sport || fl.UDPSrcPortChanges != w.changes {
				t.Errorf("%s: flow %s → %s QP %#x: port %d (%d changes), Wireshark %d (%d changes)",
					filepath.Base(f), fl.Src, fl.Dst, fl.DestQP, fl.UDPSrcPort, fl.UDPSrcPortChanges, w.sport, w.changes)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d flows compared", checked)
	}
	t.Logf("%d RoCEv2 flows' UDP source ports agree with Wireshark (%d of them changed port)", checked, changed)
}

// canonIP writes an address as the oracle does.
func canonIP(s string) string {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().String()
	}
	return s
}

// A QP re-hashed onto another UDP source port mid-flow (no capture in
// testdata shows one) is counted once per change, and the flow reports
// the port it uses now; RoCE v1 has no port.
func TestFlowUDPSourcePortChanges(t *testing.T) {
	a := NewAnalyzer(Config{NoICRC: true})
	a.Begin(1)
	ts := int64(1)
	send := func(encap Encap, sport uint16, psn uint32) {
		var d Decoded
		d.Src, d.Dst, d.IPv4, d.Encap, d.WireLen, d.SrcPort = wireA, wireB, encap == EncapRoCEv2, encap, 100, sport
		p := &d.RoCE
		p.BTH.Opcode, p.BTH.DestQP, p.BTH.PSN = roce.Opcode(roce.OpWriteOnly), 0x12, psn
		if encap == EncapRoCEv1 {
			p.BTH.DestQP = 0x13
		}
		p.Headers |= roce.HasRETH
		ts += 10_000
		a.tracker.Track(&d, ts, uint64(psn))
	}
	for i, sp := range []uint16{49152, 49152, 50001, 50001, 49152} {
		send(EncapRoCEv2, sp, uint32(i+1))
	}
	send(EncapRoCEv1, 0, 1)
	got := map[uint32]FlowSummary{}
	for _, f := range a.Summary().Flows {
		got[uint32(f.DestQP)] = f
	}
	if f := got[0x12]; f.UDPSrcPort != 49152 || f.UDPSrcPortChanges != 2 {
		t.Errorf("RoCEv2 flow: port %d, %d changes; want 49152, 2", f.UDPSrcPort, f.UDPSrcPortChanges)
	}
	if f := got[0x13]; f.UDPSrcPort != 0 || f.UDPSrcPortChanges != 0 {
		t.Errorf("RoCE v1 flow: port %d, %d changes", f.UDPSrcPort, f.UDPSrcPortChanges)
	}
}

// Each path (source and destination host) has the QPs, distinct UDP
// source ports and bytes Wireshark's decode of the same capture gives:
// its RoCEv2 packets from the one host to the other, their destination
// QPs, source ports and frame lengths.
func TestPathsMatchWireshark(t *testing.T) {
	type pair struct{ src, dst string }
	type want struct {
		qps   map[string]bool
		ports map[string]uint64 // bytes by UDP source port
		bytes uint64
	}
	checked := 0
	for _, f := range oracleCaptures(t) {
		data, err := os.ReadFile(committedOracle(f))
		if err != nil {
			continue
		}
		wants := map[pair]*want{}
		for _, row := range readOracle(t, bytes.NewReader(data)) {
			if row["transport"] != "rocev2" || row["destqp"] == "" || row["udp_sport"] == "" {
				continue
			}
			n, err := strconv.ParseUint(row["frame_len"], 10, 64)
			if err != nil {
				continue
			}
			k := pair{row["src"], row["dst"]}
			w := wants[k]
			if w == nil {
				w = &want{qps: map[string]bool{}, ports: map[string]uint64{}}
				wants[k] = w
			}
			w.qps[row["destqp"]] = true
			w.ports[row["udp_sport"]] += n
			w.bytes += n
		}
		if len(wants) == 0 {
			continue
		}
		s := analyze(t, f, Config{NoICRC: true})
		if s.FlowsEvicted > 0 {
			continue // paths sum the flows the table still holds
		}
		paths := Paths(s.Flows)
		if len(paths) != len(wants) {
			t.Errorf("%s: %d paths, Wireshark %d", filepath.Base(f), len(paths), len(wants))
		}
		for _, p := range paths {
			w := wants[pair{canonIP(p.Src), canonIP(p.Dst)}]
			if w == nil {
				t.Errorf("%s: path %s → %s, not in Wireshark's decode", filepath.Base(f), p.Src, p.Dst)
				continue
			}
			checked++
			busiest := uint64(0)
			for _, b := range w.ports {
				busiest = max(busiest, b)
			}
			if p.QPs != len(w.qps) || p.UDPSrcPorts != len(w.ports) || p.Bytes != w.bytes || p.MaxPortBytes != busiest {
				t.Errorf("%s: %s → %s: %d QPs, %d ports, %d bytes, busiest port %d; Wireshark %d, %d, %d, %d", filepath.Base(f), p.Src, p.Dst,
					p.QPs, p.UDPSrcPorts, p.Bytes, p.MaxPortBytes, len(w.qps), len(w.ports), w.bytes, busiest)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d paths compared", checked)
	}
	t.Logf("%d paths agree with Wireshark", checked)
}

// A table larger than the default holds more than 2^16 paths; each
// keeps its own ports (the path's number is not cut to 16 bits).
func TestPathsBeyond65536(t *testing.T) {
	const n = 1<<16 + 3
	flows := make([]FlowSummary, 0, 2*n)
	for i := range n {
		src := "10." + strconv.Itoa(i>>16) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255)
		for _, port := range []uint16{49152, uint16(49153 + i%2)} {
			flows = append(flows, FlowSummary{Src: src, Dst: "10.255.0.1", Encap: "rocev2", UDPSrcPort: port, Bytes: 100})
		}
	}
	paths := Paths(flows)
	if len(paths) != n {
		t.Fatalf("%d paths, want %d", len(paths), n)
	}
	for _, p := range paths {
		if p.QPs != 2 || p.UDPSrcPorts != 2 || p.Bytes != 200 {
			t.Fatalf("%s: %d QPs, %d ports, %d bytes; want 2, 2, 200", p.Src, p.QPs, p.UDPSrcPorts, p.Bytes)
		}
	}
}
