// Package scenario builds RoCE conversations whose every packet is known and
// writes them as pcap files. It is the generator of testdata/scenarios: each
// Scenario pairs a conversation with the analysis it must produce, numbers
// fixed by construction (see Scenarios).
//
// A Capture is one pcap file: a virtual clock and the frames in the order the
// capture point sees them. A Conn is an RC connection between two endpoints
// written into a Capture; its methods (Write, Send, Read, Ack, NAK, RNRNAK,
// CNP, GoBack) emit frames, and Next sets the fate of the frames to come
// (Drop, Duplicate, Delay, CE, BadICRC). Nothing reads the wall clock or a
// random source: the same calls give the same bytes.
package scenario

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// Start is the timestamp of every capture's first frame.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Gap is the time between two consecutive frames of a capture (Wait adds more).
const Gap = time.Microsecond

// DefaultSnaplen is the snap length of a capture that cuts nothing.
const DefaultSnaplen = 65535

// Capture writes frames into a pcap file (Ethernet link type, microsecond
// timestamps). Errors are sticky: the first one is returned by Close.
type Capture struct {
	w       *pcapgo.Writer
	snaplen int
	now     time.Time
	held    [][]byte // delayed frames, written after the next frame
	buf     gopacket.SerializeBuffer
	err     error
}

// NewCapture starts a pcap file on w. Frames longer than snaplen are cut to
// it, as a capture with that snap length would (0 means DefaultSnaplen).
func NewCapture(w io.Writer, snaplen uint32) *Capture {
	if snaplen == 0 {
		snaplen = DefaultSnaplen
	}
	cp := &Capture{w: pcapgo.NewWriter(w), snaplen: int(snaplen), now: Start, buf: gopacket.NewSerializeBuffer()}
	cp.fail(cp.w.WriteFileHeader(snaplen, layers.LinkTypeEthernet))
	return cp
}

// Wait advances the clock by d: nothing is captured in between.
func (cp *Capture) Wait(d time.Duration) { cp.now = cp.now.Add(d) }

// Close writes the frames still held back and returns the first error.
func (cp *Capture) Close() error {
	cp.release()
	return cp.err
}

func (cp *Capture) fail(err error) {
	if err != nil && cp.err == nil {
		cp.err = err
	}
}

// write stamps frame with the clock and writes it, cut to the snap length.
func (cp *Capture) write(frame []byte) {
	ci := gopacket.CaptureInfo{Timestamp: cp.now, Length: len(frame), CaptureLength: min(len(frame), cp.snaplen)}
	cp.fail(cp.w.WritePacket(ci, frame[:ci.CaptureLength]))
	cp.now = cp.now.Add(Gap)
}

// hold keeps frame back until another frame has been written.
func (cp *Capture) hold(frame []byte) { cp.held = append(cp.held, frame) }

func (cp *Capture) release() {
	held := cp.held
	cp.held = nil
	for _, f := range held {
		cp.write(f)
	}
}

// path is one direction of a Conn: what goes in front of the BTH.
type path struct {
	srcMAC, dstMAC net.HardwareAddr
	src, dst       netip.Addr
	v1             bool
	vlan           uint16 // 0: untagged
	pcp            uint8
	sport          uint16 // UDP source port (RoCEv2)
}

// frame serializes one packet with gopacket layers and seals its ICRC. tos
// is the IP TOS / traffic class (DSCP<<2 | ECN). UDP checksums are 0, as
// RoCE NICs send them (the ICRC protects the packet).
func (cp *Capture) frame(p *path, tos uint8, pkt *roce.Packet, payload []byte) []byte {
	eth := &layers.Ethernet{SrcMAC: p.srcMAC, DstMAC: p.dstMAC}
	ls := []gopacket.SerializableLayer{eth}
	inner := layers.EthernetTypeIPv4
	switch {
	case p.v1:
		inner = roce.EtherTypeRoCEv1
	case p.src.Is6():
		inner = layers.EthernetTypeIPv6
	}
	ethLen := 14
	if p.vlan != 0 {
		eth.EthernetType = layers.EthernetTypeDot1Q
		ls = append(ls, &layers.Dot1Q{Priority: p.pcp, VLANIdentifier: p.vlan, Type: inner})
		ethLen += 4
	} else {
		eth.EthernetType = inner
	}
	src, dst := net.IP(p.src.AsSlice()), net.IP(p.dst.AsSlice())
	udp := zeroChecksum{&layers.UDP{SrcPort: layers.UDPPort(p.sport), DstPort: roce.UDPPort}}
	switch inner {
	case roce.EtherTypeRoCEv1:
		ls = append(ls, &roce.GRH{IPVer: 6, TrafficClass: tos, NextHeader: roce.GRHNextHeaderBTH, HopLimit: 64, SGID: src, DGID: dst})
	case layers.EthernetTypeIPv6:
		ls = append(ls, &layers.IPv6{Version: 6, TrafficClass: tos, HopLimit: 64, NextHeader: layers.IPProtocolUDP, SrcIP: src, DstIP: dst}, udp)
	default:
		ls = append(ls, &layers.IPv4{Version: 4, IHL: 5, TOS: tos, TTL: 64, Flags: layers.IPv4DontFragment,
			Protocol: layers.IPProtocolUDP, SrcIP: src, DstIP: dst}, udp)
	}
	ls = append(ls, pkt, gopacket.Payload(payload))
	if err := gopacket.SerializeLayers(cp.buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		cp.fail(fmt.Errorf("serialize %s PSN %d: %w", pkt.BTH.Opcode, pkt.BTH.PSN, err))
		return nil
	}
	frame := bytes.Clone(cp.buf.Bytes())
	cp.fail(roce.SealICRC(frame[ethLen:], p.v1))
	return frame
}

// zeroChecksum serializes a UDP header with checksum 0 while the other
// layers get theirs computed.
type zeroChecksum struct{ *layers.UDP }

func (z zeroChecksum) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	opts.ComputeChecksums = false
	z.Checksum = 0
	return z.UDP.SerializeTo(b, opts)
}
