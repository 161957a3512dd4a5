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

// FilesFS is a file system that reads a run of files in one call, each as
// fs.ReadFile would: the sampler's guard hands each read to another
// goroutine and watches it, and handing a run over at once costs one
// hand-off instead of one per file.
type FilesFS interface {
	fs.FS
	// ReadFiles reads each of names into contents and errs, at the same
	// index (all three have the same length).
	ReadFiles(names []string, contents [][]byte, errs []error)
}

// readValues is readValue for each of names, read through ReadFiles if
// fsys has it.
func readValues(fsys fs.FS, names []string) ([]string, []error) {
	vals, errs := make([]string, len(names)), make([]error, len(names))
	if ffs, ok := fsys.(FilesFS); ok {
		bs := make([][]byte, len(names))
		ffs.ReadFiles(names, bs, errs)
		for i, b := range bs {
			if errs[i] == nil {
				vals[i] = strings.TrimSpace(string(b))
			}
		}
		return vals, errs
	}
	for i, n := range names {
		vals[i], errs[i] = readValue(fsys, n)
	}
	return vals, errs
}

// attrs reads optional attribute files of one object and collects the
// failures that are worth reporting.
type attrs struct {
	fsys fs.FS
	dir  string
	errs []FileError
	// ahead are attributes read ahead (see prefetch), the next one to be
	// asked for first.
	ahead      []string
	aheadPaths []string
	aheadVals  []string
	aheadErrs  []error
}

// prefetch reads names in one run when fsys is a FilesFS (nothing
// otherwise): the attributes every reader of the object reads, in the
// order it asks for them. What they answer is noted when asked for, as
// if read then.
func (a *attrs) prefetch(names ...string) {
	if _, ok := a.fsys.(FilesFS); !ok || len(names) == 0 {
		return
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = a.dir + "/" + n
	}
	a.ahead, a.aheadPaths = names, paths
	a.aheadVals, a.aheadErrs = readValues(a.fsys, paths)
}

// value reads the attribute at its path p, or takes it from those read
// ahead.
func (a *attrs) value(name string) (p, v string, err error) {
	if len(a.ahead) > 0 && a.ahead[0] == name {
		p, v, err = a.aheadPaths[0], a.aheadVals[0], a.aheadErrs[0]
		a.ahead, a.aheadPaths, a.aheadVals, a.aheadErrs = a.ahead[1:], a.aheadPaths[1:], a.aheadVals[1:], a.aheadErrs[1:]
		return p, v, err
	}
	p = a.dir + "/" + name
	v, err = readValue(a.fsys, p)
	return p, v, err
}

// str returns the attribute's value; false when it is absent (missing
// file) or failed (noted).
func (a *attrs) str(name string) (string, bool) {
	p, v, err := a.value(name)
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
	p, v, err := a.value(name)
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
