//go:build linux

package capture

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/afpacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// Live capture defaults.
//
// The ring is TPACKET_V3: the kernel fills whole blocks with variable-size
// frames and hands a block over when it is full or DefaultBlockTimeout after
// its first frame, so a full frame costs its length plus ~48 bytes of header,
// not a fixed slot. 1 MiB blocks hold any frame the snap length allows
// (DefaultSnapLen is 256 KiB). 16 blocks, 16 MiB of kernel memory that is
// mapped into the process (not counted against RLIMIT_MEMLOCK), is small for
// a 2-core host and holds ~4 000 full 4 KiB-MTU frames or, with SnapLen 128,
// ~80 000 headers: to drop fewer packets on a busy link, lower SnapLen
// (headers only; ICRCs become unverifiable) before growing the ring.
const (
	DefaultBufferSize  = 16 << 20
	DefaultPollTimeout = 200 * time.Millisecond
	// MinSnapLen keeps every header rdmatop decodes: Ethernet, two VLAN
	// tags, IPv6, UDP, BTH and the largest extended header need 110.
	MinSnapLen = 128

	liveBlockSize    = 1 << 20
	liveFrameSize    = 4096 // TPACKET_V3 uses it only for the ring's geometry
	liveMinBlocks    = 2
	liveBlockTimeout = 50 * time.Millisecond
)

// ErrTimeout is returned by LiveSource.ReadPacket when no packet arrived
// within LiveOptions.PollTimeout. It is not a failure: it lets the caller
// look at its clock or its stop signal; call ReadPacket again.
var ErrTimeout = errors.New("capture: no packet within the poll timeout")

// ErrNotSupported is returned by OpenLive on systems without AF_PACKET.
var ErrNotSupported = errors.New("capture: live capture is not supported on this OS")

// LiveOptions configure OpenLive; the zero value means the defaults.
type LiveOptions struct {
	// SnapLen cuts every frame to this many bytes. 0 means DefaultSnapLen
	// (whole frames: needed to verify ICRCs); at least MinSnapLen.
	SnapLen int
	// BufferSize is the kernel ring in bytes, in whole 1 MiB blocks (at
	// least 2). 0 means DefaultBufferSize.
	BufferSize int
	// PollTimeout is how long ReadPacket waits before returning ErrTimeout,
	// rounded to milliseconds. 0 means DefaultPollTimeout.
	PollTimeout time.Duration
	// Promiscuous puts the interface in promiscuous mode for as long as the
	// capture is open: off by default, as a RoCE NIC's own traffic is what
	// rdmatop is after.
	Promiscuous bool
}

// LiveStats are the kernel's counts for a live capture since it opened.
type LiveStats struct {
	// Packets is the number of frames that passed the filter, including
	// those then dropped.
	Packets uint64
	// Drops is the number of frames lost because the ring was full: the
	// reader did not keep up.
	Drops uint64
	// QueueFreezes counts the times the ring filled up (TPACKET_V3).
	QueueFreezes uint64
}

// LiveSource captures RoCE frames from one network interface through an
// AF_PACKET TPACKET_V3 ring with the RoCE filter (RoCEFilterSnap) attached
// in the kernel. It implements Source; frames are Ethernet, with a VLAN tag
// the kernel took out of the frame put back in.
//
// ReadPacket and Stats may be called from different goroutines; Close may
// be called from any goroutine and waits for a pending ReadPacket (at most
// PollTimeout), after which ReadPacket returns io.EOF.
type LiveSource struct {
	iface string
	tp    *afpacket.TPacket

	readMu sync.Mutex // held by ReadPacket and Close
	closed bool       // guarded by readMu

	// Frames queued in the ring before the filter was attached (the socket
	// receives everything from the moment it is bound) are re-checked in
	// userspace: those with a timestamp up to attached.
	early    *bpf.VM
	attached time.Time

	statsMu sync.Mutex
	final   *LiveStats // set by Close
}

var _ Source = (*LiveSource)(nil)

// OpenLive opens a live capture of RoCE frames on interface iface. It needs
// CAP_NET_RAW; without it the error wraps os.ErrPermission and says how to
// grant it.
func OpenLive(iface string, opts LiveOptions) (*LiveSource, error) {
	if iface == "" {
		return nil, errors.New("capture: no interface given")
	}
	snap := opts.SnapLen
	if snap == 0 {
		snap = DefaultSnapLen
	}
	if snap < MinSnapLen || snap > DefaultSnapLen {
		return nil, fmt.Errorf("capture: snap length %d out of range [%d, %d]", snap, MinSnapLen, DefaultSnapLen)
	}
	size := opts.BufferSize
	if size == 0 {
		size = DefaultBufferSize
	}
	if size < 0 {
		return nil, fmt.Errorf("capture: buffer size %d is negative", size)
	}
	blocks := max(size/liveBlockSize, liveMinBlocks)
	poll := opts.PollTimeout
	if poll <= 0 {
		poll = DefaultPollTimeout
	}
	poll = max(poll.Round(time.Millisecond), time.Millisecond)

	// Look the interface up first: afpacket's own lookup error is flattened
	// into text, and this one names the interface.
	if _, err := net.InterfaceByName(iface); err != nil {
		return nil, fmt.Errorf("capture: interface %q not found: %w", iface, err)
	}
	filter, err := RoCEFilterSnap(snap)
	if err != nil {
		return nil, err
	}
	ins, _ := bpf.Disassemble(filter)
	vm, err := bpf.NewVM(ins)
	if err != nil {
		return nil, fmt.Errorf("capture: filter: %w", err)
	}

	tp, err := afpacket.NewTPacket(
		afpacket.OptInterface(iface),
		afpacket.TPacketVersion3,
		afpacket.OptFrameSize(liveFrameSize),
		afpacket.OptBlockSize(liveBlockSize),
		afpacket.OptNumBlocks(blocks),
		afpacket.OptBlockTimeout(liveBlockTimeout),
		afpacket.OptPollTimeout(poll),
		afpacket.OptAddVLANHeader(true),
	)
	if err != nil {
		return nil, liveOpenError(iface, err)
	}
	if err := tp.SetBPF(filter); err != nil {
		tp.Close()
		return nil, liveOpenError(iface, fmt.Errorf("attach filter: %w", err))
	}
	s := &LiveSource{iface: iface, tp: tp, early: vm, attached: time.Now()}
	if opts.Promiscuous {
		if err := tp.SetPromiscuous(true); err != nil {
			tp.Close()
			return nil, liveOpenError(iface, fmt.Errorf("promiscuous mode: %w", err))
		}
	}
	return s, nil
}

// liveOpenError names the interface and turns EPERM/EACCES into an error
// that says what to do; it wraps both os.ErrPermission and err.
func liveOpenError(iface string, err error) error {
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("capture on %s needs CAP_NET_RAW: run rdmatop as root (sudo), or grant it once with "+
			"`sudo setcap cap_net_raw+ep $(which rdmatop)`: %w (%w)", iface, os.ErrPermission, err)
	}
	return fmt.Errorf("capture on %s: %w", iface, err)
}

// ReadPacket returns the next frame; data is valid until the next call. It
// returns ErrTimeout when no frame arrived within the poll timeout and
// io.EOF once the source is closed.
func (s *LiveSource) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	for {
		if s.closed {
			return nil, gopacket.CaptureInfo{}, layers.LinkTypeEthernet, io.EOF
		}
		data, ci, err := s.tp.ZeroCopyReadPacketData()
		switch {
		case errors.Is(err, afpacket.ErrTimeout):
			return nil, ci, layers.LinkTypeEthernet, ErrTimeout
		case err != nil:
			return nil, ci, layers.LinkTypeEthernet, fmt.Errorf("capture on %s: %w", s.iface, err)
		}
		if !ci.Timestamp.After(s.attached) {
			if n, _ := s.early.Run(data); n == 0 {
				continue // queued before the filter was attached
			}
		}
		return data, ci, layers.LinkTypeEthernet, nil
	}
}

// Stats returns the kernel's counts since the capture opened. The kernel
// resets its counters each time they are read; the source adds them up.
// After Close it returns the counts as of Close.
func (s *LiveSource) Stats() (LiveStats, error) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if s.final != nil {
		return *s.final, nil
	}
	return s.stats()
}

// stats reads the counters; statsMu is held and the socket open.
func (s *LiveSource) stats() (LiveStats, error) {
	_, v3, err := s.tp.SocketStats() // accumulates the reset-on-read counters
	if err != nil {
		return LiveStats{}, fmt.Errorf("capture on %s: statistics: %w", s.iface, err)
	}
	return LiveStats{Packets: uint64(v3.Packets()), Drops: uint64(v3.Drops()), QueueFreezes: uint64(v3.QueueFreezes())}, nil
}

// Close releases the socket and its ring, after a pending ReadPacket
// returns. It is safe to call more than once.
func (s *LiveSource) Close() error {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.statsMu.Lock()
	st, err := s.stats()
	if err != nil {
		st = LiveStats{}
	}
	s.final = &st
	s.statsMu.Unlock()
	s.tp.Close() // also leaves promiscuous mode: the membership goes with the socket
	return nil
}
