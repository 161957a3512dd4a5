package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"math/bits"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// The oracle test compares every RoCE packet rdmatop decodes with what
// Wireshark's InfiniBand dissector says about it. With tshark installed the
// ground truth is made afresh (tools/tshark-oracle.sh, a copy of
// shared/tools/tshark-oracle.sh); without it the committed CSVs are used.

func oracleCaptures(t *testing.T) []string {
	var files []string
	for _, pat := range []string{"../testdata/pcaps/*.pcap", "../testdata/pcaps/*.pcapng",
		"../testdata/rxe/pcap/*.pcap", "../testdata/rxe/faults/*/capture.pcap", "../testdata/scenarios/*.pcap"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 30 {
		t.Fatalf("found only %d captures under testdata: checkout incomplete?", len(files))
	}
	return files
}

// decodeAs forces Wireshark's hand where its port heuristics give RoCE to
// another protocol: in the oferby capture the ACKs have UDP source port 69,
// which Wireshark decodes as TFTP before it tries destination port 4791.
var decodeAs = map[string]string{
	"oferby-proxy_roce.pcap":   "-d udp.port==69,infiniband",
	"oferby-proxy_roce.pcapng": "-d udp.port==69,infiniband",
}

func committedOracle(capture string) string {
	if _, ok := decodeAs[filepath.Base(capture)]; ok {
		return capture + ".decode-as.oracle.csv"
	}
	if strings.HasSuffix(capture, "/capture.pcap") {
		return strings.TrimSuffix(capture, ".pcap") + ".oracle.csv"
	}
	return capture + ".oracle.csv"
}

type oracleRow map[string]string

func readOracle(t *testing.T, r io.Reader) map[int]oracleRow {
	t.Helper()
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[int]oracleRow{}
	for _, rec := range recs[1:] {
		row := oracleRow{}
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		n, err := strconv.Atoi(row["frame"])
		if err != nil {
			t.Fatalf("bad frame number %q", row["frame"])
		}
		rows[n] = row
	}
	return rows
}

func TestOracle(t *testing.T) {
	files := oracleCaptures(t)
	_, err := exec.LookPath("tshark")
	live := err == nil && !testing.Short()
	switch {
	case err != nil:
		t.Log("tshark not installed: comparing with the committed oracle CSVs (install Debian's tshark to regenerate them)")
	case !live:
		t.Log("-short: comparing with the committed oracle CSVs (the full run regenerates them with tshark)")
	}
	// tshark is slow to start: regenerate the CSVs in parallel, two at a
	// time, with tshark's field list read once for all of them.
	fresh := make([][]byte, len(files))
	var fieldsFile string
	if live {
		out, err := exec.Command("tshark", "-G", "fields").Output()
		if err != nil {
			t.Fatalf("tshark -G fields: %v", err)
		}
		var names []string
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Split(l, "\t"); len(f) > 2 {
				names = append(names, f[2])
			}
		}
		fieldsFile = filepath.Join(t.TempDir(), "fields")
		if err := os.WriteFile(fieldsFile, []byte(strings.Join(names, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if live {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		errs := make([]error, len(files))
		for i, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				cmd := exec.Command("bash", "../tools/tshark-oracle.sh", f)
				cmd.Env = append(os.Environ(), "ORACLE_TSHARK_OPTS="+decodeAs[filepath.Base(f)], "ORACLE_FIELDS="+fieldsFile)
				out, err := cmd.Output()
				fresh[i], errs[i] = out, err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("tshark-oracle.sh %s: %v", files[i], err)
			}
		}
	}
	total := 0
	for i, f := range files {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			var rows map[int]oracleRow
			if live {
				rows = readOracle(t, bytes.NewReader(fresh[i]))
			} else {
				data, err := os.ReadFile(committedOracle(f))
				if err != nil {
					t.Fatal(err)
				}
				rows = readOracle(t, bytes.NewReader(data))
			}
			total += compareWithOracle(t, f, rows)
		})
	}
	t.Logf("%d RoCE packets in %d captures agree with Wireshark field by field (live tshark: %v)", total, len(files), live)
}

// compareWithOracle decodes every frame of path and compares it with rows.
func compareWithOracle(t *testing.T, path string, rows map[int]oracleRow) int {
	src, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var d Decoded
	decoders := map[uint16]*Decoder{}
	frame, matched, native := 0, 0, 0
	for {
		data, ci, link, err := src.ReadPacket()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		frame++
		dec, ok := decoders[uint16(link)]
		if !ok {
			dec, _ = NewDecoder(link)
			decoders[uint16(link)] = dec
		}
		row, inOracle := rows[frame]
		if dec == nil {
			if inOracle && row["transport"] == "ib" {
				native++ // native InfiniBand (ERF): not RoCE, not decoded
				continue
			}
			if inOracle {
				t.Errorf("frame %d: link type %v unsupported but Wireshark found a BTH", frame, link)
			}
			continue
		}
		isRoCE, derr := dec.Decode(data, ci.Length, &d)
		switch {
		case !inOracle && isRoCE:
			t.Errorf("frame %d: decoded as RoCE (%v) but Wireshark found no BTH", frame, d.RoCE.BTH.Opcode)
			continue
		case !inOracle:
			continue
		case !isRoCE:
			t.Errorf("frame %d: Wireshark decodes opcode %s, rdmatop says not RoCE", frame, row["opcode"])
			continue
		case derr != nil:
			t.Errorf("frame %d: %v", frame, derr)
			continue
		}
		if diffs := diffOracle(&d, row); len(diffs) > 0 {
			t.Errorf("frame %d (%s): %s", frame, d.RoCE.BTH.Opcode, strings.Join(diffs, "; "))
		}
		matched++
	}
	want := len(rows) - native
	if matched != want {
		t.Errorf("matched %d RoCE packets, Wireshark has %d (plus %d native IB)", matched, want, native)
	}
	if native > 0 {
		t.Logf("%d native InfiniBand frames (ERF link type) are not RoCE and are counted as other traffic", native)
	}
	return matched
}

// diffHeaders checks the network and UDP headers Decoded hands out as
// bytes (NetHdr, UDPHdr) against what Wireshark read from them.
func diffHeaders(d *Decoded, row oracleRow) []string {
	n, u := d.NetHdr, d.UDPHdr
	var src, dst netip.Addr
	var tc uint8
	switch {
	case d.IPv4 && len(n) >= 20 && int(n[0]&0xf)*4 == len(n):
		src, dst, tc = netip.AddrFrom4([4]byte(n[12:16])), netip.AddrFrom4([4]byte(n[16:20])), n[1]
	case !d.IPv4 && len(n) == 40:
		src, dst, tc = netip.AddrFrom16([16]byte(n[8:24])), netip.AddrFrom16([16]byte(n[24:40])), n[0]<<4|n[1]>>4
	default:
		return []string{fmt.Sprintf("NetHdr: %d bytes", len(n))}
	}
	got := fmt.Sprintf("%s %s dscp %d ecn %d", src, dst, tc>>2, tc&3)
	want := fmt.Sprintf("%s %s dscp %s ecn %s", row["src"], row["dst"], row["dscp"], row["ecn"])
	if d.Encap == EncapRoCEv2 {
		if len(u) != 8 {
			return []string{fmt.Sprintf("UDPHdr: %d bytes", len(u))}
		}
		got += fmt.Sprintf(" udp %d>%d", binary.BigEndian.Uint16(u), binary.BigEndian.Uint16(u[2:]))
		want += fmt.Sprintf(" udp %s>%s", row["udp_sport"], row["udp_dport"])
	} else if u != nil {
		return []string{"UDPHdr set for RoCEv1"}
	}
	if got != want {
		return []string{fmt.Sprintf("headers as bytes: %s, Wireshark %s", got, want)}
	}
	return nil
}

func diffOracle(d *Decoded, row oracleRow) []string {
	var diffs []string
	p := &d.RoCE
	b := &p.BTH
	num := func(field string, got uint64) {
		s := row[field]
		want, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("%s: oracle value %q unparsable", field, s))
			return
		}
		if got != want {
			diffs = append(diffs, fmt.Sprintf("%s: got %d, Wireshark %d", field, got, want))
		}
	}
	// optional numeric field: present in the oracle iff present here.
	opt := func(field string, have bool, got uint64) {
		s := row[field]
		switch {
		case s == "" && !have:
		case s == "" && have:
			diffs = append(diffs, fmt.Sprintf("%s: got %d, Wireshark has none", field, got))
		case !have:
			diffs = append(diffs, fmt.Sprintf("%s: Wireshark has %s, rdmatop none", field, s))
		default:
			num(field, got)
		}
	}
	hexopt := func(field string, have bool, got uint64) {
		if s := row[field]; s != "" && !strings.HasPrefix(s, "0x") {
			row[field] = "0x" + s
		}
		opt(field, have, got)
	}
	flag := func(v bool) uint64 {
		if v {
			return 1
		}
		return 0
	}
	tr := map[Encap]string{EncapRoCEv1: "rocev1", EncapRoCEv2: "rocev2"}[d.Encap]
	if row["transport"] != tr {
		diffs = append(diffs, fmt.Sprintf("transport: got %s, Wireshark %s", tr, row["transport"]))
	}
	for _, side := range []struct {
		field string
		addr  [16]byte
	}{{"src", d.Src}, {"dst", d.Dst}} {
		a := netip.AddrFrom16(side.addr)
		if d.IPv4 {
			a = a.Unmap()
		}
		if want, err := netip.ParseAddr(row[side.field]); err != nil || want != a {
			diffs = append(diffs, fmt.Sprintf("%s: got %s, Wireshark %s", side.field, a, row[side.field]))
		}
	}
	num("dscp", uint64(d.DSCP))
	num("ecn", uint64(d.ECN))
	diffs = append(diffs, diffHeaders(d, row)...)
	opt("vlan_id", d.VLAN, uint64(d.VLANID))
	opt("vlan_pcp", d.VLAN, uint64(d.PCP))
	if d.Encap == EncapRoCEv2 {
		num("udp_sport", uint64(d.SrcPort))
	}
	num("opcode", uint64(b.Opcode))
	num("se", flag(b.SolicitedEvent))
	num("migreq", flag(b.MigReq))
	num("padcnt", uint64(b.PadCount))
	num("tver", uint64(b.TVer))
	num("pkey", uint64(b.PKey))
	num("fecn", flag(b.FECN))
	num("becn", flag(b.BECN))
	num("destqp", uint64(b.DestQP))
	num("ackreq", flag(b.AckReq))
	num("psn", uint64(b.PSN))
	opt("aeth_syndrome", p.Has(roce.HasAETH), uint64(p.AETH.Syndrome))
	opt("aeth_msn", p.Has(roce.HasAETH), uint64(p.AETH.MSN))
	// tshark 4.0 shows an AtomicETH's VA and R_Key under the RETH fields.
	va, rkey, hasVA := p.RETH.VA, p.RETH.RKey, p.Has(roce.HasRETH)
	if p.Has(roce.HasAtomicETH) {
		va, rkey, hasVA = p.AtomicETH.VA, p.AtomicETH.RKey, true
	}
	opt("reth_va", hasVA, va)
	opt("reth_rkey", hasVA, uint64(rkey))
	opt("reth_dmalen", p.Has(roce.HasRETH), uint64(p.RETH.DMALength))
	opt("deth_qkey", p.Has(roce.HasDETH), uint64(p.DETH.QKey))
	opt("deth_srcqp", p.Has(roce.HasDETH), uint64(p.DETH.SrcQP))
	hexopt("immdt", p.Has(roce.HasImmDt), uint64(p.ImmDt.Data))
	hexopt("ieth", p.Has(roce.HasIETH), uint64(p.IETH.RKey))
	opt("atomic_swap", p.Has(roce.HasAtomicETH), p.AtomicETH.SwapAdd)
	opt("atomic_cmp", p.Has(roce.HasAtomicETH), p.AtomicETH.Compare)
	opt("atomicack_orig", p.Has(roce.HasAtomicAckETH), p.AtomicAckETH.OrigRemoteData)
	// tshark reads the ICRC bytes big-endian; the CRC is stored LSB first.
	// It shows no ICRC field for CNPs (opcode unknown to tshark 4.0).
	if row["icrc"] != "" {
		opt("icrc", p.HasICRC, uint64(bits.ReverseBytes32(p.ICRC)))
	}
	wantCheck := map[string]ICRCStatus{"ok": ICRCOK, "bad": ICRCBad}[row["icrc_check"]]
	if row["icrc_check"] == "na" {
		// the oracle does not check RoCEv1, IPv4 options or cut frames
		if d.ICRC == ICRCBad {
			diffs = append(diffs, "icrc: bad, and Wireshark's script could not check it")
		}
	} else if d.ICRC != wantCheck {
		diffs = append(diffs, fmt.Sprintf("icrc_check: got %s, oracle %s", d.ICRC, row["icrc_check"]))
	}
	return diffs
}
