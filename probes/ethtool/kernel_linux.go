//go:build linux

package ethtool

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/safchain/ethtool"

	"github.com/rdmatop/rdmatop/probes"
)

// Kernel reads ethtool data through the SIOCETHTOOL ioctl on one socket
// (github.com/safchain/ethtool). The socket, and so the interfaces it can
// see, belongs to the network namespace of the thread that called Open.
// Stats and DriverName are safe for concurrent use; Close releases the
// socket and must not race with them.
type Kernel struct {
	h *ethtool.Ethtool
}

var _ OS = (*Kernel)(nil)

// Open opens the ethtool socket.
func Open() (*Kernel, error) {
	h, err := ethtool.NewEthtool()
	if err != nil {
		return nil, fmt.Errorf("ethtool: open socket: %w", mapErrno("", "", err))
	}
	return &Kernel{h: h}, nil
}

// Close releases the socket. It is safe to call more than once.
func (k *Kernel) Close() error {
	if k.h != nil {
		k.h.Close()
		k.h = nil
	}
	return nil
}

// Stats is ETHTOOL_GDRVINFO (the number of statistics), ETHTOOL_GSTRINGS
// (their names) and ETHTOOL_GSTATS (their values). An interface without
// statistics wraps probes.ErrNotSupported.
//
// The driver may change its statistics set between those calls (mlx5 adds
// and removes the per-priority pause counters when PFC is reconfigured),
// and names and values would then no longer line up. So the count is read
// again afterwards, and the read repeated if it changed.
func (k *Kernel) Stats(iface string) (map[string]uint64, error) {
	if err := checkName(iface); err != nil {
		return nil, err
	}
	if k.h == nil {
		return nil, errors.New("ethtool: use of closed Kernel")
	}
	const unsupported = "driver has no ethtool statistics"
	for range 3 {
		before, err := k.h.DriverInfo(iface)
		if err != nil {
			return nil, fmt.Errorf("ethtool -S %s: %w", iface, mapErrno(iface, unsupported, err))
		}
		m, err := k.h.Stats(iface)
		if err != nil {
			return nil, fmt.Errorf("ethtool -S %s: %w", iface, mapErrno(iface, unsupported, err))
		}
		after, err := k.h.DriverInfo(iface)
		if err != nil {
			return nil, fmt.Errorf("ethtool -S %s: %w", iface, mapErrno(iface, unsupported, err))
		}
		if before.NStats != after.NStats {
			continue
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("ethtool -S %s: %s: %w", iface, unsupported, probes.ErrNotSupported)
		}
		return m, nil
	}
	return nil, fmt.Errorf("ethtool -S %s: the driver's statistics set kept changing while being read", iface)
}

// DriverName is the driver field of ETHTOOL_GDRVINFO.
func (k *Kernel) DriverName(iface string) (string, error) {
	if err := checkName(iface); err != nil {
		return "", err
	}
	if k.h == nil {
		return "", errors.New("ethtool: use of closed Kernel")
	}
	d, err := k.h.DriverName(iface)
	if err != nil {
		return "", fmt.Errorf("ethtool -i %s: %w", iface, mapErrno(iface, "driver gives no driver information", err))
	}
	return d, nil
}

// mapErrno turns the ioctl's errno into the errors callers classify;
// unsupported says what EOPNOTSUPP means for the request.
func mapErrno(iface, unsupported string, err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	switch errno {
	case syscall.ENODEV, syscall.ENXIO:
		return fmt.Errorf("interface %q: %w", iface, ErrNoDevice)
	case syscall.EOPNOTSUPP:
		return fmt.Errorf("%s (%v): %w", unsupported, errno, probes.ErrNotSupported)
	case syscall.EPERM, syscall.EACCES:
		return &probes.PermissionError{What: "CAP_NET_ADMIN (SIOCETHTOOL)", Err: errno}
	}
	return err
}
