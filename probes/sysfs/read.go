package sysfs

import (
	"errors"
	"io/fs"
	"strings"
)

// Paths of the sysfs classes this package reads, relative to the root.
const (
	ibClass  = "sys/class/infiniband"
	netClass = "sys/class/net"
)

// readValue reads a small sysfs file and trims the trailing newline and
// blanks the kernel prints.
func readValue(fsys fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// attrs reads optional attribute files of one object and collects the
// failures that are worth reporting.
type attrs struct {
	fsys fs.FS
	dir  string
	errs []FileError
}

// str returns the attribute's value; false when it is absent (missing
// file) or failed (noted).
func (a *attrs) str(name string) (string, bool) {
	p := a.dir + "/" + name
	v, err := readValue(a.fsys, p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			a.errs = append(a.errs, fileError(p, err))
		}
		return "", false
	}
	return v, true
}

// strOrNone is str for attributes whose read fails with EINVAL when they
// have no value (speed and carrier of a down link, empty GID slots).
func (a *attrs) strOrNone(name string) (string, bool) {
	p := a.dir + "/" + name
	v, err := readValue(a.fsys, p)
	if err != nil {
		if !noEntry(err) {
			a.errs = append(a.errs, fileError(p, err))
		}
		return "", false
	}
	return v, true
}

// parsed reads an attribute and parses it; a parse failure is noted.
func parsed[T any](a *attrs, name string, parse func(string) (T, error)) *T {
	s, ok := a.str(name)
	if !ok {
		return nil
	}
	v, err := parse(s)
	if err != nil {
		a.errs = append(a.errs, parseError(a.dir+"/"+name, err))
		return nil
	}
	return &v
}

func strPtr(a *attrs, name string) *string {
	s, ok := a.str(name)
	if !ok {
		return nil
	}
	return &s
}
