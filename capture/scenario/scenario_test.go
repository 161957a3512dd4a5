package scenario

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// dir holds the committed scenario files.
const dir = "../../testdata/scenarios"

const regenerate = "regenerate with: go run ./capture/scenario/cmd/gen-scenarios -o testdata/scenarios"

// TestDeterministic: generating twice gives the same bytes, and the
// committed files are a fresh generation.
func TestDeterministic(t *testing.T) {
	all := Scenarios()
	names := map[string]bool{}
	for i := range all {
		s := &all[i]
		if names[s.Name] {
			t.Errorf("scenario name %q used twice", s.Name)
		}
		names[s.Name] = true
		a, err := s.Pcap()
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		b, err := s.Pcap()
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two generations differ", s.Name)
		}
		committed, err := os.ReadFile(filepath.Join(dir, s.File()))
		if err != nil {
			t.Errorf("%s: %v (%s)", s.Name, err, regenerate)
			continue
		}
		if !bytes.Equal(a, committed) {
			t.Errorf("%s: committed %s is stale (%s)", s.Name, s.File(), regenerate)
		}
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || string(readme) != README(all) {
		t.Errorf("committed README.md missing or stale (%s)", regenerate)
	}
}

// TestTable checks the table against itself: the totals add up the flows,
// the opcodes add up to the packets, peers point both ways.
func TestTable(t *testing.T) {
	for _, s := range Scenarios() {
		w := &s.Want
		var sum Totals
		var packets, unverifiable uint64
		for i, f := range w.Flows {
			packets += f.Packets
			sum.PSNGaps += f.PSNGaps
			sum.MissingPSNs += f.MissingPSNs
			sum.Retransmitted += f.Retransmitted
			sum.GoBackN += f.GoBackN
			sum.OutOfOrder += f.OutOfOrder
			sum.Duplicates += f.Duplicates
			sum.ACKs += f.ACKs
			sum.NAKs = addNAKs(sum.NAKs, f.NAKs)
			sum.CNPs += f.CNPsCarried
			sum.ECNCE += f.ECNCE
			sum.ICRCErrors += f.ICRCErrors
			unverifiable += f.ICRCUnverifiable
			if f.Peer != 0 && (f.Peer > len(w.Flows) || w.Flows[f.Peer-1].Peer != i+1) {
				t.Errorf("%s: flow %d: peer %d does not point back", s.Name, i+1, f.Peer)
			}
		}
		sum.BECN, sum.ICRCOK, sum.ICRCUnverifiable = w.Totals.BECN, w.Totals.ICRCOK, unverifiable
		if sum != w.Totals {
			t.Errorf("%s: totals %+v, flows add up to %+v", s.Name, w.Totals, sum)
		}
		var ops uint64
		for _, n := range w.Opcodes {
			ops += n
		}
		if packets != w.Packets || ops != w.Packets || w.Totals.CNPs != w.Opcodes[roce.OpcodeCNP] {
			t.Errorf("%s: %d packets, flows have %d, opcodes %d", s.Name, w.Packets, packets, ops)
		}
		if w.Totals.ICRCOK+w.Totals.ICRCErrors+w.Totals.ICRCUnverifiable != w.Packets || w.Truncated != w.Totals.ICRCUnverifiable {
			t.Errorf("%s: ICRC verdicts do not add up to the packets", s.Name)
		}
	}
}

// TestAnalysis runs rdmatop's analysis on every scenario and compares it
// with the expectations, number by number.
func TestAnalysis(t *testing.T) {
	tmp := t.TempDir()
	for _, s := range Scenarios() {
		t.Run(s.Name, func(t *testing.T) {
			data, err := s.Pcap()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(tmp, s.File())
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			sum, err := capture.AnalyzeFile(path, capture.Config{})
			if err != nil {
				t.Fatal(err)
			}
			checkSummary(t, &s, sum)
		})
	}
}

func checkSummary(t *testing.T, s *Scenario, sum *capture.Summary) {
	t.Helper()
	w := &s.Want
	eq := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	eq("packets", sum.Packets, w.Packets)
	eq("roce_packets", sum.RoCEPackets, w.Packets)
	eq("rocev1_packets", sum.RoCEv1Packets, w.RoCEv1)
	eq("rocev2_packets", sum.RoCEv2Packets, w.Packets-w.RoCEv1)
	eq("non_roce_packets", sum.NonRoCEPackets, uint64(0))
	eq("malformed_packets", sum.MalformedPackets, uint64(0))
	eq("truncated_packets", sum.TruncatedPackets, w.Truncated)
	eq("first_ts", sum.FirstTS, Start.Format(time.RFC3339Nano))
	eq("pmtu", sum.PMTU, w.PMTU)
	eq("pmtu_source", sum.PMTUSource, "inferred")
	if s.Snaplen != 0 {
		eq("snaplen", sum.Snaplen, s.Snaplen)
	}
	ops := map[roce.Opcode]uint64{}
	for _, o := range sum.Opcodes {
		ops[roce.Opcode(o.Opcode)] = o.Packets
	}
	if !maps.Equal(ops, w.Opcodes) {
		t.Errorf("opcodes: got %s, want %s", opcodeList(ops), opcodeList(w.Opcodes))
	}
	tt := &sum.Totals
	got := Totals{
		PSNGaps: tt.PSNGaps, MissingPSNs: tt.MissingPSNs, Retransmitted: tt.RetransmittedPackets,
		GoBackN: tt.GoBackN, OutOfOrder: tt.OutOfOrder, Duplicates: tt.Duplicates, ACKs: tt.ACKs, NAKs: naks(tt.NAKs),
		CNPs: tt.CNPs, ECNCE: tt.ECNCE, BECN: tt.BECN,
		ICRCOK: tt.ICRCOK, ICRCErrors: tt.ICRCErrors, ICRCUnverifiable: tt.ICRCUnverifiable,
	}
	diff(t, "totals", got, w.Totals)
	eq("totals.flows", tt.Flows, uint64(len(w.Flows)))
	eq("totals.naks.invalid_rd_request+reserved", tt.NAKs.InvalidRDRequest+tt.NAKs.Reserved, uint64(0))
	eq("totals.fecn", tt.FECN, uint64(0))

	// Flows by key; peers by position in the table.
	key := func(src, dst string, qp uint32) string { return fmt.Sprintf("%s>%s/0x%x", src, dst, qp) }
	index := map[string]int{}
	for i, f := range w.Flows {
		index[key(f.Src, f.Dst, f.DestQP)] = i + 1
	}
	byID := map[int]*capture.FlowSummary{}
	byKey := map[string]*capture.FlowSummary{}
	for i := range sum.Flows {
		f := &sum.Flows[i]
		byID[f.ID] = f
		byKey[key(f.Src, f.Dst, uint32(f.DestQP))] = f
		if index[key(f.Src, f.Dst, uint32(f.DestQP))] == 0 {
			t.Errorf("unexpected flow %s (%d packets)", key(f.Src, f.Dst, uint32(f.DestQP)), f.Packets)
		}
	}
	for _, want := range w.Flows {
		k := key(want.Src, want.Dst, want.DestQP)
		f := byKey[k]
		if f == nil {
			t.Errorf("flow %s missing", k)
			continue
		}
		got := Flow{
			Src: f.Src, Dst: f.Dst, DestQP: uint32(f.DestQP), Packets: f.Packets, FirstPSN: f.FirstPSN, LastPSN: f.LastPSN,
			PSNGaps: f.PSNGaps, MissingPSNs: f.MissingPSNs, Retransmitted: f.RetransmittedPackets,
			GoBackN: f.GoBackN, OutOfOrder: f.OutOfOrder, Duplicates: f.Duplicates, ACKs: f.ACKs, NAKs: naks(f.NAKs),
			CNPs: f.CNPs, CNPsCarried: f.CNPsCarried, ECNCE: f.ECNCE, DSCP: f.DSCP,
			ICRCErrors: f.ICRCErrors, ICRCUnverifiable: f.ICRCUnverifiable,
			RTTSamples: f.RTTus.Samples, RTTMaxUS: f.RTTus.Max,
		}
		if p := byID[f.PeerID]; p != nil {
			got.Peer = index[key(p.Src, p.Dst, uint32(p.DestQP))]
		} else if f.PeerID != 0 {
			got.Peer = -f.PeerID
		}
		if f.LastNAKPSN != nil {
			got.LastNAKPSN = *f.LastNAKPSN
		}
		if (f.LastNAKPSN != nil) != (want.NAKs.Total() > 0) {
			t.Errorf("flow %s: last_nak_psn present: %v, NAKs expected: %d", k, f.LastNAKPSN != nil, want.NAKs.Total())
		}
		if f.VLAN != nil {
			got.VLAN = *f.VLAN
			if f.PCP != nil {
				got.PCP = *f.PCP
			}
		}
		if f.NAKs.InvalidRDRequest+f.NAKs.Reserved != 0 {
			t.Errorf("flow %s: unexpected NAKs %+v", k, f.NAKs)
		}
		encap := "rocev2"
		if w.RoCEv1 > 0 {
			encap = "rocev1"
		}
		if f.Encap != encap {
			t.Errorf("flow %s: encap %s, want %s", k, f.Encap, encap)
		}
		diff(t, "flow "+k, got, want)
	}
}

func naks(n capture.NAKCounts) NAKs {
	return NAKs{PSNSequenceError: n.PSNSequenceError, RNR: n.RNR, InvalidRequest: n.InvalidRequest,
		RemoteAccessError: n.RemoteAccessError, RemoteOperationalError: n.RemoteOperationalError}
}

func addNAKs(a, b NAKs) NAKs {
	return NAKs{a.PSNSequenceError + b.PSNSequenceError, a.RNR + b.RNR, a.InvalidRequest + b.InvalidRequest,
		a.RemoteAccessError + b.RemoteAccessError, a.RemoteOperationalError + b.RemoteOperationalError}
}

// diff reports every field of two structs of the same type that differs.
func diff(t *testing.T, what string, got, want any) {
	t.Helper()
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		if gf, wf := g.Field(i).Interface(), w.Field(i).Interface(); !reflect.DeepEqual(gf, wf) {
			t.Errorf("%s: %s: got %+v, want %+v", what, g.Type().Field(i).Name, gf, wf)
		}
	}
}

// TestWireshark checks the committed Wireshark oracle CSVs
// (tools/tshark-oracle.sh) against the expectations: packets, opcodes,
// AETH kinds and NAK codes, CNPs, CE marks, BECN, VLAN tags, ICRC checks.
// tshark is slow, so the CSVs are not regenerated here (the repository's
// oracle test runs tshark on every capture); instead each CSV must describe
// the committed pcap frame by frame (timestamp, length, ICRC), which the
// pcap being a fresh generation (TestDeterministic) keeps current.
func TestWireshark(t *testing.T) {
	for _, s := range Scenarios() {
		t.Run(s.Name, func(t *testing.T) {
			file := filepath.Join(dir, s.File())
			csvData, err := os.ReadFile(file + ".oracle.csv")
			if err != nil {
				t.Fatalf("%v (make it with: bash tools/tshark-oracle.sh %s > %s.oracle.csv)", err, file, file)
			}
			recs, err := csv.NewReader(bytes.NewReader(csvData)).ReadAll()
			if err != nil || len(recs) == 0 {
				t.Fatalf("oracle CSV: %v", err)
			}
			col := map[string]int{}
			for i, h := range recs[0] {
				col[h] = i
			}
			rows := recs[1:]
			checkCurrent(t, file, rows, col)
			checkOracle(t, &s, rows, col)
		})
	}
}

// checkCurrent compares the CSV rows with the pcap's frames.
func checkCurrent(t *testing.T, file string, rows [][]string, col map[string]int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	stale := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s.oracle.csv is stale (%s), regenerate it: bash tools/tshark-oracle.sh %s > %s.oracle.csv",
			filepath.Base(file), fmt.Sprintf(format, args...), file, file)
	}
	n := 0
	for ; ; n++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n >= len(rows) {
			stale("more frames than rows")
		}
		row := rows[n]
		ts := fmt.Sprintf("%d.%09d", ci.Timestamp.Unix(), ci.Timestamp.Nanosecond())
		if row[col["frame"]] != strconv.Itoa(n+1) || row[col["time_epoch"]] != ts || row[col["frame_len"]] != strconv.Itoa(ci.Length) {
			stale("frame %d: %s %s %s, pcap has %s %d", n+1, row[col["frame"]], row[col["time_epoch"]], row[col["frame_len"]], ts, ci.Length)
		}
		if icrc := row[col["icrc"]]; icrc != "" && len(data) == ci.Length {
			if want := fmt.Sprintf("0x%08x", binary.BigEndian.Uint32(data[len(data)-4:])); icrc != want {
				stale("frame %d: ICRC %s, pcap has %s", n+1, icrc, want)
			}
		}
	}
	if n != len(rows) {
		stale("%d rows, %d frames", len(rows), n)
	}
}

// checkOracle compares what Wireshark decoded with the expectations.
func checkOracle(t *testing.T, s *Scenario, rows [][]string, col map[string]int) {
	t.Helper()
	w := &s.Want
	ops := map[roce.Opcode]uint64{}
	var acks, nak, rnr, ce, becn, tagged, v1 uint64
	var nakCodes [5]uint64
	icrc := map[string]uint64{}
	for _, r := range rows {
		op, err := strconv.Atoi(r[col["opcode"]])
		if err != nil {
			t.Fatalf("opcode %q", r[col["opcode"]])
		}
		ops[roce.Opcode(op)]++
		// rdmatop reads an ACK or NAK only when the requester could: an
		// ACKNOWLEDGE whose ICRC fails is dropped unread.
		aeth := r[col["aeth_type"]]
		if roce.Opcode(op) == roce.OpAcknowledge && r[col["icrc_check"]] == "bad" {
			aeth = ""
		}
		switch aeth {
		case "ACK":
			acks++
		case "NAK":
			nak++
			if c, err := strconv.Atoi(r[col["aeth_code"]]); err == nil && c < len(nakCodes) {
				nakCodes[c]++
			}
		case "RNR_NAK":
			rnr++
		}
		if r[col["ecn"]] == "3" {
			ce++
		}
		if r[col["becn"]] == "1" {
			becn++
		}
		if r[col["vlan_id"]] != "" {
			tagged++
			if flow := w.Flows[0]; r[col["vlan_id"]] != strconv.Itoa(int(flow.VLAN)) || r[col["vlan_pcp"]] != strconv.Itoa(int(flow.PCP)) {
				t.Errorf("frame %s: VLAN %s PCP %s", r[col["frame"]], r[col["vlan_id"]], r[col["vlan_pcp"]])
			}
		}
		if r[col["transport"]] == "rocev1" {
			v1++
		}
		icrc[r[col["icrc_check"]]]++
	}
	eq := func(what string, got, want uint64) {
		t.Helper()
		if got != want {
			t.Errorf("Wireshark %s: %d, expected %d", what, got, want)
		}
	}
	eq("packets with a BTH", uint64(len(rows)), w.Packets)
	if !maps.Equal(ops, w.Opcodes) {
		t.Errorf("Wireshark opcodes: %s, expected %s", opcodeList(ops), opcodeList(w.Opcodes))
	}
	// ACK-type AETHs: ACKNOWLEDGE packets and READ responses FIRST, LAST, ONLY.
	eq("ACK syndromes", acks, w.Totals.ACKs+w.Opcodes[roce.OpReadResponseFirst]+w.Opcodes[roce.OpReadResponseLast]+w.Opcodes[roce.OpReadResponseOnly])
	n := w.Totals.NAKs
	eq("NAKs", nak, n.PSNSequenceError+n.InvalidRequest+n.RemoteAccessError+n.RemoteOperationalError)
	eq("NAK PSN sequence error", nakCodes[roce.NAKPSNSequenceError], n.PSNSequenceError)
	eq("NAK invalid request", nakCodes[roce.NAKInvalidRequest], n.InvalidRequest)
	eq("NAK remote access error", nakCodes[roce.NAKRemoteAccessError], n.RemoteAccessError)
	eq("NAK remote operational error", nakCodes[roce.NAKRemoteOperationalError], n.RemoteOperationalError)
	eq("RNR NAKs", rnr, n.RNR)
	eq("CNPs", ops[roce.OpcodeCNP], w.Totals.CNPs)
	eq("ECN CE", ce, w.Totals.ECNCE)
	eq("BECN", becn, w.Totals.BECN)
	eq("RoCEv1", v1, w.RoCEv1)
	if w.Flows[0].VLAN != 0 {
		eq("VLAN-tagged", tagged, w.Packets)
	} else {
		eq("VLAN-tagged", tagged, 0)
	}
	// The script checks the ICRC of whole RoCEv2 frames only ("na" otherwise).
	if w.RoCEv1 == 0 {
		eq("ICRC ok", icrc["ok"], w.Totals.ICRCOK)
		eq("ICRC bad", icrc["bad"], w.Totals.ICRCErrors)
		eq("ICRC na", icrc["na"], w.Totals.ICRCUnverifiable)
	} else {
		eq("ICRC na", icrc["na"], w.Packets)
	}
}
