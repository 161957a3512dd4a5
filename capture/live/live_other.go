//go:build !linux

package live

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Source is a live capture; on this OS there is none.
type Source struct{}

// Open returns ErrNotSupported: live capture needs Linux (AF_PACKET).
// Capture with another tool and run `rdmatop replay` on the file.
func Open(iface string, opts Options) (*Source, error) {
	return nil, ErrNotSupported
}

// ReadPacket returns ErrNotSupported.
func (s *Source) ReadPacket() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	return nil, gopacket.CaptureInfo{}, layers.LinkTypeEthernet, ErrNotSupported
}

// Stats returns ErrNotSupported.
func (s *Source) Stats() (Stats, error) { return Stats{}, ErrNotSupported }

// Close does nothing.
func (s *Source) Close() error { return nil }

// OpenFanout returns ErrNotSupported: live capture needs Linux.
func OpenFanout(iface string, opts Options, n int) ([]*Source, error) {
	return nil, ErrNotSupported
}

// MaxFanout bounds the workers of one capture.
const MaxFanout = 64
