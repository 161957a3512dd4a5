package sysfs

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/rdmatop/rdmatop/probes"
)

// CCParams is the upstream mlx5 congestion-control parameters from debugfs
// (sys/kernel/debug/mlx5/<pci>/cc_params, root only).
type CCParams struct {
	PCI    string            `json:"pci"`
	Params map[string]uint64 `json:"params"`
	Errors []FileError       `json:"errors,omitempty"`
}

// ReadCCParams reads every file of sys/kernel/debug/mlx5/<pci>/cc_params.
// Without access (debugfs is root only) the error is a
// *probes.PermissionError; without the directory it matches
// probes.ErrNotSupported. Files that cannot be read are noted and, if none
// could be read for lack of permission, that is the error.
func ReadCCParams(fsys fs.FS, pci string) (CCParams, error) {
	dir := "sys/kernel/debug/mlx5/" + pci + "/cc_params"
	c := CCParams{PCI: pci, Params: map[string]uint64{}}
	ents, err := fs.ReadDir(fsys, dir)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return c, &probes.PermissionError{What: "read " + dir + " (debugfs, root only)", Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return c, fmt.Errorf("%s: no debugfs cc_params (debugfs not mounted, or not mlx5): %w", pci, probes.ErrNotSupported)
	case err != nil:
		return c, err
	}
	denied := 0
	for _, ent := range ents {
		if ent.IsDir() {
			continue
		}
		errs := readParam(fsys, dir, ent.Name(), c.Params)
		for _, fe := range errs {
			if fe.Kind == KindPermission {
				denied++
			}
		}
		c.Errors = append(c.Errors, errs...)
	}
	if denied > 0 && len(c.Params) == 0 {
		return c, &probes.PermissionError{What: "read " + dir + " (debugfs, root only)", Err: fs.ErrPermission}
	}
	return c, nil
}
