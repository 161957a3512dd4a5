// Package twopoint compares two captures of the same RoCE traffic taken at
// two points of its path (both hosts, a host and a switch mirror) and
// gives every packet its fate between them: delivered, lost between the
// points, corrupted, duplicated by the path, reordered, CE-marked, and its
// one-way delay. It works out, for each sender, which capture is upstream
// (the one its packets pass first), and the offset between the two
// capture clocks from packets seen at both, without assuming NTP.
//
// A packet is known at both points by what the path does not change and
// a sender sets anew when it sends again: its flow (source, destination,
// destination QP), opcode, PSN, IPv4 identification and length. Nothing
// past the RoCE headers is needed, so headers-only captures (snap length
// 128) match as whole ones do. A packet arrived corrupted when its ICRC
// fails, or when its two copies' headers differ where a path changes
// nothing (intact.go); a headers-only capture tells the second, not
// damage past the headers. Hardware RoCE NICs send IPv4 ID 0, and
// IPv6 has none: a resend then looks like its original, and copies of one
// packet are paired in order of time, within matchHorizon.
//
// Each capture is read once, in order, into 24 bytes a packet (no bytes
// of the packet are kept): two captures of 300 MB of 1 KB frames hold
// 7 MB of these.
package twopoint

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"net/netip"

	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// pkt is one RoCE packet as a capture point saw it.
type pkt struct {
	ts    int64  // capture time, ns since the epoch, on this capture's clock
	sig   uint64 // what identifies it at both points
	print uint32 // what the path leaves unchanged in its headers (intact.go)
	op    uint8
	tc    uint8 // traffic class: DSCP, then the ECN codepoint (3 is CE)
	hop   uint8 // TTL or hop limit
	flags uint8 // pktBadICRC, pktCut, pktHdrCut, pktBadIPv4Sum
}

// ecn is the packet's IP ECN codepoint.
func (p *pkt) ecn() uint8 { return p.tc & 3 }

// doubtful reports whether the packet may have been damaged before this
// point in a way that changed its signature: its ICRC fails, or could
// not be checked. (A bit flipped where the signature is also fails the
// ICRC; an IPv4 header checksum is not asked: some capture points see
// it before the NIC writes it.)
func (p *pkt) doubtful() bool { return p.flags&(pktBadICRC|pktCut) != 0 }

// flowKey is one direction of one connection: a sender to a QP.
type flowKey struct {
	src, dst [16]byte
	qp       uint32
	v4       bool
}

func (k flowKey) addr(a [16]byte) netip.Addr {
	ip := netip.AddrFrom16(a)
	if k.v4 {
		ip = ip.Unmap()
	}
	return ip
}

// point is what one capture holds.
type point struct {
	name        string
	flows       map[flowKey][]pkt
	first, last int64  // capture times of its first and last RoCE packet
	packets     int    // RoCE packets
	unchecked   int    // RoCE packets whose ICRC could not be checked
	drops       int    // what its writer said it dropped, -1 unknown
	buf         []byte // headerPrint's, reused
}

var sigSeed = maphash.MakeSeed()

// signature identifies a packet at both points: its opcode, PSN, IPv4
// identification and length on the wire.
func signature(d *capture.Decoded) uint64 {
	var b [11]byte
	p := d.RoCE.BTH.PSN
	b[0], b[1], b[2], b[3] = byte(d.RoCE.BTH.Opcode), byte(p>>16), byte(p>>8), byte(p)
	b[4], b[5] = byte(d.IPID>>8), byte(d.IPID)
	w := uint32(d.WireLen)
	b[6], b[7], b[8], b[9] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
	return maphash.Bytes(sigSeed, b[:10])
}

// readPoint reads the RoCE packets of the capture at path.
func readPoint(name, path string) (*point, error) {
	src, err := pcapfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	pt := &point{name: name, flows: map[flowKey][]pkt{}, drops: -1, buf: make([]byte, 0, 256)}
	decoders := map[layers.LinkType]*capture.Decoder{}
	var d capture.Decoded
	for {
		data, ci, link, err := src.ReadPacket()
		if errors.Is(err, io.EOF) {
			return pt, nil
		}
		if err != nil {
			return nil, err // names the record and its byte offset
		}
		dec, ok := decoders[link]
		if !ok {
			dec, _ = capture.NewDecoder(link) // nil: a link type with no RoCE
			if dec != nil {
				dec.VerifyICRC = true
			}
			decoders[link] = dec
		}
		if dec == nil {
			continue
		}
		if roce, err := dec.Decode(data, max(ci.Length, len(data)), &d); !roce || err != nil {
			continue // not RoCE, or a packet too damaged to name
		}
		pt.add(&d, ci.Timestamp.UnixNano())
	}
}

// add keeps one decoded RoCE packet.
func (pt *point) add(d *capture.Decoded, ts int64) {
	k := flowKey{src: d.Src, dst: d.Dst, qp: d.RoCE.BTH.DestQP, v4: d.IPv4}
	p := pkt{ts: ts, sig: signature(d), op: uint8(d.RoCE.BTH.Opcode), tc: d.DSCP<<2 | d.ECN, hop: hopCount(d)}
	var whole bool
	p.print, pt.buf, whole = headerPrint(d, pt.buf)
	p.flags = flagsOf(d, whole)
	pt.flows[k] = append(pt.flows[k], p)
	if pt.packets == 0 || ts < pt.first {
		pt.first = ts
	}
	pt.last = max(pt.last, ts)
	pt.packets++
	if p.flags&pktCut != 0 {
		pt.unchecked++
	}
}

// flagsOf gives a packet's flags; whole: its headers were all captured.
func flagsOf(d *capture.Decoded, whole bool) (f uint8) {
	switch d.ICRC {
	case capture.ICRCBad:
		f |= pktBadICRC
	case capture.ICRCUnverifiable:
		f |= pktCut
	}
	if !whole {
		f |= pktHdrCut
	}
	if ipv4SumBad(d) {
		f |= pktBadIPv4Sum
	}
	return f
}

// String names a flow for messages.
func (k flowKey) String() string {
	return fmt.Sprintf("%s -> %s QP 0x%06x", k.addr(k.src), k.addr(k.dst), k.qp)
}
