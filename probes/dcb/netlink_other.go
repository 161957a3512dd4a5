//go:build !linux

package dcb

import (
	"fmt"

	"github.com/rdmatop/rdmatop/probes"
)

// Netlink is the Linux Querier; elsewhere it reports ErrNotSupported.
type Netlink struct{}

// Query implements Querier.
func (Netlink) Query(ifname string, cmd Command) ([]byte, error) {
	return nil, fmt.Errorf("%s: DCB netlink: %w", ifname, probes.ErrNotSupported)
}
