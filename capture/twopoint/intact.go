package twopoint

import (
	"hash/maphash"

	"github.com/rdmatop/rdmatop/capture"
)

// A packet arrives intact when the path changed only what a path changes:
// the Ethernet header (every routed hop writes new addresses, a VLAN tag
// is pushed or popped), and in the network header the per-hop fields:
// IPv4 TOS, TTL and header checksum; IPv6's (and the GRH's) traffic class
// and hop limit. The rest of the network header, the UDP header and the
// IBA transport headers no switch or router rewrites: addresses, IPv4 ID
// and flags, the IPv6 flow label (RFC 6437 §2: a nonzero one delivered
// unchanged; one a path sets on every packet is its own: printVaries),
// the UDP ports, length and checksum (its pseudo-header holds no per-hop
// field), and BTH through the last extended header (an Ethernet path does
// not parse them; their F and B bits are InfiniBand switches' alone). A
// packet corrupted on the way in any of those is told by comparing its
// two copies: a headers-only capture tells it too, where its ICRC cannot
// be checked. Even the per-hop fields are told: a bit flipped in the
// traffic class or hop limit makes a packet unlike its flow's others
// (pathRewrite), and in an IPv4 header the checksum fails.

// Flags of a pkt.
const (
	pktBadICRC    uint8 = 1 << iota // its ICRC failed here
	pktCut                          // its ICRC could not be checked (snap length)
	pktHdrCut                       // its headers were not all captured: print unknown
	pktBadIPv4Sum                   // its IPv4 header checksum fails
)

var printSeed = maphash.MakeSeed()

// headerPrint hashes the headers a path leaves unchanged (above), and
// reports whether they were all captured.
func headerPrint(d *capture.Decoded, buf []byte) (uint32, []byte, bool) {
	n := d.NetHdr
	if len(n) == 0 {
		return 0, buf, false
	}
	buf = append(buf[:0], n...)
	if d.IPv4 && d.Encap == capture.EncapRoCEv2 {
		buf[1], buf[8], buf[10], buf[11] = 0, 0, 0, 0 // TOS, TTL, checksum
	} else if len(buf) >= 8 {
		buf[0] &= 0xf0 // traffic class, high nibble
		buf[1] &= 0x0f // traffic class, low nibble
		buf[7] = 0     // hop limit
	}
	buf = append(buf, d.UDPHdr...)
	c, h := d.RoCE.Contents, d.RoCE.HeaderLen
	whole := len(c) >= h
	buf = append(buf, c[:min(h, len(c))]...)
	return uint32(maphash.Bytes(printSeed, buf)), buf, whole
}

// hopCount is the packet's IPv4 TTL or IPv6 (GRH) hop limit.
func hopCount(d *capture.Decoded) uint8 {
	n := d.NetHdr
	switch {
	case d.IPv4 && d.Encap == capture.EncapRoCEv2 && len(n) > 8:
		return n[8]
	case !d.IPv4 && len(n) > 7:
		return n[7]
	}
	return 0
}

// ipv4SumBad reports whether an IPv4 header's checksum fails (RFC 791:
// the ones' complement sum of the header's 16-bit words is all ones).
// A router that changes the TOS or TTL writes a new one.
func ipv4SumBad(d *capture.Decoded) bool {
	n := d.NetHdr
	if !d.IPv4 || d.Encap != capture.EncapRoCEv2 || len(n) < 20 {
		return false
	}
	var s uint32
	for i := 0; i+1 < len(n); i += 2 {
		s += uint32(n[i])<<8 | uint32(n[i+1])
	}
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	return s != 0xffff
}

// pathRewrite is what the path does to every packet of a flow in the
// per-hop fields: how many hops it counts down, and the traffic class
// (DSCP and ECN) a packet sent with the flow's usual one arrives with (a
// switch may remark a class, or clear ECN at a domain's edge). It is
// taken from the flow's packets matched one to one (medians: a bit
// flipped in a few packets does not move them); known is false when
// there were none.
type pathRewrite struct {
	hops       uint8 // upstream hop count minus downstream's
	tcUp, tcDn uint8 // traffic class sent, and as it arrives
	known      bool
	// printVaries: most of the flow's packets arrive with other headers
	// than they left with. Damage is what befalls some packets; a field
	// rewritten on every packet (a flow label a router sets where the
	// sender left it zero, RFC 6437 §2) is the path's, and the prints
	// then tell neither damage nor copies apart.
	printVaries bool
}

// damaged reports whether downstream packet d is upstream packet u
// damaged on the way: changed, or its ECN codepoint changed other than
// as the path does to the flow's packets or by a mark of CE (RFC 3168).
func (p *pairing) damaged(u, d *pkt) bool {
	return p.changed(u, d) || p.ecnChanged(u, d)
}

// changed reports whether d is u damaged in anything but its ECN
// codepoint: its ICRC or IPv4 header checksum fails where u's did not,
// its headers changed where a path changes nothing, or its hop count or
// DSCP are not what the path does to the flow's packets. ECN alone is
// asked apart: copies alike (an ACK sent again, a resend without an IPv4
// ID), one sent marked and one not, that the path delivered in the other
// order look, paired in order, like a mark cleared; their pairing is a
// guess, and a guess is not damage.
func (p *pairing) changed(u, d *pkt) bool {
	switch {
	case d.flags&^u.flags&(pktBadICRC|pktBadIPv4Sum) != 0:
		return true
	case !p.rewrite.printVaries && u.flags&pktHdrCut == 0 && d.flags&pktHdrCut == 0 && u.print != d.print:
		return true
	}
	rw := p.rewrite
	return rw.known && u.tc == rw.tcUp && (u.hop-d.hop != rw.hops || d.tc>>2 != rw.tcDn>>2)
}

// ecnChanged reports whether d's ECN codepoint is not u's as the path
// delivers it: unchanged, marked CE, or what the path does to the flow's
// usual class (clearing ECN at a domain's edge).
func (p *pairing) ecnChanged(u, d *pkt) bool {
	if ecnCould(u.ecn(), d.ecn()) {
		return false
	}
	rw := p.rewrite
	return !rw.known || u.tc != rw.tcUp || d.ecn() != rw.tcDn&3
}
