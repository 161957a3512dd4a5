package scenario

import (
	"bytes"
	"net"
	"net/netip"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// Scenario is a conversation and the analysis it must produce.
type Scenario struct {
	Name        string
	Description string
	Snaplen     uint32 // 0: DefaultSnaplen
	Build       func(cp *Capture)
	Want        Want
}

// File is the scenario's file name.
func (s *Scenario) File() string { return s.Name + ".pcap" }

// Pcap generates the scenario's capture file.
func (s *Scenario) Pcap() ([]byte, error) {
	var b bytes.Buffer
	cp := NewCapture(&b, s.Snaplen)
	s.Build(cp)
	if err := cp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var (
	macA = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}
	macB = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}
)

const (
	qpA  = 0x11
	qpB  = 0x22
	psnA = 1000 // A's first request PSN
	psnB = 5000 // B's, when B sends requests (Reverse)
)

// v4 is the default connection: RoCEv2 over IPv4, PMTU 1024, DSCP 26, ECT(0).
func v4() Conn {
	return Conn{
		A:    Endpoint{MAC: macA, IP: netip.MustParseAddr("10.0.0.1"), QPN: qpA, PSN: psnA},
		B:    Endpoint{MAC: macB, IP: netip.MustParseAddr("10.0.0.2"), QPN: qpB, PSN: psnB},
		PMTU: 1024, DSCP: 26, ECN: ECT0,
	}
}

func v6() Conn {
	c := v4()
	c.A.IP, c.B.IP = netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2")
	return c
}

// v1 is RoCEv1: the GIDs are the link-local addresses of the MACs.
func v1() Conn {
	c := v4()
	c.Encap = RoCEv1
	c.A.IP, c.B.IP = netip.MustParseAddr("fe80::ff:fe00:1"), netip.MustParseAddr("fe80::ff:fe00:2")
	return c
}

// Flow keys of the default connection.
const (
	a4, b4 = "10.0.0.1", "10.0.0.2"
	a6, b6 = "2001:db8::1", "2001:db8::2"
	g1, g2 = "fe80::ff:fe00:1", "fe80::ff:fe00:2"
)

// Opcodes, short.
const (
	wFirst  = roce.Opcode(roce.OpWriteFirst)
	wMiddle = roce.Opcode(roce.OpWriteMiddle)
	wLast   = roce.Opcode(roce.OpWriteLast)
	wOnly   = roce.Opcode(roce.OpWriteOnly)
	sFirst  = roce.Opcode(roce.OpSendFirst)
	sLast   = roce.Opcode(roce.OpSendLast)
	sOnly   = roce.Opcode(roce.OpSendOnly)
	rReq    = roce.Opcode(roce.OpReadRequest)
	rFirst  = roce.Opcode(roce.OpReadResponseFirst)
	rMiddle = roce.Opcode(roce.OpReadResponseMiddle)
	rLast   = roce.Opcode(roce.OpReadResponseLast)
	rOnly   = roce.Opcode(roce.OpReadResponseOnly)
	ack     = roce.Opcode(roce.OpAcknowledge)
	cnp     = roce.OpcodeCNP
)

// Scenarios returns the scenario table. In the comments, "1004 1005" are
// PSNs, "[1005]" a PSN lost before the capture point, "1005'" a copy.
// Every RTT is 1 µs (B answers in the next frame) unless said otherwise.
func Scenarios() []Scenario {
	var all []Scenario
	for _, part := range [][]Scenario{cleanScenarios(), lossScenarios(), encapScenarios(), faultScenarios()} {
		all = append(all, part...)
	}
	return all
}
