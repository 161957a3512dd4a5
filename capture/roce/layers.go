package roce

import (
	"encoding/binary"
	"errors"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// UDPPort is the IANA port of RoCEv2.
const UDPPort = 4791

// EtherTypeRoCEv1 is the EtherType of RoCE (v1): a GRH follows the Ethernet header.
const EtherTypeRoCEv1 layers.EthernetType = 0x8915

// GRHNextHeaderBTH is the GRH next-header value announcing an IBA transport header.
const GRHNextHeaderBTH = 0x1b

// Layer types. gopacket reserves 1000-1999 for application layer types that
// are meant to be shared.
var (
	LayerTypeBTH = gopacket.RegisterLayerType(1791, gopacket.LayerTypeMetadata{
		Name: "RoCE", Decoder: gopacket.DecodeFunc(decodePacket)})
	LayerTypeGRH = gopacket.RegisterLayerType(1792, gopacket.LayerTypeMetadata{
		Name: "GRH", Decoder: gopacket.DecodeFunc(decodeGRH)})
)

func init() {
	// Let gopacket.NewPacket decode RoCE on its own, like any other protocol.
	layers.RegisterUDPPortLayerType(UDPPort, LayerTypeBTH)
	layers.EthernetTypeMetadata[EtherTypeRoCEv1] = layers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeGRH), Name: "RoCEv1", LayerType: LayerTypeGRH}
}

// LayerType, CanDecode, NextLayerType, LayerContents, LayerPayload and
// DecodeFromBytes make Packet a gopacket DecodingLayer: the BTH with its
// extended headers is one layer, the payload the next.

// LayerType returns LayerTypeBTH.
func (p *Packet) LayerType() gopacket.LayerType { return LayerTypeBTH }

// CanDecode returns LayerTypeBTH.
func (p *Packet) CanDecode() gopacket.LayerClass { return LayerTypeBTH }

// NextLayerType returns the payload layer type.
func (p *Packet) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// LayerContents returns the BTH and extended headers.
func (p *Packet) LayerContents() []byte { return p.Contents[:min(p.HeaderLen, len(p.Contents))] }

// LayerPayload returns the captured payload (no pad, no ICRC).
func (p *Packet) LayerPayload() []byte { return p.Payload }

// DecodeFromBytes decodes data as a whole transport part (BTH to ICRC). When
// df reports a truncated packet the missing tail is tolerated only if the
// caller uses Decode with the stated length; here the bytes are all we know.
func (p *Packet) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := p.Decode(data, -1); err != nil {
		if df != nil && errors.Is(err, ErrTruncated) {
			df.SetTruncated()
		}
		return err
	}
	return nil
}

// SerializeTo prepends the BTH and extended headers to the bytes already in
// b (the payload, e.g. from a gopacket.Payload layer) and appends pad and a
// zero ICRC. With opts.FixLengths the pad count is set from the payload
// length. The ICRC covers the network headers, which are serialized after
// this layer: seal the finished frame with SealICRC.
func (p *Packet) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	payload := len(b.Bytes())
	if opts.FixLengths {
		p.BTH.PadCount = uint8((4 - payload%4) % 4)
	}
	hl := BTHLen + ExtLen(p.BTH.Opcode.Headers())
	tail, err := b.AppendBytes(int(p.BTH.PadCount) + ICRCLen)
	if err != nil {
		return err
	}
	clear(tail)
	hdr, err := b.PrependBytes(hl)
	if err != nil {
		return err
	}
	p.encodeHeaders(hdr)
	return nil
}

func decodePacket(data []byte, pb gopacket.PacketBuilder) error {
	p := &Packet{}
	if err := p.DecodeFromBytes(data, pb); err != nil {
		return err
	}
	pb.AddLayer(p)
	if len(p.Payload) > 0 {
		return pb.NextDecoder(gopacket.LayerTypePayload)
	}
	return nil
}

// GRH is the InfiniBand Global Route Header, the network header of RoCE v1.
type GRH struct {
	layers.BaseLayer
	IPVer        uint8
	TrafficClass uint8
	FlowLabel    uint32
	PayloadLen   uint16
	NextHeader   uint8
	HopLimit     uint8
	SGID, DGID   net.IP
}

// LayerType returns LayerTypeGRH.
func (g *GRH) LayerType() gopacket.LayerType { return LayerTypeGRH }

// CanDecode returns LayerTypeGRH.
func (g *GRH) CanDecode() gopacket.LayerClass { return LayerTypeGRH }

// NextLayerType returns LayerTypeBTH when the next header is an IBA transport header.
func (g *GRH) NextLayerType() gopacket.LayerType {
	if g.NextHeader == GRHNextHeaderBTH {
		return LayerTypeBTH
	}
	return gopacket.LayerTypePayload
}

// ErrGRHShort is returned for a RoCEv1 frame shorter than a GRH.
var ErrGRHShort = errors.New("roce: RoCEv1 frame shorter than its 40-byte GRH")

// DecodeFromBytes decodes a 40-byte GRH; the GIDs alias data.
func (g *GRH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < GRHLen {
		if df != nil {
			df.SetTruncated()
		}
		return ErrGRHShort
	}
	w := binary.BigEndian.Uint32(data)
	g.IPVer = uint8(w >> 28)
	g.TrafficClass = uint8(w >> 20)
	g.FlowLabel = w & 0xfffff
	g.PayloadLen = binary.BigEndian.Uint16(data[4:])
	g.NextHeader = data[6]
	g.HopLimit = data[7]
	g.SGID = net.IP(data[8:24])
	g.DGID = net.IP(data[24:40])
	end := min(len(data), GRHLen+int(g.PayloadLen))
	g.BaseLayer = layers.BaseLayer{Contents: data[:GRHLen], Payload: data[GRHLen:end]}
	return nil
}

// SerializeTo prepends the GRH; with opts.FixLengths PayloadLen is set.
func (g *GRH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if opts.FixLengths {
		g.PayloadLen = uint16(len(b.Bytes()))
	}
	h, err := b.PrependBytes(GRHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(h, uint32(g.IPVer&0xf)<<28|uint32(g.TrafficClass)<<20|g.FlowLabel&0xfffff)
	binary.BigEndian.PutUint16(h[4:], g.PayloadLen)
	h[6], h[7] = g.NextHeader, g.HopLimit
	copy(h[8:24], g.SGID.To16())
	copy(h[24:40], g.DGID.To16())
	return nil
}

func decodeGRH(data []byte, pb gopacket.PacketBuilder) error {
	g := &GRH{}
	if err := g.DecodeFromBytes(data, pb); err != nil {
		return err
	}
	pb.AddLayer(g)
	return pb.NextDecoder(g.NextLayerType())
}

// SealICRC computes and stores the ICRC of a finished packet. net starts at
// the network header: an IPv4 or IPv6 header followed by UDP (RoCEv2), or a
// GRH (RoCEv1, when v1 is true); it must hold the whole packet.
func SealICRC(net []byte, v1 bool) error {
	crc, err := ComputeICRC(net, v1)
	if err != nil {
		return err
	}
	PutICRC(net, crc)
	return nil
}

// ComputeICRC returns the ICRC net's bytes call for (see SealICRC).
func ComputeICRC(net []byte, v1 bool) (uint32, error) {
	if v1 {
		if len(net) < GRHLen+BTHLen+ICRCLen {
			return 0, ErrGRHShort
		}
		// Bound by the GRH's payload length: Ethernet pads short frames.
		if end := GRHLen + int(binary.BigEndian.Uint16(net[4:])); end <= len(net) && end >= GRHLen+BTHLen+ICRCLen {
			net = net[:end]
		}
		return ICRCv1(net[:GRHLen], net[GRHLen:len(net)-ICRCLen]), nil
	}
	if len(net) < 1 {
		return 0, ErrTooShort
	}
	var ipLen int
	switch net[0] >> 4 {
	case 4:
		ipLen = int(net[0]&0x0f) * 4
	case 6:
		ipLen = 40
	default:
		return 0, errors.New("roce: not an IPv4 or IPv6 header")
	}
	if ipLen < 20 || len(net) < ipLen+8+BTHLen+ICRCLen {
		return 0, ErrTooShort
	}
	// Bound by the IP length: Ethernet pads short frames past it.
	total := int(binary.BigEndian.Uint16(net[2:])) // IPv4 total length
	if net[0]>>4 == 6 {
		total = 40 + int(binary.BigEndian.Uint16(net[4:])) // IPv6 payload length
	}
	if total <= len(net) && total >= ipLen+8+BTHLen+ICRCLen {
		net = net[:total]
	}
	ip, udp, ib := net[:ipLen], net[ipLen:ipLen+8], net[ipLen+8:len(net)-ICRCLen]
	if ipLen == 40 && net[0]>>4 == 6 {
		return ICRCv6(ip, udp, ib), nil
	}
	return ICRCv4(ip, udp, ib), nil
}
