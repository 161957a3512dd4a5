package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
	"github.com/rdmatop/rdmatop/capture/scenario"
)

// small is the test's capture: 200 QPs between 64 hosts, 5 packets each,
// in batches smaller than the whole so that the interleaving shows.
var small = Config{QPs: 200, PacketsPerQP: 5, Hosts: 64, Batch: 64, Seed: Default.Seed}

func generate(t *testing.T, c Config) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := Generate(&b, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := c.QPs * c.PacketsPerQP; n != want {
		t.Fatalf("Generate wrote %d packets, want %d", n, want)
	}
	return b.Bytes()
}

func writeTemp(t *testing.T, c Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manyqp.pcap")
	if _, err := writeFile(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

type record struct {
	ci   gopacket.CaptureInfo
	data []byte
}

func readAll(t *testing.T, file []byte) []record {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, record{ci, data})
	}
}

// The same flags write the same bytes; another seed writes other bytes.
func TestDeterministic(t *testing.T) {
	a := generate(t, small)
	b := generate(t, small)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same configuration differ")
	}
	f, err := os.ReadFile(writeTemp(t, small))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, f) {
		t.Fatal("the file differs from what Generate writes")
	}
	c := small
	c.Seed++
	if bytes.Equal(a, generate(t, c)) {
		t.Fatal("another seed writes the same bytes")
	}
}

// Every frame is a well-formed RoCEv2 packet over IPv4: lengths, IPv4
// header checksum, UDP port and zero checksum, ICRC; timestamps 1 µs apart.
func TestHeaders(t *testing.T) {
	recs := readAll(t, generate(t, small))
	if len(recs) != small.QPs*small.PacketsPerQP {
		t.Fatalf("%d packets, want %d", len(recs), small.QPs*small.PacketsPerQP)
	}
	for i, r := range recs {
		d := r.data
		if r.ci.CaptureLength != len(d) || r.ci.Length != len(d) {
			t.Fatalf("packet %d: capture length %d, length %d, %d bytes", i+1, r.ci.CaptureLength, r.ci.Length, len(d))
		}
		if want := Start.Add(Gap * time.Duration(i)); !r.ci.Timestamp.Equal(want) {
			t.Fatalf("packet %d: time %v, want %v", i+1, r.ci.Timestamp, want)
		}
		if len(d) < 60 || binary.BigEndian.Uint16(d[12:]) != 0x0800 {
			t.Fatalf("packet %d: not IPv4 over Ethernet (%d bytes)", i+1, len(d))
		}
		ip, udp := d[14:34], d[34:42]
		if ip[0] != 0x45 || ip[1] != TOS || ip[9] != 17 || ip[8] != 64 {
			t.Fatalf("packet %d: IPv4 header % x", i+1, ip)
		}
		if got := int(binary.BigEndian.Uint16(ip[2:])); got != len(d)-14 {
			t.Fatalf("packet %d: IPv4 total length %d, frame has %d", i+1, got, len(d)-14)
		}
		var sum uint32
		for k := 0; k < 20; k += 2 {
			sum += uint32(binary.BigEndian.Uint16(ip[k:]))
		}
		for sum > 0xffff {
			sum = sum&0xffff + sum>>16
		}
		if sum != 0xffff {
			t.Fatalf("packet %d: bad IPv4 header checksum % x", i+1, ip[10:12])
		}
		if !netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, 0, 0}), 16).Contains(netip.AddrFrom4([4]byte(ip[12:16]))) {
			t.Fatalf("packet %d: source %v outside 10.0.0.0/16", i+1, ip[12:16])
		}
		if binary.BigEndian.Uint16(udp[2:]) != roce.UDPPort || binary.BigEndian.Uint16(udp[6:]) != 0 {
			t.Fatalf("packet %d: UDP header % x", i+1, udp)
		}
		if got := int(binary.BigEndian.Uint16(udp[4:])); got != len(d)-34 {
			t.Fatalf("packet %d: UDP length %d, want %d", i+1, got, len(d)-34)
		}
		var p roce.Packet
		if err := p.Decode(d[42:], len(d)-42); err != nil {
			t.Fatalf("packet %d: %v", i+1, err)
		}
		if crc := roce.ICRCv4(ip, udp, p.Contents); crc != p.ICRC {
			t.Fatalf("packet %d: ICRC %08x, want %08x", i+1, p.ICRC, crc)
		}
		if p.BTH.PKey != 0xffff || p.BTH.PadCount != 0 {
			t.Fatalf("packet %d: BTH %+v", i+1, p.BTH)
		}
	}
}

// QPs are interleaved: within a batch, packet k of every QP of the batch
// comes before packet k+1 of any; no two consecutive packets of a batch
// step belong to the same flow.
func TestInterleaved(t *testing.T) {
	recs := readAll(t, generate(t, small))
	steps := plan(small.PacketsPerQP)
	i := 0
	for first := 0; first < small.QPs; first += small.Batch {
		size := min(small.Batch, small.QPs-first)
		for _, st := range steps {
			seen := map[string]bool{}
			for k := range size {
				d := recs[i].data
				var p roce.Packet
				if err := p.Decode(d[42:], len(d)-42); err != nil {
					t.Fatal(err)
				}
				if p.BTH.Opcode != st.op {
					t.Fatalf("packet %d (QP %d): %s, want %s", i+1, first+k, p.BTH.Opcode, st.op)
				}
				flow := fmt.Sprint(d[26:34], p.BTH.DestQP)
				if seen[flow] {
					t.Fatalf("packet %d: flow %s twice in one round", i+1, flow)
				}
				seen[flow] = true
				i++
			}
		}
	}
}

// rdmatop's analysis (capture.AnalyzeFile, what `rdmatop replay` runs)
// sees every QP's two flows, every packet RoCE with a good ICRC, and no
// PSN gap, retransmission, NAK or anomaly - for every exchange length,
// and with QPNs reused across hosts (2 hosts, many QPs per pair).
func TestAnalyze(t *testing.T) {
	cases := []Config{small, {QPs: 300, PacketsPerQP: 5, Hosts: 2, Batch: 100, Seed: 1}}
	for n := 1; n <= 11; n++ {
		if n != 5 {
			cases = append(cases, Config{QPs: 40, PacketsPerQP: n, Hosts: 5, Batch: 16, Seed: 3})
		}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("qps=%d,ppq=%d,hosts=%d", c.QPs, c.PacketsPerQP, c.Hosts), func(t *testing.T) {
			s, err := capture.AnalyzeFile(writeTemp(t, c), capture.Config{})
			if err != nil {
				t.Fatal(err)
			}
			pkts := uint64(c.QPs * c.PacketsPerQP)
			if s.Packets != pkts || s.RoCEPackets != pkts || s.RoCEv2Packets != pkts {
				t.Errorf("packets %d, RoCE %d, RoCEv2 %d; want %d", s.Packets, s.RoCEPackets, s.RoCEv2Packets, pkts)
			}
			if s.MalformedPackets+s.TruncatedPackets+s.NonRoCEPackets != 0 {
				t.Errorf("malformed %d, truncated %d, non-RoCE %d", s.MalformedPackets, s.TruncatedPackets, s.NonRoCEPackets)
			}
			tt := s.Totals
			if tt.Flows != uint64(Flows(c)) || len(s.Flows) != Flows(c) || s.FlowsEvicted != 0 {
				t.Errorf("flows %d (%d listed, %d evicted), want %d", tt.Flows, len(s.Flows), s.FlowsEvicted, Flows(c))
			}
			if tt.ICRCOK != pkts || tt.ICRCErrors != 0 || tt.ICRCUnverifiable != 0 {
				t.Errorf("ICRC ok %d, errors %d, unverifiable %d; want %d ok", tt.ICRCOK, tt.ICRCErrors, tt.ICRCUnverifiable, pkts)
			}
			if tt.PSNGaps+tt.MissingPSNs+tt.RetransmittedPackets+tt.GoBackN+tt.OutOfOrder+tt.Duplicates+tt.NAKs.Total()+tt.ZeroCreditACKs+tt.CNPs+tt.ECNCE != 0 {
				t.Errorf("trouble in a clean capture: %+v", tt)
			}
			if len(s.Anomalies) != 0 {
				t.Errorf("anomalies: %+v", s.Anomalies[:min(5, len(s.Anomalies))])
			}
			acks := 0
			for _, st := range plan(c.PacketsPerQP) {
				if st.ack {
					acks++
				}
			}
			if tt.ACKs != uint64(acks*c.QPs) {
				t.Errorf("ACKs %d, want %d", tt.ACKs, acks*c.QPs)
			}
			if c.PacketsPerQP >= 5 && s.PMTU != PMTU {
				t.Errorf("PMTU %d (%s), want %d", s.PMTU, s.PMTUSource, PMTU)
			}
			for _, f := range s.Flows {
				if f.Transport != "RC" || f.Troubled {
					t.Errorf("flow %d %s->%s QP %#x: transport %s, troubled %v", f.ID, f.Src, f.Dst, f.DestQP, f.Transport, f.Troubled)
					break
				}
			}
		})
	}
}

// The frame builder writes what capture/scenario (the generator of
// testdata/scenarios) writes for the same packet, byte for byte.
func TestFramesMatchScenario(t *testing.T) {
	a, b := hostAt(0), hostAt(7)
	const aQPN, bQPN, psn = 0x1234, 0x567, 0xfffffe // PSNs wrap
	var buf bytes.Buffer
	cp := scenario.NewCapture(&buf, 0)
	conn := cp.Open(scenario.Conn{
		A:    scenario.Endpoint{MAC: a.mac, IP: netip.AddrFrom4([4]byte(a.ip)), QPN: aQPN, PSN: psn},
		B:    scenario.Endpoint{MAC: b.mac, IP: netip.AddrFrom4([4]byte(b.ip)), QPN: bQPN},
		DSCP: TOS >> 2, ECN: TOS & 3,
	})
	conn.Send(SendBytes)
	last := conn.Write(WriteLen)
	conn.Ack(last)
	if err := cp.Close(); err != nil {
		t.Fatal(err)
	}
	want := readAll(t, buf.Bytes())

	// The same packets, with scenario's fixed R_Key, VA and credit-less ACK.
	sb := gopacket.NewSerializeBuffer()
	var got [][]byte
	for _, st := range plan(5) {
		pkt := roce.Packet{BTH: roce.BTH{Opcode: st.op, PKey: 0xffff, DestQP: bQPN, AckReq: st.ackReq,
			PSN: (psn + uint32(st.psn)) & 0xffffff}}
		src, dst, sport := a, b, uint16(0xc000|aQPN&0x3fff)
		if st.ack {
			src, dst, sport = b, a, uint16(0xc000|bQPN&0x3fff)
			pkt.BTH.DestQP = aQPN
			pkt.AETH = roce.AETH{Syndrome: 0x1f, MSN: st.msn}
		}
		if st.reth {
			pkt.RETH = roce.RETH{VA: 0x7f0000000000 + uint64(st.msg)<<16, RKey: 0x1234, DMALength: st.dmaLen}
		}
		payload := make([]byte, st.payload)
		for i := range payload {
			payload[i] = byte(pkt.BTH.PSN + uint32(i))
		}
		f, err := buildFrame(sb, src, dst, sport, &pkt, payload)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, bytes.Clone(f))
	}
	if len(got) != len(want) {
		t.Fatalf("%d frames, scenario wrote %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i].data) {
			t.Errorf("frame %d differs from scenario's:\n got % x\nwant % x", i+1, got[i], want[i].data)
		}
	}
}

// Wireshark decodes every packet as InfiniBand over RoCEv2, with the
// opcodes of the plan, AckReq on the last packet of each request and
// each request flow's PSNs consecutive.
func TestTshark(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark not installed (Debian package tshark)")
	}
	path := writeTemp(t, small)
	out, err := exec.Command("tshark", "-n", "-r", path, "-o", "infiniband.rroce.port:4791",
		"-Y", "infiniband.bth", "-T", "fields", "-E", "separator=,",
		"-e", "ip.src", "-e", "ip.dst", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp",
		"-e", "infiniband.bth.psn", "-e", "infiniband.bth.a").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	opcodes := map[string]int{}
	next := map[string]uint32{}
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		lines++
		f := strings.Split(sc.Text(), ",")
		if len(f) != 6 {
			t.Fatalf("line %d: %q", lines, sc.Text())
		}
		opcodes[f[2]]++
		wantAck := f[2] == strconv.Itoa(int(roce.OpSendOnly)) || f[2] == strconv.Itoa(int(roce.OpWriteLast))
		if (f[5] == "1") != wantAck {
			t.Errorf("line %d: opcode %s with AckReq %s", lines, f[2], f[5])
		}
		psn, err := strconv.ParseUint(f[4], 10, 32)
		if err != nil {
			t.Fatalf("line %d: PSN %q", lines, f[4])
		}
		if f[2] == strconv.Itoa(int(roce.OpAcknowledge)) {
			continue
		}
		flow := f[0] + ">" + f[1] + "/" + f[3]
		if want, ok := next[flow]; ok && uint32(psn) != want {
			t.Errorf("line %d: flow %s PSN %d, want %d", lines, flow, psn, want)
		}
		next[flow] = uint32(psn+1) & 0xffffff
	}
	if pkts := small.QPs * small.PacketsPerQP; lines != pkts {
		t.Fatalf("tshark decodes %d BTHs, want %d", lines, pkts)
	}
	if len(next) != small.QPs {
		t.Errorf("%d request flows, want %d", len(next), small.QPs)
	}
	for _, op := range []roce.Opcode{roce.OpSendOnly, roce.OpWriteFirst, roce.OpWriteMiddle, roce.OpWriteLast, roce.OpAcknowledge} {
		if n := opcodes[strconv.Itoa(int(op))]; n != small.QPs {
			t.Errorf("opcode %s: %d packets, want %d", op, n, small.QPs)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []Config{
		{QPs: 0, PacketsPerQP: 5, Hosts: 64, Batch: 1},
		{QPs: 1, PacketsPerQP: 0, Hosts: 64, Batch: 1},
		{QPs: 1, PacketsPerQP: 5, Hosts: 1, Batch: 1},
		{QPs: 1, PacketsPerQP: 5, Hosts: 64, Batch: 0},
		{QPs: maxQPs + 1, PacketsPerQP: 5, Hosts: 64, Batch: 1},
	} {
		if _, err := Generate(io.Discard, c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if err := Default.Check(); err != nil {
		t.Fatal(err)
	}
}
