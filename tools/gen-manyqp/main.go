// Command gen-manyqp writes the many-QP capture of issue 12 ("captures of AI
// clusters with 100k+ QPs"): by default 600,000 RoCEv2 packets of 120,000
// RC queue pairs between 64 hosts, as a pcap file (Ethernet, microsecond
// timestamps 1 µs apart). Nothing is sent anywhere: the addresses
// (10.0.0.0/16) are only packet contents in a file.
//
// Each QP is a connection from a requester host A to a responder host B
// (every ordered pair of hosts in turn, so each host is requester and
// responder of many QPs). With -packets-per-qp 5 it carries, PMTU 1024:
//
//	A→B  SEND ONLY     PSN p     64-byte payload, AckReq
//	A→B  WRITE FIRST   PSN p+1   RETH (VA, R_Key, DMA length 3072), 1024 bytes
//	A→B  WRITE MIDDLE  PSN p+2   1024 bytes
//	A→B  WRITE LAST    PSN p+3   1024 bytes, AckReq
//	B→A  ACK           PSN p+3   AETH: ACK with a credit count, MSN 2
//
// More packets repeat that unit with the next PSNs; a remainder of 1-4
// packets is a shorter valid exchange (SEND ONLY; SEND ONLY + ACK; 2-packet
// WRITE + ACK; 3-packet WRITE + ACK). The first PSN (any 24-bit value, so
// some QPs wrap), R_Key, VA and ACK credits of each QP come from a seeded
// generator; QPNs are unique per host (requester QPs even, responder QPs
// odd, from 0x100).
//
// The QPs are interleaved as on a busy fabric, not one after the other:
// they are taken in batches (-batch, default 1024) and within a batch sent
// round-robin, packet k of every QP of the batch before packet k+1 of any.
// So consecutive packets belong to different QPs, and a QP's ACK comes a
// few thousand packets (milliseconds) after its request.
//
// Every packet is valid: IPv4 header checksum, IP and UDP lengths, UDP
// checksum 0 (as RoCE NICs send it; the ICRC protects the packet), DSCP 26
// ECT(0), BTH (opcode, P_Key 0xffff, destination QP, PSN, AckReq, pad
// count) and the ICRC, built with capture/roce's serializers and sealed
// with roce.SealICRC. The output is deterministic: the same flags write the
// same bytes. Memory is bounded by one batch; the file is streamed.
//
// Run from the repository root:
//
//	go run ./tools/gen-manyqp -o /tmp/manyqp.pcap [-qps 120000] [-packets-per-qp 5] [-hosts 64]
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// Start is the timestamp of the first packet; Gap the time between two.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Gap is the time between two consecutive packets.
const Gap = time.Microsecond

// Fixed facts of every packet.
const (
	PMTU      = 1024
	SendBytes = 64       // payload of the SEND ONLY
	WriteLen  = 3 * PMTU // DMA length of a 3-packet WRITE
	TOS       = 26<<2 | 2
	Snaplen   = 65535
	firstQPN  = 0x100
	maxHosts  = 250 * 250
	maxQPs    = 4_000_000 // keeps every QPN within 24 bits
)

// Config is what the flags set.
type Config struct {
	QPs          int    // queue pairs (connections)
	PacketsPerQP int    // packets of each QP, both directions
	Hosts        int    // hosts; QPs go over every ordered pair in turn
	Batch        int    // QPs interleaved round-robin at a time
	Seed         uint64 // seed of the per-QP PSNs, R_Keys, VAs and credits
}

// Default is the capture of issue 12: 600,000 packets of 120,000 QPs.
var Default = Config{QPs: 120_000, PacketsPerQP: 5, Hosts: 64, Batch: 1024, Seed: 12}

// Check reports a configuration that cannot be generated.
func (c Config) Check() error {
	switch {
	case c.QPs < 1 || c.QPs > maxQPs:
		return fmt.Errorf("-qps %d: between 1 and %d", c.QPs, maxQPs)
	case c.PacketsPerQP < 1 || c.PacketsPerQP > 1_000_000:
		return fmt.Errorf("-packets-per-qp %d: between 1 and 1000000", c.PacketsPerQP)
	case c.Hosts < 2 || c.Hosts > maxHosts:
		return fmt.Errorf("-hosts %d: between 2 and %d", c.Hosts, maxHosts)
	case c.Batch < 1:
		return fmt.Errorf("-batch %d: at least 1", c.Batch)
	}
	return nil
}

func main() {
	c := Default
	out := flag.String("o", "", "pcap file to write (required)")
	flag.IntVar(&c.QPs, "qps", c.QPs, "number of RC queue pairs")
	flag.IntVar(&c.PacketsPerQP, "packets-per-qp", c.PacketsPerQP, "packets per queue pair (5: SEND ONLY, WRITE FIRST/MIDDLE/LAST, ACK)")
	flag.IntVar(&c.Hosts, "hosts", c.Hosts, "number of hosts (10.0.x.y)")
	flag.IntVar(&c.Batch, "batch", c.Batch, "queue pairs interleaved round-robin at a time")
	flag.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the per-QP PSNs, R_Keys, VAs and ACK credits")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gen-manyqp -o FILE [-qps N] [-packets-per-qp N] [-hosts N] [-batch N] [-seed N]")
		os.Exit(2)
	}
	if err := c.Check(); err != nil {
		fmt.Fprintln(os.Stderr, "gen-manyqp:", err)
		os.Exit(2)
	}
	n, err := writeFile(*out, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-manyqp:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gen-manyqp: %s: %d packets of %d QPs (%d flows) between %d hosts\n",
		*out, n, c.QPs, Flows(c), c.Hosts)
}

func writeFile(path string, c Config) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	n, err := Generate(bw, c)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return n, err
}

// Flows is the number of flows (source, destination, destination QP) of
// the capture: each QP's requests, and its ACKs if it has any.
func Flows(c Config) int {
	if c.PacketsPerQP == 1 {
		return c.QPs
	}
	return 2 * c.QPs
}

// step is one packet of a QP's exchange; every QP runs the same plan.
type step struct {
	op      roce.Opcode
	psn     int  // offset from the QP's first PSN
	payload int  // payload bytes
	ackReq  bool // BTH AckReq
	reth    bool // a RETH with the message's VA and DMA length
	dmaLen  uint32
	msg     uint32 // the message's index in the QP (for its VA)
	ack     bool   // an ACK from the responder
	msn     uint32 // the ACK's MSN: messages completed
}

// plan returns the packets of one QP: units of SEND ONLY, 3-packet WRITE and
// an ACK of both, then a shorter valid exchange for the remainder.
func plan(n int) []step {
	var s []step
	psn, msgs := 0, uint32(0)
	send := func() {
		s = append(s, step{op: roce.OpSendOnly, psn: psn, payload: SendBytes, ackReq: true})
		psn++
		msgs++
	}
	write := func(k int) {
		for i := range k {
			st := step{psn: psn, payload: PMTU, msg: msgs}
			switch {
			case i == 0:
				st.op, st.reth, st.dmaLen = roce.OpWriteFirst, true, uint32(k*PMTU)
			case i == k-1:
				st.op, st.ackReq = roce.OpWriteLast, true
			default:
				st.op = roce.OpWriteMiddle
			}
			s = append(s, st)
			psn++
		}
		msgs++
	}
	ack := func() { s = append(s, step{op: roce.OpAcknowledge, psn: psn - 1, ack: true, msn: msgs}) }
	for range n / 5 {
		send()
		write(3)
		ack()
	}
	switch n % 5 {
	case 1:
		send()
	case 2:
		send()
		ack()
	case 3:
		write(2)
		ack()
	case 4:
		write(3)
		ack()
	}
	return s
}

// host is one end of the fabric.
type host struct {
	mac net.HardwareAddr
	ip  net.IP
}

func hostAt(h int) host {
	// 10.0.(1+h/250).(1+h%250): never a .0 or .255 address.
	ip := net.IPv4(10, 0, byte(1+h/250), byte(1+h%250)).To4()
	return host{mac: net.HardwareAddr{0x02, 0x00, ip[0], ip[1], ip[2], ip[3]}, ip: ip}
}

// qp is one connection: requester a, responder b.
type qp struct {
	a, b       int    // hosts
	aQPN, bQPN uint32 // the requester's QP (ACKs go to it), the responder's (requests go to it)
	psn        uint32 // first PSN
	rkey       uint32
	va         uint64 // VA of the first message
	credits    uint8  // ACK credit code
}

// qpAt returns QP i. QPs go over the ordered host pairs (a, a+1+j): pair
// p = i mod pairs has a = p mod hosts, j = p div hosts, so consecutive QPs
// start on different hosts. Round r = i div pairs numbers a host's QPs with
// each peer. A's QPN is even, B's odd, both unique on their host.
func qpAt(c Config, i int) qp {
	hosts := c.Hosts
	pairs := hosts * (hosts - 1)
	p, r := i%pairs, i/pairs
	a, j := p%hosts, p/hosts
	b := (a + 1 + j) % hosts
	jb := hosts - 2 - j // a's index among b's peers
	rnd := splitmix{c.Seed ^ uint64(i)*0x9e3779b97f4a7c15}
	q := qp{
		a: a, b: b,
		aQPN: uint32(firstQPN + 2*(r*(hosts-1)+j)),
		bQPN: uint32(firstQPN + 1 + 2*(r*(hosts-1)+jb)),
	}
	q.psn = uint32(rnd.next()) & 0xffffff
	q.rkey = uint32(rnd.next())
	q.va = 0x7f0000000000 | rnd.next()&0xff_ffff_f000 // 4 KiB aligned
	q.credits = uint8(8 + rnd.next()%13)              // 16..1024 credits: never 0
	return q
}

// splitmix is SplitMix64: a small, fixed, seeded generator.
type splitmix struct{ s uint64 }

func (g *splitmix) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	z := g.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Generate writes the capture c describes to w as a pcap file and returns
// the number of packets written.
func Generate(w io.Writer, c Config) (int, error) {
	if err := c.Check(); err != nil {
		return 0, err
	}
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(Snaplen, layers.LinkTypeEthernet); err != nil {
		return 0, err
	}
	hosts := make([]host, c.Hosts)
	for h := range hosts {
		hosts[h] = hostAt(h)
	}
	steps := plan(c.PacketsPerQP)
	b := newBuilder()
	batch := make([]qp, 0, min(c.Batch, c.QPs))
	ts, n := Start, 0
	for first := 0; first < c.QPs; first += c.Batch {
		batch = batch[:0]
		for i := first; i < min(first+c.Batch, c.QPs); i++ {
			batch = append(batch, qpAt(c, i))
		}
		for _, st := range steps {
			for k := range batch {
				frame, err := b.frame(hosts, &batch[k], &st)
				if err != nil {
					return n, err
				}
				ci := gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(frame), Length: len(frame)}
				if err := pw.WritePacket(ci, frame); err != nil {
					return n, err
				}
				ts = ts.Add(Gap)
				n++
			}
		}
	}
	return n, nil
}

// builder serializes frames into one reused buffer.
type builder struct {
	buf     gopacket.SerializeBuffer
	payload [PMTU]byte
}

func newBuilder() *builder { return &builder{buf: gopacket.NewSerializeBuffer()} }

// frame builds step st of QP q. The frame is valid until the next call.
func (b *builder) frame(hosts []host, q *qp, st *step) ([]byte, error) {
	pkt := roce.Packet{BTH: roce.BTH{Opcode: st.op, PKey: 0xffff, AckReq: st.ackReq,
		PSN: (q.psn + uint32(st.psn)) & 0xffffff}}
	src, dst, srcQPN := hosts[q.a], hosts[q.b], q.aQPN
	pkt.BTH.DestQP = q.bQPN
	if st.ack {
		src, dst, srcQPN = hosts[q.b], hosts[q.a], q.bQPN
		pkt.BTH.DestQP = q.aQPN
		// An ACK's syndrome is 000 and a 5-bit credit code.
		pkt.AETH = roce.AETH{Syndrome: q.credits, MSN: st.msn}
	}
	if st.reth {
		pkt.RETH = roce.RETH{VA: q.va + uint64(st.msg)<<16, RKey: q.rkey, DMALength: st.dmaLen}
	}
	payload := b.payload[:st.payload]
	for i := range payload {
		payload[i] = byte(pkt.BTH.PSN + uint32(i))
	}
	return buildFrame(b.buf, src, dst, uint16(0xc000|srcQPN&0x3fff), &pkt, payload)
}

// buildFrame serializes Ethernet, IPv4 (DF, TTL 64, checksum), UDP to port
// 4791 (checksum 0) and pkt with its payload into buf, and seals the ICRC.
func buildFrame(buf gopacket.SerializeBuffer, src, dst host, sport uint16, pkt *roce.Packet, payload []byte) ([]byte, error) {
	eth := &layers.Ethernet{SrcMAC: src.mac, DstMAC: dst.mac, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, IHL: 5, TOS: TOS, TTL: 64, Flags: layers.IPv4DontFragment,
		Protocol: layers.IPProtocolUDP, SrcIP: src.ip, DstIP: dst.ip}
	udp := zeroChecksum{&layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: roce.UDPPort}}
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, eth, ip, udp, pkt, gopacket.Payload(payload)); err != nil {
		return nil, fmt.Errorf("serialize %s PSN %d: %w", pkt.BTH.Opcode, pkt.BTH.PSN, err)
	}
	frame := buf.Bytes()
	if len(frame) < 60 {
		return nil, errors.New("frame shorter than the Ethernet minimum") // cannot happen: an ACK is 62 bytes
	}
	if err := roce.SealICRC(frame[14:], false); err != nil {
		return nil, err
	}
	return frame, nil
}

// zeroChecksum serializes a UDP header with checksum 0 while the other
// layers get theirs computed (as capture/scenario does).
type zeroChecksum struct{ *layers.UDP }

func (z zeroChecksum) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	opts.ComputeChecksums = false
	z.Checksum = 0
	return z.UDP.SerializeTo(b, opts)
}
