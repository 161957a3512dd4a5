package rdmanl

import (
	"fmt"
	"runtime"
	"syscall"

	"github.com/rdmatop/rdmatop/probes"
)

// Errno is a Linux errno number carried in a netlink reply. It is its own
// type (not syscall.Errno) so that parsing recorded replies means the same
// on every OS; on Linux it matches the equal syscall.Errno with errors.Is.
type Errno int32

// Linux errno values this package names.
const (
	EPERM           Errno = 1
	ENOENT          Errno = 2
	EINTR           Errno = 4
	EAGAIN          Errno = 11
	ENOMEM          Errno = 12
	EACCES          Errno = 13
	EBUSY           Errno = 16
	ENODEV          Errno = 19
	EINVAL          Errno = 22
	EMSGSIZE        Errno = 90
	EPROTONOSUPPORT Errno = 93
	EOPNOTSUPP      Errno = 95
)

var errnoText = map[Errno]string{
	EPERM: "operation not permitted", ENOENT: "no such file or directory",
	EINTR: "interrupted system call", EAGAIN: "resource temporarily unavailable",
	ENOMEM: "cannot allocate memory", EACCES: "permission denied",
	EBUSY: "device or resource busy", ENODEV: "no such device",
	EINVAL: "invalid argument", EMSGSIZE: "message too long",
	EPROTONOSUPPORT: "protocol not supported", EOPNOTSUPP: "operation not supported",
}

func (e Errno) Error() string {
	if s, ok := errnoText[e]; ok {
		return s
	}
	return fmt.Sprintf("errno %d", int32(e))
}

// Is matches the same number as a syscall.Errno on Linux.
func (e Errno) Is(target error) bool {
	t, ok := target.(syscall.Errno)
	return ok && runtime.GOOS == "linux" && int64(t) == int64(e)
}

// Error is an errno the kernel returned for one nldev command, with the
// extended-ack text when the kernel gave one.
type Error struct {
	Cmd   string // "RES_QP_GET", ...
	Errno Errno
	Msg   string // NLMSGERR_ATTR_MSG, if any
}

func (e *Error) Error() string {
	s := fmt.Sprintf("rdma netlink %s: %v", e.Cmd, e.Errno)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Unwrap gives the Errno.
func (e *Error) Unwrap() error { return e.Errno }

// Is reports EOPNOTSUPP as probes.ErrNotSupported: the running kernel
// does not implement the command.
func (e *Error) Is(target error) bool {
	return target == probes.ErrNotSupported && e.Errno == EOPNOTSUPP
}

// classify wraps permission errors: nldev refuses commands flagged
// RDMA_NL_ADMIN_PERM (SET, *_GET_RAW, STAT_SET, ...) without
// CAP_NET_ADMIN. The read-only commands this package sends need no
// privilege, but a kernel (or an LSM) that refuses them says so this way.
func classify(e *Error) error {
	if e.Errno == EPERM || e.Errno == EACCES {
		return &probes.PermissionError{What: "CAP_NET_ADMIN", Err: e}
	}
	return e
}
