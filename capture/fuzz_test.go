package capture_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// fzLinks are the link types capture.Decoder supports; the fuzzer picks one
// with its first argument.
var fzLinks = []layers.LinkType{
	layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2,
	layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, 12, 14, // 12 and 14: DLT_RAW on BSDs
}

// fzRewrap carries the payload of an Ethernet frame (what follows the
// EtherType, VLAN tags included) in another link type. ok is false when the
// link type cannot carry it (raw IP needs an untagged IP frame).
func fzRewrap(eth []byte, link layers.LinkType) ([]byte, bool) {
	if len(eth) < 14 {
		return nil, false
	}
	proto, rest := eth[12:14], eth[14:]
	switch link {
	case layers.LinkTypeEthernet:
		return eth, true
	case layers.LinkTypeLinuxSLL: // packet type, ARPHRD_ETHER, address length, address[8], protocol
		h := []byte{0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, proto[0], proto[1]}
		copy(h[6:12], eth[6:12])
		return append(h, rest...), true
	case layers.LinkTypeLinuxSLL2: // protocol, reserved, ifindex, ARPHRD_ETHER, packet type, address length, address[8]
		h := []byte{proto[0], proto[1], 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0}
		copy(h[12:18], eth[6:12])
		return append(h, rest...), true
	default:
		if et := binary.BigEndian.Uint16(proto); et != 0x0800 && et != 0x86dd {
			return nil, false
		}
		return bytes.Clone(rest), true
	}
}

// fzFrame is a seed: an Ethernet frame and its length on the wire.
type fzFrame struct {
	data []byte
	wire int
	roce bool // a complete, valid RoCE packet
}

// fzRealFrames reads frames from the testdata captures: one per distinct
// opcode and size class, cut ones included, plus non-RoCE frames.
func fzRealFrames(tb testing.TB) []fzFrame {
	tb.Helper()
	var out []fzFrame
	seen := map[[3]int]bool{}
	for _, file := range []string{
		"pcaps/oferby-proxy_roce.pcap", "pcaps/pcapplusplus-pr1603_softroce-rdma-read-req.pcap",
		"pcaps/rdma-ib-tutorial_pingpong_ud.pcap", "pcaps/rdma-ib-tutorial_rdma_atomic_bw.pcap",
		"pcaps/scapy-roce-uts_cnp-connectx4lx.pcap", "pcaps/rdma-ib-tutorial_rdma_read_bw.pcap",
		"pcaps/rdma-ib-tutorial_rdma_cm.pcap", "pcaps/rdma-softroce-demo_no-roce.pcap",
		"rxe/faults/rnr-recover/capture.pcap", "rxe/pcap/lossy1-prenetem.pcap",
	} {
		f, err := os.Open(filepath.Join("../testdata", file))
		if err != nil {
			tb.Fatal(err)
		}
		r, err := pcapgo.NewReader(f)
		if err != nil {
			tb.Fatal(err)
		}
		for {
			data, ci, err := r.ReadPacketData()
			if err == io.EOF {
				break
			}
			if err != nil {
				tb.Fatal(err)
			}
			isRoCE := len(data) > 43 && binary.BigEndian.Uint16(data[36:]) == roce.UDPPort
			key := [3]int{-1, len(data) / 200, ci.Length - len(data)}
			if isRoCE {
				key[0] = int(data[42])
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, fzFrame{data: data, wire: ci.Length, roce: isRoCE && ci.Length == len(data)})
		}
		f.Close()
	}
	return out
}

// fzSynthFrames builds what the real captures lack: VLAN tags, IPv6, RoCEv1.
func fzSynthFrames(tb testing.TB) []fzFrame {
	tb.Helper()
	var out []fzFrame
	build := func(tags []uint16, kind int, p *roce.Packet, payload []byte) {
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0x77, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0x77, 2}}
		ls := []gopacket.SerializableLayer{eth}
		last := &eth.EthernetType
		for i, vid := range tags {
			*last = layers.EthernetTypeDot1Q
			if i == 0 && len(tags) > 1 {
				*last = layers.EthernetTypeQinQ
			}
			tag := &layers.Dot1Q{Priority: 3, VLANIdentifier: vid}
			ls = append(ls, tag)
			last = &tag.Type
		}
		src6, dst6 := net.ParseIP("fe80::ff:fe00:7701"), net.ParseIP("fe80::ff:fe00:7702")
		udp := &layers.UDP{SrcPort: 49999, DstPort: roce.UDPPort}
		switch kind {
		case 4:
			*last = layers.EthernetTypeIPv4
			ip := &layers.IPv4{Version: 4, IHL: 5, TOS: 0x6b, TTL: 64, Protocol: layers.IPProtocolUDP,
				SrcIP: net.IPv4(192, 168, 77, 1), DstIP: net.IPv4(192, 168, 77, 2)}
			_ = udp.SetNetworkLayerForChecksum(ip)
			ls = append(ls, ip, udp)
		case 6:
			*last = layers.EthernetTypeIPv6
			ip := &layers.IPv6{Version: 6, TrafficClass: 0x6b, FlowLabel: 0x12345, NextHeader: layers.IPProtocolUDP,
				HopLimit: 64, SrcIP: src6, DstIP: dst6}
			_ = udp.SetNetworkLayerForChecksum(ip)
			ls = append(ls, ip, udp)
		case 1:
			*last = roce.EtherTypeRoCEv1
			ls = append(ls, &roce.GRH{IPVer: 6, TrafficClass: 0x6b, NextHeader: roce.GRHNextHeaderBTH, HopLimit: 1, SGID: src6, DGID: dst6})
		}
		ls = append(ls, p, gopacket.Payload(payload))
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
			tb.Fatal(err)
		}
		frame := buf.Bytes()
		if err := roce.SealICRC(frame[14+4*len(tags):], kind == 1); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fzFrame{data: frame, wire: len(frame), roce: true})
	}
	ack := func() *roce.Packet {
		return &roce.Packet{BTH: roce.BTH{Opcode: 0x11, PKey: 0xffff, DestQP: 0x11, PSN: 77}, AETH: roce.AETH{Syndrome: 0x38, MSN: 5}}
	}
	write := func() *roce.Packet {
		return &roce.Packet{BTH: roce.BTH{Opcode: 0x0b, PKey: 0xffff, DestQP: 0x12, AckReq: true, PSN: 0xfffffe},
			RETH: roce.RETH{VA: 0x7f0000001000, RKey: 0x1234, DMALength: 5}, ImmDt: roce.ImmDt{Data: 9}}
	}
	for _, kind := range []int{4, 6, 1} {
		build(nil, kind, ack(), nil)
		build([]uint16{100}, kind, write(), []byte("hello"))
		build([]uint16{10, 20}, kind, ack(), nil)
		build(nil, kind, &roce.Packet{BTH: roce.BTH{Opcode: roce.OpcodeCNP, PKey: 0xffff, BECN: true, DestQP: 0x11}}, nil)
	}
	return out
}

// fzView is the part of a Decoded that describes the frame just decoded.
type fzView struct {
	OK, Err                    bool
	Encap                      capture.Encap
	WireLen                    int
	VLAN                       bool
	VLANID                     uint16
	PCP                        uint8
	Src, Dst                   [16]byte
	IPv4                       bool
	DSCP, ECN                  uint8
	SrcPort                    uint16
	ICRC                       capture.ICRCStatus
	Packet                     roce.Packet
	Payload, Contents, Headers string
	NetHdr, UDPHdr             string
}

func fzViewOf(ok bool, err error, d *capture.Decoded) fzView {
	v := fzView{OK: ok, Err: err != nil, Encap: d.Encap, WireLen: d.WireLen, VLAN: d.VLAN}
	if d.VLAN {
		v.VLANID, v.PCP = d.VLANID, d.PCP
	}
	if !ok || err != nil {
		v.ICRC = d.ICRC
		return v
	}
	v.Src, v.Dst, v.IPv4, v.DSCP, v.ECN, v.SrcPort, v.ICRC = d.Src, d.Dst, d.IPv4, d.DSCP, d.ECN, d.SrcPort, d.ICRC
	p := &d.RoCE
	q := roce.Packet{BTH: p.BTH, Headers: p.Headers, HeaderLen: p.HeaderLen, PayloadLen: p.PayloadLen,
		ICRC: p.ICRC, HasICRC: p.HasICRC, Truncated: p.Truncated}
	for _, h := range []struct {
		flag     uint16
		dst, src any
	}{
		{roce.HasRDETH, &q.RDETH, &p.RDETH}, {roce.HasDETH, &q.DETH, &p.DETH}, {roce.HasXRCETH, &q.XRCETH, &p.XRCETH},
		{roce.HasFETH, &q.FETH, &p.FETH}, {roce.HasRETH, &q.RETH, &p.RETH}, {roce.HasAtomicETH, &q.AtomicETH, &p.AtomicETH},
		{roce.HasAETH, &q.AETH, &p.AETH}, {roce.HasAtomicAckETH, &q.AtomicAckETH, &p.AtomicAckETH},
		{roce.HasImmDt, &q.ImmDt, &p.ImmDt}, {roce.HasIETH, &q.IETH, &p.IETH},
	} {
		if p.Has(h.flag) {
			reflect.ValueOf(h.dst).Elem().Set(reflect.ValueOf(h.src).Elem())
		}
	}
	v.Packet, v.Payload, v.Contents = q, string(p.Payload), string(p.Contents)
	v.NetHdr, v.UDPHdr = string(d.NetHdr), string(d.UDPHdr)
	v.Headers = string(p.LayerContents())
	return v
}

// fzDiff names the fields in which two views differ.
func fzDiff(a, b fzView) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, fmt.Sprintf("%s: %#v vs %#v", va.Type().Field(i).Name, va.Field(i).Interface(), vb.Field(i).Interface()))
		}
	}
	return strings.Join(out, "; ")
}

func fzDecoder(tb testing.TB, link layers.LinkType, verify bool) *capture.Decoder {
	d, err := capture.NewDecoder(link)
	if err != nil {
		tb.Fatal(err)
	}
	d.VerifyICRC = verify
	return d
}

// FuzzDecoder feeds arbitrary frames of every supported link type to
// capture.Decoder. It must not panic nor modify its input, its verdicts must
// be consistent, and a Decoder that decoded another packet before must give
// the same answer as a fresh one (no state leaks from packet to packet).
func FuzzDecoder(f *testing.F) {
	frames := append(fzRealFrames(f), fzSynthFrames(f)...)
	for i, link := range fzLinks {
		for _, fr := range frames {
			data, ok := fzRewrap(fr.data, link)
			if !ok {
				continue
			}
			extra := fr.wire - len(fr.data)
			f.Add(uint8(i), data, uint16(extra), true)
			if fr.roce && len(data) > 60 {
				f.Add(uint8(i), data[:len(data)-20], uint16(20), true) // snap length cut
				f.Add(uint8(i), data, uint16(0), false)
			}
		}
	}
	// A primer per link type: a VLAN-tagged RoCEv2 WRITE with every field set.
	synth := fzSynthFrames(f)
	primer := synth[1].data                                     // VLAN 100, IPv4, RDMA WRITE ONLY with immediate
	rawPrimer, _ := fzRewrap(synth[4].data, layers.LinkTypeRaw) // untagged IPv6 ACK

	f.Fuzz(func(t *testing.T, linkIdx uint8, data []byte, extra uint16, verify bool) {
		link := fzLinks[int(linkIdx)%len(fzLinks)]
		wire := len(data) + int(extra)
		orig := bytes.Clone(data)

		var out capture.Decoded
		ok, err := fzDecoder(t, link, verify).Decode(data, wire, &out)
		if !bytes.Equal(data, orig) {
			t.Fatal("Decode modified its input")
		}
		switch {
		case err != nil:
			if !ok || !errors.Is(err, capture.ErrMalformed) {
				t.Fatalf("error %v with ok=%v, want ok and ErrMalformed", err, ok)
			}
			if out.ICRC != capture.ICRCUnchecked {
				t.Fatalf("ICRC %v on a malformed packet", out.ICRC)
			}
		case !ok:
			if out.Encap != capture.EncapNone {
				t.Fatalf("not RoCE but Encap %v", out.Encap)
			}
		default:
			p := &out.RoCE
			if out.Encap == capture.EncapNone {
				t.Fatal("RoCE with Encap none")
			}
			if op := p.BTH.Opcode; p.Headers != op.Headers() || p.HeaderLen != roce.BTHLen+roce.ExtLen(op.Headers()) {
				t.Fatalf("%s: headers %#x, HeaderLen %d", op, p.Headers, p.HeaderLen)
			}
			if len(p.Payload) > p.PayloadLen || p.HasICRC == p.Truncated {
				t.Fatalf("payload %d of %d, HasICRC %v Truncated %v", len(p.Payload), p.PayloadLen, p.HasICRC, p.Truncated)
			}
			verifiable := p.HasICRC && !p.Truncated && extra == 0
			switch out.ICRC {
			case capture.ICRCUnchecked:
				if verify {
					t.Fatal("ICRC unchecked with VerifyICRC")
				}
			case capture.ICRCOK, capture.ICRCBad:
				if !verify || !verifiable {
					t.Fatalf("ICRC %v but verify %v HasICRC %v Truncated %v cut %d", out.ICRC, verify, p.HasICRC, p.Truncated, extra)
				}
			case capture.ICRCUnverifiable:
				if !verify || verifiable {
					t.Fatalf("ICRC unverifiable but verify %v HasICRC %v Truncated %v cut %d", verify, p.HasICRC, p.Truncated, extra)
				}
			}
		}
		if out.WireLen != wire {
			t.Fatalf("WireLen %d, want %d", out.WireLen, wire)
		}
		// The decode of a reused Decoder (and Decoded) must not depend on
		// the packet before.
		fresh := fzViewOf(ok, err, &out)
		d := fzDecoder(t, link, verify)
		var reused capture.Decoded
		p := primer
		if link != layers.LinkTypeEthernet && link != layers.LinkTypeLinuxSLL && link != layers.LinkTypeLinuxSLL2 {
			p = rawPrimer
		} else {
			p, _ = fzRewrap(primer, link)
		}
		if ok, err := d.Decode(p, len(p), &reused); !ok || err != nil {
			t.Fatalf("primer: %v %v", ok, err)
		}
		ok2, err2 := d.Decode(data, wire, &reused)
		if got := fzViewOf(ok2, err2, &reused); !reflect.DeepEqual(got, fresh) {
			t.Fatalf("reused decoder differs from a fresh one: %s", fzDiff(got, fresh))
		}
	})
}

// TestFuzzDecoderSeeds checks the fuzzer's seed frames themselves: every
// complete RoCE frame decodes, with a good ICRC, on every link type that can
// carry it, and the same frame cut by the snap length is unverifiable.
func TestFuzzDecoderSeeds(t *testing.T) {
	frames := append(fzRealFrames(t), fzSynthFrames(t)...)
	n := 0
	for _, link := range fzLinks {
		d := fzDecoder(t, link, true)
		for _, fr := range frames {
			data, ok := fzRewrap(fr.data, link)
			if !ok || !fr.roce {
				continue
			}
			var out capture.Decoded
			isRoCE, err := d.Decode(data, len(data), &out)
			if !isRoCE || err != nil || out.ICRC != capture.ICRCOK {
				t.Errorf("link %v, %d-byte frame: RoCE %v err %v ICRC %v", link, len(data), isRoCE, err, out.ICRC)
				continue
			}
			n++
			// Cut by the snap length: after the headers, the ICRC cannot be
			// checked; inside them, the packet is reported as malformed
			// because truncated (the analyzer counts it so).
			headersEnd := len(data) - roce.ICRCLen - out.RoCE.PayloadLen - int(out.RoCE.BTH.PadCount)
			isRoCE, err = d.Decode(data[:len(data)-roce.ICRCLen], len(data), &out)
			if !isRoCE || err != nil || out.ICRC != capture.ICRCUnverifiable || !out.RoCE.Truncated || out.RoCE.HasICRC {
				t.Errorf("link %v, frame cut in its ICRC: RoCE %v err %v ICRC %v", link, isRoCE, err, out.ICRC)
			}
			isRoCE, err = d.Decode(data[:headersEnd-1], len(data), &out)
			if !isRoCE || !errors.Is(err, capture.ErrMalformed) || !errors.Is(err, roce.ErrTruncated) || out.ICRC != capture.ICRCUnchecked {
				t.Errorf("link %v, frame cut in its headers: RoCE %v err %v ICRC %v", link, isRoCE, err, out.ICRC)
			}
			// One flipped payload bit is an ICRC error, not a decode error.
			bad := bytes.Clone(data)
			bad[len(bad)-5] ^= 0x10
			if isRoCE, err = d.Decode(bad, len(bad), &out); !isRoCE || err != nil || out.ICRC != capture.ICRCBad {
				t.Errorf("link %v, corrupted frame: RoCE %v err %v ICRC %v", link, isRoCE, err, out.ICRC)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d seed frames decoded", n)
	}
}
