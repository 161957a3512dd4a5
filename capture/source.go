package capture

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Source yields captured frames. ReadPacket returns io.EOF at the end of a
// file; data is valid only until the next call.
type Source interface {
	ReadPacket() (data []byte, ci gopacket.CaptureInfo, link layers.LinkType, err error)
	Close() error
}
