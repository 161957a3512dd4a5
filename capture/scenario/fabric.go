package scenario

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
)

// Fabric writes one connection for each of pairs host pairs (no two pairs
// share a host), as a capture of a fabric's many hosts would hold them: a 4 KiB WRITE and its ACK, then a SEND. Every
// fifth pair is IPv6. Connection i%4 == 1 loses a packet and recovers
// with a NAK and go-back-N; i%4 == 2 has two CE-marked packets and a CNP
// back. It is what splitting a capture by host pair (live.FanoutShard)
// is tested with.
func Fabric(cp *Capture, pairs int) {
	host := func(i int, v6 bool) Endpoint {
		ip := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
		if v6 {
			ip = netip.MustParseAddr(fmt.Sprintf("fd00::%x", i))
		}
		return Endpoint{MAC: net.HardwareAddr{2, 0, 0, 0, byte(i >> 8), byte(i)}, IP: ip, PSN: uint32(i * 1000)}
	}
	for i := range pairs {
		v6 := i%5 == 4
		a, b := host(2*i+1, v6), host(2*i+2, v6)
		a.QPN, b.QPN = uint32(0x1000+i), uint32(0x2000+i)
		c := cp.Open(Conn{A: a, B: b, DSCP: 26, ECN: ECT0})
		c.Write(4096)
		c.Ack(a.PSN + 3)
		switch i % 4 {
		case 1: // a lost packet, a NAK, go-back-N
			c.Next(Keep, Drop)
			c.Write(4096)
			c.NAK(0, a.PSN+5)
			c.GoBack(a.PSN + 5)
		case 2:
			c.Next(CE, CE)
			c.Write(2048)
			c.Reverse().CNP()
		}
		c.Send(64)
	}
}

// Frame is one frame of a built capture, with its capture info.
type Frame struct {
	Data []byte
	CI   gopacket.CaptureInfo
}

// FabricFrames builds Fabric(pairs) and returns its frames in order.
func FabricFrames(pairs int) ([]Frame, error) {
	var buf bytes.Buffer
	cp := NewCapture(&buf, 0)
	Fabric(cp, pairs)
	if err := cp.Close(); err != nil {
		return nil, err
	}
	r, err := pcapgo.NewReader(&buf)
	if err != nil {
		return nil, err
	}
	var out []Frame
	for {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Frame{data, ci})
	}
}

// FabricData is FabricFrames without the capture info: the frames' bytes.
func FabricData(pairs int) ([][]byte, error) {
	frames, err := FabricFrames(pairs)
	if err != nil {
		return nil, err
	}
	data := make([][]byte, len(frames))
	for i, f := range frames {
		data[i] = f.Data
	}
	return data, nil
}
