//go:build !linux

package ethtool

import (
	"fmt"

	"github.com/rdmatop/rdmatop/probes"
)

// Kernel is the ethtool ioctl reader; it exists only on Linux.
type Kernel struct{}

var _ OS = (*Kernel)(nil)

var errNoEthtool = fmt.Errorf("ethtool statistics are Linux-only: %w", probes.ErrNotSupported)

// Open fails: ethtool statistics are Linux-only.
func Open() (*Kernel, error) { return nil, errNoEthtool }

// Close does nothing.
func (k *Kernel) Close() error { return nil }

// Stats fails with probes.ErrNotSupported.
func (k *Kernel) Stats(string) (map[string]uint64, error) { return nil, errNoEthtool }

// DriverName fails with probes.ErrNotSupported.
func (k *Kernel) DriverName(string) (string, error) { return "", errNoEthtool }
