//go:build !linux

package capture

import (
	"errors"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// This file mirrors the API of live_linux.go so that the package and its
// callers build everywhere; keep the two in step.

// Live capture defaults (see live_linux.go).
const (
	DefaultBufferSize  = 16 << 20
	DefaultPollTimeout = 200 * time.Millisecond
	MinSnapLen         = 128
)

// ErrTimeout is returned by LiveSource.ReadPacket when no packet arrived
// within the poll timeout.
var ErrTimeout = errors.New("capture: no packet within the poll timeout")

// ErrNotSupported is returned by OpenLive on systems without AF_PACKET.
var ErrNotSupported = errors.New("capture: live capture is not supported on this OS")

// LiveOptions configure OpenLive.
type LiveOptions struct {
	SnapLen     int
	BufferSize  int
	PollTimeout time.Duration
	Promiscuous bool
}

// LiveStats are the kernel's counts for a live capture.
type LiveStats struct {
	Packets, Drops, QueueFreezes uint64
}

// LiveSource is a live capture; on this OS there is none.
type LiveSource struct{}

var _ Source = (*LiveSource)(nil)

// OpenLive returns ErrNotSupported: live capture needs Linux (AF_PACKET).
// Capture with another tool and run `rdmatop replay` on the file.
func OpenLive(iface string, opts LiveOptions) (*LiveSource, error) {
	return nil, ErrNotSupported
}

// ReadPacket returns ErrNotSupported.
func (s *LiveSource) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	return nil, gopacket.CaptureInfo{}, layers.LinkTypeEthernet, ErrNotSupported
}

// Stats returns ErrNotSupported.
func (s *LiveSource) Stats() (LiveStats, error) { return LiveStats{}, ErrNotSupported }

// Close does nothing.
func (s *LiveSource) Close() error { return nil }
