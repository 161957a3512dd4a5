//go:build !linux

package capture

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

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

// OpenLiveFanout returns ErrNotSupported: live capture needs Linux.
func OpenLiveFanout(iface string, opts LiveOptions, n int) ([]*LiveSource, error) {
	return nil, ErrNotSupported
}

// MaxFanout bounds the workers of one capture.
const MaxFanout = 64
