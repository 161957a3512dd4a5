package roce

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// BenchmarkPacketDecode decodes representative real transport parts into a
// reused Packet, as the capture path does.
func BenchmarkPacketDecode(b *testing.B) {
	cases := []struct {
		name  string
		file  string
		frame int
	}{
		{"RC_ACKNOWLEDGE", "oferby-proxy_roce.pcap", 16},
		{"RC_RDMA_READ_REQUEST", "pcapplusplus-pr1603_softroce-rdma-read-req.pcap", 1},
		{"RC_SEND_LAST_WITH_IMMEDIATE_1KiB", "oferby-proxy_roce.pcap", 18},
		{"UD_SEND_ONLY_1KiB", "rdma-ib-tutorial_pingpong_ud.pcap", 12},
		{"RC_FETCH_ADD", "rdma-ib-tutorial_rdma_atomic_bw.pcap", 20},
		{"CNP", "scapy-roce-uts_cnp-connectx4lx.pcap", 1},
	}
	for _, c := range cases {
		parts, ok := splitV2(frameAt(b, c.file, c.frame).data)
		if !ok {
			b.Fatalf("%s frame %d is not RoCEv2", c.file, c.frame)
		}
		b.Run(c.name, func(b *testing.B) {
			var p Packet
			b.SetBytes(int64(len(parts.ib)))
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Decode(parts.ib, parts.ibWire); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkICRCv4 computes the ICRC of a RoCEv2/IPv4 RDMA WRITE ONLY with a
// 1 KiB payload.
func BenchmarkICRCv4(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	p := randomPacket(r, 0x0a, 0, 0)
	frame := buildFrame(b, r, kindV4, p, make([]byte, 1024))
	nt := frame[14:]
	ip, udp, ib := nt[:20], nt[20:28], nt[28:len(nt)-ICRCLen]
	want := binary.LittleEndian.Uint32(nt[len(nt)-ICRCLen:]) // sealed by buildFrame
	b.SetBytes(int64(len(nt)))
	b.ReportAllocs()
	h := new(Hasher)
	for b.Loop() {
		if h.ICRCv4(ip, udp, ib) != want {
			b.Fatal("ICRC mismatch")
		}
	}
}
