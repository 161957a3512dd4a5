//go:build !linux

package dcb

import (
	"context"
	"fmt"

	"github.com/rdmatop/rdmatop/probes"
)

// Netlink is the Linux Querier; elsewhere Open reports ErrNotSupported.
type Netlink struct{}

// Open reports that DCB netlink is Linux-only.
func Open() (*Netlink, error) {
	return nil, fmt.Errorf("DCB netlink: %w", probes.ErrNotSupported)
}

// Close is never reached: Open fails.
func (*Netlink) Close() error { return nil }

// Query is never reached: Open fails.
func (*Netlink) Query(ifname string, cmd Command) ([]byte, error) {
	return nil, fmt.Errorf("%s: DCB netlink: %w", ifname, probes.ErrNotSupported)
}

// QueryContext is never reached: Open fails.
func (n *Netlink) QueryContext(_ context.Context, ifname string, cmd Command) ([]byte, error) {
	return n.Query(ifname, cmd)
}
