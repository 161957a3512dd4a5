package scenario

import (
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// Encap is how a Conn's packets are carried.
type Encap uint8

// Encapsulations. RoCEv2 runs over IPv4 or IPv6 as the endpoints'
// addresses say; RoCEv1's endpoint addresses are GIDs (IPv6 form).
const (
	RoCEv2 Encap = iota // UDP port 4791
	RoCEv1              // EtherType 0x8915 with a GRH
)

// ECN codepoints of the IP header (and of the GRH traffic class).
const (
	NotECT uint8 = 0
	ECT1   uint8 = 1
	ECT0   uint8 = 2
	ECNCE  uint8 = 3
)

// CNPDSCP is the DSCP of CNPs (Not-ECT), as NICs commonly send them.
const CNPDSCP = 48

// ackSyndrome is an ACK without end-to-end credits (AETH syndrome 0x1f).
const ackSyndrome = 0x1f

// Endpoint is one side of a connection.
type Endpoint struct {
	MAC net.HardwareAddr
	IP  netip.Addr // IPv4 or IPv6 address (RoCEv2), or GID (RoCEv1)
	QPN uint32
	PSN uint32 // the first PSN of the requests this endpoint sends
}

// Fate is what happens to one frame between the sender and the file.
// Fates combine with |.
type Fate uint8

// Fates. Keep is the zero value: the frame is captured as sent.
const (
	Drop      Fate = 1 << iota // lost before the capture point: not in the file
	Duplicate                  // captured twice (e.g. a mirror that copies it twice)
	Delay                      // captured after the next frame: the two are swapped
	CE                         // ECN set to Congestion Experienced by a switch
	BadICRC                    // a byte of the ICRC flipped after the sender sealed it
	Keep      Fate = 0
)

// Conn is a reliable connection (RC) between A and B written into a
// Capture. A is the requester: Write, Send and Read go from A to B's QP,
// and Ack, NAK, RNRNAK, CNP and READ responses from B to A's QP. Reverse
// gives the connection with the roles swapped.
type Conn struct {
	A, B  Endpoint
	Encap Encap
	PMTU  int    // path MTU in bytes; 0 means 1024
	VLAN  uint16 // 802.1Q VLAN id; 0 means untagged
	PCP   uint8  // 802.1Q priority
	// PCPB, when set, is the priority of B's packets: each side tags
	// with its own QP's service level.
	PCPB *uint8
	DSCP uint8
	ECN  uint8 // ECN codepoint of every packet but CNPs (which are Not-ECT)

	cp     *Capture
	ab, ba path
	next   uint32             // PSN of A's next request
	msgs   uint32             // messages A has started: B's MSN
	sent   map[uint32]request // A's requests by PSN, for GoBack
	fates  []Fate
}

type request struct {
	pkt     roce.Packet
	payload []byte
}

// Open binds a connection (a template: A, B, encapsulation, PMTU, VLAN,
// DSCP, ECN) to the capture; A's first request gets PSN A.PSN.
func (cp *Capture) Open(c Conn) *Conn {
	if c.PMTU == 0 {
		c.PMTU = 1024
	}
	c.cp = cp
	c.next = c.A.PSN & 0xffffff
	c.sent = map[uint32]request{}
	c.fates = nil
	c.ab = c.path(c.A, c.B)
	c.ba = c.path(c.B, c.A)
	if c.PCPB != nil {
		c.ba.pcp = *c.PCPB
	}
	return &c
}

func (c *Conn) path(from, to Endpoint) path {
	return path{srcMAC: from.MAC, dstMAC: to.MAC, src: from.IP, dst: to.IP, v1: c.Encap == RoCEv1,
		vlan: c.VLAN, pcp: c.PCP, sport: uint16(0xc000 | from.QPN&0x3fff)}
}

// Reverse returns the same connection with B as the requester, starting at
// B.PSN. It has its own PSNs and fates.
func (c *Conn) Reverse() *Conn {
	r := *c
	r.A, r.B = c.B, c.A
	return c.cp.Open(r)
}

// Next sets the fates of the next len(fates) frames this Conn sends, in
// either direction and in order, after any fates already pending. Frames
// without a fate are kept.
func (c *Conn) Next(fates ...Fate) { c.fates = append(c.fates, fates...) }

// Wait advances the capture's clock by d.
func (c *Conn) Wait(d time.Duration) { c.cp.Wait(d) }

// Write sends an RDMA WRITE of n bytes from A (ONLY, or FIRST, MIDDLE…,
// LAST, one PMTU each; AckReq on the last) and returns its last PSN.
func (c *Conn) Write(n int) uint32 {
	return c.message(n, true, roce.OpWriteFirst, roce.OpWriteMiddle, roce.OpWriteLast, roce.OpWriteOnly)
}

// Send sends a SEND of n bytes from A and returns its last PSN.
func (c *Conn) Send(n int) uint32 {
	return c.message(n, false, roce.OpSendFirst, roce.OpSendMiddle, roce.OpSendLast, roce.OpSendOnly)
}

// Read sends an RDMA READ request for n bytes and B's responses; it
// returns the request's PSN.
func (c *Conn) Read(n int) uint32 {
	psn := c.ReadRequest(n)
	c.ReadResponse(psn)
	return psn
}

// ReadRequest sends an RDMA READ request for n bytes and returns its PSN.
// It uses one PSN per response packet: ceil(n/PMTU).
func (c *Conn) ReadRequest(n int) uint32 {
	psn := c.next
	pkt := roce.Packet{BTH: c.bth(roce.OpReadRequest, c.B.QPN, psn)}
	pkt.RETH = roce.RETH{VA: c.va(), RKey: 0x1234, DMALength: uint32(n)}
	c.sent[psn] = request{pkt: pkt}
	c.emit(&c.ab, &pkt, nil, c.tos())
	c.next = psnAdd(psn, c.packets(n))
	c.msgs++
	return psn
}

// ReadResponse sends B's responses to the READ request A sent with PSN psn:
// ONLY, or FIRST, MIDDLE…, LAST, with an ACK AETH on the first and last.
func (c *Conn) ReadResponse(psn uint32) {
	req, ok := c.sent[psn]
	if !ok || req.pkt.BTH.Opcode != roce.OpReadRequest {
		c.cp.fail(fmt.Errorf("ReadResponse: no READ request with PSN %d", psn))
		return
	}
	n := int(req.pkt.RETH.DMALength)
	k := c.packets(n)
	for i := range k {
		op := pick(i, k, roce.OpReadResponseFirst, roce.OpReadResponseMiddle, roce.OpReadResponseLast, roce.OpReadResponseOnly)
		pkt := roce.Packet{BTH: c.bth(op, c.A.QPN, psnAdd(psn, i))}
		pkt.AETH = roce.AETH{Syndrome: ackSyndrome, MSN: c.msgs}
		c.emit(&c.ba, &pkt, pattern(pkt.BTH.PSN, min(c.PMTU, n-i*c.PMTU)), c.tos())
	}
}

// Ack sends B's ACK for the requests up to psn.
func (c *Conn) Ack(psn uint32) { c.acknowledge(ackSyndrome, psn) }

// NAK sends B's NAK with the given code; psn is the PSN it concerns (for a
// PSN sequence error, the one B expects).
func (c *Conn) NAK(code roce.NAKCode, psn uint32) { c.acknowledge(0x60|uint8(code)&0x1f, psn) }

// RNRNAK sends B's receiver-not-ready NAK for psn with a 5-bit timer code
// (roce.RNRTimerDuration says how long A must wait).
func (c *Conn) RNRNAK(timer uint8, psn uint32) { c.acknowledge(0x20|timer&0x1f, psn) }

// CNP sends a congestion notification from B to A's QP: B saw CE marks on
// A's packets. BTH PSN 0, BECN set, DSCP CNPDSCP, Not-ECT.
func (c *Conn) CNP() {
	pkt := roce.Packet{BTH: c.bth(roce.OpcodeCNP, c.A.QPN, 0)}
	pkt.BTH.BECN = true
	c.emit(&c.ba, &pkt, nil, CNPDSCP<<2|NotECT)
}

// GoBack resends every request A sent from PSN psn to the last one, as a
// requester does after a NAK, an RNR NAK or a timeout.
func (c *Conn) GoBack(psn uint32) {
	if d := psnDiff(psn, c.next); d <= 0 {
		c.cp.fail(fmt.Errorf("GoBack(%d): nothing sent from that PSN (next is %d)", psn, c.next))
		return
	}
	for q := psn; q != c.next; q = psnAdd(q, 1) {
		if r, ok := c.sent[q]; ok {
			c.emit(&c.ab, &r.pkt, r.payload, c.tos())
		}
	}
}

func (c *Conn) acknowledge(syndrome uint8, psn uint32) {
	pkt := roce.Packet{BTH: c.bth(roce.OpAcknowledge, c.A.QPN, psn)}
	pkt.AETH = roce.AETH{Syndrome: syndrome, MSN: c.msgs}
	c.emit(&c.ba, &pkt, nil, c.tos())
}

// message sends one WRITE or SEND of n bytes split at the PMTU.
func (c *Conn) message(n int, reth bool, first, middle, last, only roce.Opcode) uint32 {
	k := c.packets(n)
	for i := range k {
		pkt := roce.Packet{BTH: c.bth(pick(i, k, first, middle, last, only), c.B.QPN, c.next)}
		pkt.BTH.AckReq = i == k-1
		if reth && i == 0 {
			pkt.RETH = roce.RETH{VA: c.va(), RKey: 0x1234, DMALength: uint32(n)}
		}
		payload := pattern(c.next, min(c.PMTU, n-i*c.PMTU))
		c.sent[c.next] = request{pkt: pkt, payload: payload}
		c.emit(&c.ab, &pkt, payload, c.tos())
		c.next = psnAdd(c.next, 1)
	}
	c.msgs++
	return psnAdd(c.next, -1)
}

// emit applies the next fate to a packet and hands the frame to the capture.
func (c *Conn) emit(p *path, pkt *roce.Packet, payload []byte, tos uint8) {
	var fate Fate
	if len(c.fates) > 0 {
		fate, c.fates = c.fates[0], c.fates[1:]
	}
	if fate&Drop != 0 {
		return
	}
	if fate&CE != 0 {
		tos |= ECNCE
	}
	pkt2 := *pkt // serializing sets the pad count: keep the stored copy pristine
	frame := c.cp.frame(p, tos, &pkt2, payload)
	if frame == nil {
		return
	}
	if fate&BadICRC != 0 {
		frame[len(frame)-roce.ICRCLen] ^= 0xff
	}
	if fate&Delay != 0 {
		c.cp.hold(frame)
		return
	}
	c.cp.write(frame)
	if fate&Duplicate != 0 {
		c.cp.write(frame)
	}
	c.cp.release()
}

func (c *Conn) bth(op roce.Opcode, qp, psn uint32) roce.BTH {
	return roce.BTH{Opcode: op, PKey: 0xffff, DestQP: qp, PSN: psn}
}

func (c *Conn) tos() uint8 { return c.DSCP<<2 | c.ECN&3 }

// va is the remote address of A's next message: anything, but fixed.
func (c *Conn) va() uint64 { return 0x7f0000000000 + uint64(c.msgs)<<16 }

// packets is how many packets (and PSNs) a message of n bytes takes.
func (c *Conn) packets(n int) int { return max(1, (n+c.PMTU-1)/c.PMTU) }

// pick returns the opcode of packet i of a k-packet message.
func pick(i, k int, first, middle, last, only roce.Opcode) roce.Opcode {
	switch {
	case k == 1:
		return only
	case i == 0:
		return first
	case i == k-1:
		return last
	}
	return middle
}

// pattern is the payload of the packet with PSN psn: n bytes, never all alike.
func pattern(psn uint32, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(int(psn) + i)
	}
	return b
}

func psnAdd(p uint32, n int) uint32 { return uint32(int(p)+n) & 0xffffff }

// psnDiff returns b-a in (-2^23, 2^23].
func psnDiff(a, b uint32) int {
	d := int((b - a) & 0xffffff)
	if d > 1<<23 {
		d -= 1 << 24
	}
	return d
}
