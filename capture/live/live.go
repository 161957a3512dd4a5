package live

import (
	"errors"
	"time"
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
)

// ErrTimeout is returned by Source.ReadPacket when no packet arrived
// within Options.PollTimeout. It is not a failure: it lets the caller
// look at its clock or its stop signal; call ReadPacket again.
var ErrTimeout = errors.New("capture: no packet within the poll timeout")

// ErrLinkDown is wrapped by the *LinkDownError Source.ReadPacket
// returns while the captured interface is down. It is not a failure: the
// capture resumes by itself when the interface comes back; call
// ReadPacket again (it waits up to the poll timeout each time).
var ErrLinkDown = errors.New("capture: the interface is down")

// ErrInterfaceGone is wrapped by the error Source.ReadPacket returns
// when the captured interface was removed: the capture has ended.
var ErrInterfaceGone = errors.New("capture: the interface is gone")

// LinkDownError says that the captured interface is down, and why as far
// as the kernel tells: "went down" (the moment it happened),
// "administratively down" (not IFF_UP: a driver reset or firmware
// recovery takes the netdev down this way too).
type LinkDownError struct {
	Iface, Why string
}

func (e *LinkDownError) Error() string {
	return "capture on " + e.Iface + ": link down (" + e.Why + ")"
}

// Is makes errors.Is(err, ErrLinkDown) true.
func (e *LinkDownError) Is(target error) bool { return target == ErrLinkDown }

// ErrNotSupported is returned by Open on systems without AF_PACKET.
var ErrNotSupported = errors.New("capture: live capture is not supported on this OS")

// Options configure Open; the zero value means the defaults.
type Options struct {
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

// Stats are the kernel's counts for a live capture since it opened.
type Stats struct {
	// Packets is the number of frames that passed the filter, including
	// those then dropped.
	Packets uint64
	// Drops is the number of frames lost because the ring was full: the
	// reader did not keep up.
	Drops uint64
	// QueueFreezes counts the times the ring filled up (TPACKET_V3).
	QueueFreezes uint64
}
