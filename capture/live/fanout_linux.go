//go:build linux

package live

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// OpenFanout opens n live captures of iface joined in one
// PACKET_FANOUT group: the kernel hands each frame to exactly one of them,
// so n readers on n cores share the work, each with its own ring (and its
// own drop counter). The split is by host pair (FanoutShard): both
// directions of every connection land in the same ring, so each ring's
// analysis pairs requests with their ACKs and NAKs as one capture would.
// The kernel's own flow hash would not do: it includes the UDP ports, and
// the two directions of a RoCE connection use different ones.
//
// n = 1 is Open. The group's id is chosen by the kernel, so other
// captures on the host (another rdmatop, tcpdump) are not disturbed. A
// kernel without classic-BPF fanout (before Linux 4.2) gives an error
// wrapping ErrNotSupported: capture with one ring instead.
func OpenFanout(iface string, opts Options, n int) ([]*Source, error) {
	if n < 1 || n > MaxFanout {
		return nil, fmt.Errorf("capture: %d workers out of range [1, %d]", n, MaxFanout)
	}
	var srcs []*Source
	fail := func(err error) ([]*Source, error) {
		for _, s := range srcs {
			s.Close()
		}
		return nil, err
	}
	prog, err := fanoutProgram()
	if err != nil {
		return nil, err
	}
	var id uint16
	for i := range n {
		s, err := Open(iface, opts)
		if err != nil {
			return fail(err)
		}
		srcs = append(srcs, s)
		if n == 1 {
			break
		}
		if i == 0 {
			// The kernel picks an id no other group on the host uses.
			if err := s.r.joinFanout(0, unix.PACKET_FANOUT_CBPF|unix.PACKET_FANOUT_FLAG_UNIQUEID); err != nil {
				return fail(fanoutError(iface, err))
			}
			if id, err = s.r.fanoutID(); err != nil {
				return fail(fanoutError(iface, err))
			}
			if err := attachFilter(s.r.fd, unix.SOL_PACKET, unix.PACKET_FANOUT_DATA, prog); err != nil {
				return fail(fanoutError(iface, err))
			}
			continue
		}
		if err := s.r.joinFanout(id, unix.PACKET_FANOUT_CBPF); err != nil {
			return fail(fanoutError(iface, err))
		}
	}
	// Until the group is complete its rings split the frames differently
	// (the first ring alone got them all; a ring not yet joined got
	// copies): the capture starts when the last ring joined, so that every
	// host pair is in one ring from its first frame on.
	complete := time.Now()
	for _, s := range srcs {
		s.joined = complete
	}
	return srcs, nil
}

// MaxFanout bounds the workers of one capture (the kernel allows 256
// sockets per fanout group; more than a few dozen cores never pay).
const MaxFanout = 64

func fanoutError(iface string, err error) error {
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOPROTOOPT) {
		return fmt.Errorf("capture on %s: PACKET_FANOUT with a BPF program: %w (%w)", iface, ErrNotSupported, err)
	}
	return fmt.Errorf("capture on %s: PACKET_FANOUT: %w", iface, err)
}

// fanoutProgram assembles the group's classic BPF program: with s and d
// the source and destination addresses (an IPv6 address folded to 32 bits
// by XOR), (s^d)*K1 + (s+d)*K2 (the same for both directions; host
// addresses of a fabric differ in a few structured bits, so XOR alone
// would put many pairs together), its top 8 bits; the kernel takes that
// modulo the number of rings. Other frames (RoCEv1, ARP) go to the first
// ring. Offsets are from the network header (SKF_NET_OFF), so a VLAN tag
// the NIC took out of the frame or one left in it makes no difference.
// FanoutShard is the same function in Go.
func fanoutProgram() ([]bpf.RawInstruction, error) {
	const netOff = 0xfff00000 // SKF_NET_OFF: -0x100000
	ld := func(off uint32) bpf.Instruction { return bpf.LoadAbsolute{Off: netOff + off, Size: 4} }
	xorX := bpf.ALUOpX{Op: bpf.ALUOpXor}
	// fold leaves in A the XOR of the four words of the address at off.
	fold := func(off uint32) []bpf.Instruction {
		return []bpf.Instruction{ld(off), bpf.TAX{}, ld(off + 4), xorX, bpf.TAX{}, ld(off + 8), xorX, bpf.TAX{}, ld(off + 12), xorX}
	}
	v4 := []bpf.Instruction{ld(12), bpf.TAX{}, ld(16)} // X = s, A = d
	v6 := append(fold(8), bpf.StoreScratch{Src: bpf.RegA, N: 2})
	v6 = append(v6, fold(24)...)
	v6 = append(v6, bpf.LoadScratch{Dst: bpf.RegX, N: 2}) // X = s, A = d
	tail := []bpf.Instruction{
		bpf.StoreScratch{Src: bpf.RegA, N: 0}, // M0 = d
		bpf.ALUOpX{Op: bpf.ALUOpAdd}, bpf.ALUOpConstant{Op: bpf.ALUOpMul, Val: fanoutMulSum},
		bpf.StoreScratch{Src: bpf.RegA, N: 1}, // M1 = (s+d)*K2
		bpf.LoadScratch{Dst: bpf.RegA, N: 0}, xorX, bpf.ALUOpConstant{Op: bpf.ALUOpMul, Val: fanoutMulXor},
		bpf.TAX{}, bpf.LoadScratch{Dst: bpf.RegA, N: 1}, bpf.ALUOpX{Op: bpf.ALUOpAdd},
		bpf.ALUOpConstant{Op: bpf.ALUOpShiftRight, Val: 24},
		bpf.RetA{},
	}
	prog := []bpf.Instruction{
		bpf.LoadExtension{Num: bpf.ExtProto},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x0800, SkipFalse: uint8(len(v4) + 1)},
	}
	prog = append(prog, v4...)
	prog = append(prog, bpf.Jump{Skip: uint32(len(v6) + 2)}) // to tail
	prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x86dd, SkipTrue: 1}, bpf.RetConstant{Val: 0})
	prog = append(prog, v6...)
	prog = append(prog, tail...)
	return bpf.Assemble(prog)
}
