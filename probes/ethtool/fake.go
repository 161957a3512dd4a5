package ethtool

import (
	"fmt"
	"maps"

	"github.com/rdmatop/rdmatop/probes"
)

// Fake is an OS for tests and replays: a fixed answer per interface.
// An interface not in Ifaces is not found. Fake is safe for concurrent
// reads; change it only between reads.
type Fake struct {
	Ifaces map[string]FakeIface
}

// FakeIface is one interface's answer. A non-nil Err is returned by both
// methods; nil Stats means the driver has no statistics.
type FakeIface struct {
	Driver string
	Stats  map[string]uint64
	Err    error
}

var _ OS = (*Fake)(nil)

// Stats returns a copy of the interface's statistics.
func (f *Fake) Stats(iface string) (map[string]uint64, error) {
	fi, err := f.lookup(iface)
	if err != nil {
		return nil, err
	}
	if fi.Stats == nil {
		return nil, fmt.Errorf("ethtool -S %s: driver has no ethtool statistics: %w", iface, probes.ErrNotSupported)
	}
	return maps.Clone(fi.Stats), nil
}

// DriverName returns the interface's driver.
func (f *Fake) DriverName(iface string) (string, error) {
	fi, err := f.lookup(iface)
	if err != nil {
		return "", err
	}
	return fi.Driver, nil
}

func (f *Fake) lookup(iface string) (FakeIface, error) {
	fi, ok := f.Ifaces[iface]
	switch {
	case !ok:
		return FakeIface{}, fmt.Errorf("ethtool %s: interface %q: %w", iface, iface, ErrNoDevice)
	case fi.Err != nil:
		return FakeIface{}, fi.Err
	}
	return fi, nil
}
