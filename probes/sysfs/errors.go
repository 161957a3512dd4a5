package sysfs

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/rdmatop/rdmatop/probes"
)

// ErrGone says a device or port that was there when discovered is no
// longer (hot unplug, driver unload, rxe link deleted). It matches
// fs.ErrNotExist too.
var ErrGone = errors.New("device or port no longer present")

type goneError struct{ what string }

func (e *goneError) Error() string        { return e.what + ": " + ErrGone.Error() }
func (e *goneError) Is(target error) bool { return target == ErrGone || target == fs.ErrNotExist }

// ErrorKind classifies a file that could not be read.
type ErrorKind string

// Error kinds.
const (
	KindVanished   ErrorKind = "vanished"   // listed, then gone before it was read
	KindPermission ErrorKind = "permission" // EACCES/EPERM: Err is a *probes.PermissionError
	KindRead       ErrorKind = "read"       // EAGAIN, EINVAL, EOPNOTSUPP, EIO, ...
	KindParse      ErrorKind = "parse"      // read, but not in the expected format
	// KindHung: the read did not answer in time (the caller gave up on
	// it: os.ErrDeadlineExceeded); its last value is not known to be
	// wrong, only old.
	KindHung ErrorKind = "hung"
	// KindUnavailable: the kernel answered "N/A (no PMA)": the counter has
	// no value on this device. Not a fault of the read.
	KindUnavailable ErrorKind = "unavailable"
)

// errUnavailable is the error of a KindUnavailable file.
var errUnavailable = errors.New("counter not available (the kernel answered N/A)")

// FileError is one file that could not be read or parsed. Other files
// are read regardless.
type FileError struct {
	Path string    `json:"path"`
	Kind ErrorKind `json:"kind"`
	Err  error     `json:"-"`
}

func (e FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e FileError) Unwrap() error { return e.Err }

// MarshalJSON writes the error text too.
func (e FileError) MarshalJSON() ([]byte, error) {
	type plain FileError
	msg := ""
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return json.Marshal(struct {
		plain
		Error string `json:"error"`
	}{plain(e), msg})
}

// fileError classifies a read failure of path.
func fileError(path string, err error) FileError {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return FileError{Path: path, Kind: KindHung, Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return FileError{Path: path, Kind: KindVanished, Err: err}
	case errors.Is(err, fs.ErrPermission):
		var pe *probes.PermissionError
		if !errors.As(err, &pe) {
			err = &probes.PermissionError{What: "read " + path, Err: err}
		}
		return FileError{Path: path, Kind: KindPermission, Err: err}
	}
	return FileError{Path: path, Kind: KindRead, Err: err}
}

// parseError is a file whose contents did not parse.
func parseError(path string, err error) FileError {
	return FileError{Path: path, Kind: KindParse, Err: err}
}

// noEntry reports errors that mean "nothing here": a missing file, and
// EINVAL, which the kernel returns for empty GID attribute slots, for the
// speed of a link that is down and for the carrier of an interface that
// is administratively down.
func noEntry(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EINVAL)
}

// permission wraps a permission failure on path as a *probes.PermissionError
// and leaves other errors alone.
func permission(path string, err error) error {
	var pe *probes.PermissionError
	if errors.Is(err, fs.ErrPermission) && !errors.As(err, &pe) {
		return &probes.PermissionError{What: "read " + path, Err: err}
	}
	return err
}
