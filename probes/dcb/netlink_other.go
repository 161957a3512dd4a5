//go:build !linux

package dcb

import (
	"context"
	"fmt"

	"github.com/rdmatop/rdmatop/probes"
)

// Netlink is the Linux Querier; elsewhere it reports ErrNotSupported.
type Netlink struct{}

// Query implements Querier.
func (Netlink) Query(ifname string, cmd Command) ([]byte, error) {
	return nil, fmt.Errorf("%s: DCB netlink: %w", ifname, probes.ErrNotSupported)
}

// QueryContext implements ContextQuerier.
func (n Netlink) QueryContext(_ context.Context, ifname string, cmd Command) ([]byte, error) {
	return n.Query(ifname, cmd)
}
