//go:build linux

package live

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/sys/unix"
)

// Ring geometry (see DefaultBufferSize in live.go).
const (
	liveBlockSize    = 1 << 20
	liveFrameSize    = 4096 // TPACKET_V3 uses it only for the ring's geometry
	liveMinBlocks    = 2
	liveBlockTimeout = 50 * time.Millisecond
)

// Source captures RoCE frames from one network interface through an
// AF_PACKET TPACKET_V3 ring (ring_linux.go) with the RoCE filter
// (RoCEFilter) attached in the kernel before the socket is bound, so
// no other frame ever reaches it. It implements Source; frames are
// Ethernet, with a VLAN tag the kernel took out of the frame put back in.
//
// ReadPacket and Stats may be called from different goroutines; Close may
// be called from any goroutine and waits for a pending ReadPacket (at most
// PollTimeout), after which ReadPacket returns io.EOF.
type Source struct {
	iface   string
	ifindex int
	r       *ring

	readMu sync.Mutex  // held by ReadPacket and Close
	closed bool        // guarded by readMu
	down   atomic.Bool // the interface is down (set by ReadPacket)

	// joined is when the ring's fanout group became complete
	// (OpenFanout): frames from before are dropped.
	joined time.Time

	statsMu sync.Mutex
	final   *Stats // set by Close
}

// Open opens a live capture of RoCE frames on interface iface. It needs
// CAP_NET_RAW; without it the error wraps os.ErrPermission and says how to
// grant it.
func Open(iface string, opts Options) (*Source, error) {
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

	ifc, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, fmt.Errorf("capture: interface %q not found: %w", iface, err)
	}
	filter, err := RoCEFilter(snap)
	if err != nil {
		return nil, err
	}
	r, err := openRing(ifc.Index, filter, liveBlockSize, liveFrameSize, blocks, liveBlockTimeout, poll)
	if err != nil {
		return nil, liveOpenError(iface, err)
	}
	s := &Source{iface: iface, ifindex: ifc.Index, r: r}
	if opts.Promiscuous {
		if err := r.setPromiscuous(ifc.Index); err != nil {
			r.close()
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

// ReadPacket returns the next frame; data lives in the ring and is valid
// until the next call or Close (which unmaps the ring). It
// returns ErrTimeout when no frame arrived within the poll timeout,
// a *LinkDownError while the interface is down (once per poll timeout:
// a caller that calls again does not spin), and io.EOF once the source
// is closed. Frames the ring holds from before the interface went down
// are returned while it is down; LinkDown says when it is up again.
func (s *Source) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	for {
		if s.closed {
			return nil, gopacket.CaptureInfo{}, layers.LinkTypeEthernet, io.EOF
		}
		data, ci, err := s.r.next()
		switch {
		case errors.Is(err, errRingTimeout):
			if s.down.Load() {
				if err := s.checkLink(); err != nil {
					return nil, ci, layers.LinkTypeEthernet, err
				}
			}
			return nil, ci, layers.LinkTypeEthernet, ErrTimeout
		case errors.Is(err, unix.ENETDOWN):
			// The kernel took the socket off the interface; it puts it
			// back when the interface comes up. Frames in between are not
			// seen, so even a flap too short to catch is reported.
			s.down.Store(true)
			return nil, ci, layers.LinkTypeEthernet, &LinkDownError{Iface: s.iface, Why: "went down"}
		case err != nil:
			return nil, ci, layers.LinkTypeEthernet, fmt.Errorf("capture on %s: %w", s.iface, err)
		}
		if s.down.Load() {
			// A frame while down: from a block the kernel handed over
			// after the fact, or the interface is back.
			if err := s.checkLink(); errors.Is(err, ErrInterfaceGone) {
				return nil, ci, layers.LinkTypeEthernet, err
			}
		}
		ci.InterfaceIndex = s.ifindex
		if ci.Timestamp.Before(s.joined) {
			continue
		}
		return data, ci, layers.LinkTypeEthernet, nil
	}
}

// LinkDown reports whether the interface was down at the last look
// (safe from any goroutine).
func (s *Source) LinkDown() bool { return s.down.Load() }

// checkLink asks the interface's state: nil once it is up again (the
// kernel put the socket back on it at NETDEV_UP, before the carrier
// comes: frames are captured from then on, and an interface without
// carrier passes none to miss), a *LinkDownError while it is not, and
// an error wrapping ErrInterfaceGone when it was removed (a new
// interface of the same name has another index: the socket stays bound
// to the old one, so the capture has ended).
func (s *Source) checkLink() error {
	flags, err := s.r.linkFlags(s.ifindex)
	switch {
	case errors.Is(err, unix.ENODEV) || errors.Is(err, unix.ENXIO):
		return fmt.Errorf("capture on %s: the interface was removed (index %d): %w", s.iface, s.ifindex, ErrInterfaceGone)
	case err != nil:
		return fmt.Errorf("capture on %s: link state: %w", s.iface, err)
	case flags&unix.IFF_UP == 0:
		return &LinkDownError{Iface: s.iface, Why: "administratively down"}
	}
	s.down.Store(false)
	return nil
}

// Stats returns the kernel's counts since the capture opened. The kernel
// resets its counters each time they are read; the source adds them up.
// After Close it returns the counts as of Close.
func (s *Source) Stats() (Stats, error) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if s.final != nil {
		return *s.final, nil
	}
	return s.stats()
}

// stats reads the counters; statsMu is held and the socket open.
func (s *Source) stats() (Stats, error) {
	st, err := s.r.stats()
	if err != nil {
		return Stats{}, fmt.Errorf("capture on %s: statistics: %w", s.iface, err)
	}
	return st, nil
}

// Close releases the socket and its ring, after a pending ReadPacket
// returns. It is safe to call more than once.
func (s *Source) Close() error {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.statsMu.Lock()
	st, err := s.stats()
	if err != nil {
		st = Stats{}
	}
	s.final = &st
	s.statsMu.Unlock()
	s.r.close() // also leaves promiscuous mode: the membership goes with the socket
	return nil
}
