//go:build !linux

package rtnl

import (
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// AddrWatch follows address changes; it exists only on Linux.
type AddrWatch struct{ pending }

// WatchAddrs fails: rtnetlink is Linux-only.
func WatchAddrs(func() time.Time) (*AddrWatch, error) {
	return nil, fmt.Errorf("rtnetlink address monitor is Linux-only: %w", probes.ErrNotSupported)
}

// Close does nothing.
func (w *AddrWatch) Close() error { return nil }
