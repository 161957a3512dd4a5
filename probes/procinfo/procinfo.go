package procinfo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/prometheus/procfs"

	"github.com/rdmatop/rdmatop/probes"
)

// FS reads /proc facts below a root directory.
type FS struct {
	root     string
	proc     procfs.FS
	pageSize int
}

// Options for New.
type Options struct {
	// PageSize is the base page size in bytes of the host the files come
	// from (buddyinfo counts pages); 0 means this host's.
	PageSize int
}

// New returns an FS reading root/proc ("" or "/" for the host).
func New(root string, opts Options) (*FS, error) {
	if root == "" {
		root = "/"
	}
	dir := filepath.Join(root, "proc")
	p, err := procfs.NewFS(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", dir, probes.ErrNotSupported)
		}
		return nil, err
	}
	ps := opts.PageSize
	if ps <= 0 {
		ps = os.Getpagesize()
	}
	return &FS{root: root, proc: p, pageSize: ps}, nil
}

// path returns the host path of a file below root/proc.
func (f *FS) path(elem ...string) string {
	return filepath.Join(append([]string{f.root, "proc"}, elem...)...)
}

// readError classifies a failed read of a /proc file.
func readError(what string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &probes.PermissionError{What: "read " + what, Err: err}
	}
	return fmt.Errorf("%s: %w", what, err)
}
