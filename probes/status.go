package probes

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// State says how a source fared in one sample.
type State string

// Source states. NotSupported (the host or kernel lacks it) is distinct from
// Failed (it should work and did not) and from PermissionDenied.
const (
	StateOK               State = "ok"
	StateNotSupported     State = "not_supported"
	StatePermissionDenied State = "permission_denied"
	StateTimeout          State = "timeout"
	StateFailed           State = "failed"
	// StateLinkDown: the capture works, but its interface is down, so it
	// sees nothing (the wire's source only).
	StateLinkDown State = "link_down"
)

// Status is one source's outcome, shown to the user as is.
type Status struct {
	Source string `json:"source" expr:"source"` // e.g. "sysfs", "ethtool eth0", "rdma netlink qp"
	State  State  `json:"state" expr:"state"`
	// Detail says why, in words a person can act on: the file, the
	// capability, the error.
	Detail string `json:"detail,omitempty" expr:"detail"`
	// DurationS is how long the source took in this sample (its timeout
	// when it did not answer); 0 when not measured (a recording).
	DurationS float64 `json:"duration_s,omitempty" expr:"duration_s"`
}

// ErrNotSupported is wrapped by sources when the host does not have what
// they read (no RDMA netlink family, no /sys/class/infiniband, ...).
var ErrNotSupported = errors.New("not supported on this host")

// PermissionError says which capability or file access is missing.
type PermissionError struct {
	What string // "CAP_NET_ADMIN", "read /dev/kmsg", ...
	Err  error
}

func (e *PermissionError) Error() string { return fmt.Sprintf("needs %s: %v", e.What, e.Err) }
func (e *PermissionError) Unwrap() error { return e.Err }
func (e *PermissionError) Is(target error) bool {
	return target == os.ErrPermission
}

// StatusOf classifies err for source. A source that gave up waiting (its
// own deadline or its context's) timed out; it did not fail.
func StatusOf(source string, err error) Status {
	var pe *PermissionError
	switch {
	case err == nil:
		return Status{Source: source, State: StateOK}
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return Status{Source: source, State: StateTimeout, Detail: err.Error()}
	case errors.Is(err, ErrNotSupported):
		return Status{Source: source, State: StateNotSupported, Detail: err.Error()}
	case errors.As(err, &pe), errors.Is(err, os.ErrPermission):
		return Status{Source: source, State: StatePermissionDenied, Detail: err.Error()}
	}
	return Status{Source: source, State: StateFailed, Detail: err.Error()}
}
