package ethtool

import (
	"errors"
	"fmt"
	"io/fs"
)

// OS reads the ethtool data of one netdev. Implementations return errors
// that wrap ErrNoDevice for an unknown interface, probes.ErrNotSupported
// when the driver has no statistics, and *probes.PermissionError when a
// capability is missing.
type OS interface {
	// Stats is the driver's statistics, name → value, names as the driver
	// spells them (untrimmed).
	Stats(iface string) (map[string]uint64, error)
	// DriverName is the netdev's driver ("mlx5_core", "veth", ...), so
	// callers can pick vendor aliases.
	DriverName(iface string) (string, error)
}

// Raw is one interface's ethtool data at one sample: what a recorder
// stores and a replay passes to Parse.
type Raw struct {
	Iface  string            `json:"iface"`
	Driver string            `json:"driver,omitempty"`
	Stats  map[string]uint64 `json:"stats"`
}

// Read reads the statistics and driver name of iface through src.
// The statistics are what matter: a driver name that cannot be read
// leaves Driver empty unless the interface itself is gone.
func Read(src OS, iface string) (Raw, error) {
	stats, err := src.Stats(iface)
	if err != nil {
		return Raw{}, err
	}
	raw := Raw{Iface: iface, Stats: stats}
	drv, err := src.DriverName(iface)
	switch {
	case err == nil:
		raw.Driver = drv
	case errors.Is(err, ErrNoDevice):
		return Raw{}, err
	}
	return raw, nil
}

// ErrNoDevice is wrapped by errors about an interface that does not exist
// (or vanished between two reads). It also matches os.ErrNotExist.
var ErrNoDevice error = noDevice{}

type noDevice struct{}

func (noDevice) Error() string        { return "no such network interface" }
func (noDevice) Is(target error) bool { return target == fs.ErrNotExist }

// checkName rejects names the ioctl cannot address: SIOCETHTOOL takes the
// name in a 16-byte field, so a longer one would be cut and could name
// another interface.
func checkName(iface string) error {
	const ifNameSize = 16 // IFNAMSIZ, including the NUL
	switch {
	case iface == "":
		return errors.New("ethtool: empty interface name")
	case iface == "." || iface == "..":
		return fmt.Errorf("ethtool %q: invalid interface name", iface)
	case len(iface) >= ifNameSize:
		return fmt.Errorf("ethtool %q: interface name longer than %d bytes (the ioctl cannot address alternative names)", iface, ifNameSize-1)
	}
	for i := 0; i < len(iface); i++ {
		if c := iface[i]; c <= ' ' || c == '/' || c == ':' || c == 0x7f {
			return fmt.Errorf("ethtool %q: invalid interface name", iface)
		}
	}
	return nil
}
