package live

import (
	"fmt"

	"golang.org/x/net/bpf"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// DefaultSnapLen is the snap length of a live capture: whole frames (the
// ICRC, the last four bytes of a RoCE packet, can be verified only on a
// complete frame), up to the largest jumbo frame and GSO aggregate.
const DefaultSnapLen = 262144

// RoCEFilter returns a classic BPF program over Ethernet frames that
// accepts, with up to two VLAN tags (802.1Q 0x8100 or 802.1ad 0x88a8, in
// any order):
//
//   - RoCEv2 over IPv4: protocol UDP, destination port 4791, fragment offset
//     0 (unfragmented or first fragment: the only one with the UDP header);
//   - RoCEv2 over IPv6: next header UDP (no extension headers), destination
//     port 4791;
//   - RoCEv1: EtherType 0x8915.
//
// It is the filter tcpdump writes as
//
//	udp dst port 4791 or ether proto 0x8915 or
//	(vlan and (udp dst port 4791 or ether proto 0x8915)) or
//	(vlan and vlan and (udp dst port 4791 or ether proto 0x8915))
//
// without libpcap. An accepted frame is cut to snapLen bytes: for a socket
// filter the return value is the snap length, so this is also how a live
// capture applies its snap length (TPACKET_V3 has no other per-packet cut).
//
// VLAN tags and the Linux kernel: on receive (and on transmit through a
// device with VLAN offload) the kernel takes the outer tag out of the frame
// into skb metadata (vlan_tci) before packet sockets see it, so a tagged
// frame may reach the filter with its outer tag (or its only tag) missing.
// The program does not need SKF_AD_VLAN_TAG_PRESENT to cope with that: it
// matches on the bytes that are there, walking whatever tags remain in the
// frame, and a stripped tag moves nothing (the inner EtherType then sits at
// offset 12, as in an untagged frame). So untagged, tagged-in-frame and
// tag-stripped frames all match through the same path, and the VLAN ID is
// not looked at. The only consequence is that a stripped outer tag plus two
// in-frame tags (three in all) is accepted too, which is harmless. Not
// using ancillary loads also keeps the program runnable in
// golang.org/x/net/bpf's VM, which tests use, and on any kernel. The live
// source puts a stripped tag back into the frame before decoding, so its
// VLAN ID and priority (PCP) are not lost.
func RoCEFilter(snapLen int) ([]bpf.RawInstruction, error) {
	if snapLen <= 0 {
		return nil, fmt.Errorf("capture: snap length %d must be positive", snapLen)
	}
	var a asm
	const (
		tpid8021Q  = 0x8100
		tpid8021AD = 0x88a8
		ethIPv4    = 0x0800
		ethIPv6    = 0x86dd
		protoUDP   = 17
	)
	// Walk up to two VLAN tags: block d handles the EtherType at 12+4d.
	for d := 0; d <= 2; d++ {
		l3 := uint32(14 + 4*d) // network header offset
		a.label(fmt.Sprint("eth", d))
		a.add(bpf.LoadAbsolute{Off: l3 - 2, Size: 2})
		if d < 2 {
			next := fmt.Sprint("eth", d+1)
			a.jeq(tpid8021Q, next, "")
			a.jeq(tpid8021AD, next, "")
		}
		v4, v6 := fmt.Sprint("ip4_", d), fmt.Sprint("ip6_", d)
		a.jeq(ethIPv4, v4, "")
		a.jeq(ethIPv6, v6, "")
		a.jeq(uint32(roce.EtherTypeRoCEv1), "accept", "reject")

		a.label(v4)
		a.add(bpf.LoadAbsolute{Off: l3 + 9, Size: 1}) // protocol
		a.jeq(protoUDP, "", "reject")
		a.add(bpf.LoadAbsolute{Off: l3 + 6, Size: 2}) // flags, fragment offset
		a.jset(0x1fff, "reject", "")
		a.add(bpf.LoadMemShift{Off: l3})              // X = IHL*4
		a.add(bpf.LoadIndirect{Off: l3 + 2, Size: 2}) // UDP destination port
		a.jeq(roce.UDPPort, "accept", "reject")

		a.label(v6)
		a.add(bpf.LoadAbsolute{Off: l3 + 6, Size: 1}) // next header
		a.jeq(protoUDP, "", "reject")
		a.add(bpf.LoadAbsolute{Off: l3 + 40 + 2, Size: 2}) // UDP destination port
		a.jeq(roce.UDPPort, "accept", "reject")
	}
	a.label("accept")
	a.add(bpf.RetConstant{Val: uint32(snapLen)})
	a.label("reject")
	a.add(bpf.RetConstant{Val: 0})
	return a.assemble()
}

// asm is a tiny assembler with labels over golang.org/x/net/bpf, whose
// conditional jumps take relative skip counts. A jump target "" is the next
// instruction.
type asm struct {
	ins    []bpf.Instruction
	labels map[string]int
	jumps  []jump
}

type jump struct {
	at        int
	cond      bpf.JumpTest
	val       uint32
	skipTrue  string
	skipFalse string
}

func (a *asm) add(in bpf.Instruction) { a.ins = append(a.ins, in) }

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

func (a *asm) jeq(val uint32, t, f string)  { a.jmp(bpf.JumpEqual, val, t, f) }
func (a *asm) jset(val uint32, t, f string) { a.jmp(bpf.JumpBitsSet, val, t, f) }

func (a *asm) jmp(cond bpf.JumpTest, val uint32, t, f string) {
	a.jumps = append(a.jumps, jump{len(a.ins), cond, val, t, f})
	a.add(nil) // filled in by assemble
}

func (a *asm) assemble() ([]bpf.RawInstruction, error) {
	skip := func(from int, to string) (uint8, error) {
		if to == "" {
			return 0, nil
		}
		at, ok := a.labels[to]
		if !ok {
			return 0, fmt.Errorf("capture: bpf: no label %q", to)
		}
		n := at - from - 1
		if n < 0 || n > 255 {
			return 0, fmt.Errorf("capture: bpf: jump from %d to %q (%d) out of range", from, to, at)
		}
		return uint8(n), nil
	}
	for _, j := range a.jumps {
		t, err := skip(j.at, j.skipTrue)
		if err != nil {
			return nil, err
		}
		f, err := skip(j.at, j.skipFalse)
		if err != nil {
			return nil, err
		}
		a.ins[j.at] = bpf.JumpIf{Cond: j.cond, Val: j.val, SkipTrue: t, SkipFalse: f}
	}
	return bpf.Assemble(a.ins)
}
