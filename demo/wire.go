package demo

import (
	"bytes"
	"net"
	"net/netip"
	"time"

	"github.com/rdmatop/rdmatop/capture/roce"
	"github.com/rdmatop/rdmatop/capture/scenario"
)

// The wire: each tick, one second of the RoCEv2 connection between the
// peer (requester, 192.168.10.21) and this host's QP 0x1a4 on eth0
// (responder, 192.168.10.11, its RoCEv2 GID), as a capture at this host would show it:
// RDMA WRITEs of 16 KiB (4 packets at PMTU 4096) answered by ACKs, DSCP 26
// (priority 3), ECT(0). The pcap is written with capture/scenario and
// read back by the monitor's one analyzer, as `rdmatop replay` would.
const (
	writesPerTick = 8
	writeSize     = 16 << 10
	pmtu          = 4096
	pktsPerWrite  = writeSize / pmtu
	firstPSN      = 0x10000
)

var (
	peer = scenario.Endpoint{MAC: net.HardwareAddr{0xb8, 0xce, 0xf6, 0x11, 0x22, 0x33},
		IP: netip.MustParseAddr("192.168.10.21"), QPN: 0x3c4}
	local = scenario.Endpoint{MAC: net.HardwareAddr{0xb8, 0xce, 0xf6, 0x5a, 0x3c, 0x10},
		IP: netip.MustParseAddr("192.168.10.11"), QPN: 0x1a4}
)

// wire returns the capture of the second before tick i, as a pcap.
func (s *Scenario) wire(k phaseKind, i int) ([]byte, error) {
	var buf bytes.Buffer
	cp := scenario.NewCapture(&buf, 0)
	// The capture's clock is the demo's: tick i's packets flow in the
	// second before its sample, so the sample at tick i sees them.
	cp.Wait(Start.Sub(scenario.Start) + Interval*time.Duration(i-1) + time.Millisecond)
	a := peer
	a.PSN = uint32(firstPSN+i*writesPerTick*pktsPerWrite) & 0xffffff
	c := cp.Open(scenario.Conn{A: a, B: local, Encap: scenario.RoCEv2, PMTU: pmtu, DSCP: 26, ECN: scenario.ECT0})
	for w := range writesPerTick {
		switch {
		case k == loss && (w == 2 || w == 5):
			// A lossy link before this host drops the WRITE's second
			// packet: this host NAKs the gap (PSN sequence error) and the
			// peer goes back N from the lost PSN.
			c.Next(scenario.Keep, scenario.Drop)
			last := c.Write(writeSize)
			lost := (last - pktsPerWrite + 2) & 0xffffff
			c.NAK(roce.NAKPSNSequenceError, lost)
			c.GoBack(lost)
			c.Ack(last)
			continue
		case k == ecn && w%2 == 1:
			// The switch marks the packets CE; no CNP comes back.
			c.Next(scenario.CE, scenario.CE, scenario.CE, scenario.CE)
		}
		c.Ack(c.Write(writeSize))
	}
	if err := cp.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
