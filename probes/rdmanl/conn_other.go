//go:build !linux

package rdmanl

import (
	"context"
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// DefaultTimeout bounds the wait for each reply buffer.
const DefaultTimeout = 5 * time.Second

// LinuxConn exists only on Linux.
type LinuxConn struct{}

// Dial reports that RDMA netlink is Linux-only.
func Dial(time.Duration) (*LinuxConn, error) {
	return nil, fmt.Errorf("%w: RDMA netlink is Linux-only", probes.ErrNotSupported)
}

// Execute is never reached: Dial fails.
func (*LinuxConn) Execute([]byte) ([][]byte, error) { return nil, probes.ErrNotSupported }

// ExecuteContext is never reached: Dial fails.
func (*LinuxConn) ExecuteContext(context.Context, []byte) ([][]byte, error) {
	return nil, probes.ErrNotSupported
}

// Close does nothing.
func (*LinuxConn) Close() error { return nil }
