package live

import (
	"net"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// Frame builders shared by the BPF and live capture tests.

var (
	ltSrcMAC = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}
	ltDstMAC = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}
	ltSrc4   = net.IPv4(192, 0, 2, 1).To4()
	ltDst4   = net.IPv4(192, 0, 2, 2).To4()
	ltSrc6   = net.ParseIP("2001:db8::1")
	ltDst6   = net.ParseIP("2001:db8::2")
)

// ltEthernet returns the Ethernet header and VLAN tags (outermost first,
// VLAN IDs 100, 101, priority 3) in front of a payload of EtherType inner.
func ltEthernet(tpids []layers.EthernetType, inner layers.EthernetType) []gopacket.SerializableLayer {
	types := append(append([]layers.EthernetType(nil), tpids...), inner)
	ls := []gopacket.SerializableLayer{&layers.Ethernet{SrcMAC: ltSrcMAC, DstMAC: ltDstMAC, EthernetType: types[0]}}
	for i := range tpids {
		ls = append(ls, &layers.Dot1Q{Priority: 3, VLANIdentifier: uint16(100 + i), Type: types[i+1]})
	}
	return ls
}

func ltSerialize(t testing.TB, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		t.Fatalf("serialize: %v", err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

// ltIP returns an IPv4 or IPv6 header for protocol proto.
func ltIP(v6 bool, proto layers.IPProtocol) gopacket.NetworkLayer {
	if v6 {
		return &layers.IPv6{Version: 6, TrafficClass: 0x68, HopLimit: 64, NextHeader: proto, SrcIP: ltSrc6, DstIP: ltDst6}
	}
	return &layers.IPv4{Version: 4, IHL: 5, TOS: 0x68, TTL: 64, Protocol: proto, Flags: layers.IPv4DontFragment, SrcIP: ltSrc4, DstIP: ltDst4}
}

// ltRoCEv2 builds a sealed RoCEv2 frame (ICRC filled in).
func ltRoCEv2(t testing.TB, tpids []layers.EthernetType, v6 bool, p *roce.Packet, payload []byte) []byte {
	t.Helper()
	inner := layers.EthernetTypeIPv4
	if v6 {
		inner = layers.EthernetTypeIPv6
	}
	ip := ltIP(v6, layers.IPProtocolUDP)
	udp := &layers.UDP{SrcPort: 49152 + layers.UDPPort(p.BTH.PSN&0xff), DstPort: roce.UDPPort}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	ls := append(ltEthernet(tpids, inner), ip.(gopacket.SerializableLayer), udp, p, gopacket.Payload(payload))
	frame := ltSerialize(t, ls...)
	if err := roce.SealICRC(frame[14+4*len(tpids):], false); err != nil {
		t.Fatalf("seal: %v", err)
	}
	return frame
}

// ltRoCEv1 builds a sealed RoCEv1 frame.
func ltRoCEv1(t testing.TB, tpids []layers.EthernetType, p *roce.Packet, payload []byte) []byte {
	t.Helper()
	grh := &roce.GRH{IPVer: 6, HopLimit: 1, NextHeader: roce.GRHNextHeaderBTH, SGID: ltSrc6, DGID: ltDst6}
	ls := append(ltEthernet(tpids, roce.EtherTypeRoCEv1), grh, p, gopacket.Payload(payload))
	frame := ltSerialize(t, ls...)
	if err := roce.SealICRC(frame[14+4*len(tpids):], true); err != nil {
		t.Fatalf("seal: %v", err)
	}
	return frame
}

// ltUDP builds a plain UDP frame (IPv4 unless v6).
func ltUDP(t testing.TB, v6 bool, src, dst layers.UDPPort, payload []byte) []byte {
	t.Helper()
	inner := layers.EthernetTypeIPv4
	if v6 {
		inner = layers.EthernetTypeIPv6
	}
	ip := ltIP(v6, layers.IPProtocolUDP)
	udp := &layers.UDP{SrcPort: src, DstPort: dst}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	return ltSerialize(t, append(ltEthernet(nil, inner), ip.(gopacket.SerializableLayer), udp, gopacket.Payload(payload))...)
}

// ltTCP builds a TCP segment to port dst.
func ltTCP(t testing.TB, dst layers.TCPPort) []byte {
	t.Helper()
	ip := ltIP(false, layers.IPProtocolTCP)
	tcp := &layers.TCP{SrcPort: 40000, DstPort: dst, Seq: 1, SYN: true, Window: 65535}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	return ltSerialize(t, append(ltEthernet(nil, layers.EthernetTypeIPv4), ip.(gopacket.SerializableLayer), tcp)...)
}

// ltFragment builds an IPv4 fragment whose first bytes look like a UDP
// header to port 4791 (a trap for a filter that ignores the offset).
func ltFragment(t testing.TB, offset uint16, more bool) []byte {
	t.Helper()
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, Id: 7, FragOffset: offset, SrcIP: ltSrc4, DstIP: ltDst4}
	if more {
		ip.Flags = layers.IPv4MoreFragments
	}
	payload := make([]byte, 64)
	payload[0], payload[1] = 0xc0, 0x00 // "source port" 49152
	payload[2], payload[3] = 0x12, 0xb7 // "destination port" 4791
	payload[4], payload[5] = 0x00, 0x40 // length 64
	return ltSerialize(t, append(ltEthernet(nil, layers.EthernetTypeIPv4), ip, gopacket.Payload(payload))...)
}

// ltARP builds an ARP request.
func ltARP(t testing.TB) []byte {
	t.Helper()
	arp := &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
		Operation: layers.ARPRequest, SourceHwAddress: ltSrcMAC, SourceProtAddress: ltSrc4,
		DstHwAddress: make([]byte, 6), DstProtAddress: ltDst4}
	eth := &layers.Ethernet{SrcMAC: ltSrcMAC, DstMAC: layers.EthernetBroadcast, EthernetType: layers.EthernetTypeARP}
	return ltSerialize(t, eth, arp)
}

// ltSend returns an RC SEND_ONLY to QP qp with PSN psn.
func ltSend(qp, psn uint32) *roce.Packet {
	return &roce.Packet{BTH: roce.BTH{Opcode: roce.Opcode(roce.OpSendOnly), PKey: 0xffff, DestQP: qp, AckReq: true, PSN: psn}}
}

// ltWrite returns an RC RDMA_WRITE_ONLY (with a RETH).
func ltWrite(qp, psn, length uint32) *roce.Packet {
	return &roce.Packet{BTH: roce.BTH{Opcode: roce.Opcode(roce.OpWriteOnly), PKey: 0xffff, DestQP: qp, PSN: psn},
		RETH: roce.RETH{VA: 0x7f0000001000, RKey: 0x1234, DMALength: length}}
}

// ltAck returns an RC ACKNOWLEDGE.
func ltAck(qp, psn uint32) *roce.Packet {
	return &roce.Packet{BTH: roce.BTH{Opcode: roce.Opcode(roce.OpAcknowledge), PKey: 0xffff, DestQP: qp, PSN: psn},
		AETH: roce.AETH{Syndrome: 0x1f, MSN: 1}}
}

var (
	ltVLAN = []layers.EthernetType{layers.EthernetTypeDot1Q}
	ltQinQ = []layers.EthernetType{layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q}
)

func ltFilterVM(t *testing.T, snap int) *bpf.VM {
	t.Helper()
	raw, err := RoCEFilter(snap)
	if err != nil {
		t.Fatalf("RoCEFilter: %v", err)
	}
	ins, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatalf("filter does not disassemble: %v", ins)
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatalf("NewVM: %v", err)
	}
	return vm
}

func TestBPFRoCEFilter(t *testing.T) {
	payload := []byte("rdmatop payload, 32 bytes long!!")
	v6ext := func() []byte {
		// IPv6, hop-by-hop options, then UDP to 4791: not matched (the
		// filter reads UDP only right after the fixed header).
		ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolIPv6HopByHop, SrcIP: ltSrc6, DstIP: ltDst6}
		hbh := &layers.IPv6HopByHop{}
		hbh.NextHeader = layers.IPProtocolUDP
		hbh.Options = []*layers.IPv6HopByHopOption{{OptionType: 1, OptionLength: 4, OptionData: make([]byte, 4)}}
		udp := &layers.UDP{SrcPort: 49152, DstPort: roce.UDPPort}
		_ = udp.SetNetworkLayerForChecksum(ip)
		return ltSerialize(t, append(ltEthernet(nil, layers.EthernetTypeIPv6), ip, hbh, udp, gopacket.Payload(payload))...)
	}
	threeTags := []layers.EthernetType{layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q, layers.EthernetTypeDot1Q}
	cases := []struct {
		name   string
		frame  []byte
		accept bool
	}{
		{"rocev2 ipv4", ltRoCEv2(t, nil, false, ltSend(0x11, 1), payload), true},
		{"rocev2 ipv6", ltRoCEv2(t, nil, true, ltSend(0x12, 2), payload), true},
		{"rocev2 ipv4 ack", ltRoCEv2(t, nil, false, ltAck(0x13, 3), nil), true},
		{"rocev2 ipv4 vlan", ltRoCEv2(t, ltVLAN, false, ltWrite(0x14, 4, 32), payload), true},
		{"rocev2 ipv6 vlan", ltRoCEv2(t, ltVLAN, true, ltSend(0x15, 5), payload), true},
		{"rocev2 ipv4 qinq", ltRoCEv2(t, ltQinQ, false, ltSend(0x16, 6), payload), true},
		{"rocev2 ipv6 qinq", ltRoCEv2(t, ltQinQ, true, ltSend(0x17, 7), payload), true},
		{"rocev2 ipv4 8021q in 8021q", ltRoCEv2(t, []layers.EthernetType{layers.EthernetTypeDot1Q, layers.EthernetTypeDot1Q}, false, ltSend(0x18, 8), payload), true},
		{"rocev2 ipv4 first fragment", ltFragment(t, 0, true), true},
		{"rocev1", ltRoCEv1(t, nil, ltSend(0x19, 9), payload), true},
		{"rocev1 vlan", ltRoCEv1(t, ltVLAN, ltSend(0x1a, 10), payload), true},
		{"rocev1 qinq", ltRoCEv1(t, ltQinQ, ltAck(0x1b, 11), nil), true},

		{"tcp to 4791", ltTCP(t, 4791), false},
		{"tcp to 80", ltTCP(t, 80), false},
		{"udp to 53", ltUDP(t, false, 40000, 53, payload), false},
		{"udp6 to 53", ltUDP(t, true, 40000, 53, payload), false},
		{"udp from 4791 to 5000", ltUDP(t, false, roce.UDPPort, 5000, payload), false},
		{"udp6 from 4791 to 5000", ltUDP(t, true, roce.UDPPort, 5000, payload), false},
		{"ipv4 non-first fragment", ltFragment(t, 185, false), false},
		{"ipv4 middle fragment", ltFragment(t, 185, true), false},
		{"ipv6 extension header before udp", v6ext(), false},
		{"arp", ltARP(t), false},
		{"three in-frame tags", ltRoCEv2(t, threeTags, false, ltSend(0x1c, 12), payload), false},
		{"ethernet header only", ltSerialize(t, ltEthernet(nil, layers.EthernetTypeIPv4)...), false},
		{"empty", nil, false},
	}
	vm := ltFilterVM(t, DefaultSnapLen)
	for _, c := range cases {
		n, err := vm.Run(c.frame)
		if err != nil {
			t.Errorf("%s: run: %v", c.name, err)
			continue
		}
		if got := n > 0; got != c.accept {
			t.Errorf("%s: accepted=%v (ret %d), want %v", c.name, got, n, c.accept)
		}
		if c.accept && n != DefaultSnapLen {
			t.Errorf("%s: ret %d, want the snap length %d", c.name, n, DefaultSnapLen)
		}
	}

	// Sanity: the positive frames decode as RoCE with the expected
	// encapsulation, so the filter and the decoder agree.
	dec, err := capture.NewDecoder(layers.LinkTypeEthernet)
	if err != nil {
		t.Fatal(err)
	}
	var d capture.Decoded
	for _, c := range cases {
		if !c.accept || c.name == "rocev2 ipv4 first fragment" {
			continue
		}
		isRoCE, err := dec.Decode(c.frame, len(c.frame), &d)
		if !isRoCE || err != nil || d.ICRC != capture.ICRCOK {
			t.Errorf("%s: decode: roce=%v err=%v icrc=%v", c.name, isRoCE, err, d.ICRC)
		}
	}
}

// TestBPFStrippedTag checks the frames as the kernel hands them to a socket
// filter after taking the outer tag into metadata: the same program must
// accept them (it never looks at the tag itself).
func TestBPFStrippedTag(t *testing.T) {
	vm := ltFilterVM(t, DefaultSnapLen)
	strip := func(frame []byte) []byte { // remove the outer tag (bytes 12..15)
		return append(append([]byte(nil), frame[:12]...), frame[16:]...)
	}
	for name, frame := range map[string][]byte{
		"vlan v4": ltRoCEv2(t, ltVLAN, false, ltSend(1, 1), nil),
		"vlan v6": ltRoCEv2(t, ltVLAN, true, ltSend(1, 2), nil),
		"qinq v4": ltRoCEv2(t, ltQinQ, false, ltSend(1, 3), nil),
		"vlan v1": ltRoCEv1(t, ltVLAN, ltSend(1, 4), nil),
		"qinq v1": ltRoCEv1(t, ltQinQ, ltSend(1, 5), nil),
	} {
		if n, _ := vm.Run(strip(frame)); n == 0 {
			t.Errorf("%s with the outer tag stripped: rejected", name)
		}
	}
	// A stripped tag does not let a non-RoCE frame through.
	ip := ltIP(false, layers.IPProtocolUDP)
	udp := &layers.UDP{SrcPort: roce.UDPPort, DstPort: 53}
	_ = udp.SetNetworkLayerForChecksum(ip)
	tagged := ltSerialize(t, append(ltEthernet(ltQinQ, layers.EthernetTypeIPv4), ip.(gopacket.SerializableLayer), udp, gopacket.Payload("x"))...)
	if n, _ := vm.Run(strip(tagged)); n != 0 {
		t.Errorf("QinQ UDP to port 53 with the outer tag stripped: accepted")
	}
}

func TestBPFSnapLen(t *testing.T) {
	frame := ltRoCEv2(t, nil, false, ltSend(1, 1), make([]byte, 1024))
	if n, _ := ltFilterVM(t, 128).Run(frame); n != 128 {
		t.Errorf("snap 128: ret %d", n)
	}
	for _, bad := range []int{0, -1} {
		if _, err := RoCEFilter(bad); err == nil {
			t.Errorf("RoCEFilter(%d): no error", bad)
		}
	}
	raw, err := RoCEFilter(DefaultSnapLen)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || len(raw) > 4096 { // BPF_MAXINSNS
		t.Errorf("filter has %d instructions", len(raw))
	}
}

// A live source is what the analysis reads.
var _ capture.Source = (*Source)(nil)
