package capture

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// Encap is how the IBA transport was carried.
type Encap uint8

// Encapsulations.
const (
	EncapNone   Encap = iota // not RoCE
	EncapRoCEv2              // UDP port 4791 over IPv4 or IPv6
	EncapRoCEv1              // EtherType 0x8915, GRH
)

func (e Encap) String() string {
	if int(e) < len(encapNames) {
		return encapNames[e]
	}
	return "encap_" + strconv.Itoa(int(e))
}

var encapNames = [...]string{"none", "rocev2", "rocev1"}

// ICRCStatus is the verdict on a packet's ICRC.
type ICRCStatus uint8

// ICRC verdicts. A packet cut by the capture's snap length is
// ICRCUnverifiable, never ICRCBad.
const (
	ICRCUnchecked ICRCStatus = iota
	ICRCOK
	ICRCBad
	ICRCUnverifiable
)

func (s ICRCStatus) String() string {
	if int(s) < len(icrcNames) {
		return icrcNames[s]
	}
	return "icrc_" + strconv.Itoa(int(s))
}

var icrcNames = [...]string{"unchecked", "ok", "bad", "unverifiable"}

// Decoded is one packet's decode, reused from packet to packet.
type Decoded struct {
	Encap    Encap
	Src, Dst [16]byte // IPv4 as IPv4-mapped IPv6; RoCEv1: GIDs
	IPv4     bool
	IPID     uint16 // IPv4 identification; 0 for IPv6 and RoCEv1
	DSCP     uint8
	ECN      uint8 // 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE
	VLAN     bool
	VLANID   uint16 // outermost tag
	PCP      uint8  // outermost tag's priority
	SrcPort  uint16 // UDP source port (RoCEv2 entropy)
	WireLen  int    // frame length on the wire
	ICRC     ICRCStatus
	RoCE     roce.Packet
	// NetHdr is the network header (IPv4, IPv6, or RoCEv1's GRH) and
	// UDPHdr the UDP header (RoCEv2) of a RoCE packet, as captured:
	// slices of the frame, valid until it is reused.
	NetHdr, UDPHdr []byte
}

// ErrMalformed wraps every reason a RoCE packet could not be decoded.
var ErrMalformed = errors.New("malformed RoCE packet")

// Decoder decodes frames of one link type. It holds reusable gopacket
// layers, so decoding allocates nothing; it is not safe for concurrent use.
type Decoder struct {
	link layers.LinkType
	// VerifyICRC computes the ICRC of every complete packet (default true).
	VerifyICRC bool

	eth  layers.Ethernet
	dot1 layers.Dot1Q
	sll  layers.LinuxSLL
	sll2 layers.LinuxSLL2
	ip4  layers.IPv4
	ip6  layers.IPv6
	udp  layers.UDP
	grh  roce.GRH
	crc  roce.Hasher
}

// NewDecoder returns a decoder for frames of the given link type.
func NewDecoder(link layers.LinkType) (*Decoder, error) {
	switch link {
	case layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2,
		layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, linkTypeRawBSD, linkTypeRawOpenBSD:
	default:
		return nil, fmt.Errorf("link type %d (%s) is not supported: rdmatop reads Ethernet, Linux cooked (v1, v2) and raw IP captures", int(link), link)
	}
	return &Decoder{link: link, VerifyICRC: true}, nil
}

// DLT_RAW as some systems number it in pcap files.
const (
	linkTypeRawBSD     layers.LinkType = 12
	linkTypeRawOpenBSD layers.LinkType = 14
)

// Decode decodes one frame. It returns (false, nil) for a frame that is not
// RoCE, (true, nil) for a decoded RoCE packet, and an error wrapping
// ErrMalformed for a RoCE packet whose transport headers cannot be decoded.
// wireLen is the frame's length on the wire (CaptureInfo.Length).
func (d *Decoder) Decode(data []byte, wireLen int, out *Decoded) (bool, error) {
	out.Encap = EncapNone
	out.VLAN, out.VLANID, out.PCP = false, 0, 0
	out.WireLen = wireLen
	out.ICRC = ICRCUnchecked
	out.NetHdr, out.UDPHdr = nil, nil
	// Bytes missing from the capture: headers are decoded from what is
	// there, lengths taken from the packet's own fields.
	cut := wireLen - len(data)
	if cut < 0 {
		cut = 0
	}
	var next gopacket.LayerType
	var err error
	switch d.link {
	case layers.LinkTypeEthernet:
		if err = d.eth.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return false, nil
		}
		next, data = d.eth.NextLayerType(), d.eth.Payload
	case layers.LinkTypeLinuxSLL:
		if err = d.sll.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return false, nil
		}
		next, data = d.sll.NextLayerType(), d.sll.Payload
	case layers.LinkTypeLinuxSLL2:
		if err = d.sll2.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return false, nil
		}
		next, data = d.sll2.NextLayerType(), d.sll2.Payload
	default: // raw IP
		if len(data) == 0 {
			return false, nil
		}
		switch data[0] >> 4 {
		case 4:
			next = layers.LayerTypeIPv4
		case 6:
			next = layers.LayerTypeIPv6
		default:
			return false, nil
		}
	}
	for next == layers.LayerTypeDot1Q {
		if err = d.dot1.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return false, nil
		}
		if !out.VLAN {
			out.VLAN, out.VLANID, out.PCP = true, d.dot1.VLANIdentifier, d.dot1.Priority
		}
		next, data = d.dot1.NextLayerType(), d.dot1.Payload
	}
	switch next {
	case layers.LayerTypeIPv4:
		return d.decodeIPv4(data, cut, out)
	case layers.LayerTypeIPv6:
		return d.decodeIPv6(data, cut, out)
	case roce.LayerTypeGRH:
		return d.decodeV1(data, cut, out)
	}
	return false, nil
}

func (d *Decoder) decodeIPv4(data []byte, cut int, out *Decoded) (bool, error) {
	ip := &d.ip4
	if ip.DecodeFromBytes(data, gopacket.NilDecodeFeedback) != nil {
		return false, nil
	}
	if ip.Protocol != layers.IPProtocolUDP || ip.FragOffset != 0 || ip.Flags&layers.IPv4MoreFragments != 0 {
		return false, nil
	}
	hl := int(ip.IHL) * 4
	udpWire := int(ip.Length) - hl
	out.IPv4, out.IPID = true, ip.Id
	out.Src = v4mapped(ip.SrcIP)
	out.Dst = v4mapped(ip.DstIP)
	out.DSCP, out.ECN = ip.TOS>>2, ip.TOS&3
	return d.decodeUDP(data[:hl], data[hl:], udpWire, cut, out)
}

func (d *Decoder) decodeIPv6(data []byte, cut int, out *Decoded) (bool, error) {
	ip := &d.ip6
	if ip.DecodeFromBytes(data, gopacket.NilDecodeFeedback) != nil {
		return false, nil
	}
	if ip.NextHeader != layers.IPProtocolUDP || len(data) < 40 {
		return false, nil
	}
	out.IPv4, out.IPID = false, 0
	copy(out.Src[:], ip.SrcIP)
	copy(out.Dst[:], ip.DstIP)
	out.DSCP, out.ECN = ip.TrafficClass>>2, ip.TrafficClass&3
	return d.decodeUDP(data[:40], data[40:], int(ip.Length), cut, out)
}

// decodeUDP takes the network header, the bytes after it and the UDP length
// the network header states.
func (d *Decoder) decodeUDP(ipHdr, data []byte, udpWire, cut int, out *Decoded) (bool, error) {
	if len(data) < 8 {
		return false, nil
	}
	if uint16(data[2])<<8|uint16(data[3]) != roce.UDPPort {
		return false, nil
	}
	if ulen := int(uint16(data[4])<<8 | uint16(data[5])); ulen >= 8 && ulen <= udpWire {
		udpWire = ulen
	}
	out.Encap = EncapRoCEv2
	out.SrcPort = uint16(data[0])<<8 | uint16(data[1])
	out.NetHdr, out.UDPHdr = ipHdr, data[:8]
	ib := data[8:]
	ibWire := udpWire - 8
	if len(ib) > ibWire {
		ib = ib[:max(ibWire, 0)]
	}
	if err := out.RoCE.Decode(ib, ibWire); err != nil {
		return true, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	d.checkICRC(ipHdr, data[:8], cut, out)
	return true, nil
}

func (d *Decoder) decodeV1(data []byte, cut int, out *Decoded) (bool, error) {
	out.Encap = EncapRoCEv1
	if d.grh.DecodeFromBytes(data, gopacket.NilDecodeFeedback) != nil {
		return true, fmt.Errorf("%w: %w", ErrMalformed, roce.ErrGRHShort)
	}
	g := &d.grh
	if g.NextHeader != roce.GRHNextHeaderBTH {
		return true, fmt.Errorf("%w: GRH next header 0x%02x is not an IBA transport header", ErrMalformed, g.NextHeader)
	}
	out.IPv4, out.IPID = false, 0
	out.SrcPort = 0 // no UDP: do not keep the previous RoCEv2 packet's port
	copy(out.Src[:], g.SGID)
	copy(out.Dst[:], g.DGID)
	out.DSCP, out.ECN = g.TrafficClass>>2, g.TrafficClass&3
	out.NetHdr = data[:roce.GRHLen]
	if err := out.RoCE.Decode(g.Payload, int(g.PayloadLen)); err != nil {
		return true, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	d.checkICRC(data[:roce.GRHLen], nil, cut, out)
	return true, nil
}

func (d *Decoder) checkICRC(netHdr, udpHdr []byte, cut int, out *Decoded) {
	p := &out.RoCE
	switch {
	case !d.VerifyICRC:
		out.ICRC = ICRCUnchecked
	case !p.HasICRC || p.Truncated || cut > 0:
		out.ICRC = ICRCUnverifiable
	default:
		var crc uint32
		switch {
		case udpHdr == nil:
			crc = d.crc.ICRCv1(netHdr, p.Contents)
		case out.IPv4:
			crc = d.crc.ICRCv4(netHdr, udpHdr, p.Contents)
		default:
			crc = d.crc.ICRCv6(netHdr, udpHdr, p.Contents)
		}
		if crc == p.ICRC {
			out.ICRC = ICRCOK
		} else {
			out.ICRC = ICRCBad
		}
	}
}

func v4mapped(ip []byte) (a [16]byte) {
	a[10], a[11] = 0xff, 0xff
	copy(a[12:], ip)
	return a
}
