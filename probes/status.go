package probes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
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
	// StatePartial: the source answered, but some of what it reads did
	// not (a sysfs file whose read never returns): those values are
	// carried forward, stale, and Stuck names them.
	StatePartial State = "partial"
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
	// Since is when the source (or, partial, its oldest stuck file)
	// stopped answering: the time of the first sample of this run of
	// timeouts. Absent while it answers.
	Since *time.Time `json:"since,omitempty" expr:"since"`
	// StaleS is how old, in seconds, the values carried forward for it
	// are (the time since it last answered); absent when nothing is
	// carried forward. Absent is not zero.
	StaleS *float64 `json:"stale_s,omitempty" expr:"stale_s"`
	// Stuck names what did not answer within a source that did: the
	// files (below the root, "sys/...") whose reads are still
	// outstanding or were not started.
	Stuck []string `json:"stuck,omitempty" expr:"stuck"`
}

// Hung reports a source that is not answering, in whole or in part.
func (s Status) Hung() bool { return s.State == StateTimeout || s.State == StatePartial }

// PartialError is a source's answer that left parts out because they did
// not answer (Stuck); what it did read is good.
type PartialError struct {
	What  string   // "1 of 412 files did not answer within 250ms"
	Stuck []string // what did not answer
}

func (e *PartialError) Error() string {
	if len(e.Stuck) == 0 {
		return e.What
	}
	return e.What + ": " + strings.Join(e.Stuck, ", ")
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
	var part *PartialError
	switch {
	case err == nil:
		return Status{Source: source, State: StateOK}
	case errors.As(err, &part):
		return Status{Source: source, State: StatePartial, Detail: part.What, Stuck: part.Stuck}
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return Status{Source: source, State: StateTimeout, Detail: err.Error()}
	case errors.Is(err, ErrNotSupported):
		return Status{Source: source, State: StateNotSupported, Detail: err.Error()}
	case errors.As(err, &pe), errors.Is(err, os.ErrPermission):
		return Status{Source: source, State: StatePermissionDenied, Detail: err.Error()}
	}
	return Status{Source: source, State: StateFailed, Detail: err.Error()}
}
