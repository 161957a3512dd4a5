//go:build !linux

package kmsg

import (
	"fmt"

	"github.com/rdmatop/rdmatop/probes"
)

// Reader reads /dev/kmsg on Linux; elsewhere Open reports ErrNotSupported.
type Reader struct{}

// Open reports that there is no /dev/kmsg here.
func Open(Options) (*Reader, error) {
	return nil, fmt.Errorf("/dev/kmsg: %w", probes.ErrNotSupported)
}

// Poll implements Source.
func (*Reader) Poll() (Batch, error) {
	return Batch{}, fmt.Errorf("/dev/kmsg: %w", probes.ErrNotSupported)
}

// Close implements Source.
func (*Reader) Close() error { return nil }
