// Package wiretruth says what the network did to every RoCEv2 packet that
// crossed an impairment, from two captures taken on either side of it.
//
// It is the independent half of the wire-truth campaign (issue 17): it
// matches packets by their bytes, never by rdmatop's PSN logic, so that
// capture/'s analysis can be checked against it. A packet seen upstream
// and never downstream was lost; seen downstream more often than upstream,
// duplicated; downstream after a packet its sender sent later, reordered;
// downstream with other bytes, corrupted; with ECN CE only downstream,
// marked. The few header fields it reads (addresses, the BTH's opcode,
// destination QP and PSN, the AETH syndrome) only group packets into flows
// and name them; the PSN is used to name a packet and to tie a resend to
// the NAK that asked for it, never to decide whether it was lost.
package wiretruth

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// roceV2Port is the IANA UDP destination port of RoCEv2.
const roceV2Port = 4791

// Packet is one captured RoCEv2 frame.
type Packet struct {
	TS     int64 // capture time, ns since the epoch
	Len    int   // length on the wire
	Src    netip.Addr
	Dst    netip.Addr
	DstQP  uint32
	Opcode uint8
	PSN    uint32
	ECN    uint8  // the IP ECN codepoint (3: CE)
	IPID   uint16 // IPv4 identification; 0 for IPv6
	// BadICRC: the ICRC the packet carries is not the one its bytes give
	// (IBTA annex A17): it was corrupted before this capture point.
	BadICRC bool
	AETH    uint8 // the AETH syndrome byte of an acknowledgement, else 0
	HasAETH bool  // the opcode carries an AETH
	// ReadLen is a READ request's DMA length; MiddlePayload a MIDDLE
	// packet's payload, which is exactly the path MTU.
	ReadLen       uint32
	MiddlePayload int
	Key           uint64 // hash of the bytes from the IP header on, ECN and IP checksum masked
	// Content hashes the same bytes up to the payload (the headers),
	// without the IPv4 identification: a sender that builds a resend
	// afresh gives it a new identification (Soft-RoCE does) and reads its
	// data again, a network that copies a frame does neither. Key tells
	// copies apart, Content finds resends.
	Content uint64
	// Norm is the masked bytes the key hashes, kept to tell a corrupted
	// copy from an unrelated packet.
	Norm []byte
}

// Flow names the packets of one sender to one destination QP.
type Flow struct {
	Src, Dst netip.Addr
	DstQP    uint32
}

func (p *Packet) flow() Flow { return Flow{p.Src, p.Dst, p.DstQP} }

// ReadPcap reads the RoCEv2 packets of a pcap or pcapng file with full
// frames (a truncated frame cannot show corruption past its cut, so it is
// refused).
func ReadPcap(path string) ([]Packet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var src gopacket.PacketDataSource
	r, err := pcapgo.NewReader(f)
	if err != nil {
		if _, serr := f.Seek(0, io.SeekStart); serr != nil {
			return nil, serr
		}
		ng, nerr := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
		if nerr != nil {
			return nil, fmt.Errorf("%s: neither pcap (%v) nor pcapng (%v)", path, err, nerr)
		}
		src = ng
	} else {
		src = r
	}
	var out []Packet
	for n := 1; ; n++ {
		data, ci, err := src.ReadPacketData()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s: record %d: %w", path, n, err)
		}
		if ci.CaptureLength < ci.Length {
			return out, fmt.Errorf("%s: record %d cut at %d of %d bytes: wiretruth needs full frames (tcpdump -s 0)", path, n, ci.CaptureLength, ci.Length)
		}
		p, ok := parse(data)
		if !ok {
			continue
		}
		p.TS = ci.Timestamp.UnixNano()
		p.Len = ci.Length
		out = append(out, p)
	}
}

// parse decodes Ethernet (optionally 802.1Q), IPv4 or IPv6, UDP 4791 and
// the BTH; ok is false for anything else.
func parse(b []byte) (Packet, bool) {
	var p Packet
	l3, udp, norm, v4, ok := p.network(b)
	if !ok || len(udp) < 8+12 || binary.BigEndian.Uint16(udp[2:4]) != roceV2Port {
		return p, false
	}
	p.BadICRC = !icrcOK(l3[:len(l3)-len(udp)], udp)
	bth := udp[8:]
	p.Opcode = bth[0]
	p.DstQP = uint32(bth[5])<<16 | uint32(bth[6])<<8 | uint32(bth[7])
	p.PSN = uint32(bth[9])<<16 | uint32(bth[10])<<8 | uint32(bth[11])
	if hasAETH(p.Opcode) && len(bth) >= 13 {
		p.HasAETH, p.AETH = true, bth[12]
	}
	if p.Opcode&0x1f == 0x0c && len(bth) >= 28 {
		p.ReadLen = binary.BigEndian.Uint32(bth[24:28])
	}
	if m := p.Opcode & 0x1f; m == 0x01 || m == 0x07 || m == 0x0e { // SEND, WRITE, READ RESPONSE Middle
		p.MiddlePayload = int(binary.BigEndian.Uint16(udp[4:6])) - 8 - 12 - 4
	}
	h := fnv.New64a()
	h.Write(norm)
	p.Key = h.Sum64()
	p.Norm = norm
	h.Reset()
	h.Write(p.content(norm, len(l3)-len(bth), len(bth), v4))
	p.Content = h.Sum64()
	return p, true
}

// network reads the Ethernet (and 802.1Q) and IP headers of frame b into
// p: the IP packet l3, its UDP datagram, and l3 normalised (what the
// network may rewrite on the way zeroed: the ECN bits and, for IPv4, the
// header checksum that follows them).
func (p *Packet) network(b []byte) (l3, udp, norm []byte, v4, ok bool) {
	if len(b) < 14 {
		return nil, nil, nil, false, false
	}
	et := layers.EthernetType(binary.BigEndian.Uint16(b[12:14]))
	l3 = b[14:]
	if et == layers.EthernetTypeDot1Q && len(l3) >= 4 {
		et = layers.EthernetType(binary.BigEndian.Uint16(l3[2:4]))
		l3 = l3[4:]
	}
	norm = make([]byte, len(l3))
	copy(norm, l3)
	switch et {
	case layers.EthernetTypeIPv4:
		// The EtherType says IPv4; the version nibble is not checked: a
		// packet corrupted there is still the sender's, with an ICRC
		// that fails (the analyser decodes it as such).
		if len(l3) < 20 || l3[9] != uint8(layers.IPProtocolUDP) {
			return nil, nil, nil, false, false
		}
		ihl := int(l3[0]&0x0f) * 4
		if ihl < 20 || len(l3) < ihl+8 {
			return nil, nil, nil, false, false
		}
		p.ECN = l3[1] & 3
		p.IPID = binary.BigEndian.Uint16(l3[4:6])
		p.Src, _ = netip.AddrFromSlice(l3[12:16])
		p.Dst, _ = netip.AddrFromSlice(l3[16:20])
		norm[1] &^= 3             // ECN: a marking switch rewrites it
		norm[10], norm[11] = 0, 0 // the header checksum follows it
		return l3, l3[ihl:], norm, true, true
	case layers.EthernetTypeIPv6:
		if len(l3) < 48 || l3[6] != uint8(layers.IPProtocolUDP) {
			return nil, nil, nil, false, false
		}
		p.ECN = (l3[1] >> 4) & 3
		p.Src, _ = netip.AddrFromSlice(l3[8:24])
		p.Dst, _ = netip.AddrFromSlice(l3[24:40])
		norm[1] &^= 0x30
		return l3, l3[40:], norm, false, true
	}
	return nil, nil, nil, false, false
}

// content is what makes a resend the same packet as its first sending:
// the normalised headers norm up to the end of the transport headers
// (the BTH at bthAt, bthLen bytes on), with what a resend may change
// masked.
func (p *Packet) content(norm []byte, bthAt, bthLen int, v4 bool) []byte {
	// A resend is the same packet by its headers: the same PSN, opcode and
	// extension headers. Not by its payload: the sender reads the data from
	// memory again when it resends, and memory the application (or, for a
	// READ response, the peer) changed meanwhile gives other bytes under
	// the same PSN (ib_write_bw -b: 212 of 6,913 resent WRITE MIDDLEs in
	// s11-07). Within a flow a PSN names one packet until the 24-bit space
	// comes round.
	hdr := bthAt + min(bthLen, roce.BTHLen+roce.ExtLen(roce.Opcode(p.Opcode).Headers()))
	content := append([]byte(nil), norm[:hdr]...)
	if v4 {
		content[4], content[5] = 0, 0
	}
	// The AckReq bit is the requester's choice for each transmission:
	// Soft-RoCE asks for an ACK every so many packets, and its resend of
	// a PSN first sent with AckReq set often has it clear (s15-56: the
	// SEND MIDDLE 6764954 with A=1, then nine resends with A=0). The
	// network never touches it, so it does not tell a copy from a resend.
	if at := bthAt + 8; at < len(content) {
		content[at] &^= 0x80
	}
	if p.HasAETH && !isAck(p.Opcode) {
		// A READ response sent again carries the same PSN and data, but
		// its AETH the responder's current MSN: mask it.
		at := bthAt + 12
		for i := at; i < at+4 && i < len(content); i++ {
			content[i] = 0
		}
	}
	return content
}

// hasAETH: the RC and XRC opcodes that carry an AETH right after the BTH
// (IBTA vol. 1 table 38): READ RESPONSE First, Last and Only, ACKNOWLEDGE
// and ATOMIC ACKNOWLEDGE.
func hasAETH(op uint8) bool {
	if op>>5 != 0 && op>>5 != 5 { // RC (000) and XRC (101) only
		return false
	}
	switch op & 0x1f {
	case 0x0d, 0x0f, 0x10, 0x11, 0x12:
		return true
	}
	return false
}

// isAck: ACKNOWLEDGE or ATOMIC ACKNOWLEDGE.
func isAck(op uint8) bool { return op&0x1f == 0x11 || op&0x1f == 0x12 }

// isRequest: an opcode a requester sends (SEND, WRITE, READ request,
// atomics), as opposed to the responses its peer returns. CNPs (0x81) are
// neither.
func isRequest(op uint8) bool {
	if op == 0x81 {
		return false
	}
	switch op & 0x1f {
	case 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12:
		return false
	}
	return true
}

// icrcOK checks the ICRC at the end of a RoCEv2 datagram (the UDP length
// excludes Ethernet padding); ip is the IPv4 or IPv6 header.
func icrcOK(ip, udp []byte) bool {
	n := int(binary.BigEndian.Uint16(udp[4:6]))
	if n < 8+roce.BTHLen+4 || n > len(udp) {
		return false
	}
	ib := udp[8 : n-4]
	want := binary.LittleEndian.Uint32(udp[n-4 : n])
	if ip[0]>>4 == 4 {
		return roce.ICRCv4(ip, udp[:8], ib) == want
	}
	return roce.ICRCv6(ip, udp[:8], ib) == want
}

// FullCapture names the full capture of one point of a run: point.pcap as
// tcpdump wrote it, or point.pcap.full.gz where an archived run keeps it
// compressed to save disk. Both readers (ReadPcap here, pcapfile.Open in
// rdmatop) inflate gzip themselves.
func FullCapture(dir, point string) string {
	plain := filepath.Join(dir, point+".pcap")
	if packed := plain + ".full.gz"; !fileExists(plain) && fileExists(packed) {
		return packed
	}
	return plain
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
